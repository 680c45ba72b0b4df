"""The money chain anchored in the tables' signed record (docs/LEDGER.md):
the real firmware signs the head the host sends it into a checkpoint, and
``verify --day`` holds the money rows to it.  Rows rewritten *with* the
chain to match (all a writer of the file can do without the key) are
caught by the signed head and located to their bill; a table whose firmware
signs no heads leaves the rows chained but not anchored, never tampered."""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from baulk.host.club.clock import Stamp
from baulk.host.staff import takings
from baulk.host.store import StoreReader
from tests.chaos.money_tamper import rewrite_chain
from tests.host.club.test_takings import BILLING, DAY, KEYS, OPENED_MS, by_hand
from tests.host.ledger_fixture import device_stream, store_stream
from tests.host.money_rows import one_bill

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def days(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same day twice: on a table that signed the head the host sent
    after the bill was closed, and on one whose firmware signs none."""
    where = tmp_path_factory.mktemp("anchors")
    unanchored = where / "unanchored.sqlite"
    store_stream(unanchored, device_stream(seed=5, best_of=3))
    head = one_bill(unanchored, BILLING.tariffs[0].to_json(), OPENED_MS)
    anchored = where / "anchored.sqlite"
    store_stream(anchored, device_stream(seed=5, best_of=3, anchors=[head]))
    assert (
        one_bill(anchored, BILLING.tariffs[0].to_json(), OPENED_MS) == head
    )  # the same rows make the same chain
    return {"anchored": anchored, "unanchored": unanchored}


@pytest.fixture
def anchored(days: dict[str, Path], tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "store.sqlite"
    shutil.copy(days["anchored"], path)
    yield path


def check(store: Path) -> dict[str, Any]:
    reader = StoreReader(store)
    try:
        day = takings.check_day(reader, BILLING, DAY, KEYS, Stamp(OPENED_MS + 10**8, 0, "x"))
        signed = takings.anchors(reader, KEYS)
    finally:
        reader.close()
    (bill,) = day["bills"]
    bill["_anchors"] = signed
    return dict(bill)


def test_the_table_signs_the_head_and_the_day_verifies_anchored(anchored: Path) -> None:
    bill = check(anchored)
    (a,) = bill["_anchors"]
    assert (a.table_id, a.n) == ("t1", 3)
    assert bill["status"] == "verified", bill
    assert bill["findings"] == [] and bill["unanchored"] == []


def test_rows_rewritten_with_their_chain_are_caught_by_the_signed_head(anchored: Path) -> None:
    # Whoever knows how the chain is made rewrites it to match the changed
    # price: every entry follows the one before, every row its entry.
    by_hand(anchored, "bill_items", "UPDATE bill_items SET price = 104000 WHERE id = 1")
    rewrite_chain(random.Random(0), anchored)
    bill = check(anchored)
    assert bill["status"] == "flagged"
    (f,) = bill["findings"]
    assert (f["kind"], f["row"]) == ("money anchor", "entries 1–3")
    assert "bill 1" in f["text"] and "۱" in f["text_fa"]


def test_a_forged_anchor_anchors_nothing(anchored: Path) -> None:
    by_hand(anchored, "checkpoints", "UPDATE checkpoints SET money_n = 2 WHERE money_n = 3")
    bill = check(anchored)
    assert bill["_anchors"] == []
    assert bill["status"] == "verified" and bill["unanchored"], bill


def test_a_table_that_signs_no_heads_leaves_the_rows_unanchored_not_tampered(
    days: dict[str, Path],
) -> None:
    bill = check(days["unanchored"])
    assert bill["_anchors"] == []
    assert bill["status"] == "verified" and bill["findings"] == []
    (note,) = bill["unanchored"]
    assert "not yet anchored" in note["text"] and "۱" in note["text_fa"]
