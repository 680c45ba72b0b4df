"""Operator actions: a new match or a correction, forwarded to the table's
device, which judges it as it judges a key press (docs/DESIGN.md,
"Principles": commands from the host go *through* the device).

Each action is applied exactly once (SPEC.md "Actions"):

* it is stored before it is sent, and the store gives it its id (host/store,
  ``CommandRow``); the id travels with it (key -6) and comes back on the
  event that answers it;
* the device applies each id once and remembers the last ``DEVICE_REMEMBERS``
  of them, so a repeat changes nothing;
* at most ``IN_FLIGHT`` actions of a table are sent and not yet answered in
  the store, so every action a restarted daemon may send again is among
  those the device remembers;
* a restarted daemon sends again, with their ids, the actions no stored event
  answers (``restore``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
from typing import TYPE_CHECKING, Any, Protocol

from baulk.host.errors import ActionError, Refusal
from baulk.host.link.channel import HOST_CAPACITY, wall_ms
from baulk.host.sentences import Message, device_reason
from baulk.host.sides import names_of
from baulk.host.store import CommandRow, NameFixRow
from baulk.host.venue.tables import Pending, TableRuntime
from baulk.protocol import messages
from baulk.protocol.host_codec import (
    RAW_MOST,
    CaptureRequest,
    CheckRequest,
    Command,
    Event,
    SetupMatch,
    body_of,
    unstuffed_size,
)

if TYPE_CHECKING:
    from baulk.host.handset.sync import Handsets
    from baulk.host.store import GroupCommitter, StoreReader

log = logging.getLogger("baulk.actions")

COMMAND_WAIT_S = 2.0  # how long an action waits for the device's answer
DEVICE_REMEMBERS = 16  # action ids a device keeps (firmware/journal.py ACTIONS)
IN_FLIGHT = 8  # sent and not answered in the store, per table: well inside the above
UNCHECKED = object()  # setup_match's expect when the caller saw nothing (a script)
_RECORDS: dict[int, type[SetupMatch | Command]] = {
    messages.SETUP_MATCH: SetupMatch,
    messages.COMMAND: Command,
}


# What an action that waits for a table that is not online is told.
NOT_ANSWERED = Message("the table has not answered yet; it gets the action when it is online")


def table_refused(reason: str) -> ActionError:
    """The device refused an action: its reason, as the device's message it is."""
    return ActionError(
        Refusal.CONFLICT, Message("the table refused: {reason}", reason=device_reason(reason))
    )


class Venue(Protocol):
    """What the operator's actions need of the daemon they run in
    (host/venue/daemon.py): the tables' runtimes, the store (its writer for
    an action, its reader for those a restart finds unanswered), the
    handsets' languages and the boards.  A protocol, so that the actions
    never import the daemon that holds them."""

    @property
    def tables(self) -> dict[str, TableRuntime]: ...

    @property
    def committer(self) -> GroupCommitter: ...

    @property
    def reader(self) -> StoreReader: ...

    @property
    def handsets(self) -> Handsets: ...

    def mark(self, table_id: str) -> None:
        """The table's board changed: publish it soon."""
        ...


