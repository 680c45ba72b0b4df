# The pockets' sensor health: per pocket, the balls its beam counted, its
# beam's glitches (a break too short to be a ball), its unclear colour
# readings and the referee's corrections of it; and the pockets the last
# pocket check found weak or faulty (pocket_check.py).  The counts run from the
# day the flash was new, live in one small file (written whole and renamed,
# like the journal's files, so a power cut leaves the old or the new one) and
# go to the host now and then (SPEC.md `health`).
#
# A correction is a disagreement between a sensor and the referee, found the
# same way here and in the host's log (host/sensors.py runs this very class
# over the events it stores):
#   CHANGED     a sensor pot the referee took back (undo) and keyed again as
#               another ball in the same stroke
#   TAKEN_BACK  a sensor pot taken back and not keyed again by the time its
#               stroke is played again (the ball never went in)
#   KEYED       a pot keyed by hand where no sensor pot was taken back: its
#               pocket's sensor saw nothing (a pot keyed without its pocket
#               counts as `unplaced`)
# A sensor pot the referee keys again as the same ball is no disagreement:
# he took the stroke back for another reason.  Undo takes back whole strokes
# (docs/ENGINE.md, "Undo"), so each sensor pot is kept with its stroke's
# number in the frame: the strokes a later undo takes back are those numbered
# above the engine's count after it, and keying them again makes the same
# numbers.

import os
from array import array

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


from . import names

_N = const(6)
# Where each count's six pockets start in the array, then the rest.
BALLS = const(0)
GLITCHES = const(6)
UNCLEAR = const(12)
CORRECTIONS = const(18)
_UNPLACED = const(24)
_FAULTY = const(25)  # bit per pocket
_WEAK = const(26)
_MAGIC = const(27)  # the file's version, written last: a short file fails it
_SIZE = const(28)
_VERSION = const(0x4B485331)

CHANGED = const(1)
TAKEN_BACK = const(2)
KEYED = const(3)

_SRC_SENSOR = const(0)  # messages.SRC_SENSOR
_POTS = const(16)  # sensor pots kept: undo reaches back this many
_UNDONE = const(8)


class Health:
    def __init__(self, root=None):
        """root: the journal's directory (None: counts in RAM only, the host's)."""
        c = self.c = array("I")
        for _ in range(_SIZE):
            c.append(0)
        self.path = root
        self.pots = []  # sensor pots in the undo's reach: stroke << 6 | ball << 3 | pocket
        self.undone = []  # sensor pots taken back, not yet settled: the same form
        self.dirty = False  # counts not on flash yet
        self.unsent = True  # counts the host has not had
        if root is None:
            return
        try:
            with open(root + "/health", "rb") as f:
                n = f.readinto(c)
            if n != 4 * _SIZE or c[_MAGIC] != _VERSION:
                raise ValueError
        except (OSError, ValueError):  # none yet, or cut short: start again
            for i in range(_SIZE):
                c[i] = 0

    def save(self):
        c = self.c
        c[_MAGIC] = _VERSION
        tmp = self.path + "/htmp2"
        with open(tmp, "wb") as f:
            f.write(c)
        dst = self.path + "/health"
        try:
            os.rename(tmp, dst)
        except OSError:  # FAT cannot rename over a file
            os.remove(dst)
            os.rename(tmp, dst)
        self.dirty = False

    def count(self, at, n=1):
        self.c[at] += n
        self.dirty = self.unsent = True

    def faulty(self, pocket):
        return self.c[_FAULTY] >> pocket & 1

    def checked(self, faulty, weak):
        """A pocket check's outcome: masks over names.POCKETS; on flash at once."""
        c = self.c
        c[_FAULTY] = faulty
        c[_WEAK] = weak
        self.unsent = True
        if self.path is not None:
            self.save()

    def body(self, checking=False, cmd=0):
        """The `health` message (SPEC.md 7.5)."""
        c = self.c
        out = {4: c[_UNPLACED], 5: c[_FAULTY], 6: c[_WEAK]}
        for key in range(4):
            out[key] = [c[6 * key + p] for p in range(_N)]
        if checking:
            out[7] = True
            if cmd:
                out[8] = cmd
        return out

    # -- sensor and referee -------------------------------------------------------
    def follow(self, e, ev, src, logged):
        """After the engine took `ev` from `src`; logged: it went into the
        engine's log (a pot between strokes that did not is a ball that fell by
        itself, R3.12.1: nothing undo can take)."""
        name = ev["ev"]
        k = e.frame << 10 | e.frame_strokes  # the stroke being played, or the last
        if name == "pot":
            if not logged:
                return
            pocket = names.code_of(names.POCKETS, ev.get("pocket"))
            pot = k << 6 | names.code_of(names.BALLS, ev.get("ball")) << 3 | (pocket & 7)
            if src == _SRC_SENSOR:
                self._keep(self.pots, pot, _POTS)
            else:
                self._keyed(k, pot)
        elif name == "undo":
            for p in list(self.pots):
                if p >> 6 > k:
                    self.pots.remove(p)
                    self._keep(self.undone, p, _UNDONE)
        elif name == "rest":
            self._settle(k + 1)
        elif name == "strike" and src == _SRC_SENSOR:
            self._settle(k)  # play goes on: the strokes before this one are done
        elif name == "match":
            self.pots = []
            self.undone = []

    def _keep(self, where, pot, most):
        if len(where) >= most:
            where.pop(0)
        where.append(pot)

    def _keyed(self, k, pot):
        undone = self.undone
        ball = pot >> 3 & 7
        found = -1
        for i in range(len(undone)):
            if undone[i] >> 6 == k:
                if undone[i] >> 3 & 7 == ball:
                    found = i
                    break
                if found < 0:
                    found = i
        if found < 0:
            self.disagree(KEYED, pot & 7, -1, ball)
            return
        u = undone.pop(found)
        if u >> 3 & 7 != ball:
            self.disagree(CHANGED, u & 7, u >> 3 & 7, ball)

    def _settle(self, below):
        """Sensor pots taken back from strokes before `below` and not keyed again."""
        undone = self.undone
        i = 0
        while i < len(undone):
            u = undone[i]
            if u >> 6 < below:
                undone.pop(i)
                self.disagree(TAKEN_BACK, u & 7, u >> 3 & 7, -1)
            else:
                i += 1

    def disagree(self, kind, pocket, sensor_ball, keyed_ball):
        """One disagreement (pocket 7: not known); the host's log overrides this."""
        self.count(CORRECTIONS + pocket if pocket < _N else _UNPLACED)
