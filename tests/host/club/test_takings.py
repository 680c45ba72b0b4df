"""``baulk verify --day``: a day's bills against the tables' signed record.
A best-of-3 match played by the real firmware (which chains and signs its
journal) and stored by a real daemon, billed in one session: untouched it
verifies; a frame taken out of the store's projection is a bill that
differs from what the signed events make; an edited event flags the bill; a
correction written into the file behind the desk's back is not audited."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from baulk.firmware.sim.board import SIM_KEY
from baulk.host.cli import main as cli
from baulk.host.club import tariffs
from baulk.host.club.clock import Stamp
from baulk.host.staff import takings
from baulk.host.store import StoreReader
from tests.host.ledger_fixture import device_stream, store_stream
from tests.host.money_rows import one_bill

pytestmark = pytest.mark.slow
DAY = date(2026, 3, 21)
OPENED_MS = int(datetime(2026, 3, 21, 18, 0, tzinfo=UTC).timestamp() * 1000)
BILLING = tariffs.parse(
    {"tariff": [{"name": "std", "currency": "EUR", "per_hour": 800, "per_frame": 100}]}
)
KEYS = takings.Keys(everyone=bytes.fromhex(SIM_KEY))


@pytest.fixture(scope="module")
def billed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The match's events in one closed session of DAY."""
    path = tmp_path_factory.mktemp("takings") / "store.sqlite"
    store_stream(path, device_stream(seed=5, best_of=3))
    # As the desk writes a session opened and closed (host/store/club_writer.py):
    # the session, two teas, its close as a mark, each chained.
    one_bill(path, BILLING.tariffs[0].to_json(), OPENED_MS)
    return path


@pytest.fixture
def store(billed: Path, tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "store.sqlite"
    shutil.copy(billed, path)
    yield path


def check(store: Path) -> dict[str, Any]:
    reader = StoreReader(store)
    try:
        day = takings.check_day(reader, BILLING, DAY, KEYS, Stamp(OPENED_MS + 10**8, 0, "x"))
    finally:
        reader.close()
    assert len(day["bills"]) == 1
    bill: dict[str, Any] = day["bills"][0]
    return bill


def sql(store: Path, text: str, *args: Any) -> None:
    db = sqlite3.connect(store, isolation_level=None)
    try:
        db.execute(text, args)
    finally:
        db.close()


def test_an_untouched_day_verifies(store: Path) -> None:
    bill = check(store)
    assert bill["status"] == "verified", bill
    assert bill["findings"] == [] and bill["uncovered"] == []
    assert (bill["opened_by"], bill["closed_by"]) == ("Dina", "Dina")
    assert cli.main(["verify", "--sim-key", "--store", str(store), "--day", "2026-03-21"]) == 0


def test_a_frame_taken_out_of_the_store_makes_a_bill_that_differs(store: Path) -> None:
    sql(store, "DELETE FROM frame_play WHERE frame = (SELECT max(frame) FROM frame_play)")
    bill = check(store)
    # The bill differs from what the signed events make, and the missing
    # projection row is itself a finding of the match's verification.
    assert bill["status"] == "flagged"
    assert any(f["kind"] == "differs" for f in bill["findings"])
    texts = [f["text"] for f in bill["findings"]]
    assert any(t.startswith("the bill's frames_played is") for t in texts), texts
    assert any(t.startswith("the bill's charged is") for t in texts), texts
    assert cli.main(["verify", "--sim-key", "--store", str(store), "--day", "2026-03-21"]) == 1


def test_an_edited_event_flags_the_bill(store: Path) -> None:
    db = sqlite3.connect(store, isolation_level=None)
    try:
        i, body = db.execute(
            "SELECT id, body FROM events WHERE name = 'pot' ORDER BY id LIMIT 1"
        ).fetchone()
        changed = bytes(body[:-1]) + bytes([body[-1] ^ 1])  # one bit of the pot's last byte
        db.execute("UPDATE events SET body = ? WHERE id = ?", (changed, i))
    finally:
        db.close()
    bill = check(store)
    assert bill["status"] == "flagged"
    assert any(f["kind"] == "tampered" for f in bill["findings"])


def test_a_correction_behind_the_desks_back_is_not_audited(store: Path) -> None:
    sql(
        store,
        "INSERT INTO bill_corrections (session_id, created_wall_ms, who, amount, reason) "
        "VALUES (1, ?, 'Dina', -500, 'regular')",
        OPENED_MS,
    )
    bill = check(store)
    # Never chained, so flagged as a money row written into the file; and
    # not in the activity log either.
    assert bill["status"] == "flagged"
    assert [f["kind"] for f in bill["findings"]] == ["money inserted", "unaudited"]
    assert bill["findings"][0]["row"] == "correction 1"
    assert "not made through the desk" in bill["findings"][1]["text"]


def by_hand(store: Path, table: str, statement: str, args: tuple[Any, ...] = ()) -> None:
    """What someone with the file does: the append-only triggers dropped,
    the change, the triggers made again (so the schema looks untouched),
    also when the store's CHECKs refuse the change."""
    db = sqlite3.connect(store, isolation_level=None)
    try:
        triggers = db.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?", (table,)
        ).fetchall()
        for name, _ in triggers:
            db.execute(f"DROP TRIGGER {name}")
        try:
            db.execute(statement, args)
        finally:
            for _, text in triggers:
                db.execute(text)
    finally:
        db.close()


