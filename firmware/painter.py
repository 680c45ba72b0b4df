# Draws the handset's rows (screens.py) into the SSD1306's frame buffer.
#
#   English  8 rows of 16 characters of framebuf's 8x8 font, one page each
#   Persian  4 rows of 16 pixels (two pages each), laid right to left: fixed
#            texts drawn at build time (bitmap_text.py), numbers in Persian
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


_WIDTH = const(128)
_COLS = const(16)
_GAP = const(4)  # between Persian parts: a space of the font
_LATIN_Y = const(5)  # the 8x8 font's cell in a 16-pixel row: capitals end on the baseline
_DIGIT_GAP = const(1)


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
        # The start of the row is its right end; the parts after None sit at the
        # left end, in the same right-to-left order.
        x = _WIDTH + _GAP
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
