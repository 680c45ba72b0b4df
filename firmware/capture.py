# The sensor capture (SPEC.md 7.6 `capture_request`, `trace`): while the
# host asks for one, the table streams what its pockets' sensors saw, raw,
# so that a real table's passages can be replayed through this very
# detector off the board (bench/pockets.py --traces) and scored by the same
# numbers as the model's:
#
#   edges    every edge of the drop beams and the speed beams, with the
#            device's ms time, as the interrupt ring handed it to the app
#   windows  every new TCS34725 integration window hw/pockets.py read while a
#            ball was in a collar: pocket, time, clear, red, green, blue as
#            read, and the gain it was read at
#   marks    the handset asking the referee about a pocket's pot (his answer,
#            and every pot, is the reliable stream's event that follows)
#
# Off by default, and never during a match unless the host asks for it
# (`during`).  It is bounded three ways: a fixed buffer of _SIZE bytes (what
# finds it full is counted, `lost`, never waited for), a frame at most every
# _GAP_MS (at most 20 a second, each at most 493 bytes on the line), and an
# end by itself after `seconds` or `passages`, or as soon as a match is set
# up.  Its frames go unreliably: a trace lost on the line is lost, and no
# event ever waits behind one (the session sends the reliable stream first).
#
# This module is imported when a capture starts and dropped when it ends
# (app.py), like pocket_check.py: it costs the heap nothing while a match is
# played without one.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_T_TRACE = const(21)  # the message type (SPEC.md 7.1; tests/test_wire_codes.py)
# Records, little-endian (host_catalogue's TRACE_* and *_BYTES, held together
# by tests/protocol/test_wire_capture.py): an edge 4 bytes, a window 12, a mark 4.
_EDGES = const(32)
_WINDOWS = const(24)
_MARKS = const(8)
_W_AT = const(128)  # where the windows start in the buffer (after 32 edges)
_M_AT = const(416)  # ... and the marks (after 24 windows)
_SIZE = const(448)
_GAP_MS = const(50)  # a frame at most this often, and a record waits at most this long
_SLACK_MS = const(64)  # a frame's time `t`: this long before its first record
_SECONDS = const(120)  # bounds when the request gives none
_PASSAGES = const(30)
_EDGE_SPEED = const(8)  # inputs.EDGE_SPEED: the speed beams' input
_B_ASKED = const(-4)  # app.py's: the handset asks the referee about the queue's head
_ASKED = const(1)  # a mark's kind (host_catalogue.CAPTURE_MARKS)
# Why a capture ended (host_catalogue.CAPTURE_ENDS).
_END_STOPPED = const(1)
_END_TIME = const(2)
_END_PASSAGES = const(3)
_END_MATCH = const(4)


def start(app, seq, body):
    """The host's capture_request `seq` (app.py): None, or why it is
    refused (and nothing changes)."""
    c = app.capture
    if not body.get(0):  # stop
        if c is not None:
            c.stop = True
        elif app.check is None:
            _unload()
        return None
    e = app.engine
    why = None
    if c is not None:
        why = "a sensor capture is already running"
    elif app.check is not None:
        why = "a pocket check is running: capture after it"
    elif e.active and not e.match_over and not body.get(1):
        why = "no sensor capture during a match: ask for one with during (--during-match)"
    if why is not None:
        if c is None:
            _unload()
        return why
    app.capture = Capture(
        app, seq, body.get(1, False), body.get(2, _SECONDS), body.get(3, _PASSAGES)
    )
    return None


def _unload():
    from . import unload

    unload("capture")


