"""Writes of the statistics' tables (:mod:`.stats_schema`), called by the
store's writer for every event that projects something (:func:`.writer.project`)
and by ``baulk rebuild``."""

from __future__ import annotations

import sqlite3
import sys
from array import array

from .frame_records import FrameRecord, PlayerFrame, match_members
from .player_names import name_words, player_key
from .records import Projection
from .schema import dumps
from .stats_schema import STATS_TABLES

BREAK_BANDS = (10, 20, 50, 100)  # breaks of this and over are counted, each band apart

# The newest spelling of a name wins; on a tie the smaller, so the order in
# which ``baulk rebuild`` meets the tables changes nothing.
_UPSERT_PLAYER = """
INSERT INTO players (key, name, words, first_ms, last_ms) VALUES (?,?,?,?,?)
ON CONFLICT (key) DO UPDATE SET
    name = CASE WHEN excluded.last_ms > players.last_ms
        OR (excluded.last_ms = players.last_ms AND excluded.name < players.name)
        THEN excluded.name ELSE players.name END,
    words = CASE WHEN excluded.last_ms > players.last_ms
        OR (excluded.last_ms = players.last_ms AND excluded.name < players.name)
        THEN excluded.words ELSE players.words END,
    first_ms = min(players.first_ms, excluded.first_ms),
    last_ms = max(players.last_ms, excluded.last_ms)
"""
_INSERT_FRAME = (
    "INSERT OR REPLACE INTO player_frames (player_key, match_id, frame, side, member, name, "
    "won, frame_ms, strokes, shots, visits, visit_points, breaks_10, breaks_20, breaks_50, "
    "breaks_100, high_break, fouls, foul_points) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)


def pack_shots(shots: list[int]) -> bytes:
    """Shot times as the store keeps them: uint32, little-endian."""
    a = array("I", (min(max(s, 0), 0xFFFFFFFF) for s in shots))
    if sys.byteorder != "little":
        a.byteswap()
    return a.tobytes()


def unpack_shots(blob: bytes) -> array[int]:
    a = array("I")
    a.frombytes(blob)
    if sys.byteorder != "little":
        a.byteswap()
    return a


def project_stats(db: sqlite3.Connection, at_ms: int, a: Projection) -> None:
    """Write what one accepted event made for the statistics."""
    if a.new_match is not None:
        for side, member, name in match_members(a.new_match.get("players")):
            key = player_key(name)
            db.execute(_UPSERT_PLAYER, (key, name, name_words(name), at_ms, at_ms))
            db.execute(
                "INSERT OR REPLACE INTO match_players (player_key, match_id, side, member, name, "
                "started_ms) VALUES (?,?,?,?,?,?)",
                (key, a.match_id, side, member, name, at_ms),
            )
    for record in a.frame_records:
        _frame(db, str(a.match_id), record)
    if a.match_over and a.winner is not None:
        db.execute(
            "UPDATE match_players SET won = (side = ?) WHERE match_id = ?", (a.winner, a.match_id)
        )


def _frame(db: sqlite3.Connection, match_id: str, record: FrameRecord) -> None:
    acc = record.account
    db.execute(
        "INSERT OR REPLACE INTO frame_accounts (match_id, frame, reds, reds_down, colours_down, "
        "respots, returned, sensor, keyed, pockets, keyed_pots) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (
            match_id,
            record.frame,
            acc.reds,
            acc.reds_down,
            acc.colours_down,
            acc.respots,
            acc.returned,
            acc.sensor,
            acc.keyed,
            dumps({k: v.as_dict() for k, v in acc.pockets.items()}),
            dumps(acc.keyed_pots),
        ),
    )
    # A frame ended again after an undo replaces what it made the first time.
    where = (match_id, record.frame)
    db.execute("DELETE FROM player_frames WHERE match_id = ? AND frame = ?", where)
    db.execute("DELETE FROM player_fouls WHERE match_id = ? AND frame = ?", where)
    for p in record.players:
        _player_frame(db, match_id, record, p)


def _player_frame(
    db: sqlite3.Connection, match_id: str, record: FrameRecord, p: PlayerFrame
) -> None:
    key = player_key(p.name)
    bands = [sum(b >= band for b in p.breaks) for band in BREAK_BANDS]
    fouls = sum(c for c, _ in p.fouls.values())
    given = sum(points for _, points in p.fouls.values())
    db.execute(
        _INSERT_FRAME,
        (
            key,
            match_id,
            record.frame,
            p.side,
            p.member,
            p.name,
            int(p.won),
            record.frame_ms,
            p.strokes,
            pack_shots(p.shots_ms),
            p.visits,
            p.visit_points,
            *bands,
            max(p.breaks, default=0),
            fouls,
            given,
        ),
    )
    db.executemany(
        "INSERT OR REPLACE INTO player_fouls (player_key, kind, match_id, frame, side, member, "
        "count, points) VALUES (?,?,?,?,?,?,?,?)",
        [
            (key, kind, match_id, record.frame, p.side, p.member, count, points)
            for kind, (count, points) in sorted(p.fouls.items())
        ],
    )


def clear_stats(db: sqlite3.Connection) -> None:
    """Empty the statistics' tables (``baulk rebuild`` projects them again)."""
    for table in STATS_TABLES:
        db.execute(f"DELETE FROM {table}")
