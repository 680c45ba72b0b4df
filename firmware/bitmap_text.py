# The handset's Persian text: every fixed string shaped, ordered right to left
# and drawn at build time (`baulk firmware build`, host/handset_font.py) into
# one data file that sits beside this module, fa.bin.  The board cannot shape
# Persian itself; it only copies these pixels onto the display.
#
# A string is found by its English text: screens and flows keep writing their
# English words, and the Persian one is looked up under the same words, so a
# new screen's Persian text is one line in host/handset_texts.py.
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
# into the heap.  From a plain filesystem (.mpy files in /lib) each line is
# read into one bounded buffer instead.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_HEADER = const(8)
_ENTRY = const(8)
_LINE_MAX = const(128)  # columns in a line at the most: the display's width
_KEY_MASK = const(0xFFFFFF)
_MAGIC = b"BKT1"


def key(text):
    """The key of an English text: a hash of its characters without the
    spaces at either end (the same in host/handset_font.py)."""
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
        self.mv = None  # the file in place (ROMFS)
        self.f = None  # or the open file, read a line at a time
        self.buf = None
        f = open(path, "rb")  # noqa: SIM115 (kept open when not in ROMFS)
        try:
            self.mv = memoryview(f)
            f.close()
        except TypeError:  # not in ROMFS: no buffer protocol
            self.f = f
            self.buf = bytearray(1 + 2 * _LINE_MAX)
        head = self._read(0, _HEADER)
        if bytes(head[0:4]) != _MAGIC:
            raise ValueError("not a handset text file: " + path)
        self.count = head[4] | (head[5] << 8)
        self.digit_w = head[6]
        self.digits = _HEADER + _ENTRY * self.count

    def close(self):
        if self.f is not None:
            self.f.close()
            self.f = None
        self.mv = None

    def _read(self, at, n):
        if self.mv is not None:
            return self.mv[at : at + n]
        f = self.f
        f.seek(at)
        mv = memoryview(self.buf)[:n]
        f.readinto(mv)
        return mv

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
            at = _HEADER + mid * _ENTRY
            got = self._u32(at)
            if got == k:
                return self._u32(at + 4)
            if got < k:
                lo = mid + 1
            else:
                hi = mid - 1
        return -1

    def lines(self, entry):
        return self._read(entry, 1)[0]

    def _line_at(self, entry, line):
        at = entry + 1
        for _ in range(line):
            at += 1 + 2 * self._read(at, 1)[0]
        return at

    def width(self, entry, line=0):
        return self._read(self._line_at(entry, line), 1)[0]

    def line(self, entry, line=0):
        """(width, its pixels: page 0 columns, then page 1)."""
        at = self._line_at(entry, line)
        w = self._read(at, 1)[0]
        return w, self._read(at + 1, 2 * w)

    def digit(self, d):
        """The pixels of the Persian digit d (digit_w columns a page)."""
        w = self.digit_w
        return self._read(self.digits + d * 2 * w, 2 * w)
