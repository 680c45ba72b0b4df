# The pre-match pocket check (hardware/calibration.md, "The pocket check"):
# the referee drops the cue ball through each pocket in turn, tl to br, and
# the device holds what its beam and colour sensor made of it against the
# calibration:
#
#   the beam     the break must end, and last at least twice the beam's
#                debounce (hw/pockets.py): a shorter one is the beam catching the
#                ball's edge, one step from missing it (weak); no break at all
#                (the referee presses OK: the ball went, nothing was seen) or
#                one that does not end is faulty
#   the colour   the passage, sampled as play samples it (hw/pockets.py),
#                must be the cue ball by the
#                calibrated centroids (hw/colour.py, /calibration.json) with a
#                confidence halfway from the threshold to 100; under that it is weak;
#                another ball, a reading too unclear to name, nothing in front
#                of the sensor or a sensor that does not answer is faulty
#   the drift    against the calibration (calibrate.py): the empty pocket's
#                reading (room light leaking in, a dirty window) or the white's
#                brightness (an aging LED) moved by a third or more: weak,
#                calibrate again
#
# A pocket found faulty has its pots named by the referee (app.py asks, as
# for an unclear colour) until a later check passes it.  The result goes to
# the host as a `pocket_check` message, journaled like an event (SPEC.md 7.6).
#
# This module is imported when a check starts and dropped when it ends
# (app.py), so it takes no heap while a match is played; the names it brings
# (MicroPython keeps every name for good) are mostly ones the firmware has.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


from . import names

# Verdicts and reasons: codes of host_catalogue.CHECK_VERDICTS, CHECK_REASONS
# (tests/test_wire_codes.py holds them together).
_V_OK = const(0)
_V_WEAK = const(1)
_V_FAULTY = const(2)
_R_NONE = const(0)
_R_NO_BREAK = const(1)
_R_BEAM_STUCK = const(2)
_R_SHORT_BREAK = const(3)
_R_NO_SENSOR = const(4)
_R_DARK = const(5)
_R_WRONG_BALL = const(6)
_R_UNCLEAR = const(7)
_R_LOW_CONFIDENCE = const(8)
_R_DRIFT = const(9)
_WHITE = const(7)
_NO_BALL = const(255)
_STUCK_MS = const(2000)  # a break this long is a beam blocked, not a ball
_N = const(6)

_WAIT = const(0)  # for the ball in the pocket being checked
_DROP = const(1)  # the beam broke: for its end and the colour reading
_DONE = const(2)  # every pocket checked: the result shown until OK

_K_OK = const(16)  # keypad_flow's OK
_IDLE = const(0)  # keypad_flow.IDLE
_T_POCKET_CHECK = const(17)  # the message type (SPEC.md 7.1; tests/test_wire_codes.py)
_H_FAULTY = const(25)  # places in the health counts (app.py's Health)
_H_WEAK = const(26)


def start(app, cmd=0):
    """A check, started by the app (app.py pocket_check)."""
    return Check(app, cmd)


