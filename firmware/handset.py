# The handset's settings, kept on flash so that they outlive a power cut and
# need no host afterwards: its language (names.LANGS), and the players' names
# as the host drew them (SPEC.md `settings`, `name_bitmap`).  The Persian
# handset cannot shape text, so a name it shows is a bitmap from the host.
#
# Files, in the journal's directory, each written whole to `htmp` and renamed
# over its name (atomic on littlefs):
#   hset     version 1, the language code, the seq of the newest host message
#            applied here (u32): the link's `delivered` after a reset
#   name0-3  a name (side * 2 + member): u8 width, u8 height, then the pixels
#            as the display takes them, width x 2 bytes (page 0, then page 1)

import os

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


from . import names

_PAGES = const(2)  # a name is one 16-pixel row of the Persian handset
_MAX_W = const(128)
_VERSION = const(1)
LANG_FA = const(1)


class Handset:
    def __init__(self, root, texts_path=None):
        self.root = root
        self.texts_path = texts_path
        self.lang = 0
        self.seq = 0  # newest host message applied here
        self.widths = bytearray(4)  # of each name's bitmap (0: none)
        self.texts = None  # bitmap_text.BitmapText while in Persian
        self.buf = None  # one name's pixels, read from flash to draw them
        try:  # noqa: SIM105 (no contextlib on MicroPython)
            os.remove(self._path("htmp"))  # a write a power cut interrupted
        except OSError:
            pass
        data = self._load("hset")
        if data is not None and len(data) >= 6 and data[0] == _VERSION:
            self.lang = data[1] if data[1] < len(names.LANGS) else 0
            self.seq = data[2] | (data[3] << 8) | (data[4] << 16) | (data[5] << 24)
        for i in range(4):
            head = self._load("name%d" % i, 2)
            if head is not None and len(head) == 2:
                self.widths[i] = head[0]
        self._open_texts()

    # -- flash ------------------------------------------------------------------
    def _path(self, name):
        return self.root + "/" + name

    def _load(self, name, n=-1):
        try:
            with open(self._path(name), "rb") as f:
                return f.read(n)
        except OSError:
            return None

    def _save(self, name, *parts):
        tmp = self._path("htmp")
        with open(tmp, "wb") as f:
            for p in parts:
                f.write(p)
        dst = self._path(name)
        try:
            os.rename(tmp, dst)
        except OSError:  # FAT cannot rename over a file
            os.remove(dst)
            os.rename(tmp, dst)

    def _save_settings(self, seq):
        if seq > self.seq:
            self.seq = seq
        s = self.seq
        self._save("hset", bytes((_VERSION, self.lang, s & 255, (s >> 8) & 255,
                                  (s >> 16) & 255, (s >> 24) & 255)))  # fmt: skip

    def _open_texts(self):
        if self.lang != LANG_FA:
            if self.texts is not None:
                self.texts.close()
            self.texts = None
            self.buf = None
            return
        if self.texts is None:
            from .bitmap_text import BitmapText

            path = self.texts_path
            if path is None:  # beside the firmware: /rom/lib/baulk/firmware or /lib/...
                path = __file__.rsplit("/", 1)[0] + "/fa.bin"
            try:
                self.texts = BitmapText(path)
            except (OSError, ValueError):
                self.texts = None  # no Persian data on this board: English it is
        self.buf = bytearray(2 + _PAGES * _MAX_W)

    @property
    def persian(self):
        return self.texts is not None

    # -- the host's messages -------------------------------------------------------
    def set_lang(self, code, seq=0):
        self.lang = code
        self._save_settings(seq)
        self._open_texts()

    def settings(self, body, seq):
        """A `settings` body (checked against the catalogue): None when taken,
        else why it is refused (nothing then changes)."""
        lang = body.get(0)
        if lang is None:
            self._save_settings(seq)
            return None
        if type(lang) is not int or lang >= len(names.LANGS):
            return "settings: language %s is not known here (%s)" % (
                "#%d" % lang if type(lang) is int else repr(lang),
                ", ".join(names.LANGS),
            )
        self.set_lang(lang, seq)
        return None

    def name_bitmap(self, body, seq):
        """A `name_bitmap` body (its keys checked against the catalogue): None
        when taken, else why it is refused (the name it had stays)."""
        w = body[2]
        h = body[3]
        bits = body[4]
        row = (w + 7) >> 3
        if len(bits) != row * h:
            return "name_bitmap: %d x %d pixels take %d bytes, not %d" % (w, h, row * h, len(bits))
        # Rows of pixels (first pixel in the high bit) to the display's
        # columns of 8 (top pixel in the low bit), two pages.
        cols = bytearray(_PAGES * w)
        for y in range(h):
            base = y * row
            bit = 1 << (y & 7)
            page = (y >> 3) * w
            for x in range(w):
                if bits[base + (x >> 3)] & (0x80 >> (x & 7)):
                    cols[page + x] |= bit
        i = body[0] * 2 + body[1]
        self._save("name%d" % i, bytes((w, h)), cols)
        self.widths[i] = w
        self._save_settings(seq)
        return None

    def forget_names(self):
        """A match with other players: the bitmaps show someone else."""
        for i in range(4):
            if self.widths[i]:
                try:  # noqa: SIM105 (no contextlib on MicroPython)
                    os.remove(self._path("name%d" % i))
                except OSError:
                    pass
                self.widths[i] = 0

    def name(self, i):
        """(width, pixels) of name i (side * 2 + member), read from flash; (0, None) if none."""
        w = self.widths[i]
        if not w or self.buf is None:
            return 0, None
        try:
            with open(self._path("name%d" % i), "rb") as f:
                n = f.readinto(self.buf)
        except OSError:
            return 0, None
        if n < 2 + _PAGES * w:
            return 0, None
        return w, memoryview(self.buf)[2 : 2 + _PAGES * w]
