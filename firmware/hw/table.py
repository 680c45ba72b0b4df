# The table's switches: the cushion-rail switches and a cue-strike sensor on
# interrupts (short pulses, timestamped by ring.py), and a balls-at-rest
# motion sensor (a level, polled).  They give the engine its `off`, `strike`
# and `rest`; without them the referee keys a ball off and closes a stroke
# with OK.


class PulseFilter:
    """The rail switches and the strike sensor: short pulses on one input
    each.  All the rail's microswitches are wired in parallel (a ball forced
    off lands on or crosses the rail; any switch means "a ball went off", and
    the referee says which); the strike is a piezo on the cue-ball side of
    the bed, through a comparator.  A pulse within hold_off_ms of the last is
    the same one: a ball rattling on the rail (300 ms), the piezo ringing
    after the tip hits the ball (400 ms)."""

    def __init__(self, active_level, hold_off_ms):
        self.active = active_level
        self.hold_off_ms = hold_off_ms
        self.last = -1000000

    def edge(self, level, t):
        """True when this edge is a new pulse."""
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
