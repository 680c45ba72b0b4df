"""The club's tables as the first stores had them (before session marks, refunds,
reversals and items): the migration tests make an old store with them."""

from __future__ import annotations

FIRST_CLUB_SCHEMA = """
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
CREATE UNIQUE INDEX IF NOT EXISTS table_sessions_one_open ON table_sessions (table_id)
    WHERE closed_wall_ms IS NULL;
CREATE INDEX IF NOT EXISTS table_sessions_opened ON table_sessions (opened_wall_ms);
CREATE TRIGGER IF NOT EXISTS table_sessions_closed_stays BEFORE UPDATE ON table_sessions
    WHEN OLD.closed_wall_ms IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'a closed session is never changed'); END;
CREATE TRIGGER IF NOT EXISTS table_sessions_no_delete BEFORE DELETE ON table_sessions
BEGIN SELECT RAISE(ABORT, 'sessions are never deleted'); END;
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
CREATE TRIGGER IF NOT EXISTS bill_corrections_no_update BEFORE UPDATE ON bill_corrections
BEGIN SELECT RAISE(ABORT, 'bill_corrections is append-only'); END;
CREATE TRIGGER IF NOT EXISTS bill_corrections_no_delete BEFORE DELETE ON bill_corrections
BEGIN SELECT RAISE(ABORT, 'bill_corrections is append-only'); END;
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
