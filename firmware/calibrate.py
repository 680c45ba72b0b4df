# Colour-sensor calibration (hardware/calibration.md).  On the board:
#   mpremote exec "from baulk.firmware.calibrate import main; main()"
# The handset asks for each ball in turn: drop it through every pocket, tl to
# br, DROPS times each, at the speeds play gives (a gentle roll in, a firm
# pot).  Each drop is sampled exactly as a match samples it (hw/pockets.py:
# the whole passage, against the empty pocket's background), so what the
# classifier learns is what it will be shown.  The means per pocket and ball
# become the classifier's centroids, the spread of the drops per ball its
# tolerance, and everything is written to /calibration.json, which the
# firmware loads at boot.  BACK takes the last drop again.

import json

from . import names
from .hw import colour

DROPS = 3  # per ball and pocket: 144 drops, some fifteen minutes
_POCKETS = 6
# The spread kept is this many times the drops' own (percent): a handful of
# drops underestimate it, and match play brings the room's nuisances.
_WIDEN = 200


def _defaults():
    return [int(x) for x in colour.DEFAULTS.split()]


class Calibration:
    """The features (r, g, b, l: hw/pockets.py features) of every drop, per
    pocket and ball, and what they make."""

    def __init__(self):
        self.drops = [[[] for _ in range(8)] for _ in range(_POCKETS)]  # type: list[list[list[list[int]]]]
        self.empty = [0] * _POCKETS  # each empty pocket's clear (hw/pockets.py bg)

    def add(self, pocket, ball, f):
        self.drops[pocket][ball].append([f[0], f[1], f[2], f[3]])

    def back(self, pocket, ball):
        """Take the last drop of that ball in that pocket back."""
        d = self.drops[pocket][ball]
        if d:
            d.pop()

    def centroids(self):
        """One (r, g, b, l) per ball for each pocket: the mean of its drops, or
        of every pocket's drops of that ball where a pocket had none."""
        out = []
        for p in range(_POCKETS):
            row = []
            for b in range(8):
                d = self.drops[p][b]
                if not d:
                    d = [x for q in range(_POCKETS) for x in self.drops[q][b]]
                if not d:
                    row.append(_defaults()[b * 8 : b * 8 + 4])
                    continue
                row.append([sum(x[k] for x in d) // len(d) for k in range(4)])
            out.append(row)
        return out

    def spread(self, cents):
        """Per ball, each feature's spread about its pocket's mean (the root
        mean square over every pocket's drops), widened."""
        out = []
        for b in range(8):
            row = []
            for k in range(4):
                total = 0
                n = 0
                for p in range(_POCKETS):
                    for x in self.drops[p][b]:
                        total += (x[k] - cents[p][b][k]) ** 2
                        n += 1
                s = 0
                if n > 1:
                    s = int((total / (n - 1)) ** 0.5 * _WIDEN / 100)
                row.append(max(s, 4 if k == 3 else 16))
            out.append(row)
        return out

    def result(self, threshold=colour.THRESHOLD):
        cents = self.centroids()
        return {
            "version": 2,
            "centroids": cents,
            "spread": self.spread(cents),
            "threshold": threshold,
            "white": sum(cents[p][7][3] for p in range(_POCKETS)) // _POCKETS,
            "empty": self.empty,
        }

    def save(self, path):
        with open(path, "w") as f:
            json.dump(self.result(), f)


def _show(display, lines):
    fb = display.fb
    fb.fill(0)
    for i in range(len(lines)):
        fb.text(lines[i][:16], 0, 8 * i, 1)
    for p in range(8):
        display.show_page(p)


def main(path="/calibration.json", drops=DROPS):
    from time import sleep_ms  # type: ignore[attr-defined]

    from .hw.inputs import Monotonic
    from .main import board_module

    hw = board_module().hardware()
    kp = hw.keypad
    pk = hw.pockets
    ring = hw.ring
    clock = Monotonic(hw.ticks)
    cal = Calibration()
    f = [0, 0, 0, 0]
    ball = pocket = n = 0
    shown = None
    while ball < 8:
        hw.wdt.feed()
        now = clock.update()
        lines = ["CALIBRATE", names.BALLS[ball], "drop it through", names.POCKETS[pocket],
                 "%d of %d" % (n + 1, drops), "BACK: again"]  # fmt: skip
        if lines != shown:
            _show(hw.display, lines)
            shown = lines
        while ring.pending():
            src, level, tick = ring.get()
            if src < _POCKETS:
                pk.edge(src, level, clock.at(tick))
            elif src == _POCKETS + 2:
                pk.speed_edge(level, clock.at(tick))
        busy = False
        for p in range(_POCKETS):
            pk.poll(p, now, ring.pins[p].value())
            if pk.busy[p]:
                busy = True
                if not pk.sample(p, now) and p == pocket and pk.features(p, 0, f):
                    cal.add(p, ball, f)
                    n += 1
                    if n == drops:
                        n = 0
                        pocket += 1
                        if pocket == _POCKETS:
                            pocket = 0
                            ball += 1
        if not busy:
            pk.background(now)
        if hw.scan_in_loop:
            kp.scan()
        if kp.get() == 17 and n:  # BACK: the last drop again
            n -= 1
            cal.back(pocket, ball)
        sleep_ms(2)
    for p in range(_POCKETS):
        cal.empty[p] = pk.bg[4 * p] // 16
    cal.save(path)
    _show(hw.display, ["CALIBRATED", "saved to", path, "reset the board"])
