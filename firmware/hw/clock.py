# Millisecond tick arithmetic that behaves like MicroPython's time.ticks_*:
# the tick counter wraps at 2**30, so differences are taken modulo that period.
# Pure integer maths: the same code runs on the board, the simulator and CPython.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_PERIOD = const(0x40000000)  # time.ticks_ms() wraps here (MicroPython ports)
_MASK = const(0x3FFFFFFF)
_HALF = const(0x20000000)


def diff(a, b):
    """Signed a - b for two tick values, correct across the wrap (ticks_diff)."""
    return ((a - b + _HALF) & _MASK) - _HALF


def add(a, ms):
    return (a + ms) & _MASK


class Monotonic:
    """Milliseconds since boot from a wrapping tick source, never wrapping.

    ``ticks`` is a function (time.ticks_ms on the board, the simulator's clock);
    ``update`` must run at least once every 2**29 ms (6 days), which the main
    loop does every few milliseconds.
    """

    def __init__(self, ticks):
        self.ticks = ticks
        self.raw = ticks()
        self.ms = 0

    def update(self):
        raw = self.ticks()
        self.ms += diff(raw, self.raw)
        self.raw = raw
        return self.ms

    def at(self, raw):
        """Monotonic time of a tick value captured recently (by an ISR)."""
        return self.ms + diff(raw, self.raw)