class OperatorActions:
    def __init__(self, venue: Venue) -> None:
        self.venue = venue
        # Drawn at each start: with the store's row id it makes the action's id,
        # so even a store restored from a backup never repeats one.
        self.epoch = secrets.randbits(31)
        self._storing: dict[int, tuple[str, Pending]] = {}  # by id() of the CommandRow
        self._naming: set[str] = set()  # tables with a name correction on its way to the store

    # ------------------------------------------------------------------ the operator's side
    async def setup_match(
        self,
        table_id: str,
        players: list[Any],
        best_of: int,
        reds: int = 15,
        breaker: int = 0,
        who: str | None = None,
        expect: object = UNCHECKED,
    ) -> dict[str, Any]:
        """A new match.  ``expect`` is the match id the console was showing
        (None: none): when another phone started a match since, or is
        starting one now, this one is refused rather than silently replacing
        it."""
        if expect is not UNCHECKED and expect != self._match_now(table_id):
            raise ActionError(Refusal.CONFLICT, Message("the table changed: look again"))
        setup = SetupMatch(players=players, best_of=best_of, breaker=breaker, reds=reds, who=who)
        return await self.forward(table_id, setup)

    def _waiting(self, rt: TableRuntime, table_id: str) -> list[Pending]:
        """The table's actions on their way: being stored, stored and not
        sent, or sent and not answered."""
        waiting = [p for t, p in self._storing.values() if t == table_id]
        waiting += [*rt.actions.queue, *(p for p in rt.actions.sent.values() if not p.answer_seq)]
        return waiting

    def _match_now(self, table_id: str) -> object:
        """The table's match id as its board has it, or UNCHECKED while a new
        match is on its way (stored or sent, not answered): no view matches."""
        rt = self.venue.tables.get(table_id)
        if rt is None:
            return None
        if any(isinstance(p.record, SetupMatch) for p in self._waiting(rt, table_id)):
            return UNCHECKED
        match = rt.view.match
        return match.get("match_id") if match else None

    def _check_seen(self, table_id: str, version: int | None) -> None:
        """A correction made on the view the console showed: ``version`` is
        the board's ``events`` then (None: not checked, for scripts and older
        consoles).  An event stored since, or an action of any phone still on
        its way, is a table that changed: the tap is refused, nothing sent.
        The check and the action's place among those on their way are taken
        with no await between them (``forward``), so of two taps at once on
        one view the second always finds the first on its way."""
        if version is None:
            return
        rt = self.venue.tables.get(table_id)
        if rt is None:
            return  # forward says there is no such table
        if version != rt.view.events or self._waiting(rt, table_id):
            raise ActionError(Refusal.CONFLICT, Message("the table changed: look again"))

    async def command(
        self,
        table_id: str,
        ev: dict[str, Any],
        who: str | None = None,
        version: int | None = None,
    ) -> dict[str, Any]:
        """A correction (undo, award, concede, ... any keypad call); with
        ``version``, refused when the table changed since the console saw it."""
        self._check_seen(table_id, version)
        return await self.forward(table_id, Command(input=ev, who=who))

    async def correct_names(
        self,
        table_id: str,
        players: list[Any],
        who: str | None = None,
        expect: object = UNCHECKED,
    ) -> dict[str, Any]:
        """The desk typed a name wrong and the match is under way: the match
        event on the table cannot change (the device's journal is the
        record), so the correction is the host's, stored beside the match and
        shown by the boards, reports and lists.  The handset keeps the names
        it was given.  ``expect`` is the players as the console showed them:
        when another phone corrected them since, or is correcting them now,
        this one is refused rather than silently replacing it."""
        rt = self.venue.tables.get(table_id)
        match = rt.view.match if rt is not None else None
        if rt is None or not match or not match.get("match_id"):
            raise ActionError(
                Refusal.CONFLICT, Message("there is no match on this table to correct")
            )
        if expect is not UNCHECKED:
            fixed = rt.view.names_fix
            shown = fixed["players"] if fixed and fixed["match_id"] == match["match_id"] else None
            if table_id in self._naming or expect != (shown or match.get("players")):
                raise ActionError(Refusal.CONFLICT, Message("the table changed: look again"))
        if not same_form(match.get("players"), players):
            raise ActionError(
                Refusal.BAD_INPUT,
                Message(
                    "the names must keep the match's form: two players, or two pairs as before"
                ),
            )
        fix = NameFixRow(str(match["match_id"]), players, who, wall_ms())
        stored = self.venue.committer.submit_name_fix(fix)
        self._naming.add(table_id)  # on its way: a second look at the names finds it
        try:
            await stored  # refused: an ActionError
        finally:
            self._naming.discard(table_id)
        rt.view.names_fix = {"match_id": fix.match_id, "players": players}
        self.venue.mark(table_id)
        return {"status": "done", "names": names_of(players)}

    async def set_handset_lang(self, table_id: str, lang: str) -> dict[str, Any]:
        """The referee's handset language (host/handset/sync.py): sent now, or at
        the table's next hello when it is offline; the device keeps it."""
        rt = self.venue.tables.get(table_id)
        if rt is None:
            raise ActionError(Refusal.NOT_FOUND, Message("there is no table '{id}'", id=table_id))
        seq = self.venue.handsets.set_lang(table_id, lang, rt.channel)
        if seq and rt.channel is not None and rt.channel.state == "online":
            return {"status": "done", "table": table_id, "lang": lang, "seq": seq}
        return {
            "status": "queued",
            "table": table_id,
            "lang": lang,
            "message": Message(
                "the table is not online; its handset gets the language when it connects"
            ),
        }

    async def start_pocket_check(self, table_id: str, who: str | None = None) -> dict[str, Any]:
        """Ask the table to run a pocket check (firmware/pocket_check.py) and
        wait a little for its answer: the device refuses one mid-frame, and
        says why.  Unlike a scoring action it is not stored nor sent again
        after a restart (it changes no score, and a check asked for hours
        ago is no check the referee expects): the table must be online."""
        rt = self.venue.tables.get(table_id)
        if rt is None or rt.channel is None:
            raise ActionError(Refusal.NOT_FOUND, Message("there is no table '{id}'", id=table_id))
        if rt.channel.state != "online" or rt.refused is not None:
            raise ActionError(
                Refusal.CONFLICT,
                Message("the table is not online: a pocket check needs it connected"),
            )
        seq = rt.channel.send(CheckRequest(who=who))
        if not seq:
            raise ActionError(
                Refusal.UNAVAILABLE,
                Message("too many actions are waiting for this table; try again when it is online"),
            )
        fut: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        rt.checks[seq] = fut
        try:
            refused = await asyncio.wait_for(asyncio.shield(fut), COMMAND_WAIT_S)
        except TimeoutError:
            return {
                "status": "queued",
                "seq": seq,
                "message": NOT_ANSWERED,
            }
        finally:
            rt.checks.pop(seq, None)
        if refused is not None:
            raise table_refused(refused)
        return {
            "status": "done",
            "seq": seq,
            "message": Message(
                "the pocket check runs on the handset: drop the white into each pocket"
            ),
        }

    async def start_capture(
        self, table_id: str, who: str | None, during: bool, seconds: int | None,
        passages: int | None, on: bool = True,
    ) -> dict[str, Any]:  # fmt: skip
        """Ask the table to start (or stop) a sensor capture
        (firmware/capture.py) and wait a little for its answer: it refuses
        one during a match unless ``during``.  Like a pocket check it is not
        stored nor sent again after a restart: the table must be online."""
        rt = self.venue.tables.get(table_id)
        if rt is None or rt.channel is None:
            raise ActionError(Refusal.NOT_FOUND, Message("there is no table '{id}'", id=table_id))
        if rt.channel.state != "online" or rt.refused is not None:
            raise ActionError(
                Refusal.CONFLICT,
                Message("the table is not online: a sensor capture needs it connected"),
            )
        req = CaptureRequest(on=on, during=during or None, seconds=seconds, passages=passages,
                             who=who)  # fmt: skip
        reason = messages.check(req.TYPE, body_of(req))
        if reason is not None:
            raise ActionError(
                Refusal.BAD_INPUT, Message("the table cannot take this: {reason}", reason=reason)
            )
        seq = rt.channel.send(req)
        if not seq:
            raise ActionError(
                Refusal.UNAVAILABLE,
                Message("too many actions are waiting for this table; try again when it is online"),
            )
        if not on:
            return {"status": "done", "seq": seq, "message": Message("the capture stops")}
        fut: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        rt.checks[seq] = fut
        try:
            refused = await asyncio.wait_for(asyncio.shield(fut), COMMAND_WAIT_S)
        except TimeoutError:
            return {"status": "queued", "seq": seq,
                    "message": Message("the table has not answered yet")}  # fmt: skip
        finally:
            rt.checks.pop(seq, None)
        if refused is not None:
            raise table_refused(refused)
        return {"status": "done", "seq": seq, "message": Message("the table captures its sensors")}

    def check_answered(self, rt: TableRuntime, seq: int, refused: str | None) -> bool:
        """The device started the check it got as ``seq`` (refused: None), or
        refused it.  False: no check request waits for that seq."""
        fut = rt.checks.get(seq)
        if fut is None:
            return False
        if not fut.done():
            fut.set_result(refused)
        return True

    async def forward(self, table_id: str, action: SetupMatch | Command) -> dict[str, Any]:
        """Store an action, send it to the table, and wait a little for its answer."""
        rt = self.venue.tables.get(table_id)
        if rt is None or rt.channel is None:
            raise ActionError(Refusal.NOT_FOUND, Message("there is no table '{id}'", id=table_id))
        reason: Message | str | None = messages.check(action.TYPE, body_of(action))
        if reason is None:
            # With the largest id it will carry: a device refuses a longer one
            # (SPEC.md 7.3), so it is never stored nor sent.
            size = unstuffed_size(body_of(dataclasses.replace(action, action=messages.U63)))
            if size > RAW_MOST:
                reason = Message(
                    "it takes {n} bytes framed, and a table takes at most {m}", n=size, m=RAW_MOST
                )
        if reason is not None:
            raise ActionError(
                Refusal.BAD_INPUT, Message("the table cannot take this: {reason}", reason=reason)
            )
        if len(rt.actions) >= HOST_CAPACITY:
            raise ActionError(
                Refusal.UNAVAILABLE,
                Message("too many actions are waiting for this table; try again when it is online"),
            )
        loop = asyncio.get_running_loop()
        p = Pending(action, stored=loop.create_future(), result=loop.create_future())
        row = CommandRow(
            table_id, 0, action.TYPE, _named(action), action.who, wall_ms(), epoch=self.epoch
        )
        stored = self.venue.committer.submit_command(row)  # beyond the store: an ActionError
        self._storing[id(row)] = (table_id, p)
        assert p.stored is not None and p.result is not None
        end = loop.time() + COMMAND_WAIT_S
        try:
            # Refused by the store, or it cannot write: an ActionError, not sent.
            await asyncio.wait_for(asyncio.shield(stored), COMMAND_WAIT_S)
            await asyncio.wait_for(asyncio.shield(p.stored), max(0.0, end - loop.time()))
            result = await asyncio.wait_for(asyncio.shield(p.result), max(0.0, end - loop.time()))
        except ActionError:
            self._storing.pop(id(row), None)
            raise
        except TimeoutError:
            return {
                "status": "queued",
                "action": p.action or None,
                "seq": p.seq or None,
                "message": NOT_ANSWERED,
            }
        if result["rejected"]:
            raise table_refused(result["rejected"])
        return {
            "status": "done",
            "action": p.action,
            "seq": result["seq"],
            "scores": result["scores"],
        }

    # ------------------------------------------------------------------ the store's side
    def stored(self, row: CommandRow) -> None:
        """The committer stored an action (GroupCommitter.on_command): it has
        its id and may be sent."""
        table_id, p = self._storing.pop(id(row), ("", None))
        rt = self.venue.tables.get(table_id)
        if p is None or rt is None:
            return
        p.action = row.action
        p.record = dataclasses.replace(p.record, action=row.action)
        rt.actions.queue.append(p)
        if p.stored is not None and not p.stored.done():
            p.stored.set_result(row.action)
        self.pump(rt)

    def restore(self, rt: TableRuntime, table_id: str) -> None:
        """At start: the table's actions that no stored event answers, to be
        sent again with their ids once the table is online."""
        for r in self.venue.reader.unanswered_actions(table_id):
            cls = _RECORDS.get(r["mtype"])
            if cls is None:
                continue
            record = cls(**{**r["body"], "action": r["action"]})
            rt.actions.queue.append(Pending(record, action=r["action"]))
        if rt.actions.queue:
            log.info(
                "table %s: %d operator action(s) not answered before the restart; "
                "they go out again with their ids",
                table_id,
                len(rt.actions.queue),
            )

    # ------------------------------------------------------------------ the table's side
    def pump(self, rt: TableRuntime) -> None:
        """Send what the table may take now: in order, once it is online, at
        most IN_FLIGHT waiting for an answer in the store."""
        ch = rt.channel
        a = rt.actions
        if ch is None or not ch.session.open or rt.refused is not None:
            return
        while a.queue and len(a.sent) < IN_FLIGHT:
            p = a.queue[0]
            seq = ch.send(p.record)
            if not seq:
                return
            a.queue.popleft()
            p.seq = seq
            a.sent[p.action] = p
            a.by_seq[seq] = p

    def answered(
        self, rt: TableRuntime, action: int | None, cmd: int | None, seq: int, event: Event
    ) -> int:
        """A device event answers an action: by its id, or (a device older
        than action ids) by the host seq it came with in this run.  Returns
        the action's id (0: none of this run's), which the store keeps with
        the event, so a restart knows it answered."""
        a = rt.actions
        p = a.sent.get(action) if action else a.by_seq.get(cmd or 0)
        if p is None and action:
            # Answered before this run sent it again (its answer was still in
            # the device's journal): it need not go out.
            p = next((q for q in a.queue if q.action == action), None)
            if p is not None:
                a.queue.remove(p)
                a.sent[p.action] = p
        if p is None:
            return action or 0
        p.answer_seq = seq
        if p.result is not None and not p.result.done():
            p.result.set_result({"rejected": event.rejected, "scores": event.scores, "seq": seq})
        return p.action

    def refused(self, rt: TableRuntime, cmd: int, text: str) -> None:
        """The device refused the message it got as ``cmd`` without an event:
        the operator hears why, and its place in flight is free again (no
        answer will ever come to free it).  A daemon restarted before the
        refusal reached it sends it again, and the device refuses it again,
        changing nothing."""
        a = rt.actions
        p = a.by_seq.pop(cmd, None)
        if p is None:
            return
        if a.sent.get(p.action) is p:
            del a.sent[p.action]
        if p.result is not None and not p.result.done():
            p.result.set_result({"rejected": text, "scores": None, "seq": None})
        self.pump(rt)

    def durable(self, rt: TableRuntime, seq: int) -> None:
        """The store holds the device stream up to ``seq``: the actions answered
        by then are done, and their places in flight free."""
        a = rt.actions
        done = [p for p in a.sent.values() if p.answer_seq and p.answer_seq <= seq]
        for p in done:
            del a.sent[p.action]
            a.by_seq.pop(p.seq, None)
        if done:
            self.pump(rt)


def _named(action: SetupMatch | Command) -> dict[str, Any]:
    """The action as the store keeps it: its fields by name (its id is kept
    in a column of its own)."""
    return {k: v for k, v in dataclasses.asdict(action).items() if v is not None and k != "action"}


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
