"""Corrected player names: the desk typed a name wrong and the match is under
way.  The match event on the table cannot be changed (the device's journal is
the record), so a correction is a host-side note per match, kept in the
store's file, that the boards, reports, result sheets and lists show instead
of the names the match started with.  The handset keeps the names it was
given.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from baulk.host.reports import names_of

SCHEMA = """
CREATE TABLE IF NOT EXISTS name_fixes (
    match_id TEXT PRIMARY KEY,
    players TEXT NOT NULL,
    who TEXT,
    at_ms INTEGER NOT NULL
);
"""


class NameFixes:
    """The corrections of one store file (its own connection; the daemon's
    writer and reader keep theirs)."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path, timeout=10)
        self.db.execute("PRAGMA busy_timeout = 10000")
        with self.db:
            self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def get(self, match_id: str) -> list[Any] | None:
        row = self.db.execute(
            "SELECT players FROM name_fixes WHERE match_id = ?", (match_id,)
        ).fetchone()
        return json.loads(row[0]) if row is not None else None

    def save(self, match_id: str, players: list[Any], who: str | None) -> None:
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO name_fixes (match_id, players, who, at_ms) "
                "VALUES (?, ?, ?, ?)",
                (match_id, json.dumps(players, ensure_ascii=False), who, time.time_ns() // 10**6),
            )

    def apply_to_match(self, match: dict[str, Any]) -> dict[str, Any]:
        """A match record (as the store lists it) with the corrected names."""
        fixed = self.get(str(match.get("match_id")))
        if fixed is None:
            return match
        out = {**match, "players": fixed}
        if "names" in match:
            out["names"] = names_of(fixed)
        return out

    def apply_to_report(self, report: dict[str, Any]) -> dict[str, Any]:
        old = report["match"]["players"]
        match = self.apply_to_match(report["match"])
        if match is report["match"]:
            return report
        new = match["players"]
        breaks = [
            {**b, "player": renamed(old, new, b["side"], b.get("player"))} for b in report["breaks"]
        ]
        return {**report, "match": match, "breaks": breaks}


def renamed(old: list[Any], new: list[Any], side: int, player: str | None) -> str | None:
    """The corrected name of one player of side ``side`` (in doubles, the
    partner in the same place of the pair)."""
    if side not in (0, 1) or len(old) != 2 or len(new) != 2:
        return player
    before, after = old[side], new[side]
    if isinstance(before, list) and isinstance(after, list):
        if player in before and len(after) == len(before):
            return str(after[before.index(player)])
        return player
    return str(after) if not isinstance(after, list) else player
