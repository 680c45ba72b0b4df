"""Reads of the staff's tables (host/store/staff_schema.py): what the daemon
loads at start and again when ``baulk users`` changed the file, and the
activity log as the owner's page filters it."""

from __future__ import annotations

import sqlite3
from typing import Any

from .staff_schema import ACCOUNT_COLUMNS, ACTIVITY_COLUMNS, SESSION_COLUMNS, TOKEN_COLUMNS

ACTIVITY_MOST = 5000  # rows one read of the log returns at most


def _rows(db: sqlite3.Connection, sql: str, args: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    cur = db.execute(sql, args)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def staff_version(db: sqlite3.Connection) -> int:
    row = db.execute("SELECT value FROM meta WHERE key = 'staff_version'").fetchone()
    return int(row[0]) if row else 0


def accounts(db: sqlite3.Connection) -> list[dict[str, Any]]:
    return _rows(db, f"SELECT {ACCOUNT_COLUMNS} FROM staff_accounts ORDER BY id")


def tokens(db: sqlite3.Connection) -> list[dict[str, Any]]:
    return _rows(db, f"SELECT {TOKEN_COLUMNS} FROM staff_tokens ORDER BY id")


def live_codes(db: sqlite3.Connection, now_ms: int) -> list[dict[str, Any]]:
    """The sign-in codes not used and not out of date."""
    return _rows(
        db,
        "SELECT hash, account_id, expires_ms FROM staff_codes "
        "WHERE used_ms IS NULL AND expires_ms > ?",
        (now_ms,),
    )


def live_sessions(db: sqlite3.Connection, now_ms: int) -> list[dict[str, Any]]:
    return _rows(
        db,
        f"SELECT {SESSION_COLUMNS} FROM staff_sessions WHERE ended_ms IS NULL "
        "AND expires_ms > ? ORDER BY id",
        (now_ms,),
    )


def devices(db: sqlite3.Connection) -> set[tuple[str, int]]:
    return {(str(h), int(a)) for h, a in db.execute("SELECT hash, account_id FROM staff_devices")}


def activity(
    db: sqlite3.Connection,
    start_ms: int,
    end_ms: int,
    table: str | None = None,
    who: str | None = None,
    most: int = ACTIVITY_MOST,
) -> list[dict[str, Any]]:
    """The log's rows from ``start_ms`` to before ``end_ms`` (wall clock),
    oldest first; ``table`` and ``who`` narrow it (``who`` by the name as
    the log has it, any case)."""
    where = ["wall_ms >= ?", "wall_ms < ?"]
    args: list[Any] = [start_ms, end_ms]
    if table is not None:
        where.append("table_id = ?")
        args.append(table)
    if who is not None:
        where.append("lower(who) = lower(?)")
        args.append(who)
    args.append(most)
    return _rows(
        db,
        f"SELECT {ACTIVITY_COLUMNS} FROM staff_activity WHERE {' AND '.join(where)} "
        "ORDER BY id LIMIT ?",
        tuple(args),
    )
