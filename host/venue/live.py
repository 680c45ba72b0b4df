"""Live state per table and the versioned live feed (after gpsd's client
protocol: the feed announces its schema version on connect).

Every table has one *board*: a JSON object with everything the boards draw
(docs/API.md, "Board").  The daemon rebuilds a table's board when something
changed and :class:`LiveHub` fans it out.  Each message is a whole board, so a
client that falls behind only ever gets the newest one per table: memory per
client is bounded and nothing stale is queued.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

from baulk.host.name_rules import shown_players
from baulk.host.sides import names_of

SCHEMA_VERSION = 1
SERVER = "baulk 0.1.0"


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


def notice_of(state: dict[str, Any] | None, miss: bool) -> dict[str, Any] | None:
    """The notice a board shows big: match or frame over, foul (and miss),
    free ball, re-spotted black."""
    if not state:
        return None
    if state.get("match_over"):
        return {"kind": "match_over", "winner": state.get("match_winner")}
    foul = state.get("last_foul")
    if isinstance(foul, dict):
        return {
            "kind": "foul",
            "side": foul.get("side"),
            "points": foul.get("points"),
            "foul": foul.get("kind"),
            "miss": bool(miss),
            "free_ball": bool(state.get("free_ball")),
            "warning": state.get("warning"),
        }
    if state.get("free_ball"):
        return {"kind": "free_ball"}
    if state.get("respotted_black"):
        return {"kind": "respotted_black"}
    return None


@dataclass
class TableView:
    """What the daemon knows of one table, for its board."""

    table_id: str
    name: str
    status: dict[str, Any] = field(default_factory=lambda: {"link": "offline"})
    match: dict[str, Any] | None = None
    shadow_state: dict[str, Any] | None = None
    device_state: dict[str, Any] | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    events: int = 0
    store: dict[str, Any] = field(default_factory=lambda: {"ok": True})
    # {"match_id", "players"}: names corrected at the desk (host/referee/name_fixes.py)
    names_fix: dict[str, Any] | None = None
    # The pockets' sensors (host/referee/sensors.py): a pocket check running, the
    # pockets the last one failed or found weak, and when the store last
    # heard of them (the console reads the detail when this changes).
    sensors: dict[str, Any] = field(
        default_factory=lambda: {"checking": False, "faulty": [], "weak": [], "at_ms": None}
    )
    # A table session open at the desk (host/club/sessions.py); None: the
    # table has no tariff.  The venue board shows a table with no session
    # and no match in play as free.
    session_open: bool | None = None

    def board(self) -> dict[str, Any]:
        state: dict[str, Any] | None = None
        if self.shadow_state is not None:
            state = dict(self.shadow_state)
        if self.device_state:
            # The device is authoritative for every key it reports; its names
            # are shown as the name rules allow (host/name_rules.py).
            state = {**(state or {}), **self.device_state}
            if "players" in self.device_state:
                state["players"] = shown_players(self.device_state["players"])
        match = self.match
        if match is None and state and state.get("players"):
            match = {"players": state["players"], "best_of": state.get("best_of")}
        if match is not None:
            fix = self.names_fix
            if fix is not None and fix["match_id"] == match.get("match_id"):
                match = {**match, "players": fix["players"]}
            match = {**match, "names": names_of(match.get("players"))}
        extras = self.extras
        return {
            "table": self.table_id,
            "name": self.name,
            "status": self.status,
            "match": match,
            "state": state,
            "break_balls": extras.get("break_balls", []),
            "notice": notice_of(state, bool(extras.get("miss"))),
            "verified": bool(extras.get("verified")),
            # the engines, when the table's is not this host's: then not verified
            "not_judged": extras.get("not_judged"),
            "alerts": extras.get("alerts", []),
            "events": self.events,
            "store": self.store,
            "sensors": self.sensors,
            "session_open": self.session_open,
        }


class Subscriber:
    """One live-feed client: the newest message per table, waiting to go."""

    def __init__(self, tables: set[str] | None) -> None:
        self.tables = tables
        self.pending: dict[str, str] = {}
        self.wake = asyncio.Event()
        self.sent = 0
        self.coalesced = 0

    def wants(self, table_id: str) -> bool:
        return self.tables is None or table_id in self.tables

    def put(self, key: str, message: str) -> None:
        if key in self.pending:
            self.coalesced += 1
        self.pending[key] = message
        self.wake.set()

    async def take(self) -> list[str]:
        await self.wake.wait()
        self.wake.clear()
        out = list(self.pending.values())
        self.pending.clear()
        self.sent += len(out)
        return out


class LiveHub:
    """The boards of every table and the clients that follow them."""

    def __init__(self) -> None:
        self.boards: dict[str, dict[str, Any]] = {}
        self.messages: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.subscribers: set[Subscriber] = set()
        self.published = 0

    def hello(self) -> str:
        return json.dumps(
            {
                "type": "hello",
                "schema": SCHEMA_VERSION,
                "server": SERVER,
                "tables": sorted(self.boards),
            }
        )

    def publish(self, table_id: str, board: dict[str, Any]) -> None:
        new_table = table_id not in self.boards
        version = self.versions.get(table_id, 0) + 1
        self.versions[table_id] = version
        board = {**board, "version": version}
        self.boards[table_id] = board
        message = json.dumps(
            {
                "type": "board",
                "schema": SCHEMA_VERSION,
                "table": table_id,
                "version": version,
                "sent_ms": wall_ms(),
                "board": board,
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )
        self.messages[table_id] = message
        self.published += 1
        if new_table:
            tables = json.dumps({"type": "tables", "tables": sorted(self.boards)})
            for sub in self.subscribers:
                sub.put("\x00tables", tables)
        for sub in self.subscribers:
            if sub.wants(table_id):
                sub.put(table_id, message)

    def subscribe(self, tables: set[str] | None) -> Subscriber:
        """A new client gets the current board of every table it follows."""
        sub = Subscriber(tables)
        for table_id, message in self.messages.items():
            if sub.wants(table_id):
                sub.put(table_id, message)
        self.subscribers.add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        self.subscribers.discard(sub)
