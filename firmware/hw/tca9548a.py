# TCA9548A I2C multiplexer: the six pocket colour sensors share one address
# (TCS34725: 0x29), so each sits on its own downstream channel.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_ADDR = const(0x70)


class Tca9548a:
    def __init__(self, i2c, addr=_ADDR):
        self.i2c = i2c
        self.addr = addr
        self.masks = [bytes((1 << ch,)) for ch in range(8)]  # one write buffer per channel
        self.current = -1

    def select(self, channel):
        if channel != self.current:
            self.i2c.writeto(self.addr, self.masks[channel])
            self.current = channel
