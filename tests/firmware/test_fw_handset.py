"""The referee's handset in both languages, under real MicroPython (npm
WebAssembly port) with the simulated board, and under CPython.

Every screen is drawn in English and in Persian (tests/firmware/mp_handset.py
switches the language through the host's `settings` mid-match); each Persian
screen's display RAM is compared with the bitmap it must show, composed here
from the texts, digits and names drawn by host/handset/render.py and laid out
right to left by the rules of firmware/painter.py.  PNGs of every screen in
both languages go to tests/firmware/artifacts/ (not committed).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from baulk.firmware import keypad_flow, names
from baulk.firmware.sim.font import FIRST, FONT
from baulk.host.cli import firmware as firmware_cmd
from baulk.host.handset import font as handset_font
from baulk.host.handset import render as text_render
from baulk.host.handset import sync as handset
from baulk.host.handset import texts as handset_texts
from baulk.host.sim import micropython

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
SCRIPT = HERE / "mp_handset.py"
ARTIFACTS = HERE / "artifacts"
GAP = 4  # between the parts of a Persian row
DIGIT_GAP = 1
LATIN_Y = 5  # the 8x8 font's cell in a 16-pixel row

SINGLES = ["Ali", "Reza"]
DOUBLES = [["علی", "سارا"], ["رضا", "مینا"]]


# ---------------------------------------------------------------------- running
@cache
def built() -> Path:
    """fa.bin and the names the host draws, in a folder of their own."""
    out = ROOT / "build" / "test-handset"
    out.mkdir(parents=True, exist_ok=True)
    handset_font.write(out)
    names = {
        "singles": handset.name_bitmaps(SINGLES),
        "doubles": handset.name_bitmaps(DOUBLES),
    }
    data = {
        k: [[b.side, b.member, b.width, b.height, b.bits.hex()] for b in v]
        for k, v in names.items()
    }
    (out / "names.json").write_text(json.dumps(data))
    return out


def args(scenario: str, texts: str | None = None) -> list[str]:
    out = built()
    return [scenario, texts or str(out / handset_font.FILE_NAME), str(out / "names.json")]


@cache
def on_micropython(scenario: str, script: Path = SCRIPT) -> Any:
    """A scenario of ``script`` (mp_handset.py, or one built on it) under
    MicroPython, with the packed texts and the names it reads."""
    out = built()
    files = [out / handset_font.FILE_NAME, out / "names.json", HERE / "mp_firmware.py"]
    if script != SCRIPT:
        files.append(SCRIPT)  # the script imports mp_handset
    done = micropython.run(script, args(scenario), files=files, heap=64 << 20)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


def on_cpython(scenario: str, flash: Path, script: Path = SCRIPT) -> Any:
    done = subprocess.run(
        [sys.executable, str(script), *args(scenario), str(flash)],
        capture_output=True,
        check=False,
        cwd=HERE,
    )
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


# ---------------------------------------------------------------------- the expected bitmaps
class T:
    """A fixed text by its English words (line n of a text that takes several)."""

    def __init__(self, english: str, line: int = 0) -> None:
        self.english = english
        self.line = line


def P(side: int, member: int | None = None) -> tuple[str, int, int | None]:
    return ("name", side, member)


def L(text: str) -> tuple[str, str]:
    return ("latin", text)


Part = T | int | tuple[Any, ...]


class Composer:
    """A Persian screen as it must look: rows of parts, right to left."""

    def __init__(self, players: Sequence[Any] | None) -> None:
        self.players = players
        self.entries = handset_texts.entries()
        self.digit_w, self.digits = text_render.digits()

    def columns(self, part: Part) -> tuple[int, bytes]:
        """(width, page 0 columns + page 1 columns) of one part."""
        if isinstance(part, T):
            lines = text_render.wrap(self.entries[part.english.strip()], handset_font.ROOM)
            line = lines[part.line]
            return line.width, line.columns()
        if isinstance(part, int):
            text = str(part)
            w = len(text) * (self.digit_w + DIGIT_GAP) - DIGIT_GAP
            cols = bytearray(2 * w)
            for i, ch in enumerate(text):
                cell = self.digits[int(ch)]
                x = i * (self.digit_w + DIGIT_GAP)
                for page in (0, 1):
                    cols[page * w + x : page * w + x + self.digit_w] = cell[
                        page * self.digit_w : (page + 1) * self.digit_w
                    ]
            return w, bytes(cols)
        if part[0] == "latin":
            text = part[1]
            w = 8 * len(text)
            cols = bytearray(2 * w)
            for i, ch in enumerate(text):
                for c in range(8):
                    bits = FONT[(ord(ch) - FIRST) * 8 + c] << LATIN_Y
                    cols[i * 8 + c] = bits & 0xFF
                    cols[w + i * 8 + c] = bits >> 8
            return w, bytes(cols)
        _, side, member = part
        assert self.players is not None
        p = self.players[side]
        name = p if member is None else p[member]
        most = handset.NAME_WIDTH if member is None else handset.PARTNER_WIDTH
        line = text_render.fit(name, most)
        return line.width, line.columns()

    def row(self, ram: bytearray, r: int, parts: Sequence[Part | None]) -> None:
        split = list(parts).index(None) if None in parts else len(parts)
        start = [self.columns(p) for p in parts[:split] if p is not None]
        end = [self.columns(p) for p in parts[split + 1 :] if p is not None]
        x = 128 - handset_font.EDGE + GAP  # the start, its edge kept clear
        placed = []
        for w, cols in start:
            x -= GAP + w
            placed.append((x, w, cols))
        x = sum(w + GAP for w, _ in end)
        for w, cols in end:
            x -= GAP + w
            placed.append((x, w, cols))
        for x0, w, cols in placed:
            for page in (0, 1):
                for i in range(w):
                    if 0 <= x0 + i < 128:
                        ram[(2 * r + page) * 128 + x0 + i] = cols[page * w + i]

    def screen(self, rows: Sequence[Sequence[Part | None] | None]) -> bytes:
        ram = bytearray(1024)
        for r, parts in enumerate(rows):
            if parts:
                self.row(ram, r, parts)
        return bytes(ram)


def image(ram_hex: str, scale: int = 4) -> Image.Image:
    ram = bytes.fromhex(ram_hex)
    im = Image.new("1", (128, 64), 0)
    px = im.load()
    for p in range(8):
        for x in range(128):
            v = ram[p * 128 + x]
            for bit in range(8):
                if v >> bit & 1:
                    px[x, p * 8 + bit] = 1
    return im.resize((128 * scale, 64 * scale), Image.Resampling.NEAREST)


def keep_artifacts(prefix: str, screens: dict[str, Any]) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    for name, s in screens.items():
        image(s["en"]).save(ARTIFACTS / f"{prefix}{name}-en.png")
        for i, page in enumerate(s["fa"]):
            image(page).save(ARTIFACTS / f"{prefix}{name}-fa-{i + 1}.png")


def check_screen(name: str, got: Sequence[str], pages: Sequence[Any], players: Any) -> None:
    """Each page of a Persian screen (as the display showed them in turn)
    against the bitmap it must show."""
    assert len(got) == len(pages), f"{name}: {len(got)} pages, not {len(pages)}"
    for i, (got_hex, rows) in enumerate(zip(got, pages, strict=True)):
        want = Composer(players).screen(rows)
        if want.hex() != got_hex:
            ARTIFACTS.mkdir(exist_ok=True)
            image(want.hex()).save(ARTIFACTS / f"expected-{name}-{i}-fa.png")
            image(got_hex).save(ARTIFACTS / f"got-{name}-{i}-fa.png")
            pytest.fail(f"Persian screen {name!r}, page {i + 1}, differs from the expected bitmap "
                        f"(see {ARTIFACTS})")  # fmt: skip


# ---------------------------------------------------------------------- the screens
ON = T("on ")
LINK_UP = T("link up")
MORE = T("7 more...")
YES_NO = T("OK yes  BACK no")
HINT = T("ball=number BACK")
M = T(">")  # the striker's mark


def score(p0: int, p1: int, striker: int | None) -> list[list[Any]]:
    """The players' rows, on every page of the score."""
    return [
        ([M] if striker == 0 else []) + [P(0), None, p0],
        ([M] if striker == 1 else []) + [P(1), None, p1],
    ]


