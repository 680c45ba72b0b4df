"""Each sentence of the check of a day's takings (host/staff/takings.py,
issue 30) is one message of the catalogue: its English ``text`` and its
Persian ``text_fa`` are the same message said in each language, the Persian
the catalogue's own entry with its numbers in Persian digits and its ids and
names isolated, and every word it names (a figure, a kind of money row, a
kind of tampering) is a word of the catalogue.  Fast: the findings are made
by hand, not by a tampered store (tests/host/club/test_takings_persian.py
does that)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from baulk.host import sentences
from baulk.host.club import money
from baulk.host.referee.verify import Finding
from baulk.host.staff import takings
from baulk.host.store import money_chain

FSI, PDI = sentences.FSI, sentences.PDI


def persian(text: str) -> None:
    """Nothing Latin outside an isolate, no Latin digit anywhere outside one,
    and a Persian word in it."""
    outside = re.sub(f"{FSI}[^{PDI}]*{PDI}", "", text)
    assert not re.search(r"[A-Za-z0-9]", outside), text
    assert re.search("[\u0600-\u06ff]", outside), text


def said(found: dict[str, Any]) -> None:
    """The Persian is not the English isolated (a msgid without its entry)."""
    assert found["text_fa"] != f"{FSI}{found['text']}{PDI}", found
    persian(found["text_fa"])


MONEY = {
    "changed": money_chain.MoneyFinding(
        "changed", 7, "correction", 12, n=30, was="113000", now="104000"
    ),
    "deleted": money_chain.MoneyFinding("deleted", 7, "item", 12, n=30),
    "inserted": money_chain.MoneyFinding("inserted", 7, "open", 12),
    "chain": money_chain.MoneyFinding("chain", 7, "mark", 12, n=30),
    "anchor": money_chain.MoneyFinding("anchor", 7, n=30, since=24),
}


@pytest.mark.parametrize("kind", MONEY)
def test_each_money_finding_is_said_from_the_catalogue(kind: str) -> None:
    f = takings._money_sentence(MONEY[kind])
    said(f)
    assert f["kind"] == f"money {kind}"
    assert "۷" in f["text_fa"] and "bill 7" in f["text"]
    if kind != "anchor":
        row = sentences.say_word(MONEY[kind].row_kind, "money row")
        assert f"{row} ۱۲ صورت‌حساب ۷" in f["text_fa"], f["text_fa"]
        assert f"{MONEY[kind].row_kind} 12 of bill 7" in f["text"], f["text"]
    else:
        assert "۲۵ تا ۳۰" in f["text_fa"] and "entries 25–30" in f["text"]


def test_a_changed_row_says_what_it_was_and_is() -> None:
    f = takings._money_sentence(MONEY["changed"])
    assert f["text"] == (
        "correction 12 of bill 7 was changed in the store: it was 113000, it is 104000"
    )
    assert f"{FSI}113000{PDI}" in f["text_fa"] and f"{FSI}104000{PDI}" in f["text_fa"]


@pytest.mark.parametrize("kind", [*takings.TAMPERED, "something new"])
def test_each_kind_of_tampering_is_said_from_the_catalogue(kind: str) -> None:
    for seq in (None, 41):
        f = takings._tampered("m-3", Finding(kind, "the verifier's own words", seq=seq))
        said(f)
        assert f["kind"] == "tampered"
        assert f["text_fa"].startswith(f"مسابقهٔ {FSI}m-3{PDI}: "), f["text_fa"]
        assert f["text"].startswith("match m-3: ")
        assert f["detail"] == "match m-3: the verifier's own words"
        if seq is not None:
            assert "(رویداد ۴۱)" in f["text_fa"] and "(event 41)" in f["text"]


def test_each_reason_a_bill_is_not_covered_is_said_from_the_catalogue() -> None:
    for seq in (None, 41):
        m = takings._uncovered("m-3", Finding("uncovered", "events 41..50 ...", seq=seq))
        said({"text": sentences.say(m, "en"), "text_fa": sentences.say(m, "fa")})


def test_every_word_of_the_check_is_a_word_of_the_catalogue() -> None:
    words = {
        "figure": takings.COMPARED,
        "money row": tuple(money_chain.KINDS),
        "tampered": (*takings.TAMPERED.values(), takings.TAMPERED_OTHER),
    }
    for context, said_words in words.items():
        for word in said_words:
            fa = sentences.say_word(word, context)
            assert fa != word, (context, word)
            persian(fa)


def test_an_amount_is_said_as_money_in_each_language() -> None:
    amount = money.Amount(-250, "EUR")
    m = sentences.Message(
        "correction {correction} ({amount}) names nobody or no reason", correction=3, amount=amount
    )
    assert (
        sentences.say(m, "en")
        == f"correction 3 ({money.fmt(-250, 'EUR', 'en')}) names nobody or no reason"
    )
    fa = sentences.say(m, "fa")
    assert money.fmt(-250, "EUR", "fa") in fa and "۳" in fa
    persian(fa)
