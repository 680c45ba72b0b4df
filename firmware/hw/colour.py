# Which ball passed a pocket's colour sensor.
#
# The pocket (hw/pockets.py) sums the colour windows of a ball's passage,
# each less the empty pocket's background and weighted by how much ball it
# saw, into four features: the chromaticity r, g, b per 1024 of the clear
# channel, and the brightness l (the windows' mean clear above the
# background).  Chromaticity does not change when the LED ages or a ball is a
# shade lighter; brightness does, so it only weighs where it separates (the
# white from the black, the black from an empty pocket), with a wide
# tolerance.
#
# Calibration (hardware/calibration.md, firmware/calibrate.py) rolls every
# ball through every pocket and keeps, per pocket and ball, the features'
# mean, and per ball their spread.  The nearest ball in units of its spread
# wins, with a confidence from how much nearer it is than the runner-up; a
# reading near two balls, or near none, is unknown, and the referee is asked
# with the two likeliest first.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


UNKNOWN = const(-1)
THRESHOLD = const(50)  # confidence (0..100) below which the ball is unknown
_FAR = const(1600)  # distance (64 a spread squared) beyond which a reading is no ball we know
# the least spread of a chromaticity (per 1024): the ball sets' and sensors' own
_CHROMA = const(10)
_N = const(6)

# Ball order of firmware/names.py: red yellow green brown blue pink black white.
# Per ball: r, g, b per 1024 of clear and the brightness l (the passage's
# weighted mean clear above the background, counts at the board's gains and
# 2.4 ms: hw/pockets.py, in 16x counts), then each one's spread, for the reference ball set
# through a new collar (the pocket model, docs/POCKET-MODEL.md, calibrated by
# calibrate.py with the balls at 0.5-2.5 m/s; tests/firmware/test_fw_detector.py
# holds the two together).  Calibrate each table: its sensors and balls differ.
# Text, not tuples: with the code in ROMFS it stays in flash.
DEFAULTS = """
843 132 198 231  24 24 24 84
666 294 216 596  24 24 24 232
328 501 326 103  24 24 24 43
713 222 237 125  24 24 24 51
260 358 536 127  24 24 24 40
696 214 269 516  24 24 24 186
505 337 325 54   24 24 24 22
517 339 313 730  24 24 24 307
"""


class Classifier:
    def __init__(self, centroids=None, spread=None, threshold=THRESHOLD, white=0):
        """centroids: one (r, g, b, l) per ball for every pocket, or six such
        lists (one per pocket); spread: one (r, g, b, l) per ball; None: the
        defaults."""
        d = [int(x) for x in DEFAULTS.split()]
        per_pocket = centroids is not None and len(centroids) == _N
        # Bytes, for the heap: a chromaticity in 4ths (a spread in halves),
        # a brightness in 8ths (up to 2,040, past the brightest white).
        self.means = m = bytearray(_N * 32)
        self.spread = s = bytearray(32)
        for b in range(8):
            for k in range(4):
                v = spread[b][k] if spread is not None else d[b * 8 + 4 + k]
                v = v >> 3 if k == 3 else v >> 1
                s[b * 4 + k] = v if v < 255 else 255
                for p in range(_N):
                    if centroids is None:
                        v = d[b * 8 + k]
                    else:
                        v = centroids[p][b][k] if per_pocket else centroids[b][k]
                    v = v >> 3 if k == 3 else v >> 2
                    m[p * 32 + b * 4 + k] = v if v < 255 else (255 if v > 0 else 0)
        self.threshold = threshold
        self.white = white  # the calibrated white's brightness (0: not calibrated)
        self.confidence = 0  # of the last classification
        self.second = UNKNOWN  # the runner-up of the last classification

    def darker_than_any(self, p, f):
        """True when features f are under two thirds of the calibrated black's
        brightness in pocket p: no ball, but a ball's tail."""
        return f[3] * 3 < self.means[p * 32 + 6 * 4 + 3] << 4  # the black's l, in 8ths

    def _brightness(self, i, ball, f):
        # Brightness goes by ratio: a ball 1.4 times brighter or dimmer than
        # its own (an aging LED, another ball set, where it fell in the slot)
        # is one spread, or the calibrated spread if wider.
        lum = (self.means[i + 3] << 3) + 4
        x = f[3] + 4
        r16 = x * 16 // lum if x > lum else lum * 16 // x  # the ratio, in 16ths
        tol = (self.spread[ball * 4 + 3] << 3) * 16 // lum
        q = (r16 - 16) * 8 // (tol if tol > 6 else 6)
        return q * q

    def faded(self, p, f, ball):
        """The distance of features f to pocket p's ball as chalk or wear
        fades it: its chromaticity moved toward the white's (a neutral
        surface's) by up to 7 tenths of the way, its brightness its own.  A
        chalked red reads as a pink and a worn one as a brown: the colour
        alone cannot tell them apart (docs/DESIGN.md, the journey of a pot)."""
        m = self.means
        s = self.spread
        i = p * 32 + ball * 4
        w = p * 32 + 28  # the white's
        uu = vu = 0
        for k in range(3):
            u = m[w + k] - m[i + k]
            uu += u * u
            vu += (f[k] - (m[i + k] << 2)) * u
        # How far along the way to the white, in uu's units of 4ths.
        if vu < 0:
            vu = 0
        if vu * 10 > uu * 28:
            vu = uu * 28 // 10
        d = 0
        for k in range(3):
            c = (m[i + k] << 2) + (m[w + k] - m[i + k]) * vu // (uu if uu else 1)
            sd = s[ball * 4 + k] << 1
            q = (f[k] - c) * 8 // (sd if sd > _CHROMA else _CHROMA)
            d += q * q
        return d + self._brightness(i, ball, f)

    def classify(self, p, f, threshold=-1):
        """Ball code of pocket p's features f (r, g, b, l), or UNKNOWN; sets
        self.confidence (0..100) and self.second (the next likeliest).
        threshold 0: the likeliest ball whatever its confidence."""
        m = self.means
        s = self.spread
        best = second = -1
        best_ball = second_ball = UNKNOWN
        for ball in range(8):
            i = p * 32 + ball * 4
            d = 0
            for k in range(3):
                sd = s[ball * 4 + k] << 1
                q = (f[k] - (m[i + k] << 2)) * 8 // (sd if sd > _CHROMA else _CHROMA)
                d += q * q
            d += self._brightness(i, ball, f)
            if best < 0 or d < best:
                second, second_ball = best, best_ball
                best, best_ball = d, ball
            elif second < 0 or d < second:
                second, second_ball = d, ball
        self.second = second_ball
        if best > _FAR:
            self.confidence = 0  # nothing we know
            return UNKNOWN
        # (second - best) / (second + best) in percent, kept in small integers.
        self.confidence = (second - best) * 100 // (second + best + 1)
        if self.confidence < (self.threshold if threshold < 0 else threshold):
            return UNKNOWN
        return best_ball


def load(path):
    """A Classifier from a calibration file written by firmware/calibrate.py,
    or the defaults when there is none."""
    try:
        import json

        with open(path) as f:
            cal = json.load(f)
        if cal.get("version") != 2:  # the held-still calibration of old: its features differ
            raise ValueError
        cents = cal["centroids"]
        spread = cal.get("spread")
        if len(cents) not in (8, _N) or (spread is not None and len(spread) != 8):
            raise ValueError
        return Classifier(cents, spread, cal.get("threshold", THRESHOLD), cal.get("white", 0))
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return Classifier()
