# Draws the handset's rows (screens.py) into the SSD1306's frame buffer.
#
#   English  8 rows of 16 characters of framebuf's 8x8 font, one page each
#   Persian  4 rows of 16 pixels (two pages each), laid right to left: fixed
#            texts drawn at build time (BitmapText below), numbers in Persian
#            digits, the players' names as the host drew them (handset.py)
#
# A row is a list of parts:
#   str        fixed text, in English as written; in Persian its line drawn at
#              build time, found by the English words
#   (str, n)   line n of a fixed text that takes several lines in Persian
#   int >= 0   a number
#   int < 0    a name: -1 - side (doubles: both partners), -3 - 2 * side - member
#   bytes      Latin text, drawn as it is in either language (a table id)
#   None       the parts after it go to the far end of the row
# English rows are the parts written one after the other (screens.py puts in
# the spaces); Persian parts are set apart by a space's width.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_HEADER = const(8)
_KEY_MASK = const(0xFFFFFF)
_WIDTH = const(128)
_COLS = const(16)
_GAP = const(4)  # between Persian parts: a space of the font
_LATIN_Y = const(5)  # the 8x8 font's cell in a 16-pixel row: capitals end on the baseline
_DIGIT_GAP = const(1)
# Columns kept clear at the end of the display where a row starts.  English
# starts at the left, and the 8x8 font leaves its glyphs' first column blank;
# Persian starts at the right and keeps the same one column clear there, so
# that no letter of a row's first word touches the glass's edge.  The host
# reads it from here (host/handset/font.py, sync.py).
_EDGE = const(1)


def name_text(e, ref):
    """The name a name part stands for, as text."""
    players = e.players
    if players is None:
        return "?"
    if ref >= -2:
        p = players[-1 - ref]
        return p if type(p) is str else p[0] + "/" + p[1]
    i = -3 - ref
    p = players[i >> 1]
    return p if type(p) is str else p[i & 1]


def text_of(e, parts, cols=_COLS):
    """An English row: its parts as one line of `cols` characters, the parts
    after None at its right end; cols 0: the whole text (a question, wrapped)."""
    if type(parts) is str:
        return parts
    left = ""
    right = None
    for p in parts:
        if p is None:
            right = ""
            continue
        t = type(p)
        if t is str:
            s = p
        elif t is int:
            s = "%d" % p if p >= 0 else name_text(e, p)
        elif t is tuple:
            s = p[0]
        else:
            s = p.decode()
        if right is None:
            left += s
        else:
            right += s
    if right is None:
        return left[:cols] if cols else left
    if not cols:
        return left + " " + right
    room = cols - len(right) - 1
    if len(left) > room:
        left = left[:room]
    return left + " " * (cols - len(left) - len(right)) + right


