# Pocket beam sensor: an IR beam across the pocket's throat, on an interrupt.
#
# The ISR (ring.EdgeInput) only timestamps edges.  This filter, run from the
# main loop, turns edges into balls: a break that lasts at least debounce_ms
# is a ball; a shorter one is noise.  A restore shorter than merge_ms inside a
# break is the ball's edge chattering and does not end it, so two balls 30 ms
# apart (a gap of ~15 ms between their shadows) are still two balls.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


from .ring import EdgeInput

_NONE = const(-1)


class PocketBeam:
    debounce_ms = 5  # shortest break that is a ball (a 52.5 mm ball shadows for ~15 ms)
    merge_ms = 3  # restore-then-break within this is chatter of the same ball

    def __init__(self, pin, pocket, ring, ticks, broken_level=0):
        self.pocket = pocket
        self.broken = broken_level
        self.low = False  # the beam is broken now
        self.start = 0  # when the current break began (monotonic ms)
        self.restored = _NONE  # when the last counted ball left the beam
        self.counted = False  # the current break has been reported as a ball
        self.balls = 0
        self.glitches = 0
        self.edges = EdgeInput(pin, pocket, ring, ticks, pin.IRQ_FALLING | pin.IRQ_RISING)

    def edge(self, level, t):
        """One edge from the ring at monotonic time t; True when it completes a new ball."""
        if level == self.broken:
            if self.low:
                return False
            self.low = True
            if self.counted and self.restored >= 0 and t - self.restored < self.merge_ms:
                return False  # chatter: the same ball is still in the beam
            self.start = t
            self.counted = False
            return False
        if not self.low:
            return False
        self.low = False
        if self.counted:
            self.restored = t
            return False
        if t - self.start >= self.debounce_ms:
            self.counted = True
            self.restored = t
            self.balls += 1
            return True
        self.glitches += 1
        return False

    def poll(self, now):
        """True when the beam has been broken long enough to count a ball now."""
        if self.low and not self.counted and now - self.start >= self.debounce_ms:
            self.counted = True
            self.balls += 1
            return True
        return False
