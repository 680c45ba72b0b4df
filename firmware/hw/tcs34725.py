# TCS34725 RGB light sensor (ams datasheet DS000384), one in each pocket's
# ball path, read through the multiplexer.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_ADDR = const(0x29)
_CMD = const(0x80)  # command bit
_AUTO = const(0x20)  # auto-increment: read CDATAL..BDATAH in one transfer
_ENABLE = const(0x00)
_ATIME = const(0x01)
_CONTROL = const(0x0F)
_ID = const(0x12)
_CDATAL = const(0x14)
_PON = const(0x01)
_AEN = const(0x02)

# TCS34725: integration time = (256 - ATIME) x 2.4 ms.  Two cycles (4.8 ms)
# catch a ball rolling past; 16x gain makes up for the short window.
_ATIME_4_8_MS = const(0xFE)
_GAIN_16X = const(0x02)


class Tcs34725:
    def __init__(self, i2c, mux=None, channel=0, addr=_ADDR, atime=_ATIME_4_8_MS, gain=_GAIN_16X):
        self.i2c = i2c
        self.mux = mux
        self.channel = channel
        self.addr = addr
        self.raw = bytearray(8)
        self.one = bytearray(1)
        self.ok = False
        try:
            self._select()
            self._write(_ENABLE, _PON)
            # TCS34725: 2.4 ms warm-up after PON before AEN; the first reading
            # comes an integration time later, long before a ball arrives.
            self._write(_ATIME, atime)
            self._write(_CONTROL, gain)
            self._write(_ENABLE, _PON | _AEN)
            self.ok = True
        except OSError:
            self.ok = False  # absent or unwired: pots from this pocket come as 'unknown'

    def _select(self):
        if self.mux is not None:
            self.mux.select(self.channel)

    def _write(self, reg, value):
        self.one[0] = value
        self.i2c.writeto_mem(self.addr, _CMD | reg, self.one)

    def read(self, out):
        """Fill out[0:4] with clear, red, green, blue; False when the sensor is unreachable."""
        try:
            self._select()
            self.i2c.readfrom_mem_into(self.addr, _CMD | _AUTO | _CDATAL, self.raw)
        except OSError:
            return False
        r = self.raw
        out[0] = r[0] | (r[1] << 8)
        out[1] = r[2] | (r[3] << 8)
        out[2] = r[4] | (r[5] << 8)
        out[3] = r[6] | (r[7] << 8)
        return True
