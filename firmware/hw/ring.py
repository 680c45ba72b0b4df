# The board's time and its pins' edges.
#
# Millisecond ticks: arithmetic that behaves like MicroPython's time.ticks_*
# (the tick counter wraps at 2**30, so differences are taken modulo that
# period), and a monotonic clock made from them.  Pure integer maths: the
# same code runs on the board, the simulator and CPython.
#
# A preallocated ring of timestamped pin edges, filled from interrupt handlers.
#
# docs/DESIGN.md "Principles": an interrupt handler only captures into a preallocated
# buffer; it never allocates (a hard IRQ on the RP2040 raises MemoryError if it
# tries).  The handler does integer stores into an array and a bytearray and
# nothing else; the main loop takes the edges out with get() in the order they
# came.  Every watched pin shares the one handler, which finds the pin's source
# by the pin itself: one bound method for all of them, not an object a pin.

from array import array

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_PERIOD = const(0x40000000)  # time.ticks_ms() wraps here (MicroPython ports)
_MASK = const(0x3FFFFFFF)
_HALF = const(0x20000000)
_SIZE = const(64)  # power of two; 64 edges is ~0.5 s of a pocket storm

# What an edge came from: pockets are 0..5 (names.POCKETS), then these.
EDGE_RAIL = const(6)
EDGE_STRIKE = const(7)
_SOURCES = const(8)


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


class EdgeRing:
    def __init__(self, ticks, size=_SIZE):
        """ticks: time.ticks_ms (or the simulator's clock)."""
        self.ticks = ticks
        self.mask = size - 1
        self.t = array("i", bytes(4 * size))  # tick (ms) of the edge
        self.src = bytearray(size)
        self.level = bytearray(size)
        self.head = 0  # next slot the ISR writes
        self.tail = 0  # next slot the main loop reads
        self.dropped = 0  # edges lost because the ring was full
        self.wake = None  # optional: ThreadSafeFlag.set, to wake the main task
        self.pins = [None] * _SOURCES  # the pin watched for each source
        self.isr = self._isr

    def watch(self, pin, src):
        """Put both edges of `pin` (a machine.Pin, or the simulator's, set up
        as an input) into the ring as coming from `src`."""
        self.pins[src] = pin
        trigger = pin.IRQ_FALLING | pin.IRQ_RISING
        try:
            pin.irq(handler=self.isr, trigger=trigger, hard=True)
        except TypeError:  # a port whose Pin.irq has no 'hard' argument
            pin.irq(handler=self.isr, trigger=trigger)

    def _isr(self, pin):
        # Runs in interrupt context: a loop over a list and integer stores only.
        pins = self.pins
        src = 0
        while src < _SOURCES and pins[src] is not pin:
            src += 1
        if src < _SOURCES:
            self.put(src, pin.value(), self.ticks())

    def put(self, src, level, t):
        h = self.head
        n = (h + 1) & self.mask
        if n == self.tail:
            self.dropped += 1
            return
        self.t[h] = t
        self.src[h] = src
        self.level[h] = level
        self.head = n
        w = self.wake
        if w is not None:
            w()

    def pending(self):
        return self.head != self.tail

    def get(self):
        """Oldest edge as (src, level, tick); call only while pending()."""
        i = self.tail
        self.tail = (i + 1) & self.mask
        return self.src[i], self.level[i], self.t[i]
