"""The club's tables: table sessions and what their bills are worked out from
(host/club/sessions.py, host/club/bills.py, docs/BILLING.md).  Nothing here
is ever changed or deleted once written, but for the two projections
(``session_state``, ``frame_play``), which the writer keeps up to date and
``baulk rebuild`` can make again.

* ``table_sessions``: one row per session, written when it opens: the PC's
  wall clock (when), its monotonic clock and boot id (how long,
  host/club/clock.py), the newest stored event id (which ties the session to
  the events played in it), and the tariff it opened under.  Only an auto
  opened session's confirmation is filled in later.
* ``session_marks``: what happened to a session after it opened, in order:
  ``close`` (with its stamps and the newest event id then), ``reopen`` (a
  close taken back: the session runs on from its first open), ``void``
  (opened by mistake: nothing to pay), ``unvoid`` (a void taken back by the
  owner: the bill stands again).  Each with who and why.
* ``session_state``: a projection of the marks, one row a session: open or
  not, void or not.  A table has at most one open session (a unique index).
* ``bill_corrections``: a correction (+ or -), a refund (-) or a reversal of
  one of them (its opposite, naming the row it reverses), each with who and
  its reason.  A row is reversed at most once.
* ``bill_items``: an item of the price list sold onto a session's bill, at
  the price of the moment, or its take-back (naming the row).
* ``frame_play``: when each frame began and ended by the device's monotonic
  clock (the events' ``t``) and which event ids did it.

Stores made before the marks kept a session's close in ``table_sessions``'
``closed_*`` columns; :func:`migrate` copies each such close into a mark once,
and the columns are never written again.
"""

from __future__ import annotations

import sqlite3

from . import money_chain

CLUB_SCHEMA = """
CREATE TABLE IF NOT EXISTS table_sessions (
    id INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    how TEXT NOT NULL,
    opened_by TEXT,
    opened_wall_ms INTEGER NOT NULL,
    opened_mono_ms INTEGER NOT NULL,
    opened_boot TEXT NOT NULL,
    open_event_id INTEGER NOT NULL,
    tariff TEXT NOT NULL,
    confirmed_wall_ms INTEGER,
    confirmed_by TEXT,
    closed_wall_ms INTEGER,
    closed_mono_ms INTEGER,
    closed_boot TEXT,
    close_event_id INTEGER,
    closed_by TEXT,
    close_reason TEXT
);
DROP INDEX IF EXISTS table_sessions_one_open;
CREATE INDEX IF NOT EXISTS table_sessions_opened ON table_sessions (opened_wall_ms);
CREATE TRIGGER IF NOT EXISTS table_sessions_closed_stays BEFORE UPDATE ON table_sessions
    WHEN OLD.closed_wall_ms IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'a closed session is never changed'); END;
CREATE TRIGGER IF NOT EXISTS table_sessions_opening_stays BEFORE UPDATE OF
    id, table_id, how, opened_by, opened_wall_ms, opened_mono_ms, opened_boot, open_event_id,
    tariff, closed_wall_ms, closed_mono_ms, closed_boot, close_event_id, closed_by, close_reason
    ON table_sessions
BEGIN SELECT RAISE(ABORT, 'a session is never changed: its close is a mark'); END;
CREATE TRIGGER IF NOT EXISTS table_sessions_no_delete BEFORE DELETE ON table_sessions
BEGIN SELECT RAISE(ABORT, 'sessions are never deleted'); END;

CREATE TABLE IF NOT EXISTS session_marks (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES table_sessions (id),
    kind TEXT NOT NULL CHECK (kind IN ('close', 'reopen', 'void', 'unvoid')),
    wall_ms INTEGER NOT NULL,
    mono_ms INTEGER,
    boot TEXT,
    event_id INTEGER,
    who TEXT,
    reason TEXT
);
CREATE INDEX IF NOT EXISTS session_marks_session ON session_marks (session_id, id);

CREATE TABLE IF NOT EXISTS session_state (
    session_id INTEGER PRIMARY KEY REFERENCES table_sessions (id),
    table_id TEXT NOT NULL,
    open INTEGER NOT NULL,
    void INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX IF NOT EXISTS session_state_one_open ON session_state (table_id)
    WHERE open = 1;

CREATE TABLE IF NOT EXISTS bill_corrections (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES table_sessions (id),
    created_wall_ms INTEGER NOT NULL,
    who TEXT,
    amount INTEGER NOT NULL,
    payer TEXT,
    reason TEXT NOT NULL CHECK (length(trim(reason)) > 0)
);
CREATE INDEX IF NOT EXISTS bill_corrections_session ON bill_corrections (session_id, id);

CREATE TABLE IF NOT EXISTS bill_items (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES table_sessions (id),
    created_wall_ms INTEGER NOT NULL,
    who TEXT,
    item TEXT NOT NULL,
    item_fa TEXT NOT NULL,
    price INTEGER NOT NULL CHECK (price > 0),
    quantity INTEGER NOT NULL CHECK (quantity != 0),
    reverses INTEGER UNIQUE REFERENCES bill_items (id)
);
CREATE INDEX IF NOT EXISTS bill_items_session ON bill_items (session_id, id);

CREATE TABLE IF NOT EXISTS frame_play (
    match_id TEXT NOT NULL,
    frame INTEGER NOT NULL,
    table_id TEXT NOT NULL,
    start_id INTEGER NOT NULL,
    start_t INTEGER,
    end_id INTEGER,
    end_t INTEGER,
    winner INTEGER,
    PRIMARY KEY (match_id, frame)
);
CREATE INDEX IF NOT EXISTS frame_play_table ON frame_play (table_id, start_id);
"""
# Rows that are only ever appended: the store refuses to change or drop one.
APPEND_ONLY = "".join(
    f"CREATE TRIGGER IF NOT EXISTS {t}_no_{what} BEFORE {what.upper()} ON {t}\n"
    f"BEGIN SELECT RAISE(ABORT, '{t} is append-only'); END;\n"
    for t in ("session_marks", "bill_corrections", "bill_items")
    for what in ("update", "delete")
)
# Columns added since the first club schema, for stores made before them.
_ADDED = (
    ("bill_corrections", "kind", "TEXT NOT NULL DEFAULT 'correction'"),
    ("bill_corrections", "reverses", "INTEGER REFERENCES bill_corrections (id)"),
)
_AFTER = """
CREATE UNIQUE INDEX IF NOT EXISTS bill_corrections_reversed ON bill_corrections (reverses)
    WHERE reverses IS NOT NULL;
INSERT INTO session_marks (session_id, kind, wall_ms, mono_ms, boot, event_id, who, reason)
    SELECT id, 'close', closed_wall_ms, closed_mono_ms, closed_boot, close_event_id,
        closed_by, close_reason
    FROM table_sessions s WHERE closed_wall_ms IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM session_state st WHERE st.session_id = s.id);
INSERT INTO session_state (session_id, table_id, open)
    SELECT id, table_id, closed_wall_ms IS NULL FROM table_sessions s
    WHERE NOT EXISTS (SELECT 1 FROM session_state st WHERE st.session_id = s.id);
"""


