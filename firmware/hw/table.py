# The table switches: a cue-strike sensor (piezo on the cue-ball side of the
# bed, through a comparator, so a short pulse on an interrupt) and a
# balls-at-rest motion sensor (a level, polled).  They give the engine its
# `strike` and `rest`.  Without them the keypad's OK key closes a stroke.

from .ring import EDGE_STRIKE, EdgeInput


class StrikeSensor:
    hold_off_ms = 400  # the piezo rings for a while after the tip hits the ball

    def __init__(self, pin, ring, ticks, active_level=1):
        self.active = active_level
        self.last = -1000000
        self.edges = EdgeInput(pin, EDGE_STRIKE, ring, ticks, pin.IRQ_FALLING | pin.IRQ_RISING)

    def edge(self, level, t):
        """True when this edge is a new strike."""
        if level != self.active or t - self.last < self.hold_off_ms:
            return False
        self.last = t
        return True


class RestSensor:
    quiet_ms = 500  # no motion for this long: every ball is at rest

    def __init__(self, pin, moving_level=1):
        self.pin = pin
        self.moving = moving_level
        self.last_motion = 0

    def at_rest(self, now):
        """Polled from the main loop; True once the table has been still for quiet_ms."""
        if self.pin.value() == self.moving:
            self.last_motion = now
            return False
        return now - self.last_motion >= self.quiet_ms

    def motion(self, now):
        """Note that a stroke just started: the quiet period counts from here."""
        self.last_motion = now
