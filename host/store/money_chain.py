"""The money rows' hash chain (docs/LEDGER.md, "Every money row in the
record the tables sign").

Every row the desk writes that a bill is made of (a session's opening and
its confirmation, each mark: close, reopen, void, unvoid; each correction,
refund and reversal; each item and take-back) goes, in the same transaction
and in the order written, into ``money_chain``: the row's content as bytes
(:func:`row_body`, read back from the row itself) and ``head = SHA-256(the
previous head + body)``.  The daemon sends the newest head to the session's
table, whose device signs it into its next checkpoint (protocol/SPEC.md
§7.8, "Anchors"); ``baulk verify --day`` reads each row again, recomputes the
chain and holds it to the stored entries and to every signed head
(host/staff/takings.py uses :func:`check`).

Someone who can write the file but holds no table's key can rewrite the
rows *and* this table consistently; the signed heads are what he cannot
make, which is why verify recomputes from the rows and not from ``head``.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass, field, replace
from typing import Any

from .club_queries import CLOSE_KEYS

GENESIS = bytes(32)  # the head before the first money row

MONEY_CHAIN_SCHEMA = """
CREATE TABLE IF NOT EXISTS money_chain (
    n INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    row_id INTEGER NOT NULL,
    session_id INTEGER NOT NULL,
    body BLOB NOT NULL,
    head BLOB NOT NULL,
    UNIQUE (kind, row_id)
);
CREATE TRIGGER IF NOT EXISTS money_chain_no_update BEFORE UPDATE ON money_chain
BEGIN SELECT RAISE(ABORT, 'money_chain is append-only'); END;
CREATE TRIGGER IF NOT EXISTS money_chain_no_delete BEFORE DELETE ON money_chain
BEGIN SELECT RAISE(ABORT, 'money_chain is append-only'); END;
"""

# Each kind of money row: its table, the columns that are its content (every
# column of the table between them: a column outside these lists could be
# changed unseen, tests/host/store/test_money_chain.py holds them to the schema),
# and the column naming its session.  ``confirm`` is the one later
# write to a session's own row (an auto-opened session confirmed at the desk).
KINDS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "open": (
        "table_sessions",
        (
            "id",
            "table_id",
            "how",
            "opened_by",
            "opened_wall_ms",
            "opened_mono_ms",
            "opened_boot",
            "open_event_id",
            "tariff",
            # a close as stores before the marks kept it (copied into a mark,
            # never written again; its columns named as the bill's close
            # keys): in the content, so no column is unchained
            *CLOSE_KEYS,
        ),
        "id",
    ),
    "confirm": ("table_sessions", ("id", "confirmed_wall_ms", "confirmed_by"), "id"),
    "mark": (
        "session_marks",
        ("id", "session_id", "kind", "wall_ms", "mono_ms", "boot", "event_id", "who", "reason"),
        "session_id",
    ),
    "correction": (
        "bill_corrections",
        (
            "id",
            "session_id",
            "created_wall_ms",
            "who",
            "amount",
            "payer",
            "reason",
            "kind",
            "reverses",
        ),
        "session_id",
    ),
    "item": (
        "bill_items",
        (
            "id",
            "session_id",
            "created_wall_ms",
            "who",
            "item",
            "item_fa",
            "price",
            "quantity",
            "reverses",
        ),
        "session_id",
    ),
}
# Which kind's rows a table holds, for the rows no chain entry names: a
# session row is an ``open`` always and a ``confirm`` once either of its
# confirmation's columns is set (one set by hand is a confirm never chained).
_PRESENT = {"confirm": "(confirmed_wall_ms IS NOT NULL OR confirmed_by IS NOT NULL)"}
# When each kind's row was written, for the rows of a store older than the chain.
_WHEN = {
    "open": "opened_wall_ms",
    "confirm": "confirmed_wall_ms",
    "mark": "wall_ms",
    "correction": "created_wall_ms",
    "item": "created_wall_ms",
}


def link(head: bytes, body: bytes) -> bytes:
    return hashlib.sha256(head + body).digest()


def row_body(db: sqlite3.Connection, kind: str, row_id: int) -> bytes | None:
    """A money row's content as the chain holds it: the kind and its columns'
    values as compact JSON (the columns are integers and text).  None: no
    such row."""
    table, columns, _ = KINDS[kind]
    row = db.execute(f"SELECT {', '.join(columns)} FROM {table} WHERE id = ?", (row_id,)).fetchone()
    if row is None:
        return None
    values = list(row)
    return json.dumps([kind, values], ensure_ascii=False, separators=(",", ":")).encode()


def head_of(db: sqlite3.Connection) -> tuple[int, bytes]:
    """(rows chained, the newest head)."""
    row = db.execute("SELECT n, head FROM money_chain ORDER BY n DESC LIMIT 1").fetchone()
    return (int(row[0]), bytes(row[1])) if row else (0, GENESIS)


def append(db: sqlite3.Connection, kind: str, row_id: int) -> None:
    """Chain one money row, just written, inside the writer's transaction:
    reading the head and appending after it is one step (no other writer)."""
    body = row_body(db, kind, row_id)
    assert body is not None, (kind, row_id)
    n, head = head_of(db)
    session = db.execute(
        f"SELECT {KINDS[kind][2]} FROM {KINDS[kind][0]} WHERE id = ?", (row_id,)
    ).fetchone()[0]
    db.execute(
        "INSERT INTO money_chain (n, kind, row_id, session_id, body, head) VALUES (?,?,?,?,?,?)",
        (n + 1, kind, row_id, session, body, link(head, body)),
    )


def migrate(db: sqlite3.Connection) -> None:
    """The chain's table; a store whose money rows predate it chains them
    now, oldest first by their own times, all in one transaction (the chain
    then vouches for them from this moment on, not before)."""
    db.executescript(MONEY_CHAIN_SCHEMA)
    if db.execute("SELECT 1 FROM money_chain LIMIT 1").fetchone():
        return
    old: list[tuple[int, int, str, int]] = []
    for order, (kind, (table, _, _)) in enumerate(KINDS.items()):
        where = _PRESENT.get(kind, "1")
        for wall, i in db.execute(f"SELECT {_WHEN[kind]}, id FROM {table} WHERE {where}"):
            old.append((int(wall or 0), order, kind, int(i)))
    if not old:
        return
    outer = db.in_transaction
    if not outer:
        db.execute("BEGIN IMMEDIATE")
    for _, _, kind, i in sorted(old):
        append(db, kind, i)
    if not outer:
        db.execute("COMMIT")


# ---------------------------------------------------------------------- checking
@dataclass
class MoneyFinding:
    """One money row that is not what was chained, located to its bill and
    its row; the sentences are the verifier's (host/staff/takings.py)."""

    # changed, deleted, inserted: the row against its chain entry; chain: the
    # chain's own entries deleted, inserted or edited; anchor: rows rewritten
    # with the chain to match, which only a signed head shows
    kind: str
    session_id: int
    row_kind: str = ""  # a kind of KINDS
    row_id: int = 0
    n: int = 0  # its chain entry (anchor: the first signed head that fails)
    since: int = 0  # anchor: the newest signed head before it that holds
    was: str = ""  # changed: the row as chained, and as it is
    now: str = ""
    wall_ms: int | None = None  # when the row says it was written (as chained, else as it is)