# session_marks as stores made before a void could be undone have it: its
# CHECK names three kinds.  SQLite cannot change a CHECK in place, so the
# table is made anew with its rows (the append-only triggers go with the old
# table and are made again; a DROP fires no DELETE trigger).
_MARKS_ANEW = """
BEGIN;
ALTER TABLE session_marks RENAME TO session_marks_before_unvoid;
{create}
INSERT INTO session_marks (id, session_id, kind, wall_ms, mono_ms, boot, event_id, who, reason)
    SELECT id, session_id, kind, wall_ms, mono_ms, boot, event_id, who, reason
    FROM session_marks_before_unvoid ORDER BY id;
DROP TABLE session_marks_before_unvoid;
COMMIT;
"""


def _marks_take_unvoid(db: sqlite3.Connection) -> None:
    row = db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'session_marks'"
    ).fetchone()
    if row is None or "'unvoid'" in row[0]:
        return
    start = CLUB_SCHEMA.index("CREATE TABLE IF NOT EXISTS session_marks")
    create = CLUB_SCHEMA[start : CLUB_SCHEMA.index(");", start) + 2]
    db.executescript(_MARKS_ANEW.format(create=create))


def migrate(db: sqlite3.Connection) -> None:
    """The club's tables, and what a store made by an older baulk lacks."""
    db.executescript(CLUB_SCHEMA + APPEND_ONLY)
    _marks_take_unvoid(db)
    db.executescript(CLUB_SCHEMA + APPEND_ONLY)  # the index and triggers of a table made anew
    for table, column, kind in _ADDED:
        have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
        if column not in have:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    db.executescript(_AFTER)
    money_chain.migrate(db)  # after the marks a store from before them is given
