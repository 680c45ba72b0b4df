"""A match's corrected names are appended, never written over: the latest
is the one in force, the earlier ones stay, and a store made when a fix
replaced the one before keeps its fixes as it is opened."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from baulk.host.store import Batch, NameFixRow, Store, StoreReader


def test_a_second_fix_is_appended_and_the_latest_is_in_force(tmp_path: Path) -> None:
    store = Store(tmp_path / "baulk.db")
    store.write(Batch(name_fixes=[NameFixRow("m1", ["Ali", "Reza Ahmadi"], "Dina", 1_000)]))
    store.write(Batch(name_fixes=[NameFixRow("m1", ["Ali", "Reza Ahmadi-Zand"], "Omid", 2_000)]))
    reader = StoreReader(tmp_path / "baulk.db")
    assert reader.name_fix("m1") == ["Ali", "Reza Ahmadi-Zand"]
    assert reader.name_fix_record("m1") == {
        "players": ["Ali", "Reza Ahmadi-Zand"],
        "who": "Omid",
        "at_ms": 2_000,
    }
    kept = store.db.execute("SELECT players, who FROM name_fixes ORDER BY id").fetchall()
    assert kept == [('["Ali","Reza Ahmadi"]', "Dina"), ('["Ali","Reza Ahmadi-Zand"]', "Omid")]
    reader.close()
    store.close()


@pytest.mark.parametrize(
    "sql",
    ["UPDATE name_fixes SET who = 'someone else'", "DELETE FROM name_fixes"],
)
def test_a_fix_cannot_be_edited_or_removed_in_the_file(tmp_path: Path, sql: str) -> None:
    store = Store(tmp_path / "baulk.db")
    store.write(Batch(name_fixes=[NameFixRow("m1", ["Ali", "Reza"], "Dina", 1_000)]))
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store.db.execute(sql)
    assert store.db.execute("SELECT count(*) FROM name_fixes").fetchone()[0] == 1
    store.close()


def test_a_store_whose_fixes_replaced_each_other_keeps_them_when_opened(
    tmp_path: Path,
) -> None:
    path = tmp_path / "baulk.db"
    Store(path).close()
    old = sqlite3.connect(path)
    old.executescript(
        "DROP TABLE name_fixes;"
        "CREATE TABLE name_fixes (match_id TEXT PRIMARY KEY, players TEXT NOT NULL,"
        " who TEXT, at_ms INTEGER NOT NULL);"
        """INSERT INTO name_fixes VALUES ('m1', '["Ali","Reza"]', 'desk', 5);"""
        """INSERT INTO name_fixes VALUES ('m2', '["Sara","Mina"]', NULL, 7);"""
    )
    old.close()
    store = Store(path)  # as the newer baulk opens it
    store.write(Batch(name_fixes=[NameFixRow("m1", ["Ali", "Reza Zand"], "Omid", 9)]))
    reader = StoreReader(path)
    assert reader.name_fix("m1") == ["Ali", "Reza Zand"]
    assert reader.name_fix_record("m2") == {"players": ["Sara", "Mina"], "who": None, "at_ms": 7}
    assert store.db.execute("SELECT count(*) FROM name_fixes").fetchone()[0] == 3
    with pytest.raises(sqlite3.IntegrityError):
        store.db.execute("DELETE FROM name_fixes")
    reader.close()
    store.close()