@dataclass
class Anchor:
    """A head a table's device signed (a checkpoint's money head)."""

    table_id: str
    n: int
    head: bytes
    checkpoint: int  # the checkpoint's seq in that table's stream


@dataclass
class MoneyCheck:
    findings: list[MoneyFinding] = field(default_factory=list)
    rows: int = 0  # chained rows
    anchored: int = 0  # rows up to the newest signed head that holds
    unanchored_sessions: set[int] = field(default_factory=set)  # rows after it


def _written(kind: str, body: bytes) -> int | None:
    """The wall-clock ms a row's content says it was written at."""
    try:
        values = json.loads(body)[1]
        when = values[KINDS[kind][1].index(_WHEN[kind])]
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    return when if isinstance(when, int) else None


def opened(db: sqlite3.Connection) -> dict[int, dict[str, Any]]:
    """Each session's opening as it was chained (not as the row says now:
    the row may be the one changed or gone), column by column."""
    out = {}
    for sid, body in db.execute("SELECT session_id, body FROM money_chain WHERE kind = 'open'"):
        values = json.loads(bytes(body))[1]
        out[int(sid)] = dict(zip(KINDS["open"][1], values, strict=True))
    return out


def check(db: sqlite3.Connection, anchors: list[Anchor]) -> MoneyCheck:
    """Every money row against the chain, and the chain against the signed
    heads.  Read inside the caller's one read transaction."""
    out = MoneyCheck()
    entries = db.execute(
        "SELECT n, kind, row_id, session_id, body, head FROM money_chain ORDER BY n"
    ).fetchall()
    chained: set[tuple[str, int]] = set()
    made: dict[int, bytes] = {0: GENESIS}  # n -> the head the rows make
    stored = head = GENESIS
    session_of_n: dict[int, int] = {}
    written_of_n: dict[int, int | None] = {}
    for n, kind, row_id, session, body, said in entries:
        n, row_id, session, body = int(n), int(row_id), int(session), bytes(body)
        chained.add((kind, row_id))
        session_of_n[n] = session
        written_of_n[n] = _written(kind, body)
        at = MoneyFinding("", session, kind, row_id, n, wall_ms=_written(kind, body))
        if n != len(session_of_n) or bytes(said) != link(stored, body):
            out.findings.append(replace(at, kind="chain"))
        stored = bytes(said)
        now = row_body(db, kind, row_id) if kind in KINDS else None
        if now is None:
            out.findings.append(replace(at, kind="deleted"))
            now = b""  # no signed head holds over a missing row
        elif now != body:
            out.findings.append(replace(at, kind="changed", was=body.decode(), now=now.decode()))
        head = made[n] = link(head, now)
    out.rows = len(entries)
    for kind, (table, _, session_col) in KINDS.items():
        where = _PRESENT.get(kind, "1")
        for row_id, session in db.execute(f"SELECT id, {session_col} FROM {table} WHERE {where}"):
            if (kind, int(row_id)) not in chained:
                body = row_body(db, kind, int(row_id)) or b""
                found = MoneyFinding("inserted", int(session), kind, int(row_id))
                out.findings.append(replace(found, wall_ms=_written(kind, body)))
    held = [a.n for a in anchors if made.get(a.n) == a.head]
    failed = [a.n for a in anchors if made.get(a.n) != a.head]
    good = max(held, default=0)
    if failed:
        # The rows were rewritten with the chain to match: the signed heads
        # locate it to the entries after the newest one before it that holds.
        bad = min(failed)
        since = max((n for n in held if n < bad), default=0)
        span = range(since + 1, bad + 1)
        if not any(n in session_of_n for n in span) and since in session_of_n:
            # the chain ends before a head a table signed: rows after entry
            # `since` are gone, the bill of the newest row left is named
            span = range(since, since + 1)
        for s in sorted({session_of_n[n] for n in span if n in session_of_n}):
            times = [written_of_n[n] for n in span if session_of_n.get(n) == s]
            when = min((t for t in times if t is not None), default=None)
            out.findings.append(MoneyFinding("anchor", s, n=bad, since=since, wall_ms=when))
        good = since
    out.anchored = good
    out.unanchored_sessions = {s for n, s in session_of_n.items() if n > good}
    return out
