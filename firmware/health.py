# The pockets' sensor health: per pocket, the balls its beam counted, its
# beam's glitches (a break too short to be a ball), its unclear colour
# readings and the referee's corrections of it; and the pockets the last
# pocket check found weak or faulty (pocket_check.py).  The counts run from the
# day the flash was new, live in one small file beside the handset's (written
# whole and renamed by handset.py, so a power cut leaves the old or the new
# one) and go to the host now and then (SPEC.md `health`).
#
# A correction is a disagreement between a sensor and the referee, found the
# same way here and in the host's log (host/sensors.py runs this very class
# over the events it stores):
#   _D_CHANGED     a sensor pot the referee took back (undo) and keyed again as
#                another ball in the same stroke
#   _D_TAKEN_BACK  a sensor pot taken back and not keyed again by the time its
#                stroke is played again (the ball never went in)
#   _D_KEYED       a pot keyed by hand where no sensor pot was taken back: its
#                pocket's sensor saw nothing (a pot keyed without its pocket
#                counts as `unplaced`)
# A sensor pot the referee keys again as the same ball is no disagreement:
# he took the stroke back for another reason.  Undo takes back whole strokes
# (docs/ENGINE.md, "Undo"), so each sensor pot is kept with its stroke's
# number in the frame: the strokes a later undo takes back are those numbered
# above the engine's count after it, and keying them again makes the same
# numbers.
#
# Every name here is one the firmware already has (methods, attributes and
# arguments alike): MicroPython interns each new name for good, and the
# table of names grows by doubling (bench/firmware_bench.py, the heap).

from array import array

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


from . import names

_N = const(6)
# Where each count's six pockets start in the array, then the rest.
_BALLS = const(0)
_GLITCHES = const(6)
_UNCLEAR = const(12)
_CORRECTIONS = const(18)
_UNPLACED = const(24)
_FAULTY = const(25)  # bit per pocket
_WEAK = const(26)
_MAGIC = const(27)  # the file's version, written last: a short file fails it
_SIZE = const(28)
_VERSION = const(0x4B485331)

# Kinds of disagreement: codes of host/sensors.py KINDS (tests/test_wire_codes.py).
_D_CHANGED = const(1)
_D_TAKEN_BACK = const(2)
_D_KEYED = const(3)

_SRC_SENSOR = const(0)  # messages.SRC_SENSOR
_POTS = const(16)  # sensor pots kept: undo reaches back this many
_BACK = const(1 << 23)  # a kept pot's flag: taken back, not settled yet (a small int)


class Health:
    def __init__(self, hs):
        """hs: the handset (handset.py), whose files sit in the journal's
        directory; None: counts in RAM only (the host's log)."""
        c = self.c = array("I")
        for _ in range(_SIZE):
            c.append(0)
        self.hs = hs
        # Sensor pots in undo's reach: stroke << 6 | ball << 3 | pocket, with
        # _BACK once taken back.
        self.marks = []
        self.dirty = False  # counts not on flash yet
        self.pending = 1  # 0: the host has the counts, 1: they changed, 2: send now
        self.at = 0  # when the counts were last written (app.py's clock)
        self.last = 0  # ... and last sent
        if hs is None:
            return
        try:
            with open(hs.path("health"), "rb") as f:
                n = f.readinto(c)
            if n != 4 * _SIZE or c[_MAGIC] != _VERSION:
                raise ValueError
        except (OSError, ValueError):  # none yet, or cut short: start again
            for i in range(_SIZE):
                c[i] = 0

    def write(self):
        """The counts to flash."""
        self.c[_MAGIC] = _VERSION
        self.hs.write("health", self.c)
        self.dirty = False

    def count(self, i, n=1):
        self.c[i] += n
        self.dirty = True
        if not self.pending:
            self.pending = 1

    def take(self, beams):
        """The balls and glitches the beams counted since the last look."""
        for b in beams:
            if b.balls:
                self.count(_BALLS + b.pocket, b.balls)
                b.balls = 0
            if b.glitches:
                self.count(_GLITCHES + b.pocket, b.glitches)
                b.glitches = 0

    def ask(self, pocket):
        """A colour reading the device could not name: the referee is asked."""
        self.count(_UNCLEAR + pocket)

    def check(self, pocket):
        """1 when the last pocket check found the pocket faulty."""
        return self.c[_FAULTY] >> pocket & 1

    def apply(self, marks):
        """A pocket check's outcome: the faulty pockets' bits, and the weak
        ones' shifted by 8; on flash at once."""
        c = self.c
        c[_FAULTY] = marks & 63
        c[_WEAK] = marks >> 8
        self.pending = 2
        if self.hs is not None:
            self.write()

    def body(self, cmd=-1):
        """The `health` message (SPEC.md 7.6); cmd >= 0: a check runs, started
        by that check_request (0: on the handset)."""
        c = self.c
        out = {4: c[_UNPLACED], 5: c[_FAULTY], 6: c[_WEAK]}
        for key in range(4):
            out[key] = [c[6 * key + p] for p in range(_N)]
        if cmd >= 0:
            out[7] = True
            if cmd:
                out[8] = cmd
        return out

    # -- sensor and referee -------------------------------------------------------
    def feed(self, e, ev, src, n):
        """After engine e took `ev` from `src`; n: its log's length before (a
        pot between strokes that did not go into the log is a ball that fell
        by itself, R3.12.1: nothing undo can take)."""
        name = ev["ev"]
        k = e.frame << 10 | e.frame_strokes  # the stroke being played, or the last
        kept = self.marks
        below = -1  # pots taken back from strokes before this are settled
        if name == "pot":
            if not (e.stroke_open or e.log_len != n):
                return
            pocket = names.code_of(names.POCKETS, ev.get("pocket")) & 7
            ball = names.code_of(names.BALLS, ev.get("ball")) & 7
            if src == _SRC_SENSOR:
                if len(kept) >= _POTS:
                    kept.pop(0)
                kept.append(k << 6 | ball << 3 | pocket)
                return
            # Keyed: a pot of this stroke taken back, of this ball if any.
            found = -1
            for i in range(len(kept)):
                p = kept[i]
                if p & _BACK and (p & ~_BACK) >> 6 == k:
                    if p >> 3 & 7 == ball:
                        found = i
                        break
                    if found < 0:
                        found = i
            if found < 0:
                self.disagree(_D_KEYED, pocket, -1, ball)
                return
            p = kept.pop(found)
            if p >> 3 & 7 != ball:
                self.disagree(_D_CHANGED, p & 7, p >> 3 & 7, ball)
        elif name == "undo":
            for i in range(len(kept)):
                if kept[i] >> 6 > k and not kept[i] & _BACK:
                    kept[i] |= _BACK
        elif name == "rest":
            below = k + 1
        elif name == "strike" and src == _SRC_SENSOR:
            below = k  # play goes on: the strokes before this one are done
        elif name == "match":
            kept.clear()
        if below < 0:
            return
        i = 0
        while i < len(kept):
            p = kept[i]
            if p & _BACK and (p & ~_BACK) >> 6 < below:
                kept.pop(i)
                self.disagree(_D_TAKEN_BACK, p & 7, p >> 3 & 7, -1)
            else:
                i += 1

    def disagree(self, kind, pocket, ball, k):
        """The sensor at `pocket` (7: not known) read `ball`, the referee
        keyed `k` (-1: none); the host's log overrides this."""
        self.count(_CORRECTIONS + pocket if pocket < _N else _UNPLACED)
