"""The store's tables, and how a connection to the file is opened."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from . import club_schema, staff_schema
from .sensor_schema import SENSOR_SCHEMA
from .stats_schema import STATS_SCHEMA

# 2: operator action ids, event bodies, checkpoints; 3: the pockets' sensors
# (.sensor_schema).  An older store gets what it lacks as it is opened.
SCHEMA_VERSION = 3

# The venue's corrections of a match's names, appended: the latest is the
# one in force, and the earlier ones stay to say who wrote what before it.
# Statements apart (not one script), so that a migration can run them
# inside its own transaction: executescript() would commit it first.
_NAME_FIXES = (
    """CREATE TABLE IF NOT EXISTS name_fixes (
    id INTEGER PRIMARY KEY,
    match_id TEXT NOT NULL,
    players TEXT NOT NULL,
    who TEXT,
    at_ms INTEGER NOT NULL
)""",
    """CREATE TRIGGER IF NOT EXISTS name_fixes_no_update BEFORE UPDATE ON name_fixes
BEGIN SELECT RAISE(ABORT, 'name_fixes is append-only'); END""",
    """CREATE TRIGGER IF NOT EXISTS name_fixes_no_delete BEFORE DELETE ON name_fixes
BEGIN SELECT RAISE(ABORT, 'name_fixes is append-only'); END""",
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS raw_frames (
    id INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    rx_ms INTEGER NOT NULL,
    mtype INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    data BLOB NOT NULL
);
CREATE TRIGGER IF NOT EXISTS raw_frames_no_update BEFORE UPDATE ON raw_frames
BEGIN SELECT RAISE(ABORT, 'raw_frames is append-only'); END;
CREATE TRIGGER IF NOT EXISTS raw_frames_no_delete BEFORE DELETE ON raw_frames
BEGIN SELECT RAISE(ABORT, 'raw_frames is append-only'); END;
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    boot_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    rx_ms INTEGER NOT NULL,
    src INTEGER NOT NULL DEFAULT 0,
    cmd INTEGER NOT NULL DEFAULT 0,
    name TEXT,
    ev TEXT,
    scores TEXT,
    rejected TEXT,
    invalid TEXT,
    match_id TEXT,
    frame INTEGER,
    action INTEGER,
    body BLOB,
    UNIQUE (table_id, boot_id, seq)
);
CREATE INDEX IF NOT EXISTS events_match ON events (match_id, id);
CREATE INDEX IF NOT EXISTS events_table_name ON events (table_id, name, id);
CREATE TABLE IF NOT EXISTS matches (
    match_id TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    started_ms INTEGER NOT NULL,
    players TEXT NOT NULL,
    best_of INTEGER NOT NULL,
    reds INTEGER NOT NULL,
    frames_won TEXT NOT NULL DEFAULT '[0,0]',
    ended_ms INTEGER,
    winner INTEGER
);
CREATE INDEX IF NOT EXISTS matches_table ON matches (table_id, started_ms);
CREATE TABLE IF NOT EXISTS frames (
    match_id TEXT NOT NULL,
    frame INTEGER NOT NULL,
    scores TEXT NOT NULL,
    winner INTEGER,
    ended_ms INTEGER NOT NULL,
    PRIMARY KEY (match_id, frame)
);
CREATE TABLE IF NOT EXISTS breaks (
    id INTEGER PRIMARY KEY,
    match_id TEXT NOT NULL,
    frame INTEGER NOT NULL,
    side INTEGER NOT NULL,
    player TEXT,
    points INTEGER NOT NULL,
    ended_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS links (
    table_id TEXT PRIMARY KEY,
    name TEXT,
    delivered INTEGER NOT NULL DEFAULT 0,
    boot_id INTEGER NOT NULL DEFAULT 0,
    device_table TEXT,
    firmware TEXT,
    last_seen_ms INTEGER
);
CREATE TABLE IF NOT EXISTS commands (
    id INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    mtype INTEGER NOT NULL,
    body TEXT NOT NULL,
    who TEXT,
    created_ms INTEGER NOT NULL,
    action INTEGER
);
CREATE TABLE IF NOT EXISTS checkpoints (
    id INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    boot_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    rx_ms INTEGER NOT NULL,
    at_seq INTEGER NOT NULL,
    head BLOB NOT NULL,
    marks BLOB NOT NULL,
    mac BLOB NOT NULL,
    UNIQUE (table_id, boot_id, seq)
);
CREATE INDEX IF NOT EXISTS checkpoints_at ON checkpoints (table_id, at_seq);
"""
# Columns added since schema 1, for stores made before them (CREATE TABLE IF
# NOT EXISTS leaves an existing table as it is).
_ADDED_COLUMNS = (
    ("events", "action", "INTEGER"),
    ("events", "body", "BLOB"),
    ("commands", "action", "INTEGER"),
    # a checkpoint's anchor: the money chain's head the device signed (since 1.4)
    ("checkpoints", "money_n", "INTEGER"),
    ("checkpoints", "money", "BLOB"),
    ("checkpoints", "money_mac", "BLOB"),
)
# Made after the columns they index exist.
_INDEXES = """
CREATE INDEX IF NOT EXISTS events_action ON events (table_id, action) WHERE action IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS commands_action ON commands (action) WHERE action IS NOT NULL;
CREATE INDEX IF NOT EXISTS name_fixes_match ON name_fixes (match_id, id);
"""


