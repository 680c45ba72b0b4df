"""The staff's rows in the store's writer: one the file refuses is refused
alone, and the events of the same commit are stored all the same (the score
path comes first); a commit that fails stores none of it, and the row is
written when the batch is tried again."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from baulk.host.store import Batch, EventRow, StaffWrite, Store, StoreReader, staff_queries


def test_a_refused_staff_row_never_holds_up_the_events(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    broken = StaffWrite("activity", {"wall_ms": 1})
    unknown = StaffWrite("no such change")
    good = StaffWrite(
        "activity",
        {"wall_ms": 5, "mono_ms": 6, "boot": "b", "action": "undo", "what": "POST x",
         "result": "done"},
    )  # fmt: skip
    events = [EventRow("t1", 1, seq, 1000 + seq, {"ev": "strike", "t": seq}) for seq in (1, 2)]
    written = store.write(Batch(events=events, writes=[broken, unknown, good]))
    assert written.done == {"t1": 2}
    assert [row for row, _ in written.refused] == [broken, unknown]
    store.close()
    reader = StoreReader(tmp_path / "s.sqlite")
    try:
        assert reader.event_count("t1") == 2
        logged = staff_queries.activity(reader.db, 0, 10)
        assert [r["action"] for r in logged] == ["undo"]
    finally:
        reader.close()


def test_a_commit_that_failed_stores_none_of_the_row(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    row = StaffWrite(
        "account",
        {"name": "Dina", "name_key": "dina", "role": "desk", "created_ms": 1, "changed_ms": 1},
    )
    store.db.execute(
        "CREATE TRIGGER no_links BEFORE INSERT ON links BEGIN SELECT RAISE(ABORT, 'full'); END"
    )
    bad = EventRow("t1", 1, 1, 1, {"ev": "strike", "t": 1})
    with pytest.raises(sqlite3.DatabaseError, match="full"):
        store.write(Batch(events=[bad], writes=[row]))
    count = store.db.execute("SELECT count(*) FROM staff_accounts").fetchone()[0]
    assert count == 0  # nothing of it: the batch is tried again
    store.db.execute("DROP TRIGGER no_links")
    written = store.write(Batch(events=[bad], writes=[row]))
    assert written.refused == [] and row.row_id == 1
    store.close()