def pages(head: list[Any], *bodies: list[Any]) -> list[list[Any]]:
    """A screen's pages: the head rows on each, then each body's rows."""
    return [head + body for body in bodies]


def on(ball: str, reds: int, nom: bool = False) -> list[Any]:
    return [T("nom " if nom else "on "), T(ball), None, T("R"), reds]


def brk(points: int, rem: int) -> list[Any]:
    return [T("brk "), points, None, T("rem "), rem]


def frame(number: int, best_of: int, f0: int, f1: int) -> list[Any]:
    return [T("F"), number, T(" bo"), best_of, None, f0, T("-"), f1]


def link(seq: int) -> list[Any]:
    return [LINK_UP, None, T("#"), seq]


def play(p0: int, p1: int, striker: int | None, seq: int, *bodies: list[Any]) -> list[list[Any]]:
    """A score screen in the first frame of a best of 3 (frames 0-0), the
    link up with its newest event `seq`."""
    return pages(score(p0, p1, striker), *bodies, [frame(1, 3, 0, 0), link(seq)])


def two(n: int, a: Part, b: Part | None = None) -> list[Any]:
    row: list[Any] = [n, a]
    if b is not None:
        row += [None, n + 1, b]
    return row


def listing(title: list[Any], *rows: list[Any]) -> list[list[Any]]:
    """A list: its options stay, its title and the hint take the top row in turn."""
    return pages([], [title, *rows], [[HINT], *rows])