class Check:
    def __init__(self, app, cmd=0):
        self.app = app
        self.cmd = cmd  # the host's check_request (0: from the handset)
        self.pocket = 0
        self.state = _WAIT
        self.start = 0
        self.verdicts = bytearray(_N)
        self.reasons = bytearray(_N)
        self.break_ms = [0] * _N
        self.confidence = bytearray(_N)
        self.read = bytearray(b"\xff" * _N)
        self.colour_read = False

    # -- what the app hands on ------------------------------------------------------
    def ball(self, pocket, start):
        """A pocket's beam counted a ball whose break began at `start`."""
        if self.state == _WAIT and pocket == self.pocket:
            self.state = _DROP
            self.start = start
            self.colour_read = False

    def key(self, k):
        if k != _K_OK:
            return
        if self.state == _WAIT:  # the ball went through and the beam saw nothing
            self.apply(_V_FAULTY, _R_NO_BREAK, 0)
        elif self.state == _DONE:
            self.close()

    def tick(self, now):
        if self.state != _DROP:
            return
        app = self.app
        hw = app.hw
        p = self.pocket
        pk = hw.pockets
        if pk.low[p]:
            if now - self.start >= _STUCK_MS:
                self.apply(_V_FAULTY, _R_BEAM_STUCK, now - self.start)
            return
        if pk.busy[p]:
            return  # the ball is still passing the colour sensor
        if not self.colour_read:
            self.colour_read = True
            self._colour(hw, p)
        length = pk.restored[p] - self.start
        why = self.reasons[p]  # what the colour reading found, if anything
        if why:
            self.apply(_V_FAULTY, why, length)
        elif length < 2 * pk.debounce_ms:
            self.apply(_V_WEAK, _R_SHORT_BREAK, length)
        elif self.confidence[p] < (100 + hw.classifier.threshold) // 2:
            self.apply(_V_WEAK, _R_LOW_CONFIDENCE, length)
        elif self.drifted(hw, p):
            self.apply(_V_WEAK, _R_DRIFT, length)
        else:
            self.apply(_V_OK, _R_NONE, length)

    # -- judging ----------------------------------------------------------------------
    def _colour(self, hw, p):
        f = hw.pockets.rgbc
        pk = hw.pockets
        if not pk.ok >> p & 1 or not pk.read(p, f):
            self.reasons[p] = _R_NO_SENSOR
            return
        if not pk.features(p, 0, f):  # the white passed and the sensor saw nothing
            self.reasons[p] = _R_DARK
            return
        cl = hw.classifier
        ball = cl.classify(p, f)
        self.confidence[p] = cl.confidence
        if ball >= 0:
            self.read[p] = ball
            if ball != _WHITE:
                self.reasons[p] = _R_WRONG_BALL
        else:
            self.reasons[p] = _R_UNCLEAR

    def drifted(self, hw, p):
        """Pocket p has moved from its calibration (calibrate.py's file, read
        now: the match never keeps it in the heap): its empty reading by a
        third and 8 counts or more (light leaking in, a dirty window), or the
        white just read by a third in brightness (the LED)."""
        try:
            import json

            with open(hw.flash[: -len("journal")] + "calibration.json") as f:
                cal = json.load(f)
            was = cal["empty"][p]
            white = cal["centroids"][p][7][3]
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return False  # not calibrated: nothing to drift from
        empty = hw.pockets.bg[4 * p] // 16
        if abs(empty - was) * 3 > was and abs(empty - was) >= 8:
            return True
        return abs(hw.pockets.rgbc[3] - white) * 3 > white

    def apply(self, kind, reason, length):
        """The pocket being checked gets its verdict (kind), and why."""
        p = self.pocket
        self.verdicts[p] = kind
        self.reasons[p] = reason
        self.break_ms[p] = length if length < 0xFFFF else 0xFFFF
        app = self.app
        app.dirty = True
        if p + 1 < _N:
            self.pocket = p + 1
            self.state = _WAIT
            return
        self.state = _DONE
        faulty = weak = 0
        for i in range(_N):
            if self.verdicts[i] == _V_FAULTY:
                faulty |= 1 << i
            elif self.verdicts[i] == _V_WEAK:
                weak |= 1 << i
        h = app.health  # the pockets' state, on flash at once
        h.c[_H_FAULTY] = faulty
        h.c[_H_WEAK] = weak
        h.write()
        h.pending = 2  # the host hears of them now
        body = {
            0: list(self.verdicts),
            1: list(self.reasons),
            2: self.break_ms,
            3: list(self.confidence),
            4: list(self.read),
            6: app.t(),
        }
        if self.cmd:
            body[5] = self.cmd
        app._stream(_T_POCKET_CHECK, body, app.journal.append(body, body[6], 1))

    # -- the handset ----------------------------------------------------------------------
    def rows(self, persian):
        """The check's screen (screens.py's rows of parts): 8 rows in English;
        in Persian its title and the rows below it, a pocket a row (screens.py
        pages them)."""
        done = self.state == _DONE
        rows = [["CHECK DONE"] if done else ["POCKET CHECK"]]  # type: list[list[object]]
        if not done:
            rows.append(["drop the white"])
            rows.append(["into pocket ", names.POCKETS[self.pocket]])
        for i in range(_N if done else self.pocket):  # what the pockets checked gave
            if not (done and self.verdicts[i] == _V_OK):
                rows.append([names.POCKETS[i], " ", self.label(i)])
        if done and len(rows) == 1:
            rows.append(["all pockets ok"])
        hint = ["OK close"] if done else ["OK unseen  BACK"]  # type: list[object]
        if persian:
            rows.append(hint)
            return rows
        out = []  # type: list[list[object] | None]
        out.extend(rows[0:3] if not done else rows)
        if not done:  # English: the pockets checked so far two a row, from row 4
            out.append(None)
            for i in range(3, len(rows), 2):
                out.append(rows[i] if i + 1 >= len(rows) else rows[i] + [None] + rows[i + 1])
        while len(out) < 7:
            out.append(None)
        out.append(hint)
        return out

    def close(self):
        """The check is over (its result is recorded) or the referee stopped
        it (nothing changes): the handset goes back to play, the host hears
        of it, and this module leaves the heap."""
        from . import unload

        app = self.app
        app.check = None
        app.flow.step = _IDLE
        app.health.pending = 2
        app.dirty = True
        unload("pocket_check")

    def label(self, i):
        """Pocket i's verdict as the handset words it."""
        return ("ok", "weak", "faulty")[self.verdicts[i]]
