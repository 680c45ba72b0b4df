"""Every read of the store, on a read-only connection of its own: WAL lets it
read while the writer commits.  The daemon's restore, the web side and the
MQTT bridge's pump thread each open their own :class:`StoreReader`."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from baulk.protocol.messages import SETUP_MATCH

from . import stats_queries
from .club_queries import SessionReader
from .records import StoredEvent
from .schema import connect

# The newest accepted ``match`` event of a table: where its current match began.
_LAST_MATCH = (
    "SELECT max(id) FROM events WHERE table_id = ? AND name = 'match' AND rejected IS NULL"
)
_EVENT_COLUMNS = "id, table_id, boot_id, seq, rx_ms, ev, scores, rejected, invalid, src"

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
MATCH_STATUSES = ("in_play", "finished", "abandoned", "empty")


def _status(ended_ms: int | None, replaced: bool, played: bool) -> str:
    if ended_ms is not None:
        return "finished"
    if not replaced:
        return "in_play"
    return "abandoned" if played else "empty"


def _stored(r: sqlite3.Row | tuple[Any, ...]) -> StoredEvent:
    return StoredEvent(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        json.loads(r[5]) if r[5] else None,
        json.loads(r[6]) if r[6] else None,
        r[7],
        r[8],
        r[9],
    )


class StoreReader(SessionReader):
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.db = connect(self.path, readonly=True)
        self.db.row_factory = sqlite3.Row

    def close(self) -> None:
        self.db.close()

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read inside sees the store at one moment, however many
        queries it takes: one read transaction, which WAL keeps at its
        moment while the writer commits on (``baulk verify`` compares the
        events with the report and the projections made of them: read a
        commit apart, a match in play would differ from itself).  Nested,
        the outermost holds the moment.  Never held across an await: every
        other read on this connection would see that moment too."""
        if self.db.in_transaction:
            yield
            return
        self.db.execute("BEGIN DEFERRED")
        try:
            yield
        finally:
            self.db.execute("COMMIT")  # a read transaction: nothing written, the moment let go

    # ------------------------------------------------------------------ device streams
    def delivered(self, table_id: str) -> int:
        """The newest seq of the table's device stream the store holds."""
        row = self.db.execute(
            "SELECT delivered FROM links WHERE table_id = ?", (table_id,)
        ).fetchone()
        return int(row[0]) if row else 0

    def link_rows(self) -> list[dict[str, Any]]:
        cur = self.db.execute(
            "SELECT table_id, name, delivered, boot_id, device_table, firmware, last_seen_ms "
            "FROM links ORDER BY table_id"
        )
        return [dict(r) for r in cur.fetchall()]

    def table_ids(self) -> list[str]:
        """Every table with stored events."""
        rows = self.db.execute("SELECT DISTINCT table_id FROM events ORDER BY table_id")
        return [str(r[0]) for r in rows]

    def event_count(self, table_id: str) -> int:
        row = self.db.execute(
            "SELECT count(*) FROM events WHERE table_id = ?", (table_id,)
        ).fetchone()
        return int(row[0])

    def events(self, table_id: str, after_id: int = 0) -> Iterator[StoredEvent]:
        """The table's events after row ``after_id``, in the order stored."""
        cur = self.db.execute(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE table_id = ? AND id > ? ORDER BY id",
            (table_id, after_id),
        )
        for r in cur:
            yield _stored(r)

    def _last_match_row(self, table_id: str) -> int | None:
        row = self.db.execute(_LAST_MATCH, (table_id,)).fetchone()
        return int(row[0]) if row and row[0] is not None else None

    def events_since_last_match(self, table_id: str) -> Iterator[StoredEvent]:
        """The table's events from its newest accepted ``match`` on (all of
        them when it has none), oldest first."""
        start = self._last_match_row(table_id)
        yield from self.events(table_id, (start or 1) - 1)

    def last_position(self, table_id: str) -> tuple[int, int] | None:
        """(boot_id, seq) of the table's newest stored event."""
        row = self.db.execute(
            "SELECT boot_id, seq FROM events WHERE table_id = ? ORDER BY id DESC LIMIT 1",
            (table_id,),
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else None

    def row_id(self, table_id: str, boot_id: int, seq: int) -> int | None:
        """The store's row id of one event (None: not stored)."""
        row = self.db.execute(
            "SELECT id FROM events WHERE table_id = ? AND boot_id = ? AND seq = ?",
            (table_id, boot_id, seq),
        ).fetchone()
        return int(row[0]) if row else None

    def before_current_match(self, table_id: str) -> tuple[int, int] | None:
        """(boot_id, seq) of the event stored just before the table's newest
        accepted ``match`` (None: that match opens the stream, or no match)."""
        start = self._last_match_row(table_id)
        if start is None:
            return None
        row = self.db.execute(
            "SELECT boot_id, seq FROM events WHERE table_id = ? AND id < ? "
            "ORDER BY id DESC LIMIT 1",
            (table_id, start),
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else None

    # ------------------------------------------------------------------ operator actions
    def unanswered_actions(self, table_id: str) -> list[dict[str, Any]]:
        """The table's operator actions that no stored event answers yet, in
        the order they were made: a restarted daemon sends them again."""
        rows = self.db.execute(
            "SELECT action, mtype, body, who, created_ms FROM commands c "
            "WHERE table_id = ? AND action IS NOT NULL AND NOT EXISTS "
            "(SELECT 1 FROM events e WHERE e.table_id = c.table_id AND e.action = c.action) "
            "ORDER BY id",
            (table_id,),
        ).fetchall()
        return [{**dict(r), "body": json.loads(r["body"])} for r in rows]

    # ------------------------------------------------------------------ the device's signed record
    def ledger(self, match_id: str) -> dict[str, Any] | None:
        """What it takes to check a match against the device's checkpoints
        (docs/LEDGER.md): the stored events from the newest checkpoint before
        the match's first event to the first checkpoint at or after its last
        one, with the body bytes the device sent and the columns the store
        made of them, and those checkpoints.  None: no such match."""
        span = self._match_span(match_id)
        if span is None:
            return None
        table_id, first, last = span
        row = self.db.execute(
            "SELECT max(at_seq) FROM checkpoints WHERE table_id = ? AND at_seq < ?",
            (table_id, first),
        ).fetchone()
        start = int(row[0]) if row and row[0] is not None else 0
        row = self.db.execute(
            "SELECT min(at_seq) FROM checkpoints WHERE table_id = ? AND at_seq >= ?",
            (table_id, last),
        ).fetchone()
        end = int(row[0]) if row and row[0] is not None else last
        checkpoints = self.db.execute(
            "SELECT boot_id, seq, at_seq, head, marks, mac FROM checkpoints "
            "WHERE table_id = ? AND at_seq BETWEEN ? AND ? ORDER BY at_seq, seq",
            (table_id, start, end),
        ).fetchall()
        events = self.db.execute(
            "SELECT seq, boot_id, body, src, cmd, ev, scores, rejected, invalid, action "
            "FROM events WHERE table_id = ? AND seq > ? AND seq <= ? ORDER BY seq, id",
            (table_id, start, end),
        ).fetchall()
        return {
            "table": table_id,
            "events": [dict(r) for r in events],
            "checkpoints": [dict(r) for r in checkpoints],
        }

    def _match_span(self, match_id: str) -> tuple[str, int, int] | None:
        # (table, first seq, last seq) of the events stored for a match
        row = self.db.execute(
            "SELECT table_id, min(seq), max(seq) FROM events WHERE match_id = ?", (match_id,)
        ).fetchone()
        if row is None or row[0] is None:
            return None
        return str(row[0]), int(row[1]), int(row[2])

    # ------------------------------------------------------------------ matches and reports
    def matches(
        self, table_id: str | None = None, limit: int = 50, skip_empty: bool = False
    ) -> list[dict[str, Any]]:
        """Newest first, each with its ``status`` (one of MATCH_STATUSES);
        ``skip_empty`` leaves out matches replaced before anything was scored."""
        where = "WHERE m.table_id = ?" if table_id is not None else ""
        skip = "WHERE ended_ms IS NOT NULL OR NOT replaced OR played" if skip_empty else ""
        args: tuple[Any, ...] = (table_id,) if table_id is not None else ()
        rows = self.db.execute(_LISTED.format(where=where, skip=skip), (*args, limit)).fetchall()
        out = []
        for r in rows:
            match = _match_dict(r)
            match["status"] = _status(r["ended_ms"], bool(r["replaced"]), bool(r["played"]))
            out.append(match)
        return out

    def referee_of(self, match_id: str) -> str | None:
        """The ``who`` of the operator's set-up that started this match (the
        console sends the referee's name there), or None when the match was
        set up on the keypad or without a name.  The event that answered the
        set-up carries the action's id (``events.action``); events stored
        before action ids name only the command's number on its link
        (``events.cmd``), and then the newest command of that number sent
        before the event is the one (the numbers start again with a link)."""
        row = self.db.execute(
            "SELECT c.who FROM events e JOIN commands c ON c.action = e.action "
            "WHERE e.match_id = ? AND e.name = 'match' AND e.action IS NOT NULL "
            "AND c.mtype = ? ORDER BY e.id DESC LIMIT 1",
            (match_id, SETUP_MATCH),
        ).fetchone()
        if row is None:
            row = self.db.execute(
                "SELECT c.who FROM events e JOIN commands c "
                "ON c.table_id = e.table_id AND c.seq = e.cmd "
                "WHERE e.match_id = ? AND e.name = 'match' AND e.cmd > 0 AND c.mtype = ? "
                "AND e.action IS NULL AND c.created_ms <= e.rx_ms ORDER BY c.id DESC LIMIT 1",
                (match_id, SETUP_MATCH),
            ).fetchone()
        return str(row[0]) if row is not None and row[0] else None

    def name_fix(self, match_id: str) -> list[Any] | None:
        """The corrected players of a match, or None."""
        row = self.db.execute(
            "SELECT players FROM name_fixes WHERE match_id = ? ORDER BY id DESC LIMIT 1",
            (match_id,),
        ).fetchone()
        return json.loads(row[0]) if row is not None else None

    def name_fix_record(self, match_id: str) -> dict[str, Any] | None:
        """The venue's correction of a match's names: the players, who made it
        and when (None: none)."""
        row = self.db.execute(
            "SELECT players, who, at_ms FROM name_fixes WHERE match_id = ? "
            "ORDER BY id DESC LIMIT 1",
            (match_id,),
        ).fetchone()
        if row is None:
            return None
        return {"players": json.loads(row[0]), "who": row[1], "at_ms": row[2]}

    def match(self, match_id: str) -> dict[str, Any] | None:
        r = self.db.execute("SELECT * FROM matches WHERE match_id = ?", (match_id,)).fetchone()
        return _match_dict(r) if r else None

    def frames(self, match_id: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT frame, scores, winner, ended_ms FROM frames WHERE match_id = ? ORDER BY frame",
            (match_id,),
        ).fetchall()
        return [
            {
                "frame": r["frame"],
                "scores": json.loads(r["scores"]),
                "winner": r["winner"],
                "ended_ms": r["ended_ms"],
            }
            for r in rows
        ]

    def breaks(self, match_id: str, minimum: int = 50) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT frame, side, player, points, ended_ms FROM breaks "
            "WHERE match_id = ? AND points >= ? ORDER BY id",
            (match_id, minimum),
        ).fetchall()
        return [dict(r) for r in rows]

    def progression(self, match_id: str) -> dict[int, list[list[int]]]:
        """Per frame, the scores after every event that changed them."""
        out: dict[int, list[list[int]]] = {}
        rows = self.db.execute(
            "SELECT frame, scores, name FROM events WHERE match_id = ? AND rejected IS NULL "
            "AND scores IS NOT NULL ORDER BY id",
            (match_id,),
        )
        for r in rows:
            frame = r["frame"]
            if r["name"] == "match" or frame is None or frame < 1:
                continue
            scores = json.loads(r["scores"])
            points = out.setdefault(frame, [[0, 0]])
            if points[-1] != scores:
                points.append(scores)
        return out

    # ------------------------------------------------------------------ statistics
    def match_statistics(self, match_id: str) -> list[dict[str, Any]]:
        """Each player's figures in one match (store/stats_queries.py)."""
        return stats_queries.match_statistics(self.db, match_id)

    def frame_accounts(self, match_id: str) -> dict[int, dict[str, Any]]:
        """Each finished frame's ball accounting (store/stats_queries.py)."""
        return stats_queries.frame_accounts(self.db, match_id)


def _match_dict(r: sqlite3.Row) -> dict[str, Any]:
    return {
        "match_id": r["match_id"],
        "table_id": r["table_id"],
        "started_ms": r["started_ms"],
        "players": json.loads(r["players"]),
        "best_of": r["best_of"],
        "reds": r["reds"],
        "frames_won": json.loads(r["frames_won"]),
        "ended_ms": r["ended_ms"],
        "winner": r["winner"],
    }
