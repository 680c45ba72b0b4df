"""The owner's Check in Persian (issue 31: the Persian /staff page printed
the findings in English): every finding and every reason a bill cannot be
checked comes in Persian too, its numbers in Persian digits, its ids and
names in Unicode isolates, and an amount formatted as money is."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from baulk.host.club import money
from baulk.host.club.clock import Stamp
from baulk.host.staff import takings
from baulk.host.store import StoreReader
from tests.host.club.test_takings import BILLING, DAY, billed, check, sql, store

pytestmark = pytest.mark.slow
__all__ = ["billed", "store"]  # the fixtures, as test_takings makes them


def persian(text: str) -> None:
    """Nothing Latin outside an isolate, and no Latin digit at all there."""
    outside = re.sub("\u2068[^\u2069]*\u2069", "", text)
    assert not re.search(r"[A-Za-z0-9]", outside), text


def test_each_finding_is_said_in_persian(store: Path) -> None:
    sql(store, "DELETE FROM frame_play WHERE frame = (SELECT max(frame) FROM frame_play)")
    sql(
        store,
        "INSERT INTO bill_corrections (session_id, created_wall_ms, who, amount, reason) "
        "VALUES (1, 0, NULL, -250, 'x')",
    )
    bill = check(store)
    kinds = {f["kind"] for f in bill["findings"]}
    assert {"tampered", "differs", "unaudited"} <= kinds, bill["findings"]
    for f in bill["findings"]:
        persian(f["text_fa"])
    said = [f["text_fa"] for f in bill["findings"]]
    assert any(t.startswith("شمار فریم‌های بازی‌شده در صورت‌حساب") for t in said), said
    # the correction's amount as a receipt prints it, in both languages
    fa, en = money.fmt(-250, "EUR", "fa"), money.fmt(-250, "EUR", "en")
    assert any(fa in t for t in said), said
    assert any(en in f["text"] for f in bill["findings"]), bill["findings"]


def test_a_bill_that_cannot_be_checked_says_why_in_persian(store: Path) -> None:
    reader = StoreReader(store)
    try:
        keys = takings.Keys(folder=store.parent)  # no t1.key there
        day = takings.check_day(reader, BILLING, DAY, keys, Stamp(0, 0, "x"))
    finally:
        reader.close()
    bill = day["bills"][0]
    assert bill["status"] == "uncovered"
    assert bill["uncovered_fa"] == ["کلید دستگاه میز \u2068t1\u2069 در دست نیست"]
    assert len(bill["uncovered_fa"]) == len(bill["uncovered"])


def test_an_untouched_bill_has_nothing_to_say(store: Path) -> None:
    db = sqlite3.connect(store)
    db.close()
    bill = check(store)
    assert bill["findings"] == [] and bill["uncovered_fa"] == []
