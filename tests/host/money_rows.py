"""Money rows written as the desk writes them (host/store/club_writer.py,
which chains each one): for tests that build a billed day in a store file
without a daemon."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from baulk.host.store import SessionWrite
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
