"""Writes hardware/keypad-legends.html: the handset's key legends in English
and Persian, laid out as the key matrix is (firmware/boards/pico.py KEYMAP),
to print on label sheet or card and cut out for the caps.

    .venv/bin/python scripts/keypad_legends.py        # rewrites the page

The Persian is set in Vazirmatn when the page sits in a clone where
``make setup`` installed node_modules/vazirmatn, and in any Arabic-script font
of the system otherwise: the browser shapes it either way.
tests/test_keypad_legends.py fails when the committed page differs from what
this script writes.
"""

from __future__ import annotations

import html
import sys
from pathlib import Path

from baulk.firmware import keypad_flow, names
from baulk.firmware.boards import pico
from baulk.host.handset.render import PERSIAN_DIGITS
from baulk.host.handset.texts import KEYS

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "hardware" / "keypad-legends.html"
COLS = 5
# Cap colours for the ball keys (the ball's own colour; light text on dark caps).
CAPS = {
    "red": ("#c62828", "#fff"),
    "yellow": ("#fdd835", "#000"),
    "green": ("#2e7d32", "#fff"),
    "brown": ("#6d4c41", "#fff"),
    "blue": ("#1565c0", "#fff"),
    "pink": ("#f48fb1", "#000"),
    "black": ("#111", "#fff"),
    "white": ("#fafafa", "#000"),
}


def key_cell(name: str) -> str:
    english, persian = KEYS[name]
    code = names.code_of(names.BALLS, name)
    value = names.BALL_VALUES[code] if code >= 0 else 0
    bg, fg = CAPS.get(name, ("#eceff1", "#000"))
    number = ""
    if value:  # in a list, the ball worth n picks option n
        number = (
            f'<span class="n">{value}</span>'
            f'<span class="n fa" lang="fa">{PERSIAN_DIGITS[value]}</span>'
        )
    return (
        f'<td style="background:{bg};color:{fg}">{number}'
        f'<div class="en">{html.escape(english)}</div>'
        f'<div class="fa" lang="fa" dir="rtl">{html.escape(persian)}</div></td>'
    )


def render() -> str:
    key_names = keypad_flow.KEY_NAMES.split()
    rows = []
    for r in range(len(pico.KEYMAP) // COLS):
        cells = [key_cell(key_names[pico.KEYMAP[r * COLS + c]]) for c in range(COLS)]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    table = "\n".join(rows)
    return f"""<!doctype html>
<!-- Written by scripts/keypad_legends.py; edit that, not this page. -->
<html lang="en">
<head>
<meta charset="utf-8">
<title>baulk handset: key legends (English and Persian)</title>
<style>
@font-face {{
  font-family: "Vazirmatn";
  src: url("../node_modules/vazirmatn/fonts/webfonts/Vazirmatn-Regular.woff2") format("woff2");
}}
@page {{ size: A4; margin: 15mm; }}
body {{ font-family: "DejaVu Sans", Arial, sans-serif; margin: 0; }}
h1 {{ font-size: 14pt; margin: 0 0 2mm; }}
p {{ font-size: 9pt; margin: 0 0 5mm; max-width: 170mm; }}
table {{ border-collapse: separate; border-spacing: 3mm; }}
td {{
  width: 18mm; height: 18mm; border: 0.3mm solid #555; border-radius: 2mm;
  text-align: center; vertical-align: middle; position: relative; padding: 0;
}}
.en {{ font-size: 8pt; font-weight: bold; letter-spacing: 0.2pt; }}
.fa {{ font-family: "Vazirmatn", "Noto Naskh Arabic", "Noto Sans Arabic", sans-serif;
       font-size: 10pt; margin-top: 1mm; }}
.n {{ position: absolute; top: 0.8mm; left: 1.2mm; font-size: 7pt; font-weight: bold; }}
.n.fa {{ left: auto; right: 1.2mm; margin: 0; font-size: 8pt; }}
</style>
</head>
<body>
<h1>baulk handset: key legends</h1>
<p>The 4 &times; 5 key matrix as it sits under the display (hardware/keypad.md),
each key with its English legend and its Persian one. Print at 100&nbsp;%,
cut along the outlines and fit under clear caps. The ball keys carry their
value: in every list the referee picks option <i>n</i> with the ball worth
<i>n</i>.</p>
<table>
{table}
</table>
</body>
</html>
"""


if __name__ == "__main__":
    OUT.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {OUT}\n")
