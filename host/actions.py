"""Operator actions: a new match or a correction, forwarded to the table's
device, which judges it as it judges a key press (docs/DESIGN.md,
"Principles": commands from the host go *through* the device)."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import TYPE_CHECKING, Any

from baulk.host.link import wall_ms
from baulk.host.store import CommandRow
from baulk.protocol import messages
from baulk.protocol.host_codec import Command, SetupMatch, body_of

if TYPE_CHECKING:
    from baulk.host.daemon import Daemon

COMMAND_WAIT_S = 2.0  # how long an action waits for the device's answer


class ActionError(Exception):
    """An operator action that cannot be carried out (HTTP status and text)."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.text = text


class OperatorActions:
    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon

    async def setup_match(
        self,
        table_id: str,
        players: list[Any],
        best_of: int,
        reds: int = 15,
        breaker: int = 0,
        who: str | None = None,
    ) -> dict[str, Any]:
        setup = SetupMatch(players=players, best_of=best_of, breaker=breaker, reds=reds, who=who)
        return await self.forward(table_id, setup)

    async def command(
        self, table_id: str, ev: dict[str, Any], who: str | None = None
    ) -> dict[str, Any]:
        return await self.forward(table_id, Command(input=ev, who=who))

    async def forward(self, table_id: str, action: SetupMatch | Command) -> dict[str, Any]:
        """Send an action to the table and wait a little for its answer."""
        rt = self.daemon.tables.get(table_id)
        if rt is None or rt.channel is None:
            raise ActionError(404, f"there is no table '{table_id}'")
        body = body_of(action)
        reason = messages.check(action.TYPE, body)
        if reason is not None:
            raise ActionError(400, f"the table cannot take this: {reason}")
        seq = rt.channel.send(action)
        if not seq:
            raise ActionError(
                503, "too many actions are waiting for this table; try again when it is online"
            )
        self.daemon.committer.submit_command(
            CommandRow(table_id, seq, action.TYPE, _named(action), action.who, wall_ms())
        )
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        rt.waiting[seq] = fut
        try:
            result = await asyncio.wait_for(asyncio.shield(fut), COMMAND_WAIT_S)
        except TimeoutError:
            return {
                "status": "queued",
                "seq": seq,
                "message": "the table has not answered yet; it gets the action when it is online",
            }
        if result["rejected"]:
            raise ActionError(409, f"the table refused: {result['rejected']}")
        return {"status": "done", "seq": seq, "scores": result["scores"]}


def _named(action: SetupMatch | Command) -> dict[str, Any]:
    """The action as the store keeps it: its fields by name."""
    return {k: v for k, v in dataclasses.asdict(action).items() if v is not None}
