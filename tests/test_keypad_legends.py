"""hardware/keypad-legends.html is what scripts/keypad_legends.py writes, and
it names every key in both languages, where the key matrix has it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from baulk.firmware import keypad_flow
from baulk.firmware.boards import pico
from baulk.host.handset.texts import KEYS

ROOT = Path(__file__).resolve().parents[1]


def generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "keypad_legends", ROOT / "scripts" / "keypad_legends.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_sheet_is_the_generated_one() -> None:
    page = (ROOT / "hardware" / "keypad-legends.html").read_text(encoding="utf-8")
    assert page == generator().render(), "run: .venv/bin/python scripts/keypad_legends.py"


def test_every_key_has_both_legends_in_matrix_order() -> None:
    page = generator().render()
    key_names = keypad_flow.KEY_NAMES.split()
    assert set(KEYS) == set(key_names)
    at = -1
    for code in pico.KEYMAP:  # row by row, as the matrix is
        english, persian = KEYS[key_names[code]]
        here = page.index(f'<div class="en">{english}</div>', at + 1)
        assert page.index(f'dir="rtl">{persian}</div>', here) > here
        at = here