class StoreError(RuntimeError):
    """The store file cannot be used (the message says why)."""


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def dumps(v: Any) -> str:
    """JSON as the store keeps it: compact, non-ASCII as is."""
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def _make_folder(folder: Path) -> None:
    """The store's own folder may be made, not its parents: a missing parent
    is more likely a typo in the config than a place to create."""
    if folder.is_dir():
        return
    try:
        folder.mkdir()
    except FileNotFoundError:
        raise StoreError(
            f"cannot make the store's folder {folder}: {folder.parent} does not exist"
        ) from None
    except OSError as e:
        raise StoreError(f"cannot make the store's folder {folder}: {e.strerror or e}") from None


def connect(path: Path, readonly: bool = False) -> sqlite3.Connection:
    """A connection to the store file: the writer's (which creates the tables)
    or a read-only one (the file must exist)."""
    if not readonly:
        _make_folder(path.parent)
    try:
        if readonly:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        else:
            db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA busy_timeout = 5000")
        if not readonly:
            mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode != "wal":
                raise StoreError(f"{path}: SQLite refused WAL mode (got {mode})")
            # FULL: a commit is on the disk when COMMIT returns, so an ack
            # that follows it promises only what survives a power cut.
            db.execute("PRAGMA synchronous = FULL")
            db.executescript(SCHEMA)
            _append_only_name_fixes(db)  # before the table is made anew below
            for statement in _NAME_FIXES:
                db.execute(statement)
            club_schema.migrate(db)  # the club's tables, in a module of their own
            db.executescript(STATS_SCHEMA)
            db.executescript(SENSOR_SCHEMA)
            staff_schema.migrate(db)  # the staff's tables, and their added columns
            _migrate(db)
            db.executescript(_INDEXES)
            db.execute(
                "INSERT INTO meta (key, value) VALUES ('schema', ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(SCHEMA_VERSION),),
            )
        return db
    except sqlite3.DatabaseError as e:
        raise StoreError(f"cannot open the store {path}: {e}") from None


def _migrate(db: sqlite3.Connection) -> None:
    """Add the columns a store made by an older baulk lacks."""
    for table, column, kind in _ADDED_COLUMNS:
        have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
        if column not in have:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


def _append_only_name_fixes(db: sqlite3.Connection) -> None:
    """A store made before name fixes were appended kept one row a match,
    replaced in place: its rows move into the appended table as they are."""
    have = {r[1] for r in db.execute("PRAGMA table_info(name_fixes)")}
    if not have or "id" in have:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("ALTER TABLE name_fixes RENAME TO name_fixes_replaced")
        for statement in _NAME_FIXES:
            db.execute(statement)
        db.execute(
            "INSERT INTO name_fixes (match_id, players, who, at_ms) "
            "SELECT match_id, players, who, at_ms FROM name_fixes_replaced ORDER BY at_ms"
        )
        db.execute("DROP TABLE name_fixes_replaced")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
