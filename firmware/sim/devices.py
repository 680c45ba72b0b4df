# Virtual hardware for the simulated board: a clock, pins with interrupts,
# an I2C bus with the TCA9548A, TCS34725 and SSD1306 behind it, a UART, a
# watchdog.  They have the faces of machine.Pin / I2C / UART / WDT that the
# drivers in firmware/hw use, so the drivers run unchanged over them.  Pure
# Python that runs under MicroPython too.

import math

from . import pocket_model
from .font import FIRST, FONT

ENODEV = 19
TICK_MASK = 0x3FFFFFFF


class VirtualClock:
    def __init__(self, start=0):
        self.now = start
        self.held = None  # while SimBoard.pump fires a change: the time it was due

    def ticks_ms(self):
        t = self.now if self.held is None else self.held
        return t & TICK_MASK


class SimPin:
    IN = 0
    OUT = 1
    PULL_UP = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, number, level=1, reader=None):
        self.number = number
        self.reset(level, reader)

    def reset(self, level=1, reader=None):
        """As after the board's power-up (the simulated board's boot)."""
        self.level = level
        self.reader = reader  # computes the level (keypad columns)
        self.handler = None
        self.trigger = 0

    def value(self, v=None):
        if v is None:
            return self.reader() if self.reader is not None else self.level
        self.level = 1 if v else 0
        return None

    def irq(self, handler=None, trigger=12, hard=False):
        self.handler = handler
        self.trigger = trigger

    def drive(self, level):
        """An outside signal changes the level: the interrupt fires like the real one."""
        level = 1 if level else 0
        if level == self.level:
            return
        self.level = level
        h = self.handler
        if h is not None and self.trigger & (self.IRQ_RISING if level else self.IRQ_FALLING):
            h(self)


class SimRelay(SimPin):
    """The light's relay module on its output pin (active low): the lamp is
    lit while the pin is low.  Every change of the contact is counted (a
    mechanical relay clicks, and wears, once per switching)."""

    def __init__(self, number):
        SimPin.__init__(self, number, 1)
        self.switchings = 0

    def idle(self):
        """The relay dropped out while the board was dark."""
        self.reset(1)
        self.switchings = 0

    def value(self, v=None):
        if v is None:
            return self.level
        was = self.level
        SimPin.value(self, v)
        if self.level != was:
            self.switchings += 1
        return None

    def lit(self):
        return self.level == 0


class SimI2C:
    """A bus: devices by address, and those behind a TCA9548A's open channels."""

    def __init__(self):
        self.devices = {}
        self.mux = None
        self.transfers = 0

    def attach(self, dev):
        self.devices[dev.addr] = dev
        if isinstance(dev, SimMux):
            self.mux = dev

    def _dev(self, addr):
        self.transfers += 1
        d = self.devices.get(addr)
        if d is None and self.mux is not None:
            d = self.mux.find(addr)
        if d is None:
            raise OSError(ENODEV)
        return d

    def writeto(self, addr, buf, stop=True):
        self._dev(addr).write(bytes(buf))
        return 1

    def writevto(self, addr, vec, stop=True):
        data = bytearray()
        for b in vec:
            data.extend(b)
        self._dev(addr).write(bytes(data))
        return 1

    def writeto_mem(self, addr, reg, buf):
        self._dev(addr).write_mem(reg, bytes(buf))

    def readfrom_mem_into(self, addr, reg, buf):
        self._dev(addr).read_mem(reg, buf)


class SimMux:
    addr = 0x70

    def __init__(self):
        self.channels = [{} for _ in range(8)]  # type: list[dict[int, object]]
        self.mask = 0

    def attach(self, channel, dev):
        self.channels[channel][dev.addr] = dev

    def find(self, addr):
        found = None
        for ch in range(8):
            if self.mask & (1 << ch):
                d = self.channels[ch].get(addr)
                if d is not None:
                    if found is not None:
                        return None  # two open channels answer: a bus collision
                    found = d
        return found

    def write(self, data):
        self.mask = data[0]


_STATIC_GAIN = (1, 4, 16, 60)  # AGAIN's nominal ratios, for a set reading


