# Virtual hardware for the simulated board: a clock, pins with interrupts,
# an I2C bus with the TCA9548A, TCS34725 and SSD1306 behind it, a UART, a
# watchdog.  They have the faces of machine.Pin / I2C / UART / WDT that the
# drivers in firmware/hw use, so the drivers run unchanged over them.  Pure
# Python that runs under MicroPython too.

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


class SimTcs34725:
    addr = 0x29

    def __init__(self):
        self.enabled = 0
        self.atime = 0xFF
        self.gain = 0
        self.rgbc = [40, 14, 14, 12]  # an empty, dark pocket: clear, red, green, blue
        self.reads = 0

    def write(self, data):
        pass

    def write_mem(self, reg, data):
        reg &= 0x1F
        if reg == 0x00:
            self.enabled = data[0]
        elif reg == 0x01:
            self.atime = data[0]
        elif reg == 0x0F:
            self.gain = data[0]

    def read_mem(self, reg, buf):
        self.reads += 1
        if (reg & 0x1F) == 0x14:
            for i in range(4):
                v = self.rgbc[i] if self.enabled & 2 else 0
                buf[2 * i] = v & 0xFF
                buf[2 * i + 1] = (v >> 8) & 0xFF


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
