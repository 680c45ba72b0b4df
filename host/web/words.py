"""The boards' and the console's words in English and Persian, from the one
catalogue (host/locale/fa/LC_MESSAGES/baulk.po): each is an entry of
context ``page:<key>``, the key the pages ask for, its msgid the English and
its msgstr the Persian.  The pages import them as ``static/words.json``,
which ``make words`` (``python -m baulk.host.web.words``) writes from the
catalogue; tests/web/test_words_catalogue.py fails when the checked-in file
is not the catalogue's.  The server reads the catalogue itself (the activity
log's sentences), so it never says a word the file has not caught up with."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

# Persian digits and bidi isolates, declared once with the sentences' Persian.
from baulk.host.sentences import (
    FA_DIGITS,
    FSI,
    LANGS,
    OTHER_LANGUAGE,
    PDI,
    digits,
    isolate,
    keyed_words,
)

__all__ = ["FA_DIGITS", "FSI", "LANGS", "PDI", "digits", "isolate", "word", "words"]

WORDS_FILE = Path(__file__).resolve().with_name("static") / "words.json"
PAGE = "page"


@cache
def words() -> dict[str, dict[str, str]]:
    """Each language's words by key (the catalogue's entries page:KEY), and
    the link to the other language."""
    found = keyed_words(PAGE)
    return {lang: {"lang_switch": OTHER_LANGUAGE[lang], **found[lang]} for lang in LANGS}


def as_json() -> str:
    """words.json as the pages import it."""
    return json.dumps(words(), ensure_ascii=False, indent=2) + "\n"


def word(key: str, lang: str) -> str:
    table = words()
    return table.get(lang, table["en"]).get(key) or table["en"][key]


def main() -> None:
    """Write static/words.json from the catalogue (``make words``)."""
    WORDS_FILE.write_text(as_json(), encoding="utf-8")


if __name__ == "__main__":
    main()