class SimTcs34725:
    """The TCS34725 colour sensor (ams TCS3472 datasheet, DS000384): its
    registers, its free-running integration windows and its counts.

    With scene None (the default) the chip returns self.rgbc, the reading at
    4x gain scaled to the gain set, capped at the full scale of the current
    ATIME and without noise, as the tests that set a static reading expect.
    With scene a pocket_model.Pocket it integrates the scene's light in
    back-to-back windows on the board's clock: the data registers hold the
    last completed window's counts (double-buffered), with this chip's own
    gain ratios, dark offset and noise, drawn from its seed."""

    addr = 0x29
    ID = 0x44  # TCS34721 and TCS34725

    def __init__(self, clock=None, seed=0):
        self.clock = clock
        self.scene = None  # type: pocket_model.Pocket | None
        self.enabled = 0
        self.atime = 0xFF
        self.gain = 0
        self.rgbc = [40, 14, 14, 12]  # an empty, dark pocket: clear, red, green, blue
        self.reads = 0
        self.rng = rng = pocket_model.Rng(seed)
        # This chip's gain ratios, within the datasheet's tolerance of 1/4/16/60.
        self.gains = [rng.uniform(lo, hi) for lo, hi in pocket_model.GAIN_TOL]
        self.dark = [rng.uniform(0.0, pocket_model.DARK_MAX) for _ in range(4)]
        self.electrons = pocket_model.ELECTRONS_1X  # photo-electrons per count at 1x
        self.data = [0, 0, 0, 0]  # the data registers
        self.valid = False  # AVALID
        self.windows = 0  # completed integration windows
        self.start = -1.0  # the window in progress began (ms); < 0: not integrating
        self.win_atime = self.atime  # the settings the window in progress uses
        self.win_gain = 0

    def _now(self):
        c = self.clock
        if c is None:
            return 0.0
        return float(c.now if c.held is None else c.held)

    def full_scale(self, atime=None):
        return pocket_model.full_scale(self.atime if atime is None else atime)

    # -- the bus ---------------------------------------------------------------------------
    def write(self, data):
        if len(data) > 1:
            self.write_mem(data[0], data[1:])

    def write_mem(self, reg, data):
        self._sync()
        auto = (reg & 0x60) == 0x20
        a = reg & 0x1F
        for v in data:
            self._set(a, v)
            if auto:
                a = (a + 1) & 0x1F

    def read_mem(self, reg, buf):
        self.reads += 1
        self._sync()
        auto = (reg & 0x60) == 0x20  # else the repeated-byte protocol: one register
        a = reg & 0x1F
        for i in range(len(buf)):
            buf[i] = self._get(a)
            if auto:
                a = (a + 1) & 0x1F

    def _set(self, a, v):
        now = self._now()
        if a == 0x00:
            was = self.enabled & 3
            self.enabled = v
            if v & 3 == 3 and was != 3:
                # AEN after PON: the datasheet's 2.4 ms warm-up, then windows.
                self.start = now + pocket_model.STEP_MS
                self.valid = False
                self.win_atime = self.atime
                self.win_gain = self.gain & 3
            elif v & 3 != 3:
                self.start = -1.0
        elif a == 0x01:
            self.atime = v
        elif a == 0x0F:
            self.gain = v
        if a in (0x01, 0x0F) and self.start >= 0.0 and now < self.start:
            self.win_atime = self.atime  # still warming up: the first window takes it
            self.win_gain = self.gain & 3

    def _get(self, a):
        if a == 0x00:
            return self.enabled
        if a == 0x01:
            return self.atime
        if a == 0x0F:
            return self.gain
        if a == 0x12:
            return self.ID
        if a == 0x13:
            if self.scene is None:
                return 1 if self.enabled & 3 == 3 else 0
            return 1 if self.valid else 0
        if 0x14 <= a <= 0x1B:
            i = (a - 0x14) >> 1
            if self.scene is None:
                cap = self.full_scale()
                # A set reading is as read at 4x (the gain the tests' readings
                # were taken at: sim/board.py reading_for); another gain scales it.
                v = self.rgbc[i] * _STATIC_GAIN[self.gain & 3] // 4 if self.enabled & 2 else 0
                v = v if v < cap else cap
            else:
                v = self.data[i]
            return (v >> 8) & 0xFF if a & 1 else v & 0xFF
        return 0

    # -- integration -----------------------------------------------------------------------
    def _sync(self):
        """Complete the windows that have ended by now; only the last one's
        counts are kept (the registers hold the last completed window)."""
        if self.scene is None or self.start < 0.0:
            return
        now = self._now()
        step = pocket_model.STEP_MS
        end = self.start + (256 - self.win_atime) * step
        if now < end - 1e-6:  # a microsecond: the float sums of 2.4 ms steps
            return
        first = (self.start, end, self.win_atime, self.win_gain)
        period = (256 - self.atime) * step
        n = int((now - end + 1e-6) // period)
        if n >= 1:
            last = (end + (n - 1) * period, end + n * period, self.atime, self.gain & 3)
        else:
            last = first
        self.windows += 1 + n
        self.data = self._counts(last[0], last[1], last[2], last[3])
        self.valid = True
        self.start = end + n * period
        self.win_atime = self.atime
        self.win_gain = self.gain & 3

    def _counts(self, t0, t1, atime, again):
        scene = self.scene
        assert scene is not None
        steps = int((t1 - t0) / 0.25 - 1e-9) + 1  # sub-steps of at most 0.25 ms
        dt = (t1 - t0) / steps
        acc = [0.0, 0.0, 0.0, 0.0]
        for i in range(steps):
            r = scene.rates(t0 + (i + 0.5) * dt)
            for ch in range(4):
                acc[ch] += r[ch] * dt
        g = self.gains[again]
        cap = pocket_model.full_scale(atime)
        rng = self.rng
        out = []
        for ch in range(4):
            signal = acc[ch] * g  # counts at this gain, before noise
            # Shot noise: Poisson photo-electrons, sigma = g sqrt(counts_1x / e_per_count).
            shot = g * math.sqrt(acc[ch] / self.electrons) if acc[ch] > 0.0 else 0.0
            x = signal + self.dark[ch] + rng.gauss(0.0, shot)
            v = int(math.floor(x + rng.random()))  # noqa: RUF046 (a float on MicroPython)
            out.append(0 if v < 0 else (cap if v > cap else v))
        return out


def _glyphs():
    table = {}
    for i in range(len(FONT) // 8):
        table[bytes(FONT[i * 8 : i * 8 + 8])] = chr(FIRST + i)
    return table


class SimSsd1306:
    """The controller's display RAM, written through its I2C protocol."""

    addr = 0x3C

    def __init__(self):
        self.ram = bytearray(128 * 8)
        self.on = False
        self.col0, self.col1, self.page0, self.page1 = 0, 127, 0, 7
        self.col, self.page = 0, 0
        self.pending = []  # a command waiting for its arguments
        self.glyphs = None

    def write(self, data):
        i = 0
        while i < len(data):
            ctrl = data[i]
            if ctrl == 0x80:  # one command byte follows, then maybe another control byte
                self._command(data[i + 1])
                i += 2
            elif ctrl == 0x00:  # commands to the end
                for c in data[i + 1 :]:
                    self._command(c)
                return
            elif ctrl == 0x40:  # display data to the end
                for b in data[i + 1 :]:
                    self.ram[self.page * 128 + self.col] = b
                    self.col += 1
                    if self.col > self.col1:
                        self.col = self.col0
                        self.page = self.page + 1 if self.page < self.page1 else self.page0
                return
            else:
                return

    def _command(self, c):
        p = self.pending
        if p:
            p.append(c)
            if p[0] == 0x21 and len(p) == 3:
                self.col0, self.col1 = p[1], p[2]
                self.col = self.col0
                p.clear()
            elif p[0] == 0x22 and len(p) == 3:
                self.page0, self.page1 = p[1], p[2]
                self.page = self.page0
                p.clear()
            elif p[0] not in (0x21, 0x22) and len(p) == 2:
                p.clear()  # a command with one argument we do not model
            return
        if c in (0x21, 0x22, 0xD5, 0xA8, 0xD3, 0x8D, 0x20, 0xDA, 0x81, 0xD9, 0xDB):
            p.append(c)  # a command with arguments
        elif c == 0xAF:
            self.on = True
        elif c == 0xAE:
            self.on = False

    def text(self):
        """The 8 lines of 16 characters the display shows, read from its RAM."""
        if self.glyphs is None:
            self.glyphs = _glyphs()
        lines = []
        for page in range(8):
            chars = []
            for cell in range(16):
                at = page * 128 + cell * 8
                chars.append(self.glyphs.get(bytes(self.ram[at : at + 8]), "?"))
            lines.append("".join(chars).rstrip())
        return lines


class SimUart:
    """The host port: what the firmware wrote, and what the test sends it."""

    def __init__(self):
        self.rx = bytearray()
        self.tx = bytearray()

    def any(self):
        return len(self.rx)

    def readinto(self, buf):
        n = min(len(buf), len(self.rx))
        buf[:n] = self.rx[:n]
        self.rx = self.rx[n:]
        return n

    def write(self, data):
        self.tx.extend(data)
        return len(data)

    def inject(self, data):
        self.rx.extend(data)

    def take(self):
        out = bytes(self.tx)
        self.tx = bytearray()
        return out


class SimWdt:
    def __init__(self, clock, timeout_ms):
        self.clock = clock
        self.timeout = timeout_ms
        self.fed = clock.now

    def feed(self):
        self.fed = self.clock.now

    def starved(self):
        return self.clock.now - self.fed > self.timeout
