"""Operator actions: a new match or a correction, forwarded to the table's
device, which judges it as it judges a key press (docs/DESIGN.md,
"Principles": commands from the host go *through* the device)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from baulk.host.link import wall_ms
from baulk.host.store import CommandRow
from baulk.protocol import messages

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
        body: dict[Any, Any] = {7: players, 8: best_of, 9: breaker, 10: reds}
        if who:
            body[-1] = who[:48]
        return await self.forward(table_id, messages.SETUP_MATCH, body, who)

    async def command(
        self, table_id: str, ev: dict[str, Any], who: str | None = None
    ) -> dict[str, Any]:
        body = messages.event_to_wire(ev)
        if who:
            body[-1] = who[:48]
        return await self.forward(table_id, messages.COMMAND, body, who)

    async def forward(
        self, table_id: str, mtype: int, body: dict[Any, Any], who: str | None
    ) -> dict[str, Any]:
        """Send an action to the table and wait a little for its answer."""
        rt = self.daemon.tables.get(table_id)
        if rt is None or rt.channel is None:
            raise ActionError(404, f"there is no table '{table_id}'")
        reason = messages.check(mtype, body)
        if reason is not None:
            raise ActionError(400, f"the table cannot take this: {reason}")
        seq = rt.channel.send(mtype, body)
        if not seq:
            raise ActionError(
                503, "too many actions are waiting for this table; try again when it is online"
            )
        self.daemon.committer.submit_command(
            CommandRow(table_id, seq, mtype, {str(k): v for k, v in body.items()}, who, wall_ms())
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
