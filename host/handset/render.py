"""Text drawn for the handset's 1-bit 128 x 64 display: shaped, laid out
right to left where the script says so, and rasterized without grey.

Pillow does the whole job with its raqm layout engine: libraqm runs the
Unicode bidi algorithm (FriBiDi) and shapes each run with HarfBuzz, so Persian
letters join and the text runs right to left with Latin names kept apart, and
FreeType rasterizes the glyphs in mono mode, which hints them for one bit a
pixel.  We chose it over uharfbuzz with python-bidi because those two leave
the glyph rasterizing and the run reordering to us; Pillow with raqm is one
maintained library that does all three, and its rendering was checked pixel by
pixel (tests/firmware artifacts).  Without raqm Pillow draws letters unjoined
and left to right, so :func:`font` refuses to work without it.

The font is Vazirmatn (SIL Open Font License) from the npm package
``vazirmatn`` that ``make setup`` installs, at 12 pixels: the smallest size at
which every dot of پ چ ژ گ stays apart on this display.  Every line is 16
pixels high with the baseline on row 12, so that fixed texts, digits and
names drawn apart line up when the handset puts them side by side.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont, features

from baulk.host.sentences import FA_DIGITS

ROOT = Path(__file__).resolve().parents[2]
FONT_ENV = "BAULK_FONT"
FONT_FILE = Path("vazirmatn") / "fonts" / "ttf" / "Vazirmatn-Regular.ttf"
SIZE = 12
HEIGHT = 16  # a Persian row of the handset: two SSD1306 pages
BASELINE = 12
ELLIPSIS = "…"
PERSIAN_DIGITS = "0123456789".translate(FA_DIGITS)  # the one table (host/sentences.py)


class FontError(RuntimeError):
    """The font or the layout engine the handset's Persian needs is missing."""


def font_path() -> Path:
    """Vazirmatn from node_modules (or the file BAULK_FONT names)."""
    named = os.environ.get(FONT_ENV)
    if named:
        return Path(named)
    roots = [ROOT / "node_modules"]
    extra = os.environ.get("BAULK_NODE_MODULES")
    if extra:
        roots.insert(0, Path(extra))
    for root in roots:
        if (root / FONT_FILE).is_file():
            return root / FONT_FILE
    raise FontError(
        f"the Persian font is missing ({FONT_FILE} under node_modules): run 'make setup', "
        f"which installs the npm package vazirmatn, or set {FONT_ENV} to a copy of it"
    )


@cache
def font() -> ImageFont.FreeTypeFont:
    if not features.check("raqm"):
        raise FontError(
            "Pillow cannot shape text here (no raqm layout engine: install libraqm0 and "
            "libfribidi0, then reinstall Pillow); Persian would come out unjoined"
        )
    path = font_path()
    try:
        return ImageFont.truetype(str(path), SIZE, layout_engine=ImageFont.Layout.RAQM)
    except OSError as e:
        raise FontError(f"cannot read the Persian font {path}: {e}") from None


@dataclass(frozen=True)
class Line:
    """One line of text as the handset shows it: `width` x HEIGHT pixels."""

    image: Image.Image  # mode "1"
    clipped: bool  # ink above the top row or below the bottom one was cut off

    @property
    def width(self) -> int:
        return int(self.image.width)

    def columns(self) -> bytes:
        """The SSD1306's order (MONO_VLSB): page 0's columns, then page 1's."""
        out = bytearray(2 * self.width)
        px = self.image.load()
        assert px is not None
        for x in range(self.width):
            for y in range(HEIGHT):
                if px[x, y]:
                    out[(y >> 3) * self.width + x] |= 1 << (y & 7)
        return bytes(out)

    def rows(self) -> bytes:
        """Packed rows from the top, leftmost pixel in the high bit (name_bitmap)."""
        packed: bytes = self.image.tobytes()  # mode "1" packs exactly so
        return packed


def draw(text: str, rtl: bool | None = True) -> Line:
    """`text` on one line, cut to its ink left and right.  rtl: True for a
    right-to-left paragraph (the handset's Persian), None to let the bidi
    algorithm take the direction from the text (a player's name)."""
    f = font()
    direction = "rtl" if rtl else ("ltr" if rtl is False else None)
    probe = ImageDraw.Draw(Image.new("1", (1, 1)))
    left, _top, right, _bottom = probe.textbbox(
        (0, BASELINE), text, font=f, anchor="ls", direction=direction, language="fa"
    )
    width = max(1, int(right - left))
    canvas = Image.new("1", (width + 4, HEIGHT + 16), 0)
    d = ImageDraw.Draw(canvas)
    d.fontmode = "1"
    d.text(
        (2 - int(left), BASELINE + 8),
        text,
        font=f,
        fill=1,
        anchor="ls",
        direction=direction,
        language="fa",
    )
    ink = canvas.getbbox()
    if ink is None:
        return Line(Image.new("1", (1, HEIGHT), 0), False)
    x0, y0, x1, y1 = ink
    clipped = y0 < 8 or y1 > 8 + HEIGHT
    return Line(canvas.crop((x0, 8, x1, 8 + HEIGHT)), clipped)


def fit(text: str, most: int, rtl: bool | None = None) -> Line:
    """`text` on one line of at most `most` pixels: characters are dropped from
    its end, with an ellipsis, until it fits."""
    line = draw(text, rtl)
    cut = text
    while line.width > most and len(cut) > 1:
        cut = cut[:-1].rstrip()
        line = draw(cut + ELLIPSIS, rtl)
    return line


def wrap(text: str, most: int) -> list[Line]:
    """A right-to-left paragraph in lines of at most `most` pixels, broken at
    spaces (a word wider than a line stays whole on its own line)."""
    words = text.split(" ")
    lines: list[Line] = []
    current = ""
    for word in words:
        trial = f"{current} {word}" if current else word
        if current and draw(trial).width > most:
            lines.append(draw(current))
            current = word
        else:
            current = trial
    if current:
        lines.append(draw(current))
    return lines


def digits() -> tuple[int, list[bytes]]:
    """The Persian digits ۰..۹ in cells of one width (the widest digit),
    each centred in its cell: (width, columns of each)."""
    lines = [draw(d) for d in PERSIAN_DIGITS]
    width = max(line.width for line in lines)
    cells: list[bytes] = []
    for line in lines:
        cell = Image.new("1", (width, HEIGHT), 0)
        cell.paste(line.image, ((width - line.width) // 2, 0))
        cells.append(Line(cell, False).columns())
    return width, cells
