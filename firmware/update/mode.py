# The update mode: what the board runs instead of the match while the host
# sends it a release (SPEC.md "The update mode").  main.py starts it once the
# app has left its loop for an `update_request`; the match's modules are out
# of the heap by then, so that the stager's objects and names never sit
# beside the match's (bench/firmware_bench.py counts the match alone).
#
# There is no session here: only frames.  The host sends the stream (the
# bundle's tag, then the bundle file) in `update_data` chunks; every chunk
# that starts where the table's stream ends is written, and each one, written
# or not, is answered with an `update_status` that says where the stream
# ends now, so a lost or reordered chunk costs only a resend from there
# (go-back-N).  The stream's head (tag, header, manifest) is kept in RAM until
# it is whole (at most 4 KB: format.MAX_MANIFEST); the files go straight to
# flash through stage.py.  A head that names what the slot already holds
# resumes after it, so a cut cable or a power cut costs the head again and no
# file byte twice.
#
# The mode ends (done) when the release is committed, a trial confirmed, or
# the host has said nothing for _QUIET_MS; the board then restarts
# (main.py), into the trial, the confirmed release, or the match as it was.

from ...protocol import frame
from . import format as fm
from . import record, stage

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_T_UPDATE_STATUS = const(24)  # SPEC.md 7.5 (private: protocol/messages.py)
_T_UPDATE_DATA = const(25)
_OP_CONFIRM = const(1)
_READY = const(0)
_RECEIVING = const(1)
_CHECKING = const(2)
_COMMITTED = const(3)
_REFUSED = const(4)
_CONFIRMED = const(5)
_WINDOW = const(4)  # chunks in flight: 4 KB, what a Pico's UART buffer and a flash write allow
_IDLE_MS = const(1000)  # an update_status this often while nothing comes
_QUIET_MS = const(10000)  # nothing from the host this long: back to the match (it resumes)
_WIRE = const(1055)  # update_data's longest frame on the line (SPEC.md 2; private in frame.py)
_TAG = const(32)
_HEAD = const(40)  # the tag and the bundle's MAGIC and manifest length


class Mode:
    def __init__(self, port, key, root, board, arch, mpy, op, now):
        self.port = port
        self.key = key
        self.root = root
        self.board = board
        self.arch = arch
        self.mpy = mpy
        self.reader = frame.FrameReader(_WIRE)
        self.writer = frame.FrameWriter()
        self.rx = bytearray(256)
        self.stage = stage.Stage(root)
        self.head = bytearray()  # the stream's head, until it is whole
        self.at = 0  # where the file bytes start in the stream; 0: the head is not whole
        self.done = None  # the state the mode ended in
        self.heard = self.said = now
        if op == _OP_CONFIRM:
            # The host saw the trial shake hands, replay its journal and
            # report its sensors: the health check passed.
            if record.confirm(root):
                self.end(_CONFIRMED)
            else:
                self.end(_REFUSED, "confirm")  # no trial runs
        else:
            self.status(_READY)

    def offset(self):
        s = self.stage
        return self.at + s.offset if self.at else len(self.head)

    def status(self, state, why=None):
        rec = self.stage.rec
        trial = record.running(rec) == rec[record.TRIAL]
        body = {0: state, 1: self.offset(), 3: _WINDOW, 4: record.version(rec), 5: trial}
        body[6] = rec[record.LAST]
        body[7] = rec[record.LAST_V]
        if why is not None:
            body[2] = why
        try:  # noqa: SIM105 (no contextlib on MicroPython)
            self.port.write(self.writer.build(_T_UPDATE_STATUS, 0, 0, body))
        except OSError:
            pass  # the cable is out: the host asks again
        self.said = self.heard

    def end(self, state, why=None):
        self.status(state, why)
        self.done = state

    def refuse(self, why):
        # Nothing the running version needs has changed: the stream starts
        # again from its head, which the host may send again (another release).
        self.head = bytearray()
        self.at = 0
        self.stage.man = None
        self.status(_REFUSED, why)

    def poll(self, now):
        port = self.port
        while port.any():
            n = port.readinto(self.rx)
            if not n:
                break
            for f in self.reader.feed(bytes(memoryview(self.rx)[:n])):
                if f.error is None and f.mtype == _T_UPDATE_DATA and type(f.body) is dict:
                    self.heard = now
                    self.data(f.body)
                if self.done is not None:
                    return
        if now - self.heard >= _QUIET_MS:
            self.done = _READY  # the host has gone: back to the match
        elif now - self.said >= _IDLE_MS:
            self.said = now
            self.status(_RECEIVING if self.offset() else _READY)

    def data(self, b):
        off = b.get(0)
        d = b.get(1)
        if type(off) is not int or (d is not None and type(d) is not bytes):
            return self.status(_RECEIVING)
        s = self.stage
        if b.get(2) is True:
            if not self.at or s.man is None or s.offset != s.man[fm.M_SIZE]:
                return self.status(_RECEIVING)  # not all there: the host sends the rest
            self.status(_CHECKING)
            why = s.commit(self.key)
            if why is not None:
                return self.refuse(why)
            return self.end(_COMMITTED)
        if not d:
            return self.status(_RECEIVING)
        if not self.at:
            return self.take_head(off, d)
        why = s.chunk(off - self.at, d)
        if why == "size":
            return self.refuse(why)
        self.status(_RECEIVING)  # written, or not where the stream ends: either way, where it ends

    def take_head(self, off, d):
        h = self.head
        if off != len(h):
            return self.status(_RECEIVING)
        h.extend(d)
        if len(h) < _HEAD:
            return self.status(_RECEIVING)
        if h[_TAG : _TAG + 4] != fm.MAGIC:
            return self.refuse("manifest")
        n = int.from_bytes(h[_TAG + 4 : _HEAD], "big")
        if n > fm.MAX_MANIFEST:
            return self.refuse("manifest")
        end = _HEAD + n
        if len(h) < end:
            return self.status(_RECEIVING)
        mb = bytes(h[_HEAD:end])
        s = self.stage
        if s.resume_offset(mb) is None:
            rec = s.rec
            why = s.begin(
                mb,
                bytes(h[:_TAG]),
                self.key,
                record.vtuple(record.version(rec)),
                record.vtuple(rec[record.FLOOR]),
                self.board,
                self.arch,
                self.mpy,
            )
            if why is not None:
                return self.refuse(why)
        self.at = end
        self.head = bytearray()  # the head's RAM back
        rest = h[end:]
        if rest and s.offset == 0:
            s.chunk(0, bytes(rest))
        self.status(_RECEIVING)


def run(hw, op):
    # The board's update mode (main.py): until it is done, then a restart.
    import sys
    from time import sleep_ms, ticks_diff, ticks_ms  # type: ignore[attr-defined]

    import machine  # type: ignore[import-not-found]

    t0 = ticks_ms()

    def ticks():  # ms since the mode began: no wrap to mind
        return ticks_diff(ticks_ms(), t0)

    esp = sys.platform == "esp32"
    m = Mode(
        hw.serial,
        hw.key,
        hw.flash.rpartition("/")[0],
        "esp32" if esp else "pico",
        "xtensawin" if esp else "armv6m",  # a board kind's one arch (host/cli/firmware.py ARCH)
        sys.implementation._mpy & 0x3FF,  # the .mpy ABI: format.M_MPY
        op,
        ticks(),
    )
    while m.done is None:
        m.poll(ticks())
        hw.wdt.feed()  # stage.py's writes and check() are short: 256 bytes at a time
        sleep_ms(2)
    sleep_ms(50)  # the last update_status out of the port
    machine.reset()
