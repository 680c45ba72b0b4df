# Cushion-rail switches: a ball forced off the table lands on or crosses the
# rail and closes a microswitch.  All the rail switches are wired in parallel
# to one input (any of them means "a ball went off"); the referee says which
# ball on the keypad.  Short pulses, so they are captured on an interrupt.

from .ring import EDGE_RAIL, EdgeInput


class RailSwitches:
    hold_off_ms = 300  # one ball rattling on the rail closes the switch several times

    def __init__(self, pin, ring, ticks, closed_level=0):
        self.closed = closed_level
        self.last = -1000000
        self.balls = 0
        self.edges = EdgeInput(pin, EDGE_RAIL, ring, ticks, pin.IRQ_FALLING | pin.IRQ_RISING)

    def edge(self, level, t):
        """True when this edge is a new ball off the table."""
        if level != self.closed:
            return False
        if t - self.last < self.hold_off_ms:
            return False
        self.last = t
        self.balls += 1
        return True
