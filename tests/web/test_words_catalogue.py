"""The pages' words come from the one catalogue (host/sentences.py
keyed_words): the checked-in host/web/static/words.json, which the boards,
the console and the desk import, is what the catalogue's entries of context
``page:<key>`` make; the report's and the statistics' words are its entries
``report:<key>`` and ``stats:<key>``, the receipts' ``receipt:<key>``, and
the names of Iran's currency units ``currency:<code>``; and every such entry
has its Persian with the placeholders of its English."""

from __future__ import annotations

import pytest

from baulk.host.club import money, views
from baulk.host.referee import reports, stats_html
from baulk.host.sentences import PAGES, catalogue, keyed_words, placeholders
from baulk.host.web import words as page_words

KEYED = [e for e in catalogue() if e.context and e.context.partition(":")[0] in PAGES]


def test_the_checked_in_words_are_the_catalogues() -> None:
    assert page_words.WORDS_FILE.read_text(encoding="utf-8") == page_words.as_json(), (
        "host/web/static/words.json is not the catalogue's: run `make words`"
    )


@pytest.mark.parametrize(
    ("page", "table", "switch"),
    [
        (page_words.PAGE, page_words.words(), "lang_switch"),
        ("report", reports.TEXT, "lang_switch"),
        ("stats", stats_html.TEXT, "other_lang"),
        ("receipt", views.TEXT, None),
        ("currency", keyed_words("currency"), None),
        ("keycap", keyed_words("keycap"), None),
    ],
)
def test_every_key_is_one_entry(
    page: str, table: dict[str, dict[str, str]], switch: str | None
) -> None:
    keys = [str(e.context) for e in KEYED if str(e.context).startswith(page + ":")]
    assert len(keys) == len(set(keys)) >= 2
    own = {k.partition(":")[2] for k in keys} | ({switch} if switch else set())
    assert set(table["en"]) == set(table["fa"]) == own


def test_a_toman_amount_says_its_unit_from_the_catalogue() -> None:
    assert money.fmt(1_200_000, money.TOMAN, "fa") == "۱٬۲۰۰٬۰۰۰ تومان"
    assert money.fmt(1_200_000, "IRR", "en") == "1,200,000 Rial"
    assert money.currency_name("IRR", "fa") == "ریال"


def test_every_page_word_has_its_persian_and_placeholders() -> None:
    # One test for the 640-odd words, naming every one that fails: a test
    # item each cost the quick loop a second and a half.
    wrong = []
    for entry in KEYED:
        msgid, fa = getattr(entry, "id", None), getattr(entry, "string", None)
        if not (isinstance(msgid, str) and msgid and isinstance(fa, str) and fa):
            wrong.append((entry.context, msgid, "no Persian"))
        elif placeholders(fa) != placeholders(msgid):
            wrong.append((entry.context, msgid, fa))
    assert len(KEYED) > 500 and wrong == []
