"""Operator actions: a new match or a correction, forwarded to the table's
device, which judges it as it judges a key press (docs/DESIGN.md,
"Principles": commands from the host go *through* the device)."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import TYPE_CHECKING, Any

from baulk.host.link import wall_ms
from baulk.host.live import names_of
from baulk.host.store import CommandRow, NameFixRow
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

    async def correct_names(
        self, table_id: str, players: list[Any], who: str | None = None
    ) -> dict[str, Any]:
        """The desk typed a name wrong and the match is under way: the match
        event on the table cannot change (the device's journal is the
        record), so the correction is the host's, stored beside the match and
        shown by the boards, reports and lists.  The handset keeps the names
        it was given."""
        rt = self.daemon.tables.get(table_id)
        match = rt.view.match if rt is not None else None
        if rt is None or not match or not match.get("match_id"):
            raise ActionError(409, "there is no match on this table to correct")
        if not same_form(match.get("players"), players):
            raise ActionError(
                400, "the names must keep the match's form: two players, or two pairs as before"
            )
        fix = NameFixRow(str(match["match_id"]), players, who, wall_ms())
        self.daemon.committer.submit_name_fix(fix)
        await self.daemon.committer.flush()
        rt.view.names_fix = {"match_id": fix.match_id, "players": players}
        self.daemon.mark(table_id)
        return {"status": "done", "names": names_of(players)}

    async def set_handset_lang(self, table_id: str, lang: str) -> dict[str, Any]:
        """The referee's handset language (host/handset.py): sent now, or at
        the table's next hello when it is offline; the device keeps it."""
        rt = self.daemon.tables.get(table_id)
        if rt is None:
            raise ActionError(404, f"there is no table '{table_id}'")
        seq = self.daemon.handsets.set_lang(table_id, lang, rt.channel)
        if seq and rt.channel is not None and rt.channel.state == "online":
            return {"status": "done", "table": table_id, "lang": lang, "seq": seq}
        return {
            "status": "queued",
            "table": table_id,
            "lang": lang,
            "message": "the table is not online; its handset gets the language when it connects",
        }

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


def same_form(old: Any, new: list[Any]) -> bool:
    """Whether corrected names keep the match's form (singles, or pairs of the
    same sizes)."""
    if not isinstance(old, list) or len(old) != 2 or len(new) != 2:
        return False
    for before, after in zip(old, new, strict=True):
        if isinstance(before, list) != isinstance(after, list):
            return False
        if isinstance(before, list) and len(before) != len(after):
            return False
    return True