FOUL_4 = [T("FOUL "), 4, M, P(1)]
FOUL_6 = [T("FOUL "), 6, M, P(1)]
SINGLES_SCREENS: dict[str, list[Any]] = {
    "no_match": pages(
        [],
        [
            [T("baulk "), L("sim-1")],
            [T("no match")],
            [T("MENU 1: new match, or wait for the host", 0)],
            [T("MENU 1: new match, or wait for the host", 1)],
        ],
        [link(0)],
    ),
    "match": play(0, 0, 0, 1, [on("red", 15), brk(0, 147)]),
    "after_red": play(1, 0, 0, 4, [on("colour", 14), brk(1, 146)]),
    "stroke": play(1, 0, 0, 7, [[T("...stroke")], None], [on("black", 14, nom=True), brk(1, 146)]),
    "break": play(8, 0, 0, 8, [[T("SPOT"), T("blk")], None], [on("red", 14), brk(8, 139)]),
    "respot_places": play(
        8, 0, 0, 9, [[T("blk"), T(" to "), T("pink")], None], [on("red", 14), brk(8, 139)]
    ),
    "foul": play(8, 4, 1, 12, [FOUL_4, [T("AGAIN? FREE?")]], [on("red", 14), brk(0, 139)]),
    "foul_list": listing(
        [T("FOUL: which?"), None, MORE],
        two(1, T("wrong ball"), T("no contact")),
        two(3, T("push"), T("touch")),
        two(5, T("double hit"), T("feet off floor")),
    ),
    "foul_list_2": listing(
        [T("FOUL: which?"), None, MORE],
        two(1, T("out of turn"), T("outside d")),
        two(3, T("jump"), T("cue")),
        two(5, T("two balls"), T("off table")),
    ),
    "foul_list_3": listing(
        [T("FOUL: which?"), None, MORE],
        two(1, T("before rest"), T("before spot")),
        two(3, T("pot not on"), T("in off")),
        two(5, T("FB snooker"), T("conferring")),
    ),
    "foul_list_4": listing(
        [T("FOUL: which?"), None, MORE],
        two(1, T("off-table ball"), T("measuring")),
        two(3, T("red after red"), T("non cue ball")),
        two(5, T("no declaration"), T("pre-nomination")),
    ),
    "foul_ball": pages(
        [[T("FOUL "), T("push")]],
        [[T("ball concerned? (OK: none)")], None, [T("ball key OK none")]],
    ),
    "miss_list": listing([T("MISS")], two(1, T("miss"), T("clear ball"))),
    "concede_list": listing([T("CONCEDE")], two(1, T("the frame"), T("the match"))),
    "concede_confirm": pages(
        [[T("CONCEDE")]], [[P(1), T("concedes the frame? OK")], None, [YES_NO]]
    ),
    "undo_confirm": pages([[T("UNDO")]], [[T("take back the last action?")], None, [YES_NO]]),
    "menu": listing(
        [T("MENU"), None, MORE],
        two(1, T("new match"), T("award frame")),
        two(3, T("award match"), T("re-rack")),
        two(5, T("toss"), T("spots")),
    ),
    "menu_2": listing(
        [T("MENU"), None, MORE],
        two(1, T("claim frame"), T("edge replace")),
        two(3, T("order (dbl)"), T("link info")),
        two(5, T("pocket check")),
    ),
    "link_info": pages(
        [],
        [
            [T("LINK"), None, T("OK close")],
            [T("table"), L("sim-1"), None, T("boot"), 1],
            [T("seq"), 12, None, T("ack"), 12],
            [T("retx"), 0, None, T("bad"), 0],
        ],
    ),
    "award_to": listing([T("AWARD TO")], two(1, P(0), P(1))),
    "award_confirm": pages([[T("AWARD")]], [[T("frame to "), P(0), T("? OK")], None, [YES_NO]]),
    "best_of": listing([T("BEST OF"), None, MORE], two(1, 1, 3), two(3, 5, 7), two(5, 9, 11)),
    "best_of_2": listing(
        [T("BEST OF"), None, MORE], two(1, 13, 15), two(3, 17, 19), two(5, 21, 23)
    ),
    "reds": listing([T("REDS")], two(1, T("15 reds"), T("10 reds")), two(3, T("6 reds"))),
    "breaker": listing([T("WHO BREAKS?")], two(1, P(0), P(1))),
    "new_match_confirm": pages(
        [[T("NEW MATCH")]],
        [[T("best of "), 5, T(", "), 15, T(" reds? OK")], None, [YES_NO]],
    ),
    "spots": pages(
        [[T("SPOTS TAKEN")]],
        [
            [T("yel"), T("behind"), None, T("OK send")],
            [T("colour keys: toggle a spot, WHITE: behind", 0)],
            [T("colour keys: toggle a spot, WHITE: behind", 1)],
        ],
    ),
    "free_ball_nominate": pages(
        [[T("FREE BALL")]],
        [
            [T("nominate a colour (BACK: later)", 0)],
            [T("nominate a colour (BACK: later)", 1)],
            [T("ball key  BACK")],
        ],
    ),
    "free_ball": play(
        8,
        4,
        1,
        13,
        [FOUL_4, [T("AGAIN? FREE?")]],
        [[T("FREE BALL")], None],
        [on("red", 14), brk(0, 147)],
    ),
    "refusal": play(
        8,
        4,
        0,
        15,
        [
            [T("a free ball needs a foul on the last stroke", 0)],
            [T("a free ball needs a foul on the last stroke", 1)],
        ],
        [on("red", 14), brk(0, 139)],
    ),
    "ask_pot": pages(
        [[T("POT "), T("ml")]],
        # the two likeliest balls first, for the referee's one key
        [[T("yellow"), T("or"), T("pink"), T("?")], None, [T("ball key  BACK")]],
    ),
    "ask_off": pages(
        [[T("BALL OFF TABLE")]], [[T("which ball went off?")], None, [T("ball key  BACK")]]
    ),
    "foul_after_ask": play(
        8,
        10,
        1,
        18,
        [FOUL_6, [T("AGAIN? FREE?")]],
        [[T("SPOT"), T("pnk")], None],
        [on("red", 14), brk(0, 139)],
    ),
    "link_down": pages(
        score(8, 10, 1),
        [[T("link down"), None, L("sim-1")], None],
        [FOUL_6, [T("AGAIN? FREE?")]],
        [[T("SPOT"), T("pnk")], None],
        [on("red", 14), brk(0, 139)],
        [frame(1, 3, 0, 0)],
    ),
    "match_over": pages(
        score(8, 10, None),
        [[T("MATCH OVER")], [P(0), T(" wins")]],
        [frame(1, 3, 1, 0), link(20)],
    ),
}
DOUBLES_SCREENS: dict[str, list[Any]] = {
    "doubles": pages(
        [[M, P(0, 0), T("/"), P(0, 1), None, 0], [P(1, 0), T("/"), P(1, 1), None, 0]],
        [on("red", 15), brk(0, 147)],
        [frame(1, 1, 0, 0), link(1)],
    ),
    "partner_list": listing([T("WHO PLAYS FIRST?")], two(1, P(1, 0), P(1, 1))),
}
NO_BITMAPS = pages(
    [[M, L("Player A"), None, 0], [L("Player B"), None, 0]],
    [on("red", 15), brk(0, 147)],
    [frame(1, 1, 0, 0), link(2)],
)