def test_an_items_price_changed_by_hand_flags_the_bill_and_names_the_row(store: Path) -> None:
    # The finding of issue 31: a Tea's price changed in the file, 226,000 to 208,000.
    by_hand(store, "bill_items", "UPDATE bill_items SET price = 104000 WHERE id = 1")
    bill = check(store)
    assert bill["status"] == "flagged"
    (f,) = bill["findings"]
    assert (f["kind"], f["row"]) == ("money changed", "item 1")
    assert "bill 1" in f["text"] and "113000" in f["text"] and "104000" in f["text"]
    assert "۱" in f["text_fa"]
    assert cli.main(["verify", "--sim-key", "--store", str(store), "--day", "2026-03-21"]) == 1


def test_a_take_back_inserted_by_hand_flags_the_bill(store: Path) -> None:
    by_hand(
        store,
        "bill_items",
        "INSERT INTO bill_items (session_id, created_wall_ms, who, item, item_fa, price, "
        "quantity, reverses) "
        f"VALUES (1, {OPENED_MS + 90_000}, 'Dina', 'Tea', 'چای', 113000, -1, 1)",
    )
    bill = check(store)
    assert bill["status"] == "flagged"
    assert [(f["kind"], f["row"]) for f in bill["findings"]] == [("money inserted", "item 2")]


def test_a_close_deleted_by_hand_flags_the_bill(store: Path) -> None:
    by_hand(store, "session_marks", "DELETE FROM session_marks WHERE id = 1")
    bill = check(store)
    assert bill["status"] == "flagged"
    assert ("money deleted", "mark 1") in [(f["kind"], f["row"]) for f in bill["findings"]]


def test_a_bill_deleted_by_hand_is_named_as_gone(store: Path) -> None:
    by_hand(store, "table_sessions", "DELETE FROM table_sessions WHERE id = 1")
    reader = StoreReader(store)
    try:
        day = takings.check_day(reader, BILLING, DAY, KEYS, Stamp(OPENED_MS + 10**8, 0, "x"))
    finally:
        reader.close()
    (gone,) = day["bills"]  # named by the opening the chain holds
    assert (gone["session_id"], gone["table_id"], gone["status"]) == (1, "t1", "flagged")
    assert ("money deleted", "open 1") in [(f["kind"], f["row"]) for f in gone["findings"]]


def test_a_table_without_its_key_cannot_be_covered(store: Path) -> None:
    reader = StoreReader(store)
    try:
        day = takings.check_day(
            reader, BILLING, DAY, takings.Keys(folder=store.parent), Stamp(0, 0, "x")
        )
    finally:
        reader.close()
    (bill,) = day["bills"]
    assert bill["status"] == "uncovered"
    assert bill["uncovered"] == ["there is no device key for table t1"]
