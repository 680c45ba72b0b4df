"""The money rows' chain (host/store/money_chain.py): a store older than
the chain has its money rows chained once, oldest first, and checks clean;
a row changed afterwards is found, with its bill."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from baulk.host.store import connect, money_chain
from tests.host.old_club_schema import FIRST_CLUB_SCHEMA


def test_an_old_stores_money_rows_are_chained_once_in_the_order_written(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    old = sqlite3.connect(path)
    old.executescript(FIRST_CLUB_SCHEMA)
    tariff = '{"name": "a", "currency": "GBP", "per_hour": 600}'
    old.execute(
        "INSERT INTO table_sessions (id, table_id, how, opened_wall_ms, opened_mono_ms, "
        "opened_boot, open_event_id, tariff, closed_wall_ms, closed_mono_ms, closed_boot, "
        "close_event_id, closed_by, close_reason) VALUES (1, 't1', 'desk', 0, 0, 'b', 0, ?, "
        "1800000, 1800000, 'b', 0, 'Sara', 'desk')",
        (tariff,),
    )
    old.execute(
        "INSERT INTO table_sessions (id, table_id, how, opened_wall_ms, opened_mono_ms, "
        "opened_boot, open_event_id, tariff) VALUES (2, 't1', 'desk', 900000, 1, 'b', 0, ?)",
        (tariff,),
    )
    old.commit()
    old.close()
    for _ in range(2):  # opened twice: nothing is chained twice
        db = connect(path)
        rows = db.execute("SELECT n, kind, row_id, session_id FROM money_chain").fetchall()
        assert rows == [(1, "open", 1, 1), (2, "open", 2, 2), (3, "mark", 1, 1)]
        checked = money_chain.check(db, [])
        assert checked.findings == [] and checked.rows == 3
        db.close()
    db = connect(path)
    db.execute("DROP TRIGGER session_marks_no_update")
    db.execute("UPDATE session_marks SET who = 'Omid' WHERE id = 1")
    (f,) = money_chain.check(db, []).findings
    assert (f.kind, f.session_id, f.row_kind, f.row_id) == ("changed", 1, "mark", 1)
    assert '"Sara"' in f.was and '"Omid"' in f.now
    db.close()


def test_every_column_of_every_money_table_is_chained(tmp_path: Path) -> None:
    db = connect(tmp_path / "store.sqlite")
    for table in {t for t, _, _ in money_chain.KINDS.values()}:
        columns = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
        chained = {c for t, cols, _ in money_chain.KINDS.values() if t == table for c in cols}
        assert columns == chained, table
    db.close()


def test_a_confirmation_set_by_hand_on_a_session_never_confirmed_is_found(tmp_path: Path) -> None:
    # The tamper bench found it: confirmed_by set on an unconfirmed session
    # was in no chain entry's content (a confirm was chained only once made).
    from baulk.host.store import SessionWrite
    from tests.host.money_rows import desk_writes

    path = tmp_path / "store.sqlite"
    connect(path).close()
    desk_writes(path, SessionWrite("open", 1, "t1", "Dina", 1, 1, "b", tariff={"name": "a"}))
    db = connect(path)
    db.execute("DROP TRIGGER table_sessions_opening_stays")
    db.execute("UPDATE table_sessions SET confirmed_by = 'Omid' WHERE id = 1")
    (f,) = money_chain.check(db, []).findings
    assert (f.kind, f.session_id, f.row_kind, f.row_id) == ("inserted", 1, "confirm", 1)
    db.close()