# ---------------------------------------------------------------------- tests
@pytest.mark.micropython
def test_every_persian_screen_is_the_expected_bitmap() -> None:
    out = on_micropython("screens")
    keep_artifacts("", out["screens"])
    assert set(out["screens"]) == set(SINGLES_SCREENS)
    for name, rows in SINGLES_SCREENS.items():
        check_screen(name, out["screens"][name]["fa"], rows, SINGLES)
    # The English screens are what they were (tests/firmware/test_fw_whole.py
    # checks them in detail): a few of them here, next to their Persian.
    s = out["screens"]
    assert s["match"]["rows"][1:3] == [">Ali           0", " Reza          0"]
    assert s["foul"]["rows"][5:7] == ["FOUL 4>Reza", "AGAIN? FREE?"]
    assert s["refusal"]["rows"][4:7] == ["! a free ball", "needs a foul on", "the last stroke"]
    assert s["respot_places"]["rows"][5] == "blk to pink"


@pytest.mark.micropython
def test_switching_the_language_mid_match_loses_nothing() -> None:
    out = on_micropython("screens")
    # Every screen was switched to Persian and back by the host: the engine,
    # the flow in progress (its step, page and draft) and the English display
    # came back the same, every text had its Persian, and no message was refused.
    assert out["changed"] == []
    assert all(s["missing"] == 0 for s in out["screens"].values())
    assert out["errors"] == []
    assert out["scores"] == [8, 10]
    assert all(s["fa"][0] != s["en"] for s in out["screens"].values())