class Capture:
    def __init__(self, app, seq, during, seconds, passages):
        self.app = app
        self.cmd = seq  # the capture_request that started it: every trace names it
        self.during = during
        self.ms = seconds * 1000
        self.passages = passages
        self.begun = app.now
        self.buf = bytearray(_SIZE)
        self.mv = memoryview(self.buf)
        self.edges = 0  # records in the buffer
        self.windows = 0
        self.marks = 0
        self.at = -1  # monotonic ms of the buffer's first record (-1: empty)
        self.sent = app.now - _GAP_MS  # when the last frame went
        self.frame = 0
        self.lost = 0
        self.prev = bytearray(8 * 6)  # each pocket's last window recorded (its raw bytes)
        self.busy = bytearray(6)  # each pocket's collar, as at the last tick
        self.seen = 0  # passages ended
        self.asked = None  # the queue item whose question is marked
        self.stop = False
        self.flush(app.now, 0)  # frame 0, at once: the host knows it runs

    # -- what the app hands on ----------------------------------------------------
    def edge(self, src, level, t):
        """An edge from the interrupt ring: a drop beam's (0-5) or the speed beams'."""
        if src < 6 or src == _EDGE_SPEED:
            if self.edges >= _EDGES or not self._room(t):
                self.lost += 1
                return
            i = 4 * self.edges
            self._put(i, src, level, t)
            self.edges += 1

    def sample(self, p, now):
        """After hw/pockets.py sampled pocket p: its window, when it read a new one."""
        pk = self.app.hw.pockets
        q = pk.rgbc  # the window just read, as read
        j = 0
        old = self.prev
        k = 8 * p
        same = True
        for i in range(4):
            v = q[j + i]
            if old[k + 2 * i] != v & 0xFF or old[k + 2 * i + 1] != v >> 8:
                same = False
                old[k + 2 * i] = v & 0xFF
                old[k + 2 * i + 1] = v >> 8
        if same:
            return  # no new window: the chip's was read already, or the gain's switch is waited out
        if not self.busy[p]:
            # A passage's first window: the empty pocket's background it is
            # measured against goes first (gain 2: pk.bg's mean, x16 undone).
            self.busy[p] = 1
            if self.windows < _WINDOWS and self._room(now):
                i = _W_AT + 12 * self.windows
                self._put(i, p, 2, now)
                bg = pk.bg
                buf = self.buf
                for c in range(4):
                    v = bg[4 * p + c] >> 4
                    buf[i + 4 + 2 * c] = v & 0xFF
                    buf[i + 5 + 2 * c] = v >> 8
                self.windows += 1
            else:
                self.lost += 1
        if self.windows >= _WINDOWS or not self._room(now):
            self.lost += 1
            return
        # The gain it was read at: 1 (4x) all through; 2 is the switch to
        # 4x that this very 16x window started.
        i = _W_AT + 12 * self.windows
        self._put(i, p, 1 if pk.gain[p] == 1 else 0, now)
        buf = self.buf
        for b in range(8):  # (a slice would allocate)
            buf[i + 4 + b] = old[k + b]
        self.windows += 1

    def _room(self, t):
        # The buffer's records count from a little before its first one's
        # time (an edge the ring hands on may be a little older than a
        # window read a pass before), in 16 bits.
        if self.at < 0:
            self.at = t - _SLACK_MS
        return 0 <= t - self.at <= 0xFFFF

    def _put(self, i, a, b, t):
        buf = self.buf
        d = t - self.at
        buf[i] = a
        buf[i + 1] = b
        buf[i + 2] = d & 0xFF
        buf[i + 3] = d >> 8

    # -- one pass -------------------------------------------------------------------
    def tick(self, now):
        app = self.app
        pk = app.hw.pockets
        for p in range(6):
            if self.busy[p] and not pk.busy[p]:
                self.seen += 1
                self.busy[p] = 0
        q = app.queue
        if q and q[0][3] == _B_ASKED and q[0] is not self.asked:
            self.asked = q[0]
            if self.marks < _MARKS and self._room(now):
                self._put(_M_AT + 4 * self.marks, _ASKED, q[0][1] & 0xFF, now)
                self.marks += 1
            else:
                self.lost += 1
        e = app.engine
        end = 0
        if self.stop:
            end = _END_STOPPED
        elif not self.during and e.active and not e.match_over:
            end = _END_MATCH
        elif now - self.begun >= self.ms:
            end = _END_TIME
        elif self.seen >= self.passages and not (
            pk.busy[0] or pk.busy[1] or pk.busy[2] or pk.busy[3] or pk.busy[4] or pk.busy[5]
        ):  # fmt: skip
            end = _END_PASSAGES
        if end:
            self.flush(now, end)
            app.capture = None
            _unload()
            return
        if self.at < 0 or now - self.sent < _GAP_MS or not app.link.up:
            return
        if (self.windows >= _WINDOWS or self.edges >= _EDGES or self.marks >= _MARKS
                or now - self.at >= _GAP_MS + _SLACK_MS):  # fmt: skip
            self.flush(now, 0)

    def flush(self, now, end):
        """What the buffer holds, as one `trace` (end: the capture's last, and why)."""
        app = self.app
        mv = self.mv
        body = {
            0: self.cmd,
            1: self.frame & 0xFFFF,
            2: app.t0 + (self.at if self.at >= 0 else now),
            3: bytes(mv[: 4 * self.edges]),
            4: bytes(mv[_W_AT : _W_AT + 12 * self.windows]),
        }
        if self.marks:
            body[5] = bytes(mv[_M_AT : _M_AT + 4 * self.marks])
        if self.lost:
            body[6] = self.lost if self.lost < 0xFFFF else 0xFFFF
        if end:
            body[7] = end
        app.link.send(_T_TRACE, body)
        self.frame += 1
        self.sent = now
        self.at = -1
        self.edges = self.windows = self.marks = self.lost = 0