class Painter:
    def __init__(self, display, handset):
        self.d = display
        self.hs = handset
        self.fbuf = memoryview(display.buf)  # names and lines are read into it
        self.missing = 0  # fixed texts with no Persian line (drawn in Latin)

    def english(self, page, text):
        fb = self.d.fb
        fb.fill_rect(0, page * 8, _WIDTH, 8, 0)
        fb.text(text, 0, page * 8, 1)

    # -- Persian --------------------------------------------------------------------
    def persian(self, row, parts, e):
        """Draw row 0..3 of the Persian screen (pages 2 * row and 2 * row + 1)."""
        self.d.fb.fill_rect(0, row * 16, _WIDTH, 16, 0)
        n = len(parts)
        split = n
        for i in range(n):
            if parts[i] is None:
                split = i
                break
        # The start of the row is its right end (less the edge kept clear); the
        # parts after None sit at the left end, in the same right-to-left order.
        x = _WIDTH - _EDGE + _GAP
        for i in range(split):
            x = self._spaced(row, parts[i], x, e)
        if split < n:
            x = 0
            for i in range(split + 1, n):
                w = -self._part(row, parts[i], 0, e, False)
                if w:
                    x += w + _GAP
            for i in range(split + 1, n):
                x = self._spaced(row, parts[i], x, e)

    def _spaced(self, row, p, x, e):
        # The part ends a gap before x (parts of no width take no gap).
        left = self._part(row, p, x - _GAP, e)
        return x if left == x - _GAP else left

    def _part(self, row, p, right, e, draw=True):
        """Draw part p with its right edge at `right` (exclusive); returns its
        left edge (draw False: only measures it)."""
        texts = self.hs.texts
        t = type(p)
        if t is int:
            if p < 0:
                return self._name(row, p, right, e, draw)
            return self._number(row, p, right, draw)
        if t is bytes:
            return self._latin(row, p.decode(), right, draw)
        line = 0
        if t is tuple:
            p, line = p
        entry = texts.find(p)
        if entry < 0:
            p = p.strip()
            if draw and p:
                self.missing += 1
            return self._latin(row, p, right, draw)
        w, at = texts.line(entry, line)
        if draw:
            self._blit(row, right - w, w, texts.src, at)
        return right - w

    def _latin(self, row, s, right, draw):
        w = 8 * len(s)
        if draw:
            self.d.fb.text(s, right - w, row * 16 + _LATIN_Y, 1)
        return right - w

    def _number(self, row, n, right, draw):
        texts = self.hs.texts
        dw = texts.digit_w
        w = len("%d" % n) * (dw + _DIGIT_GAP) - _DIGIT_GAP
        if draw:
            x = right - dw  # the last digit first: numbers read left to right
            while True:
                self._blit(row, x, dw, texts.src, texts.digit(n % 10))
                n //= 10
                if not n:
                    break
                x -= dw + _DIGIT_GAP
        return right - w

    def _name(self, row, ref, right, e, draw):
        players = e.players
        if ref >= -2 and players is not None and type(players[-1 - ref]) is not str:
            # Doubles: both partners, "A and B"
            side = -1 - ref
            x = self._part(row, -3 - 2 * side, right, e, draw)
            x = self._part(row, "/", x - _GAP, e, draw)
            return self._part(row, -4 - 2 * side, x - _GAP, e, draw)
        i = 2 * (-1 - ref) if ref >= -2 else -3 - ref  # a side in singles: its bitmap
        w = self.hs.widths[i]
        if not w:
            return self._latin(row, name_text(e, ref), right, draw)
        if draw:
            try:
                with open(self.hs.path("name%d" % i), "rb") as f:
                    self._blit(row, right - w, w, f, 2)
            except OSError:
                pass  # gone from flash: the row shows no name rather than a wrong one
        return right - w

    def _blit(self, row, x, w, src, at):
        """Copy w columns of two pages (page 0 columns, then page 1) from src
        at `at` (a memoryview in place, or an open file) to x."""
        first = -x if x < 0 else 0
        last = _WIDTH - x if x + w > _WIDTH else w
        if first >= last:
            return
        fbuf = self.fbuf
        in_place = type(src) is memoryview
        for page in (0, 1):
            to = (row * 2 + page) * _WIDTH + x
            fro = at + page * w
            if in_place:
                fbuf[to + first : to + last] = src[fro + first : fro + last]
            else:
                src.seek(fro + first)
                src.readinto(fbuf[to + first : to + last])


# -- the Persian texts ------------------------------------------------------------
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


def key(text):
    """The key of an English text: a hash of its UTF-8 bytes without the
    spaces at either end (host/handset/font.py keys the file with this very
    function).  Bytes, not characters: MicroPython interns each character a
    str yields as a name of its own, for good."""
    b = text.encode()
    i = 0
    j = len(b)
    while i < j and b[i] == 32:
        i += 1
    while j > i and b[j - 1] == 32:
        j -= 1
    h = 5381
    while i < j:
        h = (h * 33 + b[i]) & _KEY_MASK  # stays a small int on a 32-bit port
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
