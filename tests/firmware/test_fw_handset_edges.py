"""No line on the handset starts on the display's edge: a Persian row keeps
its rightmost column(s) dark (firmware/painter.py's edge, host/handset/font.py
EDGE), as an English row keeps its leftmost one dark through the 8x8 font's
blank first column.  Every Persian text the handset can show, every line of
it, the digits, the striker's mark and players' names drawn by the host (long
ones cut with an ellipsis, singles and doubles) are painted by the real
painter and handset modules under CPython at the start of a row.

The screens of the scenarios show the same (tests/firmware/test_fw_handset.py
compares them with bitmaps composed with the same edge; their PNGs go to
tests/firmware/artifacts/).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from baulk.firmware.handset import Handset
from baulk.firmware.painter import Painter
from baulk.firmware.sim.font import FIRST, FONT
from baulk.firmware.sim.framebuf import FrameBuffer
from baulk.host.handset import font as handset_font
from baulk.host.handset import render as text_render
from baulk.host.handset import sync
from baulk.host.handset import texts as handset_texts

EDGE = handset_font.EDGE
WIDTH = 128
FA = 1  # names.LANGS

# Names as a venue may enter them: short and long, Persian, Latin and mixed.
# The long ones are cut to their room (sync.NAME_WIDTH, PARTNER_WIDTH).
NAMES = [
    "علی",
    "خدیجه",
    "ژیلا",
    "Reza",
    "Jim",
    "Ronnie O'Sullivan",
    "محمدحسین عبدالهی‌پور خراسانی",
    "Mohammad-Hossein Abdollahi",
    "رضا Kamali",
]


class Display:
    """What the painter needs of the SSD1306 driver: its buffer and framebuf."""

    def __init__(self) -> None:
        self.buf = bytearray(WIDTH * 8)
        self.fb = FrameBuffer(self.buf, WIDTH, 64)


class Match:
    """What the painter reads of the engine: the players."""

    def __init__(self, players: Sequence[Any] | None) -> None:
        self.players = players


@pytest.fixture(scope="module")
def handset(tmp_path_factory: pytest.TempPathFactory) -> Handset:
    root = tmp_path_factory.mktemp("handset")
    handset_font.write(root)
    hs = Handset(str(root), str(root / handset_font.FILE_NAME))
    assert hs.settings({0: FA}, 1) is None and hs.persian
    return hs


def lit(buf: bytearray, row: int, x: int) -> bool:
    """A pixel of Persian row `row` (two pages) lit in column x."""
    return bool(buf[(2 * row) * WIDTH + x] | buf[(2 * row + 1) * WIDTH + x])


def paint(hs: Handset, parts: list[Any], players: Sequence[Any] | None = None) -> bytearray:
    display = Display()
    painter = Painter(display, hs)
    painter.persian(1, parts, Match(players))
    assert painter.missing == 0, parts  # a Persian line, not the Latin stand-in
    return display.buf


def check_start(buf: bytearray, what: object, inked: bool = True) -> None:
    """The row's start is clear of the edge; a part cut to its ink (a text, a
    name the host drew) comes right up to it, so the margin is exactly the
    edge (nothing moved further in).  Digits sit centred in cells of the
    widest one's width, and Latin letters in 8-pixel cells: only near it."""
    touching = [x for x in range(WIDTH - EDGE, WIDTH) if lit(buf, 1, x)]
    assert not touching, f"{what!r} lights column(s) {touching} at the right edge"
    near = range(WIDTH - EDGE - 1, WIDTH - EDGE) if inked else range(WIDTH - EDGE - 4, WIDTH)
    assert any(lit(buf, 1, x) for x in near), f"{what!r} does not start at the edge's column"


def text_lines() -> Iterator[tuple[str, int]]:
    """(English text, line n) of every Persian text in fa.bin."""
    for english, persian in handset_texts.entries().items():
        for n in range(len(text_render.wrap(persian, handset_font.ROOM))):
            yield english, n


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
def test_no_persian_text_starts_on_the_edge(handset: Handset) -> None:
    count = 0
    for english, n in text_lines():
        part: Any = (english, n) if n else english
        check_start(paint(handset, [part]), part)
        # ... nor when other parts follow it, or when it is all there is
        # before the row's far end (the score row's "on red", "F1 bo3").
        check_start(paint(handset, [part, 7, None, 12]), part)
        count += 1
    assert count > 200  # every text, and the lines of the long ones
    # The striker's mark, first on the striker's row and in a foul's notice.
    players = ["Ali", "Reza"]
    check_start(paint(handset, [">", -1, None, 8], players), "the striker's mark")


