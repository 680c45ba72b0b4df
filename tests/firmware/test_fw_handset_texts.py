"""The handset's Persian texts (host/handset/texts.py) and their build
(host/handset/font.py): every text the handset can show has its Persian, and
the packed file is what firmware/painter.py's BitmapText reads."""

from __future__ import annotations

import ast
import struct
from pathlib import Path

import pytest

from baulk.firmware import keypad_flow, names, painter
from baulk.host.handset import font as handset_font
from baulk.host.handset import render as text_render
from baulk.host.handset import texts as handset_texts
from baulk.host.sentences import Message, device_reason

ROOT = Path(__file__).resolve().parents[2]


def engine_refusals() -> list[str]:
    """Every refusal the rules engine's class Engine can raise, its %s
    expanded over the values the engine puts in (handset_texts.REFUSAL_VALUES,
    by the placeholder of the catalogue's message it is)."""
    tree = ast.parse((ROOT / "firmware" / "engine.py").read_text(encoding="utf-8"))
    engine = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Engine")
    out = []
    for node in ast.walk(engine):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Rejected"):
            continue
        arg = node.args[0]
        if isinstance(arg, ast.Constant):
            out.append(arg.value)
        else:
            assert isinstance(arg, ast.BinOp) and isinstance(arg.left, ast.Constant)
            template = arg.left.value
            assert isinstance(template, str)
            found = device_reason(template % "pink")
            assert isinstance(found, Message), f"no Persian template for {template!r}"
            (name,) = found.params
            out += [template % v for v in handset_texts.REFUSAL_VALUES[name]]
    return out


def test_every_refusal_of_the_rules_engine_has_its_persian() -> None:
    refusals = engine_refusals()
    assert len(refusals) > 50  # the walk really finds them
    entries = handset_texts.entries()
    missing = [r for r in refusals if r not in entries]
    assert missing == []


def test_the_foul_list_holds_every_kind_once() -> None:
    assert sorted(keypad_flow.FOUL_ORDER) == list(range(len(names.FOUL_KINDS)))
    assert keypad_flow.foul_label(0) == "wrong ball"  # wrong_ball_first, shortened to fit
    labels = [keypad_flow.foul_label(i) for i in range(len(keypad_flow.FOUL_ORDER))]
    assert len(set(labels)) == len(labels)


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
def test_the_packed_file_is_what_the_device_reads() -> None:
    packed = handset_font.pack()
    data = packed.data
    magic, count, digit_w, pages = data[:4], *struct.unpack("<HBB", data[4:8])
    assert (magic, pages) == (b"BKT1", 2) and count == packed.entries
    keys = [struct.unpack("<I", data[8 + 8 * i : 12 + 8 * i])[0] for i in range(count)]
    assert keys == sorted(keys) and len(set(keys)) == count
    # An entry found by its English text holds the lines of its Persian.
    for english in ("FOUL", "which ball? (colour unclear)", "the red is not on the table"):
        k = painter.key(english)
        at = struct.unpack("<I", data[12 + 8 * keys.index(k) : 16 + 8 * keys.index(k)])[0]
        lines = text_render.wrap(handset_texts.entries()[english], handset_font.ROOM)
        assert data[at] == len(lines)
        assert data[at + 1] == lines[0].width
        assert data[at + 2 : at + 2 + 2 * lines[0].width] == lines[0].columns()
    # The digits follow the index.
    width, cells = text_render.digits()
    assert digit_w == width
    start = 8 + 8 * count
    assert data[start : start + 10 * 2 * width] == b"".join(cells)


def test_keys_ignore_spaces_at_the_ends_only() -> None:
    assert painter.key("FOUL ") == painter.key("FOUL") == painter.key(" FOUL")
    assert painter.key("OK yes  BACK no") != painter.key("OK yes BACK no")


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
@pytest.mark.parametrize(
    ("persian", "words"),
    [
        ("یک متن بسیار بسیار بسیار بسیار بسیار بسیار بلند که در سه خط جا نمی‌شود "
         "و باز هم ادامه دارد تا از سه خط بگذرد و باز هم بیشتر", "at most 3"),
        ("ـبیرون‌ازمیزبیرون‌ازمیزبیرون‌ازمیزبیرون‌ازمیزبیرون‌ازمیزبیرون‌ازمیز", "wider"),
    ],
)  # fmt: skip
def test_a_text_that_cannot_be_shown_stops_the_build(
    persian: str, words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(handset_texts.FA, "a new screen", persian)
    with pytest.raises(handset_font.TextError) as e:
        handset_font.pack()
    assert "'a new screen'" in str(e.value) and words in str(e.value)


def test_a_list_option_too_wide_for_its_half_row_stops_the_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(handset_texts.FA, "toss", "قرعه‌کشی برای توپ سیاه")
    with pytest.raises(handset_font.TextError) as e:
        handset_font.pack()
    assert "'toss' is a list option" in str(e.value)
