"""Read-only store queries that only the web side needs: the index page's
list of matches with each one's status, and the referee of a match for its
result sheet.  They run on the daemon's read-only store connection
(``daemon.reader.db``); a board without a store (``baulk board``) has none,
and gets the plain list.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from baulk.protocol import messages

# A match is "replaced" when a later match started on its table before it
# ended; it was "played" when a frame ended or a point was scored in it.
_LISTED = """
WITH listed AS (
  SELECT m.*, m.rowid AS row_no,
    EXISTS (SELECT 1 FROM matches later WHERE later.table_id = m.table_id
            AND (later.started_ms > m.started_ms
                 OR (later.started_ms = m.started_ms AND later.rowid > m.rowid))) AS replaced,
    (EXISTS (SELECT 1 FROM frames f WHERE f.match_id = m.match_id)
     OR EXISTS (SELECT 1 FROM events e WHERE e.match_id = m.match_id AND e.name != 'match'
                AND e.rejected IS NULL AND e.scores IS NOT NULL AND e.scores != '[0,0]'))
      AS played
  FROM matches m {where}
)
SELECT * FROM listed {skip}
ORDER BY started_ms DESC, row_no DESC LIMIT ?
"""

STATUSES = ("in_play", "finished", "abandoned", "empty")


def status_of(ended_ms: int | None, replaced: bool, played: bool) -> str:
    if ended_ms is not None:
        return "finished"
    if not replaced:
        return "in_play"
    return "abandoned" if played else "empty"


def listed_matches(
    db: sqlite3.Connection, table_id: str | None, limit: int, skip_empty: bool
) -> list[dict[str, Any]]:
    """Newest first, each match with its ``status`` (one of STATUSES);
    ``skip_empty`` leaves out matches replaced before anything was scored."""
    where = "WHERE m.table_id = ?" if table_id is not None else ""
    skip = "WHERE ended_ms IS NOT NULL OR NOT replaced OR played" if skip_empty else ""
    args: tuple[Any, ...] = (table_id,) if table_id is not None else ()
    rows = db.execute(_LISTED.format(where=where, skip=skip), (*args, limit)).fetchall()
    return [
        {
            "match_id": r["match_id"],
            "table_id": r["table_id"],
            "started_ms": r["started_ms"],
            "players": json.loads(r["players"]),
            "best_of": r["best_of"],
            "reds": r["reds"],
            "frames_won": json.loads(r["frames_won"]),
            "ended_ms": r["ended_ms"],
            "winner": r["winner"],
            "status": status_of(r["ended_ms"], bool(r["replaced"]), bool(r["played"])),
        }
        for r in rows
    ]


def referee_of(db: sqlite3.Connection, match_id: str) -> str | None:
    """The ``who`` of the operator's set-up that started this match (the
    console sends the referee's name there), or None when the match was set
    up on the keypad or without a name.  The device names the command that
    caused an event (``events.cmd``); the newest command of that number sent
    before the event is the one (the numbers start again with a new link)."""
    row = db.execute(
        "SELECT c.who FROM events e JOIN commands c ON c.table_id = e.table_id AND c.seq = e.cmd "
        "WHERE e.match_id = ? AND e.name = 'match' AND e.cmd > 0 AND c.mtype = ? "
        "AND c.created_ms <= e.rx_ms ORDER BY c.id DESC LIMIT 1",
        (match_id, messages.SETUP_MATCH),
    ).fetchone()
    return str(row[0]) if row is not None and row[0] else None
