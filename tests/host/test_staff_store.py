"""The staff's rows in the store's writer: one the file refuses is skipped
alone, and the events of the same commit are stored all the same (the score
path comes first); each row hears whether it was stored only after the
commit."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from baulk.host.store import Batch, EventRow, StaffWrite, Store, StoreReader, staff_queries


def test_a_refused_staff_row_never_holds_up_the_events(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    heard: list[tuple[str, bool]] = []
    rows = [
        StaffWrite("activity", {"wall_ms": 1}, done=lambda ok: heard.append(("broken", ok))),
        StaffWrite("no such change", done=lambda ok: heard.append(("unknown", ok))),
        StaffWrite(
            "activity",
            {"wall_ms": 5, "mono_ms": 6, "boot": "b", "action": "undo", "what": "POST x",
             "result": "done"},
            done=lambda ok: heard.append(("good", ok)),
        ),
    ]  # fmt: skip
    events = [EventRow("t1", 1, seq, 1000 + seq, {"ev": "strike", "t": seq}) for seq in (1, 2)]
    assert store.write(Batch(events=events, staff=rows)) == {"t1": 2}
    store.close()
    reader = StoreReader(tmp_path / "s.sqlite")
    try:
        assert reader.event_count("t1") == 2
        logged = staff_queries.activity(reader.db, 0, 10)
        assert [r["action"] for r in logged] == ["undo"]
    finally:
        reader.close()
    assert heard == [("broken", False), ("unknown", False), ("good", True)]


def test_a_row_hears_nothing_of_a_commit_that_failed(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    heard: list[bool] = []
    row = StaffWrite(
        "account",
        {"name": "Dina", "name_key": "dina", "role": "desk", "created_ms": 1, "changed_ms": 1},
        done=heard.append,
    )
    store.db.execute(
        "CREATE TRIGGER no_links BEFORE INSERT ON links BEGIN SELECT RAISE(ABORT, 'full'); END"
    )
    bad = EventRow("t1", 1, 1, 1, {"ev": "strike", "t": 1})
    with pytest.raises(sqlite3.DatabaseError, match="full"):
        store.write(Batch(events=[bad], staff=[row]))
    assert heard == []  # not stored: the batch is tried again, and hears then
    store.db.execute("DROP TRIGGER no_links")
    store.write(Batch(events=[bad], staff=[row]))
    assert heard == [True] and row.row_id == 1
    store.close()
