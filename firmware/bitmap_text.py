# The handset's Persian text: every fixed string shaped, ordered right to left
# and drawn at build time (`baulk firmware build`, host/handset/font.py) into
# one data file that sits beside this module, fa.bin.  The board cannot shape
# Persian itself; it only copies these pixels onto the display.
#
# A string is found by its English text: screens and flows keep writing their
# English words, and the Persian one is looked up under the same words, so a
# new screen's Persian is one line in host/handset/texts.py.
#
# File layout (little-endian), 16-pixel lines in the SSD1306's own order
# (MONO_VLSB: one byte a column of 8 pixels, page 0 columns then page 1):
#   0   b"BKT1", u16 entries, u8 digit width, u8 lines' height in pages (2)
#   8   entries x (u32 key, u32 offset), sorted by key (key(): 24 bits)
#   ..  the Persian digits 0..9, each digit width x 2 bytes
#   ..  each entry at its offset: u8 lines, then for each line u8 width and
#       width x 2 bytes of pixels
#
# In ROMFS the file is read in place through a memoryview: no pixel is copied
# into the heap.  From a plain filesystem (.mpy files in /lib) the file stays
# open and the painter reads each line's pixels straight into the display's
# frame buffer.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_HEADER = const(8)
_KEY_MASK = const(0xFFFFFF)


def key(text):
    """The key of an English text: a hash of its characters without the
    spaces at either end (the same in host/handset/font.py)."""
    i = 0
    j = len(text)
    while i < j and text[i] == " ":
        i += 1
    while j > i and text[j - 1] == " ":
        j -= 1
    h = 5381
    while i < j:
        h = (h * 33 + ord(text[i])) & _KEY_MASK  # stays a small int on a 32-bit port
        i += 1
    return h


class BitmapText:
    def __init__(self, path):
        f = open(path, "rb")  # noqa: SIM115 (kept open when not in ROMFS)
        try:
            self.src = memoryview(f)  # type: ignore[arg-type]  # ROMFS: the file in place
            f.close()
        except TypeError:  # a plain filesystem: no buffer protocol
            self.src = f  # type: ignore[assignment]
        head = self._read(0, _HEADER)
        if head[0:4] != b"BKT1":
            raise ValueError(path)
        self.count = head[4] | (head[5] << 8)
        self.digit_w = head[6]

    def _read(self, at, n):
        src = self.src
        if type(src) is memoryview:
            return bytes(src[at : at + n]) if n > 1 else src[at : at + 1]
        src.seek(at)
        return src.read(n)

    def _u32(self, at):
        b = self._read(at, 4)
        return b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)

    def find(self, text):
        """Offset of the Persian entry for an English text, or -1."""
        k = key(text)
        lo = 0
        hi = self.count - 1
        while lo <= hi:
            mid = (lo + hi) >> 1
            at = _HEADER + mid * 8
            got = self._u32(at)
            if got == k:
                return self._u32(at + 4)
            if got < k:
                lo = mid + 1
            else:
                hi = mid - 1
        return -1

    def line(self, entry, n=-1):
        """Line n of an entry: (its width, where its pixels start: page 0
        columns, then page 1); n -1: the entry's number of lines, and -1."""
        if n < 0:
            return self._read(entry, 1)[0], -1
        at = entry + 1
        while n:
            at += 1 + 2 * self._read(at, 1)[0]
            n -= 1
        return self._read(at, 1)[0], at + 1

    def digit(self, d):
        """Where the pixels of the Persian digit d start (digit_w columns a page)."""
        return _HEADER + 8 * self.count + 2 * d * self.digit_w
