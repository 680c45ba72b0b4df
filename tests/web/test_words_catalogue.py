"""The pages' words come from the one catalogue (host/web/words.py): the
checked-in host/web/static/words.json, which the pages import, is what the
catalogue's entries of context ``page:<key>`` make, and every such entry has
its Persian with the placeholders of its English."""

from __future__ import annotations

import pytest

from baulk.host.sentences import catalogue, placeholders
from baulk.host.web import words as page_words

PAGE_ENTRIES = [e for e in catalogue() if e.context and e.context.startswith(page_words.PAGE)]


def test_the_checked_in_words_are_the_catalogues() -> None:
    assert page_words.WORDS_FILE.read_text(encoding="utf-8") == page_words.as_json(), (
        "host/web/static/words.json is not the catalogue's: run `make words`"
    )


def test_every_key_is_one_entry() -> None:
    keys = [str(e.context) for e in PAGE_ENTRIES]
    assert len(keys) == len(set(keys)) >= 400
    assert set(page_words.words()["en"]) == {k.removeprefix(page_words.PAGE) for k in keys} | {
        "lang_switch"
    }


@pytest.mark.parametrize("entry", PAGE_ENTRIES, ids=[e.context for e in PAGE_ENTRIES])
def test_every_page_word_has_its_persian_and_placeholders(entry: object) -> None:
    msgid, fa = getattr(entry, "id", None), getattr(entry, "string", None)
    assert isinstance(msgid, str) and msgid and isinstance(fa, str) and fa, msgid
    assert placeholders(fa) == placeholders(msgid), (msgid, fa)
