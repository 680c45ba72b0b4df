# Which ball is in front of a pocket's colour sensor.
#
# A reading (clear, red, green, blue) becomes four integer features: the
# chromaticity r, g, b per 1024 of clear, and the brightness l per 1024 of the
# calibrated white.  Calibration (hardware/calibration.md) stores one centroid
# per ball.  The nearest centroid wins, with a confidence from how much nearer
# it is than the runner-up: a reading halfway between two balls has confidence
# 0 and is reported as unknown, so the referee confirms it on the keypad.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


UNKNOWN = const(-1)
THRESHOLD = const(35)  # confidence (0..100) below which the ball is unknown
_MAX_DIST = const(90000)  # squared distance beyond which a reading is nothing we know

# Ball order of firmware/names.py: red yellow green brown blue pink black white.
# Typical centroids under the pocket's white LED; calibrate each table.
DEFAULT_CENTROIDS = (
    (560, 230, 210, 330),
    (430, 390, 170, 720),
    (210, 450, 330, 260),
    (450, 300, 240, 200),
    (180, 320, 490, 300),
    (480, 270, 270, 610),
    (340, 340, 330, 50),
    (330, 350, 330, 1000),
)
DEFAULT_WHITE = const(6000)  # clear count of the cue ball at 16x gain, 4.8 ms


class Classifier:
    def __init__(self, centroids=DEFAULT_CENTROIDS, white=DEFAULT_WHITE, threshold=THRESHOLD):
        self.centroids = centroids
        self.white = white if white > 0 else 1
        self.threshold = threshold
        self.confidence = 0  # of the last classification
        # Half the brightness of the darkest ball (the black): darker is no ball.
        self.darkest = min(c[3] for c in centroids) // 2

    def features(self, c, r, g, b):
        if c <= 0:
            return 0, 0, 0, 0
        lum = c * 1024 // self.white
        return r * 1024 // c, g * 1024 // c, b * 1024 // c, lum if lum < 2048 else 2047

    def classify(self, c, r, g, b):
        """Ball code of a reading, or UNKNOWN; sets self.confidence (0..100)."""
        fr, fg, fb, fl = self.features(c, r, g, b)
        best = second = -1
        best_ball = UNKNOWN
        ball = 0
        for cen in self.centroids:
            d = (fr - cen[0]) ** 2 + (fg - cen[1]) ** 2 + (fb - cen[2]) ** 2 + (fl - cen[3]) ** 2
            if best < 0 or d < best:
                second = best
                best = d
                best_ball = ball
            elif second < 0 or d < second:
                second = d
            ball += 1
        if best > _MAX_DIST or second <= 0 or fl < self.darkest:
            self.confidence = 0  # nothing we know, or nothing there (an empty pocket)
            return UNKNOWN
        # (second - best) / (second + best) in percent, kept in small integers.
        self.confidence = (second - best) // ((second + best) // 100 + 1)
        if self.confidence < self.threshold:
            return UNKNOWN
        return best_ball


def load(path):
    """A Classifier from a calibration file written by firmware/calibrate.py,
    or the defaults when there is none."""
    try:
        import json

        with open(path) as f:
            cal = json.load(f)
        cents = tuple(tuple(c) for c in cal["centroids"])
        if len(cents) != 8:
            raise ValueError
        return Classifier(cents, cal.get("white", DEFAULT_WHITE), cal.get("threshold", THRESHOLD))
    except (OSError, ValueError, KeyError, TypeError):
        return Classifier()
