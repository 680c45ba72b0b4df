# SSD1306 128x64 OLED on I2C (Solomon Systech datasheet rev 1.1), drawn with
# MicroPython's framebuf.  The frame is pushed one 128-byte page at a time so a
# refresh never holds the main loop for the ~25 ms a whole frame takes at 400 kHz.

# On CPython the simulator (sim/__init__.py) puts its own under that name.
import framebuf  # type: ignore[import-not-found]

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_ADDR = const(0x3C)
_WIDTH = const(128)
_HEIGHT = const(64)
_PAGES = const(8)

# Power-up sequence (datasheet 8.9, application note): display off, clock,
# multiplex 63, offset 0, start line 0, charge pump on, horizontal addressing,
# segment remap, COM scan remapped, COM pins, contrast, precharge, VCOMH,
# resume from RAM, normal (not inverted), display on.
_INIT = (
    b"\xae\xd5\x80\xa8\x3f\xd3\x00\x40\x8d\x14\x20\x00"
    b"\xa1\xc8\xda\x12\x81\xcf\xd9\xf1\xdb\x40\xa4\xa6\xaf"
)  # a bytes literal stays in flash; a tuple would be kept in RAM


class Ssd1306:
    def __init__(self, i2c, addr=_ADDR, mux=None, channel=0):
        self.i2c = i2c
        self.addr = addr
        self.mux = mux
        self.channel = channel
        self.buf = bytearray(_WIDTH * _PAGES)
        self.fb = framebuf.FrameBuffer(self.buf, _WIDTH, _HEIGHT, framebuf.MONO_VLSB)
        self.mv = memoryview(self.buf)
        self.vec = [b"\x40", None]  # type: list[object]  # control byte 0x40: data follows
        self.cmd = bytearray(2)  # control byte 0x80: one command byte follows
        self.cmd[0] = 0x80
        self.window = bytearray(b"\x00\x21\x00\x7f\x22\x00\x00")  # columns 0-127, page p..p
        self.ok = False
        try:
            self._select()
            for c in _INIT:
                self._command(c)
            self.ok = True
        except OSError:
            self.ok = False  # handset unplugged: the firmware keeps scoring without it

    def _select(self):
        if self.mux is not None:
            self.mux.select(self.channel)

    def _command(self, c):
        self.cmd[1] = c
        self.i2c.writeto(self.addr, self.cmd)

    def show_page(self, p):
        """Send page p (8 pixel rows) of the frame buffer; False if the display is gone."""
        try:
            self._select()
            w = self.window
            w[5] = p
            w[6] = p
            self.i2c.writeto(self.addr, w)
            # A view of the page made here, not kept: eight kept views cost
            # 256 bytes of heap for the firmware's whole life.
            self.vec[1] = self.mv[p * _WIDTH : (p + 1) * _WIDTH]
            self.i2c.writevto(self.addr, self.vec)
            self.vec[1] = None
            return True
        except OSError:
            return False
