"""The boards' and the console's words in English and Persian, declared once
in ``static/words.json`` (the pages import it; the server reads it for the
activity log's sentences).  Its Persian ball and foul names are a copy of the
one catalogue's, which a test holds to it (host/sentences.py)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

# Persian digits and bidi isolates, declared once with the sentences' Persian.
from baulk.host.sentences import FA_DIGITS, FSI, PDI, digits, isolate

__all__ = ["FA_DIGITS", "FSI", "LANGS", "PDI", "digits", "isolate", "word", "words"]

WORDS_FILE = Path(__file__).resolve().with_name("static") / "words.json"
LANGS = ("en", "fa")


@cache
def words() -> dict[str, dict[str, str]]:
    data: dict[str, dict[str, str]] = json.loads(WORDS_FILE.read_text(encoding="utf-8"))
    return data


def word(key: str, lang: str) -> str:
    table = words()
    return table.get(lang, table["en"]).get(key) or table["en"][key]
