"""The club's writes, inside the store writer's transaction (host/store/writer.py
calls :func:`write_session` for each ``SessionWrite`` of a batch).

The daemon checked every change against the sessions it holds before it
sent it here.  A change the store still refuses (a second open session on a
table, a closed session closed again, a row reversed twice) is logged and
skipped inside a savepoint of its own, so it never fails the batch and can
never hold up the commits that acknowledge the devices' events.
"""

from __future__ import annotations

import logging
import sqlite3

from . import money_chain
from .records import SessionWrite
from .schema import dumps

log = logging.getLogger("baulk.store")

_NEWEST_EVENT = "(SELECT coalesce(max(id), 0) FROM events)"


def _state(db: sqlite3.Connection, session_id: int) -> tuple[str, int, int] | None:
    row = db.execute(
        "SELECT table_id, open, void FROM session_state WHERE session_id = ?", (session_id,)
    ).fetchone()
    return (row[0], row[1], row[2]) if row else None


def _mark(db: sqlite3.Connection, w: SessionWrite, kind: str, reason: str | None) -> None:
    cur = db.execute(
        "INSERT INTO session_marks (session_id, kind, wall_ms, mono_ms, boot, event_id, who, "
        f"reason) VALUES (?, ?, ?, ?, ?, {_NEWEST_EVENT}, ?, ?)",
        (w.session_id, kind, w.wall_ms, w.mono_ms, w.boot, w.who, reason),
    )
    money_chain.append(db, "mark", int(cur.lastrowid or 0))


def _open(db: sqlite3.Connection, w: SessionWrite) -> bool:
    busy = db.execute(
        "SELECT 1 FROM session_state WHERE table_id = ? AND open = 1", (w.table_id,)
    ).fetchone()
    if busy:
        return False
    anchor = None
    if w.from_event is not None:
        row = db.execute(
            "SELECT id FROM events WHERE table_id = ? AND boot_id = ? AND seq = ?",
            (w.table_id, w.from_event[0], w.from_event[1]),
        ).fetchone()
        anchor = row[0] - 1 if row else None
    if anchor is None:
        anchor = db.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0]
    cur = db.execute(
        "INSERT OR IGNORE INTO table_sessions (id, table_id, how, opened_by, opened_wall_ms, "
        "opened_mono_ms, opened_boot, open_event_id, tariff) VALUES (?,?,?,?,?,?,?,?,?)",
        (
            w.session_id,
            w.table_id,
            w.how,
            w.who,
            w.wall_ms,
            w.mono_ms,
            w.boot,
            anchor,
            dumps(w.tariff or {}),
        ),
    )
    if cur.rowcount != 1:
        return False
    money_chain.append(db, "open", w.session_id)
    db.execute(
        "INSERT INTO session_state (session_id, table_id, open) VALUES (?, ?, 1)",
        (w.session_id, w.table_id),
    )
    return True


def _change(db: sqlite3.Connection, w: SessionWrite) -> bool:
    """One change; False when the store refuses it."""
    if w.op == "open":
        return _open(db, w)
    state = _state(db, w.session_id)
    if state is None:
        return False
    _, is_open, void = state
    if w.op == "confirm":
        cur = db.execute(
            "UPDATE table_sessions SET confirmed_wall_ms = ?, confirmed_by = ? "
            "WHERE id = ? AND confirmed_wall_ms IS NULL",
            (w.wall_ms, w.who, w.session_id),
        )
        if not (is_open and cur.rowcount == 1):
            return False
        money_chain.append(db, "confirm", w.session_id)
        return True
    if w.op in ("close", "void") and is_open:
        _mark(db, w, "close", "void" if w.op == "void" else w.reason)
        if w.op == "void":
            _mark(db, w, "void", w.reason)
        db.execute(
            "UPDATE session_state SET open = 0, void = ? WHERE session_id = ?",
            (int(w.op == "void"), w.session_id),
        )
        return True
    if w.op == "void" and not void:
        _mark(db, w, "void", w.reason)
        db.execute("UPDATE session_state SET void = 1 WHERE session_id = ?", (w.session_id,))
        return True
    if w.op == "unvoid" and void:
        _mark(db, w, "unvoid", w.reason)
        db.execute("UPDATE session_state SET void = 0 WHERE session_id = ?", (w.session_id,))
        return True
    if w.op == "reopen" and not is_open and not void:
        _mark(db, w, "reopen", w.reason)
        db.execute("UPDATE session_state SET open = 1 WHERE session_id = ?", (w.session_id,))
        return True
    if w.op in ("correct", "refund", "reverse") and not void and w.reason and w.reason.strip():
        kind = "reversal" if w.op == "reverse" else "correction" if w.op == "correct" else "refund"
        cur = db.execute(
            "INSERT INTO bill_corrections (session_id, created_wall_ms, who, amount, payer, "
            "reason, kind, reverses) VALUES (?,?,?,?,?,?,?,?)",
            (w.session_id, w.wall_ms, w.who, w.amount, w.payer, w.reason.strip(), kind, w.reverses),
        )
        money_chain.append(db, "correction", int(cur.lastrowid or 0))
        return True
    if w.op in ("item", "item_back") and not void and w.item:
        cur = db.execute(
            "INSERT INTO bill_items (session_id, created_wall_ms, who, item, item_fa, price, "
            "quantity, reverses) VALUES (?,?,?,?,?,?,?,?)",
            (
                w.session_id,
                w.wall_ms,
                w.who,
                w.item,
                w.item_fa or w.item,
                w.price,
                w.quantity,
                w.reverses,
            ),
        )
        money_chain.append(db, "item", int(cur.lastrowid or 0))
        return True
    return False


class NotTaken(Exception):
    """The store's tables refuse a change (a second open session, a closed
    one changed): the writer refuses the row to its caller, alone, and the
    daemon undoes what it had made of it (host/club/sessions.py)."""


def write_session(db: sqlite3.Connection, w: SessionWrite) -> None:
    """One change to a table session.  The daemon checked it against the
    sessions it holds; a change the store still refuses raises
    :class:`NotTaken` (or the store's own IntegrityError), and the writer
    refuses that row alone, in its savepoint, so it can never hold up the
    commits that ack the devices."""
    if not _change(db, w):
        raise NotTaken(f"the store refused {w.op!r} of session {w.session_id}")
