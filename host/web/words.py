"""The boards' and the console's words in English and Persian, declared once
in ``static/words.json`` (the pages import it; the server reads it for the
ball and foul names in its Persian refusals)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

WORDS_FILE = Path(__file__).resolve().with_name("static") / "words.json"
LANGS = ("en", "fa")
FA_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
# Unicode isolates (FSI ... PDI): a Latin name or id inside a Persian
# sentence keeps its own direction and does not reorder the words around it.
FSI = "\u2068"
PDI = "\u2069"


@cache
def words() -> dict[str, dict[str, str]]:
    data: dict[str, dict[str, str]] = json.loads(WORDS_FILE.read_text(encoding="utf-8"))
    return data


def word(key: str, lang: str) -> str:
    table = words()
    return table.get(lang, table["en"]).get(key) or table["en"][key]


def digits(value: object, lang: str) -> str:
    text = str(value)
    return text.translate(FA_DIGITS) if lang == "fa" else text


def isolate(text: str) -> str:
    return f"{FSI}{text}{PDI}"
