"""Money rows written as the desk writes them (host/store/club_writer.py,
which chains each one): for tests that build a billed day in a store file
without a daemon."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from baulk.host.store import SessionWrite, money_chain
from baulk.host.store.club_writer import write_session


def desk_writes(path: Path, *writes: SessionWrite) -> None:
    db = sqlite3.connect(path, isolation_level=None, timeout=10)
    try:
        db.execute("BEGIN IMMEDIATE")
        for w in writes:
            write_session(db, w)
        db.execute("COMMIT")
    finally:
        db.close()


def one_bill(path: Path, tariff: dict[str, Any], opened_ms: int) -> tuple[int, bytes]:
    """One session of table t1 over the stored match, as the desk writes it:
    opened at the match's first event, two teas (226,000), closed after
    90 minutes.  Returns the money chain's head after it (rows, head)."""
    db = sqlite3.connect(path)
    try:
        first = db.execute("SELECT boot_id, seq FROM events ORDER BY id LIMIT 1").fetchone()
    finally:
        db.close()
    desk_writes(
        path,
        SessionWrite("open", 1, "t1", "Dina", opened_ms, 0, "b", tariff=tariff,
                     from_event=(first[0], first[1])),
        SessionWrite("item", 1, "t1", "Dina", opened_ms + 60_000, item="Tea", item_fa="چای",
                     price=113_000, quantity=2),
        SessionWrite("close", 1, "t1", "Dina", opened_ms + 5_400_000, 5_400_000, "b",
                     reason="desk"),
    )  # fmt: skip
    db = sqlite3.connect(path)
    try:
        return money_chain.head_of(db)
    finally:
        db.close()
