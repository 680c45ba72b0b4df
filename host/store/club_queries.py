"""The reads of table sessions and of what their bills are worked out from
(host/club/bills.py): a mixin of :class:`~.queries.StoreReader`, on its
read-only connection.  A day's report reads hundreds of sessions, so each
read is one query for them all, with plain tuples."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

_SESSION_COLUMNS = (
    "s.id, s.table_id, s.how, s.opened_by, s.opened_wall_ms, s.opened_mono_ms, s.opened_boot, "
    "s.open_event_id, s.tariff, s.confirmed_wall_ms, s.confirmed_by"
)
_SESSION_NAMES = tuple(c.strip()[2:] for c in _SESSION_COLUMNS.split(","))
_MARK_NAMES = ("id", "kind", "wall_ms", "mono_ms", "boot", "event_id", "who", "reason")
# The close a session's bill ends at, as the bill reads it (None while open).
CLOSE_KEYS = (
    "closed_wall_ms",
    "closed_mono_ms",
    "closed_boot",
    "close_event_id",
    "closed_by",
    "close_reason",
)


def _chunks(ids: list[int], size: int = 500) -> Iterator[list[int]]:
    for i in range(0, len(ids), size):
        yield ids[i : i + size]


def _with_marks(session: dict[str, Any], marks: list[dict[str, Any]]) -> dict[str, Any]:
    """The session with its marks and, when it is not open, the close its
    bill ends at: its last ``close`` (a reopen takes the one before back)."""
    session["marks"] = marks
    last = next((m for m in reversed(marks) if m["kind"] in ("close", "reopen")), None)
    close = last if last is not None and last["kind"] == "close" else None
    columns = ("wall_ms", "mono_ms", "boot", "event_id", "who", "reason")
    values = [close[c] if close else None for c in columns]
    session.update(zip(CLOSE_KEYS, values, strict=True))
    return session


class SessionReader:
    db: sqlite3.Connection

    def _sessions(self, where: str, args: tuple[Any, ...]) -> list[dict[str, Any]]:
        cur = self.db.cursor()
        cur.row_factory = None  # plain tuples: a day's report reads hundreds
        rows = cur.execute(
            f"SELECT {_SESSION_COLUMNS} FROM table_sessions s {where}", args
        ).fetchall()
        tariffs: dict[str, Any] = {}  # a day's sessions share a handful: parse each once
        sessions = []
        for r in rows:
            d = dict(zip(_SESSION_NAMES, r, strict=True))
            text = d["tariff"]
            if text not in tariffs:
                tariffs[text] = json.loads(text)
            d["tariff"] = tariffs[text]
            sessions.append(d)
        marks = self.marks([s["id"] for s in sessions])
        return [_with_marks(s, marks[s["id"]]) for s in sessions]

    def marks(self, session_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
        out: dict[int, list[dict[str, Any]]] = {i: [] for i in session_ids}
        cur = self.db.cursor()
        cur.row_factory = None
        for chunk in _chunks(session_ids):
            marks = ",".join("?" * len(chunk))
            for r in cur.execute(
                "SELECT session_id, id, kind, wall_ms, mono_ms, boot, event_id, who, reason "
                f"FROM session_marks WHERE session_id IN ({marks}) ORDER BY id",
                chunk,
            ):
                out[r[0]].append(dict(zip(_MARK_NAMES, r[1:], strict=True)))
        return out

    def open_sessions(self) -> list[dict[str, Any]]:
        return self._sessions(
            "JOIN session_state st ON st.session_id = s.id WHERE st.open = 1 ORDER BY s.id", ()
        )

    def session(self, session_id: int) -> dict[str, Any] | None:
        found = self._sessions("WHERE s.id = ?", (session_id,))
        return found[0] if found else None

    def sessions_opened(
        self, from_wall_ms: int, to_wall_ms: int, table_id: str | None = None
    ) -> list[dict[str, Any]]:
        """Sessions opened in [from, to) by the wall clock, oldest first."""
        q = "WHERE s.opened_wall_ms >= ? AND s.opened_wall_ms < ?"
        args: tuple[Any, ...] = (from_wall_ms, to_wall_ms)
        if table_id is not None:
            q += " AND s.table_id = ?"
            args += (table_id,)
        return self._sessions(q + " ORDER BY s.opened_wall_ms, s.id", args)

    def last_session_id(self) -> int:
        row = self.db.execute("SELECT coalesce(max(id), 0) FROM table_sessions").fetchone()
        return int(row[0])

    def newest_event_id(self) -> int:
        row = self.db.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()
        return int(row[0])

    def corrections(self, session_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
        """Each session's corrections, refunds and reversals, oldest first."""
        return self._rows(
            "SELECT session_id, id, created_wall_ms, who, amount, payer, reason, kind, reverses "
            "FROM bill_corrections WHERE session_id IN ({}) ORDER BY id",
            ("id", "created_wall_ms", "who", "amount", "payer", "reason", "kind", "reverses"),
            session_ids,
        )

    def items(self, session_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
        """Each session's items and take-backs, oldest first."""
        return self._rows(
            "SELECT session_id, id, created_wall_ms, who, item, item_fa, price, quantity, "
            "reverses FROM bill_items WHERE session_id IN ({}) ORDER BY id",
            ("id", "created_wall_ms", "who", "item", "item_fa", "price", "quantity", "reverses"),
            session_ids,
        )

    def _rows(
        self, sql: str, names: tuple[str, ...], session_ids: list[int]
    ) -> dict[int, list[dict[str, Any]]]:
        out: dict[int, list[dict[str, Any]]] = {i: [] for i in session_ids}
        cur = self.db.cursor()
        cur.row_factory = None
        for chunk in _chunks(session_ids):
            for r in cur.execute(sql.format(",".join("?" * len(chunk))), chunk):
                out[r[0]].append(dict(zip(names, r[1:], strict=True)))
        return out

    def session_frames(self, sessions: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
        """Per session, the frames played in it (``frame_play`` rows with the
        match's players, as corrected at the desk): those that ended between
        its open and its close, and the one still in play at its close
        (``finished`` false, its end time that of its newest event by then).
        A frame begun before the session opened carries ``open_t``, the
        device's time of its newest event by then: its play is counted from
        there.  One query for them all."""
        out: dict[int, list[dict[str, Any]]] = {s["id"]: [] for s in sessions}
        if not sessions:
            return out
        newest = self.newest_event_id()
        closes = {s["id"]: s["close_event_id"] for s in sessions}
        opens = {s["id"]: s["open_event_id"] for s in sessions}
        players: dict[str, Any] = {}
        cur = self.db.cursor()
        cur.row_factory = None
        for chunk in _chunks([s["id"] for s in sessions]):
            marks = ",".join("?" * len(chunk))
            # Where each session's play ends: its close (from its marks), or now.
            ends = [
                x for sid in chunk for x in (sid, newest if closes[sid] is None else closes[sid])
            ]
            rows = cur.execute(
                f"WITH ends (sid, upto) AS (VALUES {','.join(['(?, ?)'] * len(chunk))}) "
                "SELECT s.id, f.match_id, f.frame, f.start_id, f.start_t, f.end_t, f.winner, "
                "coalesce(nf.players, m.players), "
                "f.end_id IS NOT NULL AND f.end_id <= e.upto, e.upto "
                "FROM table_sessions s JOIN ends e ON e.sid = s.id "
                "JOIN frame_play f ON f.table_id = s.table_id "
                "AND f.start_id <= e.upto AND ("
                "(f.end_id > s.open_event_id AND f.end_id <= e.upto) "
                "OR (f.start_id > s.open_event_id "
                "AND (f.end_id IS NULL OR f.end_id > e.upto))) "
                "LEFT JOIN matches m ON m.match_id = f.match_id "
                "LEFT JOIN name_fixes nf ON nf.id = "
                "(SELECT max(id) FROM name_fixes WHERE match_id = f.match_id) "
                f"WHERE s.id IN ({marks}) ORDER BY s.id, f.start_id",
                (*ends, *chunk),
            ).fetchall()
            for sid, match_id, frame, start_id, start_t, end_t, winner, names, done, upto in rows:
                key = f"{match_id}\x00{names}"
                if key not in players:
                    players[key] = json.loads(names) if names else None
                if not done:
                    end_t = self._last_t(match_id, frame, upto)
                open_t = None
                if start_id <= opens[sid]:
                    open_t = self._last_t(match_id, frame, opens[sid])
                out[sid].append(
                    {
                        "match_id": match_id,
                        "frame": frame,
                        "start_t": start_t,
                        "end_t": end_t,
                        "open_t": open_t,
                        "winner": winner if done else None,
                        "finished": bool(done),
                        "players": players[key],
                    }
                )
        return out

    def _last_t(self, match_id: str, frame: int, upto_id: int) -> int | None:
        """The device time of a frame's newest accepted event up to an id."""
        row = self.db.execute(
            "SELECT ev FROM events WHERE match_id = ? AND frame = ? AND id <= ? "
            "AND rejected IS NULL ORDER BY id DESC LIMIT 1",
            (match_id, frame, upto_id),
        ).fetchone()
        t = json.loads(row[0]).get("t") if row and row[0] else None
        return t if isinstance(t, int) and not isinstance(t, bool) else None
