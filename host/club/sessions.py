"""Table sessions at run time: the desk opens and closes them, the table light
follows them, and the console is told what needs the desk (docs/BILLING.md).

* A session opens at the desk, or (``[billing] auto_open``) by itself at the
  first stroke on a table with none, which the desk is then asked to
  confirm.  It closes at the desk, or (``auto_close_min``) once a frame is
  over and no stroke has followed for that many minutes; such a close ends
  the session at its last stroke.  One table holds one session at a time.
* Every change is on the disk before the desk hears it went through (the
  group committer's flush), so a ``kill -9`` of the daemon at any point
  leaves either the session as it was or as changed, never half.
* Check and write are one step: every desk action on a table holds that
  table's lock from the first look at the bill to the moment its row is on
  the disk, so two taps at once are one after the other: the second sees
  what the first did ("the table changed: look again", "already taken
  back") and never both pass a check that only one may pass.
* The light: the host sends the table's controller the state it wants
  (``light``, protocol/SPEC.md 7.6) at every change and after every
  handshake.  The device acknowledges it once its relay is switched and the
  state is on its flash, so an acknowledged state is the light's state.
* Alerts: a table in play with no session open; a session open on a table
  idle for ``idle_alert_min``; a light that disagrees with its session; an
  auto-opened session the desk has not confirmed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from baulk.host.club import bills, money
from baulk.host.club.clock import Stamp, VenueClock, elapsed_ms
from baulk.host.errors import ActionError, Refusal
from baulk.host.name_rules import NAME_BYTES, TEXT_BYTES
from baulk.host.sentences import Message
from baulk.host.store import SessionWrite
from baulk.host.store.club_queries import CLOSE_KEYS
from baulk.host.store.writer import SET_UP
from baulk.protocol import messages
from baulk.protocol.host_codec import Error, Light
from baulk.protocol.host_codec import Event as EventRecord

if TYPE_CHECKING:
    from baulk.host.club.tariffs import Billing
    from baulk.host.referee.shadow import Applied
    from baulk.host.store import GroupCommitter, StoreReader

log = logging.getLogger("baulk.sessions")

WATCH_S = 1.0  # idle closes are looked for this often
LIGHT_GRACE_MS = 5000  # a light command unacknowledged this long disagrees
MINUTE_MS = 60_000
# Inputs that are not a stroke: a frame's set-up (the store's rule, the one
# that starts a frame's play, host/store/writer.py), and an undo, which takes
# a stroke back rather than plays one: neither opens a session by itself nor
# keeps an idle table from its close.
NOT_STROKES = (*SET_UP, "undo")
QUANTITY_MOST = 20  # items of one kind in one tap


# What a reason's and a payer's refusals name.
REASON = Message("reason")
PAYER = Message("payer")


def _text(value: object, what: Message, missing: Message | None) -> str:
    """A reason or a name: one line of text, at most TEXT_BYTES bytes (the
    shared rules', host/name_rules.py; host/web/desk.py checks its characters)."""
    if not isinstance(value, str) or not value.strip():
        raise ActionError(Refusal.BAD_INPUT, missing or Message("{field} must be text", field=what))
    text = value.strip()
    if len(text.encode()) > TEXT_BYTES or any(ord(c) < 32 or ord(c) == 127 for c in text):
        if what is PAYER:
            raise ActionError(
                Refusal.BAD_INPUT,
                Message("payer must be one line of at most {n} bytes", n=TEXT_BYTES),
            )
        raise ActionError(
            Refusal.BAD_INPUT,
            Message("reason must be one line of at most {n} bytes of text", n=TEXT_BYTES),
        )
    return text


def _amount(value: object, currency: str, least: int) -> int:
    """An amount typed at the desk, in minor units (host/club/money.py)."""
    try:
        return money.parse(value, currency, least, money.MOST)
    except money.MoneyError as e:
        raise ActionError(Refusal.BAD_INPUT, Message("amount {reason}", reason=e.message)) from None


class Venue(Protocol):
    """What the sessions need of the daemon they run in (host/venue/daemon.py):
    the store, the tables' names, and a way to each table's controller for
    the light.  A protocol, so that the club's code never imports the venue's."""

    @property
    def reader(self) -> StoreReader: ...

    @property
    def committer(self) -> GroupCommitter: ...

    def table_ids(self) -> list[str]: ...

    def table_name(self, table_id: str) -> str: ...

    def link_of(self, table_id: str) -> str:
        """The table's link as its board says it ("online", "offline", ...)."""
        ...

    def session_changed(self, table_id: str, is_open: bool) -> None:
        """A table's session opened or ended: its board says whether it is free."""
        ...

    def send_to_table(self, table_id: str, record: Light) -> int | None:
        """Queue a message for the table's controller: its host seq (0: the
        journal is full), or None when the table has no link."""
        ...

    def acked_by_table(self, table_id: str) -> int | None:
        """The last host seq the table's controller acknowledged (None: no link)."""
        ...


@dataclass
class TableDesk:
    """What the desk knows of one table."""

    table_id: str
    session: dict[str, Any] | None = None  # the open session, as the store keeps it
    last_play: Stamp | None = None  # the newest input of play the store was given
    in_frame: bool = False  # a frame is being played (begun and not finished)
    light_wanted: bool = False
    light_sent: bool | None = None  # the state last sent to the device
    light_seq: int = 0  # its host seq
    light_sent_at: Stamp | None = None
    light_state: bool | None = None  # the state the device acknowledged (None: unknown)
    light_unsupported: bool = False  # the controller does not know `light` (older firmware)


class TableSessions:
    """The daemon's table sessions: open, confirm, close, correct, and watch."""

    def __init__(self, venue: Venue, billing: Billing, clock: VenueClock | None = None) -> None:
        self.venue = venue
        self.billing = billing
        self.clock = clock or VenueClock()
        self.desks: dict[str, TableDesk] = {}
        self.next_id = 1
        self.started = self.clock.now()
        self._task: asyncio.Task[None] | None = None
        # One lock a table: a desk action holds it from its check to its row
        # on the disk (see the module's docstring).
        self._locks: dict[str, asyncio.Lock] = {}

    # ------------------------------------------------------------------ life
    def restore(self) -> None:
        """The sessions the store holds open, as the last daemon left them."""
        reader = self.venue.reader
        self.next_id = reader.last_session_id() + 1
        for s in reader.open_sessions():
            desk = self.desk(s["table_id"])
            desk.session = s
            desk.light_wanted = True
            self.venue.session_changed(s["table_id"], True)
        self.started = self.clock.now()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._watch(), name="sessions")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def desk(self, table_id: str) -> TableDesk:
        d = self.desks.get(table_id)
        if d is None:
            d = self.desks[table_id] = TableDesk(table_id)
        return d

    # ------------------------------------------------------------------ one at a time
    def _lock(self, table_id: str) -> asyncio.Lock:
        lock = self._locks.get(table_id)
        if lock is None:
            lock = self._locks[table_id] = asyncio.Lock()
        return lock

    @contextlib.asynccontextmanager
    async def _held(self, session_id: int) -> AsyncIterator[None]:
        """The lock of the session's table (a session never changes table),
        held across the action's check and its write: nothing another tap
        does can land between them."""
        _, row = self._session(session_id)  # no such session: refused, nothing held
        async with self._lock(row["table_id"]):
            yield

    # ------------------------------------------------------------------ desk actions
    def _tariff(self, table_id: str) -> dict[str, Any]:
        tariff = self.billing.tariff_for(table_id)
        if tariff is None:
            raise ActionError(
                Refusal.CONFLICT,
                Message(
                    "table '{id}' has no tariff: give it one in a [[tariff]] of the config",
                    id=table_id,
                ),
            )
        return tariff.to_json()

    def _session(self, session_id: int) -> tuple[TableDesk | None, dict[str, Any]]:
        for d in self.desks.values():
            if d.session is not None and d.session["id"] == session_id:
                return d, d.session
        row = self.venue.reader.session(session_id)
        if row is None:
            raise ActionError(Refusal.NOT_FOUND, Message("there is no session {n}", n=session_id))
        return None, row

    def _current(
        self, session_id: int, version: str | None, void_ok: bool = False
    ) -> dict[str, Any]:
        """The session's bill as the store has it now, checked against the
        version the desk saw (None: not checked, for scripts): a tap made on
        an older view of it (another phone closed it, corrected it, ...) is
        refused and changes nothing.  Called with the table's lock held."""
        bill = self.bill(session_id)
        if version is not None and version != bill["version"]:
            raise ActionError(Refusal.CONFLICT, Message("the table changed: look again"))
        if bill["state"] == "void" and not void_ok:
            raise ActionError(
                Refusal.CONFLICT,
                Message("session {n} is void: nothing on it changes", n=session_id),
            )
        return bill

    async def _write(self, write: SessionWrite) -> dict[str, Any]:
        """Store one change and answer with the bill once it is on the disk
        (its receipt from the committer).  A change the store refuses, or
        cannot write now, raises its ActionError and changes nothing."""
        await self.venue.committer.submit_session(write)
        self._changed(write.table_id)
        return self.bill(write.session_id)

    def _changed(self, table_id: str) -> None:
        """A table's session changed: the desk's view of it, and its board."""
        desk = self.desk(table_id)
        self._refresh(table_id)
        self.venue.session_changed(table_id, desk.session is not None)

    def _begin(
        self,
        table_id: str,
        who: str | None,
        how: str,
        from_event: tuple[int, int] | None = None,
    ) -> tuple[dict[str, Any], asyncio.Future[None]]:
        desk = self.desk(table_id)
        if desk.session is not None:
            raise ActionError(
                Refusal.CONFLICT,
                Message(
                    "the table changed: look again (table '{id}' has session {n} open)",
                    id=table_id,
                    n=desk.session["id"],
                ),
            )
        tariff = self._tariff(table_id)
        at = self.clock.now()
        sid = self.next_id
        self.next_id += 1
        desk.session = {
            "id": sid,
            "table_id": table_id,
            "how": how,
            "opened_by": who,
            "opened_wall_ms": at.wall_ms,
            "opened_mono_ms": at.mono_ms,
            "opened_boot": at.boot,
            "open_event_id": 0,  # the store sets it; until then nothing is in it
            "tariff": tariff,
            "confirmed_wall_ms": None,
            "confirmed_by": None,
            "marks": [],
            "closed_wall_ms": None,
            "closed_mono_ms": None,
            "closed_boot": None,
            "close_event_id": None,
            "closed_by": None,
            "close_reason": None,
        }
        stored = self.venue.committer.submit_session(
            SessionWrite(
                "open",
                sid,
                table_id,
                who,
                at.wall_ms,
                at.mono_ms,
                at.boot,
                how=how,
                tariff=tariff,
                from_event=from_event,
            )
        )
        session = desk.session
        desk.light_wanted = True
        self.venue.session_changed(table_id, True)
        stored.add_done_callback(partial(self._opened, desk, session))
        log.info("table %s: session %d opened (%s, by %s)", table_id, sid, how, who or "?")
        return session, stored

    def _opened(
        self, desk: TableDesk, session: dict[str, Any], stored: asyncio.Future[None]
    ) -> None:
        """A session the store refused (or could not write) was never opened."""
        if _refused(stored) and desk.session is session:
            self._put_back(desk, None)

    def _put_back(self, desk: TableDesk, session: dict[str, Any] | None) -> None:
        """The table as it was before a change the store refused: its
        session (None: none open), its light and the boards."""
        desk.session = session
        desk.light_wanted = session is not None
        self.venue.session_changed(desk.table_id, session is not None)
        self.send_light(desk.table_id)

    async def open(self, table_id: str, who: str | None = None) -> dict[str, Any]:
        if table_id not in self.venue.table_ids():
            raise ActionError(Refusal.NOT_FOUND, Message("there is no table '{id}'", id=table_id))
        async with self._lock(table_id):
            session, stored = self._begin(table_id, who, "desk")
            await stored  # a refusal (an ActionError) has undone it: nothing opened
            self._refresh(table_id)
            self.send_light(table_id)
            return self.bill(session["id"])

    async def confirm(
        self, session_id: int, who: str | None = None, version: str | None = None
    ) -> dict[str, Any]:
        async with self._held(session_id):
            bill = self._current(session_id, version)
            if not bill["open"]:
                raise ActionError(Refusal.CONFLICT, Message("session {n} is closed", n=session_id))
            if bill["confirmed"]:
                raise ActionError(
                    Refusal.CONFLICT, Message("session {n} needs no confirmation", n=session_id)
                )
            at = self.clock.now()
            return await self._write(
                SessionWrite("confirm", session_id, bill["table_id"], who, at.wall_ms)
            )

    async def close(
        self, session_id: int, who: str | None = None, version: str | None = None
    ) -> dict[str, Any]:
        async with self._held(session_id):
            bill = self._current(session_id, version)
            desk, _ = self._session(session_id)
            if desk is None or not bill["open"]:
                raise ActionError(
                    Refusal.CONFLICT, Message("session {n} is already closed", n=session_id)
                )
            await self._end(desk, who, "desk", self.clock.now())  # refused: still open
            self.send_light(bill["table_id"])
            self._changed(bill["table_id"])
            return self.bill(session_id)

    def _end(
        self, desk: TableDesk, who: str | None, reason: str, at: Stamp, op: str = "close"
    ) -> asyncio.Future[None]:
        session = desk.session
        assert session is not None
        desk.session = None
        desk.light_wanted = False
        stored = self.venue.committer.submit_session(
            SessionWrite(
                op,
                session["id"],
                desk.table_id,
                who,
                at.wall_ms,
                at.mono_ms,
                at.boot,
                reason=reason,
            )
        )
        stored.add_done_callback(partial(self._closed, desk, session))
        log.info("table %s: session %d %s (%s)", desk.table_id, session["id"], op, reason)
        return stored

    def _closed(
        self, desk: TableDesk, session: dict[str, Any], stored: asyncio.Future[None]
    ) -> None:
        """A close the store refused (or could not write) left the session open."""
        if _refused(stored) and desk.session is None:
            self._put_back(desk, session)

    async def void(
        self, session_id: int, reason: object, who: str | None = None, version: str | None = None
    ) -> dict[str, Any]:
        """A session opened by mistake: nothing on it is to pay.  An open one
        is closed by it; the bill keeps every line and takes the total off."""
        why = _text(reason, REASON, Message("a void needs a reason: say why nothing is to pay"))
        async with self._held(session_id):
            bill = self._current(session_id, version)
            desk, _ = self._session(session_id)
            at = self.clock.now()
            if desk is not None and bill["open"]:
                await self._end(desk, who, why, at, op="void")  # refused: still open
                self.send_light(bill["table_id"])
                self._changed(bill["table_id"])
                return self.bill(session_id)
            return await self._write(
                SessionWrite("void", session_id, bill["table_id"], who, at.wall_ms, reason=why)
            )

    async def unvoid(
        self, session_id: int, reason: object, who: str | None = None, version: str | None = None
    ) -> dict[str, Any]:
        """A void tapped by mistake, taken back (the owner's): the bill stands
        again as it stood, closed; the void and its undoing both stay in its
        history, each with who and why."""
        why = _text(
            reason, REASON, Message("undoing a void needs a reason: say why the bill stands")
        )
        async with self._held(session_id):
            bill = self._current(session_id, version, void_ok=True)
            if bill["state"] != "void":
                raise ActionError(
                    Refusal.CONFLICT, Message("session {n} is not void", n=session_id)
                )
            at = self.clock.now()
            return await self._write(
                SessionWrite("unvoid", session_id, bill["table_id"], who, at.wall_ms, reason=why)
            )

    async def reopen(
        self,
        session_id: int,
        reason: object = None,
        who: str | None = None,
        version: str | None = None,
    ) -> dict[str, Any]:
        """A session closed by mistake runs on, from its first open: one
        session, one minimum, its table time to its next close."""
        why = None if reason is None else _text(reason, REASON, None)
        async with self._held(session_id):
            bill = self._current(session_id, version)
            if bill["open"]:
                raise ActionError(Refusal.CONFLICT, Message("session {n} is open", n=session_id))
            table_id = bill["table_id"]
            desk = self.desk(table_id)
            other = desk.session
            if other is not None:
                raise ActionError(
                    Refusal.CONFLICT,
                    Message(
                        "table '{id}' has session {n} open: close it before reopening this one",
                        id=table_id,
                        n=other["id"],
                    ),
                )
            _, row = self._session(session_id)
            # The table is this session's from now: a first stroke meanwhile
            # opens no other (on_event), nor does the idle watch close it.
            held = {**row, **dict.fromkeys(CLOSE_KEYS)}
            desk.session = held
            at = self.clock.now()
            try:
                await self.venue.committer.submit_session(
                    SessionWrite(
                        "reopen",
                        session_id,
                        table_id,
                        who,
                        at.wall_ms,
                        at.mono_ms,
                        at.boot,
                        reason=why,
                    )
                )
            finally:
                if desk.session is held:
                    desk.session = None  # the store's row, or none when it refused
            now_row = self.venue.reader.session(session_id)
            if now_row is not None and now_row["closed_wall_ms"] is None:
                desk.session = now_row
                desk.light_wanted = True
                self.send_light(table_id)
            self._changed(table_id)
            return self.bill(session_id)

    def _parse_payer(self, payer: object) -> str | None:
        if payer is None:
            return None
        text = _text(
            payer, PAYER, Message("payer must be a player's name, or left out for the table")
        )
        if len(text.encode()) > NAME_BYTES:  # a payer is a player's name
            raise ActionError(
                Refusal.BAD_INPUT, Message("payer is longer than {n} bytes", n=NAME_BYTES)
            )
        return text

    def _share_of(self, bill: dict[str, Any], payer: str | None) -> int:
        return sum(p["amount"] for p in bill["payers"] if p["payer"] == payer)

    def _keep_above_zero(self, bill: dict[str, Any], minor: int, payer: str | None) -> None:
        """A change may not take the bill, nor the share of whoever it is
        charged to, below zero (a clerk's extra zeros)."""
        cur = bill["currency"]
        if bill["total"] + minor < 0:
            total = f"{money.plain(bill['total'], cur)} {cur}"
            raise ActionError(
                Refusal.BAD_INPUT,
                Message("this would take the bill below zero: its total is {text}", text=total),
            )
        share = self._share_of(bill, payer)
        if minor < 0 and share + minor < 0:
            now = f"{money.plain(share, cur)} {cur}"
            if payer is None:
                raise ActionError(
                    Refusal.BAD_INPUT,
                    Message("this would take the table's share below zero: it is {text}", text=now),
                )
            raise ActionError(
                Refusal.BAD_INPUT,
                Message(
                    "this would take the share of '{id}' below zero: it is {text}",
                    id=payer,
                    text=now,
                ),
            )

    async def _money(
        self,
        op: str,
        bill: dict[str, Any],
        minor: int,
        why: str,
        payer: str | None,
        who: str | None,
        reverses: int | None = None,
    ) -> dict[str, Any]:
        """A correction, a refund or a reversal: never the bill, nor the
        payer's share, below zero; appended with its reason and who."""
        self._keep_above_zero(bill, minor, payer)
        change = SessionWrite(
            op,
            bill["session_id"],
            bill["table_id"],
            who,
            self.clock.wall_ms(),
            reason=why,
            amount=minor,
            payer=payer,
            reverses=reverses,
        )
        return await self._write(change)

    async def correct(
        self,
        session_id: int,
        amount: object,
        reason: object,
        payer: object,
        who: str | None,
        version: str | None = None,
    ) -> dict[str, Any]:
        """The desk's correction of a bill (+ or -), appended with its reason."""
        why = _text(
            reason, REASON, Message("a correction needs a reason: say why the bill changes")
        )
        name = self._parse_payer(payer)
        async with self._held(session_id):
            bill = self._current(session_id, version)
            minor = _amount(amount, bill["currency"], -money.MOST)
            if minor == 0:
                raise ActionError(
                    Refusal.BAD_INPUT,
                    Message("amount must not be 0: a correction changes the bill"),
                )
            return await self._money("correct", bill, minor, why, name, who)

    async def refund(
        self,
        session_id: int,
        amount: object,
        reason: object,
        payer: object,
        who: str | None,
        version: str | None = None,
    ) -> dict[str, Any]:
        """Money given back on a closed bill (the owner's): ``amount`` is what
        goes back, at most what the bill (or the payer's share) comes to."""
        why = _text(reason, REASON, Message("a refund needs a reason: say why money goes back"))
        name = self._parse_payer(payer)
        async with self._held(session_id):
            bill = self._current(session_id, version)
            if bill["open"]:
                raise ActionError(
                    Refusal.CONFLICT,
                    Message("session {n} is open: correct its bill instead", n=session_id),
                )
            minor = _amount(amount, bill["currency"], 1)
            return await self._money("refund", bill, -minor, why, name, who)

    async def reverse(
        self,
        session_id: int,
        correction_id: int,
        reason: object,
        who: str | None,
        version: str | None = None,
    ) -> dict[str, Any]:
        """A correction or a refund taken back: its opposite, appended."""
        why = _text(reason, REASON, Message("a reversal needs a reason: say why it is taken back"))
        async with self._held(session_id):
            bill = self._current(session_id, version)
            row = next((c for c in bill["corrections"] if c["id"] == correction_id), None)
            if row is None:
                raise ActionError(
                    Refusal.NOT_FOUND,
                    Message("session {n} has no correction {m}", n=session_id, m=correction_id),
                )
            if not row["live"]:
                raise ActionError(
                    Refusal.CONFLICT,
                    Message("correction {n} is already taken back", n=correction_id),
                )
            return await self._money(
                "reverse", bill, -row["amount"], why, row["payer"], who, correction_id
            )

    async def add_item(
        self,
        session_id: int,
        item: object,
        quantity: object,
        who: str | None,
        version: str | None = None,
    ) -> dict[str, Any]:
        """An item of the price list onto an open session's bill."""
        async with self._held(session_id):
            bill = self._current(session_id, version)
            if not bill["open"]:
                raise ActionError(
                    Refusal.CONFLICT,
                    Message("session {n} is closed: items go on an open one", n=session_id),
                )
            found = self.billing.item(item) if isinstance(item, str) else None
            if found is None:
                raise ActionError(
                    Refusal.BAD_INPUT,
                    Message("item must be the name of an item of the price list"),
                )
            if found.currency != bill["currency"]:
                raise ActionError(
                    Refusal.BAD_INPUT,
                    Message(
                        "this table is billed in {id}, and the item is priced in {text}",
                        id=bill["currency"],
                        text=found.currency,
                    ),
                )
            if isinstance(quantity, bool) or not isinstance(quantity, int):
                raise ActionError(
                    Refusal.BAD_INPUT,
                    Message("quantity must be a whole number from 1 to {n}", n=QUANTITY_MOST),
                )
            if not 1 <= quantity <= QUANTITY_MOST:
                raise ActionError(
                    Refusal.BAD_INPUT,
                    Message("quantity must be a whole number from 1 to {n}", n=QUANTITY_MOST),
                )
            return await self._write(
                SessionWrite(
                    "item",
                    session_id,
                    bill["table_id"],
                    who,
                    self.clock.wall_ms(),
                    item=found.name,
                    item_fa=found.name_fa,
                    price=found.price,
                    quantity=quantity,
                )
            )

    async def take_back_item(
        self, session_id: int, item_id: int, who: str | None, version: str | None = None
    ) -> dict[str, Any]:
        """An item added by mistake: its take-back, appended."""
        async with self._held(session_id):
            bill = self._current(session_id, version)
            row = next((i for i in bill["items"] if i["id"] == item_id), None)
            if row is None:
                raise ActionError(
                    Refusal.NOT_FOUND,
                    Message("session {n} has no item {m}", n=session_id, m=item_id),
                )
            if not row["live"]:
                raise ActionError(
                    Refusal.CONFLICT, Message("item {n} is already taken back", n=item_id)
                )
            self._keep_above_zero(bill, -row["amount"], None)
            return await self._write(
                SessionWrite(
                    "item_back",
                    session_id,
                    bill["table_id"],
                    who,
                    self.clock.wall_ms(),
                    item=row["item"],
                    item_fa=row["item_fa"],
                    price=row["price"],
                    quantity=-row["quantity"],
                    reverses=item_id,
                )
            )

    def _refresh(self, table_id: str) -> None:
        """The open session as the store has it now (its event anchor)."""
        desk = self.desk(table_id)
        if desk.session is not None:
            row = self.venue.reader.session(desk.session["id"])
            if row is not None and row["closed_wall_ms"] is None:
                desk.session = row

    # ------------------------------------------------------------------ bills
    def bill(self, session_id: int) -> dict[str, Any]:
        """The bill of a session from the store (a running one while open)."""
        reader = self.venue.reader
        row = reader.session(session_id)
        if row is None:
            raise ActionError(Refusal.NOT_FOUND, Message("there is no session {n}", n=session_id))
        frames = reader.session_frames([row])[session_id]
        fixes = reader.corrections([session_id])[session_id]
        items = reader.items([session_id])[session_id]
        return bills.work_out(row, frames, fixes, self.clock.now(), items)

    # ------------------------------------------------------------------ what the tables say
    def on_event(
        self, table_id: str, record: EventRecord, key: tuple[int, int], a: Applied
    ) -> None:
        """A device event was handed to the store (host/venue/devices.py)."""
        if record.rejected is not None or not a.accepted or a.match_id is None:
            return
        desk = self.desk(table_id)
        name = record.input.get("ev")
        if a.frames_done or a.match_over:
            desk.in_frame = False
        elif name not in NOT_STROKES:
            desk.in_frame = True
        if name in NOT_STROKES:
            return
        desk.last_play = self.clock.now()
        if desk.session is None and self.billing.auto_open and self.billing.tariff_for(table_id):
            # The first stroke on a table with no session: open one from this
            # very event, and ask the desk to confirm it.
            self._begin(table_id, None, "auto", from_event=key)
            self.send_light(table_id)

    def on_hello(self, table_id: str) -> None:
        """The table's controller is (back) online: tell it the light's state."""
        desk = self.desk(table_id)
        desk.light_sent = None
        desk.light_state = None
        desk.light_unsupported = False
        self.send_light(table_id)

    def on_error(self, table_id: str, error: Error) -> None:
        desk = self.desk(table_id)
        if error.code == messages.ERR_UNSUPPORTED and error.type == messages.LIGHT:
            if not desk.light_unsupported:
                log.warning(
                    "table %s: its controller does not drive a light (older firmware)", table_id
                )
            desk.light_unsupported = True

    def send_light(self, table_id: str) -> None:
        """Tell the table's controller the light's state.  A table without a
        tariff has no sessions, and its light is left as the venue wires it."""
        desk = self.desk(table_id)
        if self.billing.tariff_for(table_id) is None:
            return
        seq = self.venue.send_to_table(table_id, Light(on=desk.light_wanted))
        if seq:
            desk.light_seq = seq
            desk.light_sent = desk.light_wanted
            desk.light_sent_at = self.clock.now()

    def light(self, table_id: str) -> bool | None:
        """The light's state as its controller acknowledged it (None: unknown)."""
        desk = self.desk(table_id)
        if desk.light_seq and not desk.light_unsupported:
            acked = self.venue.acked_by_table(table_id)
            if acked is not None and acked >= desk.light_seq:
                desk.light_state = desk.light_sent
        return desk.light_state

    # ------------------------------------------------------------------ watching
    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(WATCH_S)
            try:
                self.check()
            except Exception:  # a bug here must not stop the watch
                log.exception("session watch failed")

    def check(self) -> None:
        """Close the sessions idle past ``auto_close_min`` once a frame is over."""
        limit = self.billing.auto_close_min
        if not limit:
            return
        now = self.clock.now()
        for desk in list(self.desks.values()):
            if desk.session is None or desk.in_frame or self._lock(desk.table_id).locked():
                continue  # (a desk action holds the table: the next look closes it)
            since = self._idle_since(desk)
            if elapsed_ms(since, now)[0] >= limit * MINUTE_MS:
                # Billed to the last stroke, not to the moment the watch noticed.
                self._end(desk, None, "idle", since)
                self.send_light(desk.table_id)
                self.venue.session_changed(desk.table_id, False)

    def _idle_since(self, desk: TableDesk) -> Stamp:
        """The table's last stroke, or when its session opened or this daemon
        started, whichever came last (a restart forgets the last stroke)."""
        marks = [self.started]
        if desk.last_play is not None:
            marks.append(desk.last_play)
        if desk.session is not None:
            s = desk.session
            marks.append(Stamp(s["opened_wall_ms"], s["opened_mono_ms"], s["opened_boot"]))
        now = self.clock.now()
        return min(marks, key=lambda m: elapsed_ms(m, now)[0])

    def alerts(self) -> list[dict[str, Any]]:
        """What needs the desk now, every table."""
        now = self.clock.now()
        idle_ms = self.billing.idle_alert_min * MINUTE_MS
        out: list[dict[str, Any]] = []
        for table_id in self.venue.table_ids():
            desk = self.desk(table_id)
            s = desk.session
            if s is None:
                if desk.last_play is not None and elapsed_ms(desk.last_play, now)[0] < idle_ms:
                    out.append(
                        {
                            "kind": "no_session",
                            "table": table_id,
                            "session": None,
                            "text": f"table {table_id} is in play with no session open",
                        }
                    )
            else:
                if s["how"] == "auto" and s["confirmed_wall_ms"] is None:
                    out.append(
                        {
                            "kind": "confirm",
                            "table": table_id,
                            "session": s["id"],
                            "text": f"session {s['id']} on table {table_id} opened by itself at "
                            "the first stroke: confirm it",
                        }
                    )
                idle = elapsed_ms(self._idle_since(desk), now)[0]
                if idle >= idle_ms:
                    out.append(
                        {
                            "kind": "idle",
                            "table": table_id,
                            "session": s["id"],
                            "minutes": idle // MINUTE_MS,
                            "text": f"session {s['id']} is open on table {table_id}, idle for "
                            f"{idle // MINUTE_MS} minutes",
                        }
                    )
            light = self._light_alert(desk, now)
            if light is not None:
                out.append(light)
        return out

    def _light_alert(self, desk: TableDesk, now: Stamp) -> dict[str, Any] | None:
        state = self.light(desk.table_id)
        wanted = desk.light_wanted
        if desk.light_unsupported:
            if not wanted:
                return None
            why = "its controller does not drive a light (older firmware)"
        elif state == wanted:
            return None
        else:
            sent = desk.light_sent_at
            if sent is not None and elapsed_ms(sent, now)[0] < LIGHT_GRACE_MS:
                return None  # on its way
            if state is None and not wanted:
                return None  # never switched on by us, nothing open: nothing disagrees
            why = "the controller has not confirmed it (the table is offline)"
        session = desk.session["id"] if desk.session else None
        return {
            "kind": "light",
            "table": desk.table_id,
            "session": session,
            "wanted": wanted,
            "light": state,
            "text": f"table {desk.table_id}: the light should be {'on' if wanted else 'off'}, "
            f"but {why}",
        }

    def tables(self) -> list[dict[str, Any]]:
        """Every table for the desk: its session and running bill, its light."""
        out = []
        now = self.clock.now()
        reader = self.venue.reader
        # As the store has them: the event each one starts from is set there.
        open_rows = {s["table_id"]: s for s in reader.open_sessions()}
        frames = reader.session_frames(list(open_rows.values()))
        ids = [s["id"] for s in open_rows.values()]
        fixes = reader.corrections(ids)
        items = reader.items(ids)
        for table_id in self.venue.table_ids():
            desk = self.desk(table_id)
            tariff = self.billing.tariff_for(table_id)
            bill = None
            s = open_rows.get(table_id)
            if s is not None and desk.session is not None and desk.session["id"] == s["id"]:
                sid = s["id"]
                bill = bills.work_out(s, frames[sid], fixes[sid], now, items[sid])
            out.append(
                {
                    "table": table_id,
                    "name": self.venue.table_name(table_id),
                    "link": self.venue.link_of(table_id),
                    "tariff": tariff.name if tariff else None,
                    "in_frame": desk.in_frame,
                    "light": {
                        "wanted": desk.light_wanted,
                        "state": self.light(table_id),
                        "unsupported": desk.light_unsupported,
                    },
                    "bill": bill,
                    # what the desk may sell onto this table's bill
                    "items": [
                        i.to_json()
                        for i in self.billing.items
                        if tariff is not None and i.currency == tariff.currency
                    ],
                }
            )
        return out


def _refused(stored: asyncio.Future[None]) -> bool:
    """Did the store refuse (or fail to write) the row behind ``stored``?"""
    return not stored.cancelled() and stored.exception() is not None
