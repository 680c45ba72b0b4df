"""Reads of the pockets' sensors (.sensor_schema): what the console shows of
a table, and what its board says of it.  Plain functions of a connection,
so the daemon's reader and the web side's own read-only one share them."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from baulk.firmware import names
from baulk.protocol.host_catalogue import CHECK_REASONS, CHECK_VERDICTS, NO_BALL

LOG_ROWS = 100  # disagreements the console lists, newest first
POCKETS = list(names.POCKETS)


def name_of(table: tuple[str, ...], code: int) -> str | None:
    """The name of a code of a names.py table (None: none, or not known)."""
    return table[code] if 0 <= code < len(table) else None


def masks(bits: int) -> list[str]:
    """The pockets a bitmask over names.POCKETS names."""
    return [p for i, p in enumerate(POCKETS) if bits >> i & 1]


def check_result(
    verdicts: list[int],
    reasons: list[int],
    break_ms: list[int],
    confidence: list[int],
    read: list[int],
) -> list[dict[str, Any]]:
    """A pocket check's result as the API gives it: one entry per pocket."""
    out = []
    for i, pocket in enumerate(POCKETS):
        ball = read[i] if i < len(read) else NO_BALL
        out.append(
            {
                "pocket": pocket,
                "verdict": name_of(CHECK_VERDICTS, verdicts[i]) if i < len(verdicts) else None,
                "reason": name_of(CHECK_REASONS, reasons[i]) if i < len(reasons) else None,
                "break_ms": break_ms[i] if i < len(break_ms) else None,
                "confidence": confidence[i] if i < len(confidence) else None,
                "read": name_of(names.BALLS, ball),
            }
        )
    return out


def _health(db: sqlite3.Connection, table_id: str) -> dict[str, Any] | None:
    row = db.execute(
        "SELECT rx_ms, balls, glitches, unclear, corrections, unplaced, faulty, weak, checking "
        "FROM sensor_health WHERE table_id = ?",
        (table_id,),
    ).fetchone()
    if row is None:
        return None
    counts = [json.loads(row[i]) for i in range(1, 5)]
    return {
        "at_ms": row[0],
        "pockets": [
            {
                "pocket": p,
                "balls": counts[0][i],
                "glitches": counts[1][i],
                "unclear": counts[2][i],
                "corrections": counts[3][i],
                "faulty": bool(row[6] >> i & 1),
                "weak": bool(row[7] >> i & 1),
            }
            for i, p in enumerate(POCKETS)
        ],
        "unplaced": row[5],
        "faulty": masks(row[6]),
        "weak": masks(row[7]),
        "checking": bool(row[8]),
    }


def latest_check(db: sqlite3.Connection, table_id: str) -> dict[str, Any] | None:
    row = db.execute(
        "SELECT rx_ms, cmd, verdicts, reasons, break_ms, confidence, read FROM pocket_checks "
        "WHERE table_id = ? ORDER BY id DESC LIMIT 1",
        (table_id,),
    ).fetchone()
    if row is None:
        return None
    lists = [json.loads(row[i]) for i in range(2, 7)]
    return {
        "at_ms": row[0],
        "from": "console" if row[1] else "handset",
        "pockets": check_result(*lists),
    }


def disagreements(
    db: sqlite3.Connection, table_id: str, limit: int = LOG_ROWS
) -> list[dict[str, Any]]:
    rows = db.execute(
        "SELECT at_ms, match_id, frame, kind, pocket, sensor_ball, keyed_ball "
        "FROM sensor_disagreements WHERE table_id = ? ORDER BY id DESC LIMIT ?",
        (table_id, limit),
    )
    keys = ("at_ms", "match_id", "frame", "kind", "pocket", "sensor_ball", "keyed_ball")
    return [dict(zip(keys, r, strict=True)) for r in rows]


def table_sensors(db: sqlite3.Connection, table_id: str) -> dict[str, Any]:
    """Everything the console shows of a table's pockets."""
    total = db.execute(
        "SELECT count(*) FROM sensor_disagreements WHERE table_id = ?", (table_id,)
    ).fetchone()[0]
    return {
        "table": table_id,
        "health": _health(db, table_id),
        "check": latest_check(db, table_id),
        "disagreements": disagreements(db, table_id),
        "disagreements_total": int(total),
    }


def board_sensors(db: sqlite3.Connection, table_id: str) -> dict[str, Any]:
    """What a table's board carries of its pockets after a restart."""
    h = _health(db, table_id)
    check = latest_check(db, table_id)
    return {
        "checking": False,  # a check does not outlive the link it ran on
        "faulty": h["faulty"] if h else [],
        "weak": h["weak"] if h else [],
        "at_ms": max((x["at_ms"] for x in (h, check) if x), default=None),
    }