# ---------------------------------------------------------------------- fields and edges
def words(rows: Sequence[Any]) -> Counter[str]:
    """What rows of parts (tests/firmware/mp_handset.py) show, word by word:
    each text's words, each number, each name; a text over several Persian
    lines counted once.  A word loses the punctuation at its ends, unless
    that is all it is (the striker's mark, the "-" between frames won)."""
    out: Counter[str] = Counter()
    for row in rows:
        for part in row or ():
            if part is None:
                continue
            kind = part[0]
            if kind == "line" and part[2]:
                continue
            for word in str(part[1]).split():
                word = word.strip(".,:;?!()") or word
                if word != "!":  # the English mark of a refusal, before its words
                    out[word] += 1
    return out


def scenarios() -> dict[str, dict[str, Any]]:
    """Every screen of the handset's scenarios, by name."""
    from tests.firmware import test_fw_pockets

    out: dict[str, dict[str, Any]] = {}
    for scenario in ("screens", "doubles"):
        out.update(on_micropython(scenario)["screens"])
    for scenario in ("healthy", "dead_beam", "drift"):
        out.update(test_fw_pockets.on_micropython(scenario)["screens"])
    return out


@pytest.mark.micropython
def test_every_screen_shows_every_field_its_english_twin_shows() -> None:
    """The Persian screen (all its pages) holds every text, number and name
    of its English twin: the score's frame and best-of, the frames won, both
    scores, the striker, the ball on, the reds, the break, the points
    remaining, and every notice, prompt, option and hint."""
    screens = scenarios()
    assert len(screens) > 40
    for name, s in screens.items():
        english = words(s["en_parts"])
        shown: list[Any] = []
        for page in s["fa_parts"]:
            shown += [row for row in page if row not in shown]
        lacking = english - words(shown)
        assert not lacking, f"{name}: the Persian screen lacks {sorted(lacking)}"
    score = words(screens["foul"]["en_parts"])
    for field in ("F", "bo", "1", "3", "-", ">", "Ali", "Reza", "8", "4", "on", "red", "R"):
        assert score[field], field  # the English score itself holds every field
    assert score["brk"] and score["rem"] and score["14"] and score["139"]


@pytest.mark.micropython
def test_no_text_is_drawn_past_the_display_edge() -> None:
    """In English, 16 characters a row (the two ends of a row a space apart);
    in Persian, 128 pixels less the edge the row's start keeps clear (the two
    ends a gap apart): every screen of the
    scenarios, the foul list's four pages and the menu's two among them."""
    screens = scenarios()
    for name in ("foul_list", "foul_list_2", "foul_list_3", "foul_list_4", "menu", "menu_2"):
        assert name in screens
    for name, s in screens.items():
        assert max(s["en_widths"]) <= 16, (name, s["rows"], s["en_widths"])
        for page in s["fa_widths"]:
            assert max(page) <= handset_font.ROOM, (name, s["fa_widths"])
    assert "1 wrong ball" in screens["foul_list"]["rows"]  # it read "1 wrong ball fir"


