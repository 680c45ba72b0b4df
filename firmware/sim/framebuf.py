# The part of MicroPython's framebuf the firmware uses, for CPython: a 1-bit
# MONO_VLSB frame buffer with fill, fill_rect, pixel and the built-in 8x8 text.
# On MicroPython the real module is imported instead.

from .font import FIRST, FONT

MONO_VLSB = 0


class FrameBuffer:
    def __init__(self, buf, width, height, fmt=MONO_VLSB):
        if fmt != MONO_VLSB:
            raise ValueError("only MONO_VLSB is simulated")
        self.buf = buf
        self.width = width
        self.height = height

    def pixel(self, x, y, c=None):
        if not (0 <= x < self.width and 0 <= y < self.height):
            return None
        i = (y >> 3) * self.width + x
        bit = 1 << (y & 7)
        if c is None:
            return 1 if self.buf[i] & bit else 0
        if c:
            self.buf[i] |= bit
        else:
            self.buf[i] &= ~bit & 0xFF
        return None

    def fill_rect(self, x, y, w, h, c):
        for yy in range(max(0, y), min(self.height, y + h)):
            for xx in range(max(0, x), min(self.width, x + w)):
                self.pixel(xx, yy, c)

    def fill(self, c):
        v = 0xFF if c else 0
        for i in range(len(self.buf)):
            self.buf[i] = v

    def text(self, s, x, y, c=1):
        for ch in s:
            code = ord(ch)
            if code < FIRST or code > 127:
                code = 127
            base = (code - FIRST) * 8
            for col in range(8):
                bits = FONT[base + col]
                for row in range(8):
                    if bits & (1 << row):
                        self.pixel(x + col, y + row, c)
            x += 8
