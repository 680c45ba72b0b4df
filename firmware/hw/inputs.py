# The board's inputs: its time, its pins' edges, the table's switches and the
# referee's keypad (one module: each module the board keeps loaded costs the
# heap more than its code does).
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
EDGE_SPEED = const(8)  # the pockets' speed beams, wired together (hw/pockets.py)
_SOURCES = const(9)
_QUEUE = const(16)  # key presses waiting for the main loop


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


# The table's switches: the cushion-rail switches and a cue-strike sensor on
# interrupts (short pulses, timestamped by the ring above), and a balls-at-rest
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
    after the tip hits the ball (400 ms).

    width (ms, 0: none): the pulse counts when it ends, and only if it was
    closed at least 3 ms (a contact's bounce is shorter) and at most `width`:
    a ball crosses or bounces on the rail in tens of ms, while a hand, a
    bridge or a player sitting on the rail holds it closed for seconds
    (docs/TABLE-SENSORS.md)."""

    def __init__(self, active_level, hold_off_ms, width=0):
        self.active = active_level
        self.hold_off_ms = hold_off_ms
        self.width = width
        self.start = -1000000  # the last active edge
        self.last = -1000000

    def edge(self, level, t):
        """True when this edge is a new pulse."""
        if self.width:
            if level == self.active:
                self.start = t
                return False
            w = t - self.start
            if w < 3 or w > self.width:
                return False
        elif level != self.active:
            return False
        if t - self.last < self.hold_off_ms:
            return False
        self.last = t
        return True


class RestSensor:
    # No motion for this long: every ball is at rest.  The module feels
    # impacts and fast balls, not a slow ball rolling on (docs/TABLE-SENSORS.md):
    # 1500 ms rather than 500 lets fewer strokes close under a rolling ball,
    # and is still well inside a player's time between strokes.
    quiet_ms = 1500

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


# The referee's keypad: a row/column matrix, scanned (not interrupt driven:
# presses are slow: polling is enough) from a hardware timer so that a press registers
# even while the main loop is busy.  Each key is debounced by an integrator: its
# state changes only after `debounce_scans` scans in a row agree, so a bouncing
# key is one press.  Presses go into a small ring the main loop drains.


class Keypad:
    scan_ms = 5  # timer period
    debounce_scans = 4  # 20 ms of agreement

    def __init__(self, rows, cols, keymap):
        """rows: output pins (idle high); cols: inputs with pull-ups; keymap:
        key code for each (row, col), row-major."""
        self.rows = rows
        self.cols = cols
        self.keymap = keymap
        n = len(rows) * len(cols)
        self.down = bytearray(n)  # debounced state, 1 = pressed
        self.count = bytearray(n)  # scans in a row that disagree with `down`
        self.queue = bytearray(_QUEUE)
        self.head = 0
        self.tail = 0
        self.lost = 0
        for r in rows:
            r.value(1)

    def scan(self, _timer=None):
        # Timer callback: index loops and integer stores only.
        rows = self.rows
        cols = self.cols
        nc = len(cols)
        down = self.down
        count = self.count
        i = 0
        ri = 0
        while ri < len(rows):
            row = rows[ri]
            row.value(0)
            ci = 0
            while ci < nc:
                raw = 1 if cols[ci].value() == 0 else 0
                if raw == down[i]:
                    count[i] = 0
                else:
                    c = count[i] + 1
                    if c >= self.debounce_scans:
                        down[i] = raw
                        count[i] = 0
                        if raw:
                            self._push(self.keymap[i])
                    else:
                        count[i] = c
                ci += 1
                i += 1
            row.value(1)
            ri += 1

    def _push(self, key):
        h = self.head
        n = (h + 1) % _QUEUE
        if n == self.tail:
            self.lost += 1
            return
        self.queue[h] = key
        self.head = n

    def get(self):
        """Next key pressed, or -1."""
        if self.head == self.tail:
            return -1
        k = self.queue[self.tail]
        self.tail = (self.tail + 1) % _QUEUE
        return k