def test_every_foul_fits_the_english_list_and_the_foul_title() -> None:
    for i in range(len(keypad_flow.FOUL_ORDER)):
        assert len("1 " + keypad_flow.foul_label(i)) <= 16, keypad_flow.foul_label(i)
    for kind in names.FOUL_KINDS:
        if names.penalty_class(kind) == names.PENALTY_HIGHER:  # asks for the ball concerned
            assert len("FOUL " + keypad_flow.foul_text(kind)) <= 16, kind


@pytest.mark.micropython
def test_doubles_names_and_names_of_another_match() -> None:
    out = on_micropython("doubles")
    keep_artifacts("doubles-", out["screens"])
    for name, rows in DOUBLES_SCREENS.items():
        check_screen(name, out["screens"][name]["fa"], rows, DOUBLES)
    # A match with other players: the old bitmaps are dropped, the names go in Latin.
    assert out["widths"] == [0, 0, 0, 0]
    check_screen("no_bitmaps", out["screens"]["no_bitmaps"]["fa"], NO_BITMAPS, None)
    assert out["changed"] == []


@pytest.mark.micropython
def test_a_bad_name_bitmap_or_language_is_refused_and_changes_nothing() -> None:
    out = on_micropython("refused")
    assert out["same"] and out["name0_same"]
    got = [(e["0"], e["2"], e["1"]) for e in _errors(out["errors"])]
    # the catalogue's check (error 2), or the device's own (error 5: refused)
    assert [(code, mtype) for code, mtype, _ in got] == [
        (2, 15), (5, 15), (2, 15), (2, 15), (2, 15), (5, 14), (5, 14),
    ]  # fmt: skip
    texts = [text for _, _, text in got]
    assert "width" in texts[0] and "must be an integer 1..128" in texts[0]
    assert texts[1] == "name_bitmap: 16 x 16 pixels take 32 bytes, not 31"
    assert "bits" in texts[2] and "0 to 256 bytes" in texts[2]
    assert "bits" in texts[3]
    assert "side" in texts[4]
    assert texts[5] == "settings: language #7 is not known here (en, fa)"
    assert texts[6] == "settings: language 'de' is not known here (en, fa)"


def _errors(errors: list[Any]) -> list[dict[str, Any]]:
    return [{str(k): v for k, v in e.items()} for e in errors]


@pytest.mark.micropython
def test_the_language_and_names_outlive_a_power_cut_without_the_host() -> None:
    out = on_micropython("flash")
    assert out["same"] and out["persian"]
    assert out["widths"][0] > 0 and out["widths"][2] > 0
    # The link takes the handset's messages as delivered after the reset.
    assert out["delivered_after_reset"] == out["seq"] > 1


@pytest.mark.micropython
@pytest.mark.parametrize("scenario", ["screens", "doubles", "refused", "flash"])
def test_cpython_and_micropython_agree(scenario: str, tmp_path: Path) -> None:
    assert on_cpython(scenario, tmp_path) == on_micropython(scenario)


@pytest.mark.micropython
def test_from_a_romfs_image_the_texts_are_read_in_place(tmp_path: Path) -> None:
    """Built by `baulk firmware build`: fa.bin inside the ROMFS image is read
    through a memoryview of the image (no copy), and the screens are the
    same as from a plain file read a line at a time."""
    firmware_cmd.build("pico", tmp_path)
    lib = tmp_path / "lib"
    shutil.copytree(ROOT / "firmware" / "sim", lib / "baulk" / "firmware" / "sim")
    shutil.copy(ROOT / "protocol" / "host_catalogue.py", lib / "baulk" / "protocol")
    image_path = tmp_path / "with-sim.img"
    image_path.write_bytes(firmware_cmd.romfs_image(lib))
    out = built()
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from baulk.firmware.painter import BitmapText\n"
        "t = BitmapText('/rom/lib/baulk/firmware/fa.bin')\n"
        "print(type(t.src) is memoryview, t.count)\n"
    )
    done = micropython.run(probe, romfs=image_path)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.split()[0] == b"True"
    done = micropython.run(
        SCRIPT,
        args("screens", "-"),
        files=[out / "names.json", HERE / "mp_firmware.py"],
        romfs=image_path,
        heap=64 << 20,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout)["screens"] == on_micropython("screens")["screens"]
