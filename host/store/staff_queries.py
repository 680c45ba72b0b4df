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
        "SELECT hash, account_id, expires_ms, generation FROM staff_codes "
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


def live_session_hashes(db: sqlite3.Connection, now_ms: int) -> set[str]:
    """The sign-ins the file holds live (``baulk users sign-out-all`` ends
    them all in the file; a running daemon then drops them too)."""
    return {
        str(h)
        for (h,) in db.execute(
            "SELECT hash FROM staff_sessions WHERE ended_ms IS NULL AND expires_ms > ?", (now_ms,)
        )
    }


# A row written before ``tried`` was kept apart held a refused sign-in's
# tried name in ``who`` (its role empty): it is read as tried, as the page
# and the CSV show it, so no stranger's attempt reads as the account's own.
_OLD_TRIED = "(tried IS NULL AND role IS NULL AND action = 'sign-in')"
_AS_READ = {
    "who": f"CASE WHEN {_OLD_TRIED} THEN NULL ELSE who END AS who",
    "tried": f"CASE WHEN {_OLD_TRIED} THEN who ELSE tried END AS tried",
}
# A row about a session carries its table: the gate knows only the session
# of a route like /api/sessions/{session}/items, and the table is the one
# the session was opened on (old rows too), so the table filter finds a
# table's money.
_TABLE = (
    "COALESCE(table_id, (SELECT s.table_id FROM table_sessions s "
    "WHERE s.id = staff_activity.session_id))"
)
_AS_READ["table_id"] = f"{_TABLE} AS table_id"
_READ = ", ".join(_AS_READ.get(c, c) for c in ACTIVITY_COLUMNS.split(", "))


def _activity_where(
    start_ms: int, end_ms: int, table: str | None, who: str | None
) -> tuple[list[str], list[Any]]:
    where = ["wall_ms >= ?", "wall_ms < ?"]
    args: list[Any] = [start_ms, end_ms]
    if table is not None:
        where.append(f"{_TABLE} = ?")
        args.append(table)
    if who is not None:  # the person who acted, never a name only tried
        where.append(f"lower(who) = lower(?) AND NOT {_OLD_TRIED}")
        args.append(who)
    return where, args


def activity(
    db: sqlite3.Connection,
    start_ms: int,
    end_ms: int,
    table: str | None = None,
    who: str | None = None,
    most: int = ACTIVITY_MOST,
    before: int | None = None,
    newest_first: bool = False,
    after: int | None = None,
) -> list[dict[str, Any]]:
    """The log's rows from ``start_ms`` to before ``end_ms`` (wall clock),
    oldest first (``newest_first``: the other way); ``table`` and ``who``
    narrow it (``who`` by the name as the log has it, any case), and
    ``before`` / ``after`` (a row id) page through it."""
    where, args = _activity_where(start_ms, end_ms, table, who)
    if before is not None:
        where.append("id < ?")
        args.append(before)
    if after is not None:
        where.append("id > ?")
        args.append(after)
    args.append(most)
    order = "id DESC" if newest_first else "id"
    return _rows(
        db,
        f"SELECT {_READ} FROM staff_activity WHERE {' AND '.join(where)} ORDER BY {order} LIMIT ?",
        tuple(args),
    )


def activity_count(
    db: sqlite3.Connection,
    start_ms: int,
    end_ms: int,
    table: str | None = None,
    who: str | None = None,
) -> int:
    where, args = _activity_where(start_ms, end_ms, table, who)
    row = db.execute(
        f"SELECT count(*) FROM staff_activity WHERE {' AND '.join(where)}", tuple(args)
    ).fetchone()
    return int(row[0])


def activity_people(db: sqlite3.Connection, start_ms: int, end_ms: int) -> list[str]:
    """Everyone who acted in the span (names only tried are not people)."""
    return sorted(
        str(w)
        for (w,) in db.execute(
            f"SELECT DISTINCT who FROM staff_activity WHERE wall_ms >= ? AND wall_ms < ? "
            f"AND who IS NOT NULL AND NOT {_OLD_TRIED}",
            (start_ms, end_ms),
        )
    )