def test_no_number_starts_on_the_edge(handset: Handset) -> None:
    """A list's option number starts its row; a score row's number ends it."""
    for n in (0, 1, 3, 4, 7, 8, 9, 11, 147):
        check_start(paint(handset, [n, "wrong ball"]), n, inked=False)


def drawn(hs: Handset, name: str, side: int, member: int, most: int) -> int:
    """A name drawn by the host and taken by the device; returns its width."""
    b = sync.name_bitmap(name, side, member, most)
    assert hs.name_bitmap({0: b.side, 1: b.member, 2: b.width, 3: b.height, 4: b.bits}, 2) is None
    return b.width


def test_no_name_starts_on_the_edge(handset: Handset) -> None:
    cut = 0
    for name in NAMES:
        players = [name, "Reza"]
        width = drawn(handset, name, 0, 0, sync.NAME_WIDTH)
        cut += text_render.draw(name, None).width > width
        check_start(paint(handset, [-1], players), name)  # the score row, not striking
        check_start(paint(handset, [-1, None, 147], players), name)
        check_start(paint(handset, [-1, "concedes the frame? OK"], players), name)
    assert cut >= 3  # the long names were cut with an ellipsis
    # Doubles: the partners are drawn narrower, and their row starts with one.
    cut = 0
    for name in NAMES:
        doubles: list[Any] = [[name, "سارا"], ["رضا", "مینا"]]
        width = drawn(handset, name, 0, 0, sync.PARTNER_WIDTH)
        drawn(handset, "سارا", 0, 1, sync.PARTNER_WIDTH)
        cut += text_render.draw(name, None).width > width
        check_start(paint(handset, [-3], doubles), name)  # one partner (a list's option)
        check_start(paint(handset, [-1, None, 0], doubles), name)  # both, "A و B"
    assert cut >= 4
    handset.forget_names()


def test_no_latin_name_starts_on_the_edge(handset: Handset) -> None:
    """Names of a match the host drew no bitmaps for go in the 8x8 font, right
    to left like any part; "m" and "w" have ink in their last column."""
    handset.forget_names()
    for name in ("Player B", "Sam", "Andrew", "Tom"):
        check_start(paint(handset, [-1, None, 0], [name, "x"]), name, inked=False)


# ---------------------------------------------------------------------- English
def glyph(ch: str) -> bytes:
    i = (ord(ch) - FIRST) * 8
    return FONT[i : i + 8]


# The 8x8 font's glyphs with ink in their first column: an English row that
# starts with one of them ("table sim-1", "take back the", "the last stroke")
# touches the left edge, as MicroPython's built-in font draws it.
LEFT_INKED = {chr(FIRST + i) for i in range(len(FONT) // 8) if FONT[8 * i]} - {"\x7f"}


def test_no_english_line_starts_on_the_edge(handset: Handset) -> None:
    """English rows start at column 0 and the font keeps its first column
    blank: every English text of the handset, at the start of a row, leaves
    column 0 dark, save the few letters the font itself draws into it."""
    assert sorted(LEFT_INKED) == ["#", "*", "_", "t"]
    display = Display()
    painter = Painter(display, handset)
    texts = [t.strip() for t in handset_texts.entries()] + ["Player A", "sim-1", ">Reza"]
    touching = []
    for text in texts:
        painter.english(0, text[:16])
        first = text[0]
        assert bytes(display.buf[0:8]) == glyph(first), text  # drawn whole, from column 0
        if display.buf[0] and first not in LEFT_INKED:
            touching.append(text)
    assert touching == []


def test_the_margin_is_the_english_fonts() -> None:
    """One edge for both languages, declared in firmware/painter.py: the
    8x8 font's blank first column, one pixel."""
    blank = sum(1 for i in range(FIRST, 127) if not glyph(chr(i))[0])
    assert blank > 80 and EDGE == 1
