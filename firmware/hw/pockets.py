# The six pockets' sensors, one object for the six (names.POCKETS order): six
# objects of each kind cost the heap more than their code, so their state
# lives in arrays indexed by pocket.
#
# The beam: an IR beam across the pocket's throat, on an interrupt.  The ISR
# (inputs.py) only timestamps edges; this filter, run from the main loop, turns
# them into balls: a break that lasts at least debounce_ms is a ball, a
# shorter one is noise (a glitch).  A restore shorter than merge_ms inside a
# break is the ball's edge chattering and does not end it, so two balls 30 ms
# apart (a gap of ~15 ms between their shadows) are still two balls.
#
# The colour: a TCS34725 RGB light sensor (ams datasheet DS000384) in each
# pocket's ball path.  The six share one address (0x29), so each sits on its
# own channel of a TCA9548A I2C multiplexer.

from array import array

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_N = const(6)
_ADDR = const(0x29)
_CMD = const(0x80)  # command bit
_AUTO = const(0x20)  # auto-increment: read CDATAL..BDATAH in one transfer
_ENABLE = const(0x00)
_ATIME = const(0x01)
_CONTROL = const(0x0F)
_CDATAL = const(0x14)
_PON = const(0x01)
_AEN = const(0x02)
# TCS34725: integration time = (256 - ATIME) x 2.4 ms.  Two cycles (4.8 ms)
# catch a ball rolling past; 16x gain makes up for the short window.
_ATIME_4_8_MS = const(0xFE)
_GAIN_16X = const(0x02)


class Pockets:
    debounce_ms = 5  # shortest break that is a ball (a 52.5 mm ball shadows for ~15 ms)
    merge_ms = 3  # restore-then-break within this is chatter of the same ball

    def __init__(self, pins, ring, broken_level, i2c, mux_addr, channels):
        """pins: the six beams' inputs; channels: the multiplexer's channel of
        each pocket's colour sensor (fewer than six: the rest have none)."""
        self.broken = broken_level
        self.low = bytearray(_N)  # the beam is broken now
        self.start = array("i", bytes(4 * _N))  # when the current break began (ms)
        self.restored = array("i", [-1] * _N)  # when the last counted ball left the beam
        self.counted = bytearray(_N)  # the current break has been reported as a ball
        self.balls = array("H", bytes(2 * _N))  # since the app last took them
        self.glitches = array("H", bytes(2 * _N))
        for p in range(_N):
            ring.watch(pins[p], p)
        self.i2c = i2c
        self.mux = mux_addr
        self.channels = channels
        self.sensors = len(channels)
        self.channel = -1  # the multiplexer's channel now
        self.raw = bytearray(8)
        self.one = bytearray(1)
        self.ok = 0  # bit per pocket: its sensor answered at boot
        for p in range(self.sensors):
            try:
                self._write(p, _ENABLE, _PON)
                # TCS34725: 2.4 ms warm-up after PON before AEN; the first reading
                # comes an integration time later, long before a ball arrives.
                self._write(p, _ATIME, _ATIME_4_8_MS)
                self._write(p, _CONTROL, _GAIN_16X)
                self._write(p, _ENABLE, _PON | _AEN)
                self.ok |= 1 << p
            except OSError:
                pass  # absent or unwired: pots from this pocket come as 'unknown'

    # -- the beams ------------------------------------------------------------------
    def edge(self, p, level, t):
        """One edge of pocket p's beam at monotonic time t; True when it
        completes a new ball."""
        if level == self.broken:
            if self.low[p]:
                return False
            self.low[p] = 1
            if self.counted[p] and self.restored[p] >= 0 and t - self.restored[p] < self.merge_ms:
                return False  # chatter: the same ball is still in the beam
            self.start[p] = t
            self.counted[p] = 0
            return False
        if not self.low[p]:
            return False
        self.low[p] = 0
        if self.counted[p]:
            self.restored[p] = t
            return False
        if t - self.start[p] >= self.debounce_ms:
            self.counted[p] = 1
            self.restored[p] = t
            self.balls[p] += 1
            return True
        self.glitches[p] += 1
        return False

    def poll(self, p, now):
        """True when pocket p's beam has been broken long enough to count a ball now."""
        if self.low[p] and not self.counted[p] and now - self.start[p] >= self.debounce_ms:
            self.counted[p] = 1
            self.balls[p] += 1
            return True
        return False

    # -- the multiplexer and the colour sensors ---------------------------------------
    def select(self, ch):
        """Open the multiplexer's channel ch (the display may sit on one too)."""
        if ch != self.channel:
            self.one[0] = 1 << ch
            self.i2c.writeto(self.mux, self.one)
            self.channel = ch

    def _write(self, p, reg, value):
        self.select(self.channels[p])
        self.one[0] = value
        self.i2c.writeto_mem(_ADDR, _CMD | reg, self.one)

    def read(self, p, out):
        """Fill out[0:4] with pocket p's clear, red, green, blue; False when
        it has no sensor or the sensor is unreachable."""
        if p >= self.sensors:
            return False
        try:
            self.select(self.channels[p])
            self.i2c.readfrom_mem_into(_ADDR, _CMD | _AUTO | _CDATAL, self.raw)
        except OSError:
            return False
        r = self.raw
        out[0] = r[0] | (r[1] << 8)
        out[1] = r[2] | (r[3] << 8)
        out[2] = r[4] | (r[5] << 8)
        out[3] = r[6] | (r[7] << 8)
        return True
