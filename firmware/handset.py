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

_VERSION = const(1)
_LANG_FA = const(1)  # names.LANGS


class Handset:
    def __init__(self, root, texts_path=None):
        self.root = root
        self.texts_path = texts_path
        self.lang = 0
        self.seq = 0  # newest host message applied here
        self.widths = bytearray(4)  # of each name's bitmap (0: none)
        self.texts = None  # painter.BitmapText while in Persian
        self.persian = False
        try:  # noqa: SIM105 (no contextlib on MicroPython)
            os.remove(self.path("htmp"))  # a write a power cut interrupted
        except OSError:
            pass
        data = self._load("hset", 6)
        if data is not None and len(data) == 6 and data[0] == _VERSION:
            self.lang = data[1] if data[1] < len(names.LANGS) else 0
            self.seq = data[2] | (data[3] << 8) | (data[4] << 16) | (data[5] << 24)
        for i in range(4):
            head = self._load("name%d" % i, 1)
            if head:
                self.widths[i] = head[0]
        self._open_texts()

    def path(self, name):
        return self.root + "/" + name

    def _load(self, name, n):
        try:
            with open(self.path(name), "rb") as f:
                return f.read(n)
        except OSError:
            return None

    def write(self, name, data):
        """A file of the handset (or the pockets' counts, app.py's Health), written
        whole to htmp, then renamed over its name."""
        tmp = self.path("htmp")
        with open(tmp, "wb") as f:
            f.write(data)
        dst = self.path(name)
        try:
            os.rename(tmp, dst)
        except OSError:  # FAT cannot rename over a file
            os.remove(dst)
            os.rename(tmp, dst)

    def _save(self, seq):
        # The settings, with the newest host message taken (written after a
        # name: a cut between the two only makes the host send it again).
        if seq > self.seq:
            self.seq = seq
        s = self.seq
        self.write("hset", bytes((_VERSION, self.lang, s & 255, (s >> 8) & 255,
                                   (s >> 16) & 255, s >> 24)))  # fmt: skip

    def _open_texts(self):
        self.texts = None
        if self.lang == _LANG_FA:
            from .painter import BitmapText

            path = self.texts_path
            if path is None:  # beside the firmware: /rom/lib/baulk/firmware or /lib/...
                path = __file__.rsplit("/", 1)[0] + "/fa.bin"
            try:  # noqa: SIM105 (no contextlib on MicroPython)
                self.texts = BitmapText(path)
            except (OSError, ValueError):
                pass  # no Persian on this board: the handset stays in English
        self.persian = self.texts is not None

    # -- the host's messages -------------------------------------------------------
    def settings(self, body, seq):
        """A `settings` body (checked against the catalogue): None when taken,
        else why it is refused (nothing then changes)."""
        lang = body.get(0, self.lang)
        if type(lang) is not int or lang >= len(names.LANGS):
            return "settings: language %s is not known here (%s)" % (
                "#%d" % lang if type(lang) is int else repr(lang),
                ", ".join(names.LANGS),
            )
        self.lang = lang
        self._save(seq)
        self._open_texts()
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
        # Rows of pixels (first pixel in the high bit) to the display's columns
        # of 8 (top pixel in the low bit), two pages, after the width and height.
        cols = bytearray(2 + 2 * w)
        cols[0] = w
        cols[1] = h
        for y in range(h):
            base = y * row
            bit = 1 << (y & 7)
            page = 2 + (y >> 3) * w
            for x in range(w):
                if bits[base + (x >> 3)] & (0x80 >> (x & 7)):
                    cols[page + x] |= bit
        i = body[0] * 2 + body[1]
        self.write("name%d" % i, cols)
        self.widths[i] = w
        self._save(seq)
        return None

    def forget_names(self):
        """A match with other players: the bitmaps show someone else."""
        for i in range(4):
            if self.widths[i]:
                try:  # noqa: SIM105 (no contextlib on MicroPython)
                    os.remove(self.path("name%d" % i))
                except OSError:
                    pass
                self.widths[i] = 0
