"""What the tables' devices say: the daemon's handler for every table channel
(host/link/channel.py calls it).  A delivered event is replayed by the shadow
referee, stored through the group committer and put on the board; the
device's snapshots are checked against the shadow; a refused or foreign
device is kept out of the store.

The score path comes first: what the club and the handset make of an event
(a session opened at the first stroke, the names drawn for the handset) is
done after the event is handed to the store, and a failure there is logged
(once per kind, then counted) and never reaches the event.  Text the device
sends (its log lines, its errors) is escaped before it reaches the log."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from baulk.firmware import manifest as board_manifest
from baulk.host.link.channel import TableChannel, wall_ms
from baulk.host.logsafe import Tally, failure, printable
from baulk.host.release import bundle
from baulk.host.store import (
    CheckpointRow,
    EventRow,
    HealthRow,
    LinkRow,
    PocketCheckRow,
    RawRow,
)
from baulk.host.store.sensor_queries import masks
from baulk.host.venue.tables import TableRuntime
from baulk.protocol import host_codec, messages
from baulk.protocol.host_codec import (
    Checkpoint,
    Error,
    Event,
    Health,
    Hello,
    Log,
    PocketCheck,
    Record,
    State,
    Trace,
)

if TYPE_CHECKING:
    from baulk.host.club.sessions import TableSessions
    from baulk.host.config import Config
    from baulk.host.handset.sync import Handsets
    from baulk.host.referee.shadow import Applied
    from baulk.host.store import GroupCommitter
    from baulk.host.store.captures import CaptureStore
    from baulk.host.venue.actions import OperatorActions
    from baulk.host.venue.anchors import MoneyAnchors
    from baulk.host.venue.updates import Updates

log = logging.getLogger("baulk.daemon")
_LOG_LEVELS = (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR)
_HOOKS = Tally(log)  # failures of the club's and the handset's hooks, told once a kind


def _aside(what: str, table_id: str, hook: Callable[[], object]) -> None:
    """Run what another part of the host does with a table's message; a
    failure is told (once per kind) and goes no further."""
    try:
        hook()
    except Exception as e:
        _told(what, table_id, e)


def _told(what: str, table_id: str, e: Exception) -> None:
    line = failure(e)
    _HOOKS.tell(
        f"{what} {line.split(': ')[0]} {line.rsplit(' at ', 1)[-1]}",
        logging.ERROR,
        f"table {table_id}: {what} failed ({line}); the table's events are not affected",
    )


class Venue(Protocol):
    """What the device handler needs of the daemon it runs in
    (host/venue/daemon.py): the tables' runtimes and boards, the store's
    writer, and what the club, the handset, the operator's actions and the
    sensor captures make of a table's messages.  A protocol, so that the
    handler never imports the daemon that holds it."""

    @property
    def config(self) -> Config: ...

    @property
    def committer(self) -> GroupCommitter: ...

    @property
    def sessions(self) -> TableSessions: ...

    @property
    def handsets(self) -> Handsets: ...

    @property
    def actions(self) -> OperatorActions: ...

    @property
    def captures(self) -> CaptureStore: ...

    @property
    def anchors(self) -> MoneyAnchors: ...

    @property
    def updates(self) -> Updates: ...

    def runtime(self, table_id: str, name: str | None = None) -> TableRuntime:
        """The table's runtime, made on first use."""
        ...

    def mark(self, table_id: str) -> None:
        """The table's board changed: publish it soon."""
        ...


class DeviceHandler:
    """The :class:`~baulk.host.link.channel.ChannelHandler` of every table."""

    def __init__(self, venue: Venue) -> None:
        self.venue = venue

    def status(self, rt: TableRuntime, channel: TableChannel) -> dict[str, Any]:
        status = channel.status()
        status["stream"]["actions_waiting"] = len(rt.actions)  # stored, not yet answered
        if rt.refused is not None:
            status.update(link="offline", state="refused", reason=rt.refused)
        return status

    def _check_identity(self, rt: TableRuntime, channel: TableChannel, hello: Hello) -> None:
        """A configured table's port must carry that table's device: events
        from another table's controller would be stored under the wrong id."""
        claimed = hello.table
        config = self.venue.config
        if config.table(channel.table_id) is None or claimed == channel.table_id:
            rt.refused = None
            return
        rt.refused = (
            f"the device on {channel.path} says it is table {str(claimed)[:32]!r}, not "
            f"{channel.table_id!r}: its events are refused; fix the config or the device's "
            "table id"
        )
        log.error("table %s: %s", channel.table_id, rt.refused)

    def _check_engine(self, rt: TableRuntime, table_id: str, hello: Hello) -> None:
        """The shadow referee judges only a table that runs its rules engine:
        one that names another in its hello is followed, not judged (a
        firmware from before engine versions names none: judged as ever)."""
        theirs = bundle.engine_of(hello.fw)
        if theirs is None or theirs == board_manifest.ENGINE:
            rt.shadow.not_judged = None
            return
        rt.shadow.not_judged = {"table": theirs, "host": board_manifest.ENGINE}
        log.warning(
            "table %s runs rules engine %d and this host engine %d: its scores are not "
            "checked here",
            table_id,
            theirs,
            board_manifest.ENGINE,
        )

    # ------------------------------------------------------------------ ChannelHandler
    def on_status(self, channel: TableChannel) -> None:
        v = self.venue
        rt = v.runtime(channel.table_id)
        rt.view.status = self.status(rt, channel)
        v.committer.submit_link(LinkRow(channel.table_id, last_seen_ms=channel.last_seen_ms))
        v.mark(channel.table_id)

    def on_hello(self, channel: TableChannel, hello: Hello, raw: bytes) -> None:
        v = self.venue
        rt = v.runtime(channel.table_id)
        if rt.skipped_from:
            # Refused events left the channel's stream without reaching the
            # store.  Whichever device this is, its stream is taken again from
            # what the store holds: numbers it shares with the refused events
            # are not repeats.
            channel.take_again_from_store(hello.base, hello.last)
            rt.skipped_from = 0
        self._check_identity(rt, channel, hello)
        if rt.refused is not None:
            channel.not_this_tables_stream()
            rt.view.status = self.status(rt, channel)
            v.mark(channel.table_id)
            return
        rt.boot = hello.boot
        self._check_engine(rt, channel.table_id, hello)
        log.info(
            "table %s: device %s (firmware %s, boot %d) online; it holds seq %d..%d",
            channel.table_id,
            printable(hello.table),
            printable(hello.fw),
            rt.boot,
            hello.base,
            hello.last,
        )
        now = wall_ms()
        if raw:
            v.committer.submit_raw(RawRow(channel.table_id, now, messages.HELLO, 0, raw))
        v.committer.submit_link(
            LinkRow(
                channel.table_id,
                boot_id=rt.boot,
                device_table=hello.table,
                firmware=hello.fw,
                last_seen_ms=now,
            )
        )
        rt.view.status = self.status(rt, channel)
        v.mark(channel.table_id)
        table_id = channel.table_id
        _aside("the desk's light", table_id, lambda: v.sessions.on_hello(table_id))
        _aside("the money anchors", table_id, lambda: v.anchors.on_hello(table_id))
        _aside("the firmware update", table_id, lambda: v.updates.on_hello(table_id, hello.boot))
        # The handset's language, then the names of the match it plays.
        players = rt.shadow.engine.players
        _aside("the handset", table_id, lambda: v.handsets.on_hello(table_id, channel, players))
        v.actions.pump(rt)  # what waited for the table goes out now

    def on_delivery(
        self,
        channel: TableChannel,
        mtype: int,
        seq: int,
        record: Record | None,
        reason: str | None,
        raw: bytes | None,
    ) -> None:
        v = self.venue
        table_id = channel.table_id
        rt = v.runtime(table_id)
        if rt.refused is not None:  # neither stored nor acked: the device keeps them
            rt.refused_events += 1
            if not rt.skipped_from:
                rt.skipped_from = seq
            return
        now = wall_ms()
        applied: Applied | None = None
        if isinstance(record, Event):
            action = 0
            if record.source == messages.SRC_HOST:
                try:
                    action = v.actions.answered(rt, record.action, record.cmd, seq, record)
                except Exception as e:  # a bug of the actions': the event is stored all the same
                    _told("the operator's action", table_id, e)
                    action = record.action or 0
            key = (record.boot or rt.boot, seq)
            try:
                applied = rt.shadow.apply(
                    record.input, key, record.scores, record.rejected, now, record.source
                )
            except Exception as e:  # a bug of the referee's: the event is stored all the same
                _told("the shadow referee", table_id, e)
                applied = None
            if applied is not None and applied.new_match is not None:
                rt.view.match = {"match_id": applied.match_id, **applied.new_match}
            row = EventRow(
                table_id,
                key[0],
                seq,
                now,
                record.input,
                scores=list(record.scores),
                rejected=record.rejected,
                src=record.source,
                cmd=record.cmd or 0,
                raw=raw,
                mtype=mtype,
                applied=applied,
                action=action,
                body=host_codec.body_bytes(raw) if raw else None,
            )
            rt.view.events += 1
            if table_id in v.captures.open:  # a sensor capture runs: the event goes beside it
                ev = dict(record.input, src=record.source)
                if record.rejected is not None:
                    ev["rejected"] = record.rejected
                v.captures.event(table_id, seq, ev)
        elif isinstance(record, PocketCheck):
            # Its event row keeps the stream's place; the result goes beside it.
            check = PocketCheckRow(
                record.verdicts,
                record.reasons,
                record.break_ms,
                record.confidence,
                record.read,
                record.cmd,
                record.t,
            )
            # Not an event: outside the device's chain (host/referee/verify.py skips it).
            row = EventRow(
                table_id,
                rt.boot,
                seq,
                now,
                None,
                invalid="a pocket_check is not a device event (its result: pocket_checks)",
                raw=raw,
                mtype=mtype,
                pocket_check=check,
            )
            rt.view.sensors = {**rt.view.sensors, "checking": False, "at_ms": now}
            log.info("table %s: pocket check done: %s", table_id, record.verdicts)
        elif isinstance(record, Checkpoint):
            boot = record.boot
            v.committer.submit_checkpoint(
                CheckpointRow(
                    table_id,
                    boot,
                    seq,
                    now,
                    record.at,
                    record.head,
                    record.marks,
                    record.mac,
                    raw,
                    record.money_n,
                    record.money,
                    record.money_mac,
                )
            )
            return
        else:
            why = reason or f"a {messages.type_name(mtype)} is not a device event"
            log.warning("table %s: reliable seq %d dropped: %s", table_id, seq, printable(why))
            # A device event the host cannot use is still in the device's chain.
            body = host_codec.body_bytes(raw) if raw and mtype == messages.EVENT else None
            row = EventRow(
                table_id, rt.boot, seq, now, None, invalid=why, raw=raw, mtype=mtype, body=body
            )
        v.committer.submit_event(row)
        if isinstance(record, Event) and applied is not None:
            self._after_event(channel, record, (row.boot_id, seq), applied)
        _aside("the shadow referee's check", table_id, lambda: self._check_device_state(rt))
        v.mark(table_id)

    def _after_event(
        self, channel: TableChannel, record: Event, key: tuple[int, int], applied: Applied
    ) -> None:
        """What the handset and the club make of an event, once it is on its
        way to the store."""
        v = self.venue
        table_id = channel.table_id
        if applied.new_match is not None:
            players = applied.new_match.get("players")
            _aside(
                "the handset's names",
                table_id,
                lambda: v.handsets.on_players(table_id, channel, players),
            )
        _aside(
            "the desk's session",
            table_id,
            lambda: v.sessions.on_event(table_id, record, key, applied),
        )

    def on_message(self, channel: TableChannel, record: Record, raw: bytes) -> None:
        v = self.venue
        rt = v.runtime(channel.table_id)
        if rt.refused is not None:
            return
        if isinstance(record, State):
            rt.view.device_state = record.state
            rt.device_state_at = record.at
            self._check_device_state(rt)
            v.mark(channel.table_id)
        elif isinstance(record, Health):
            self._health(rt, channel.table_id, record)
        elif isinstance(record, Trace):
            # A sensor capture's frame: queued for the captures' own writer
            # (host/store/captures.py), which never raises here.
            fields = {f: getattr(record, f) for f in record.__dataclass_fields__}
            v.captures.trace(channel.table_id, wall_ms(), fields)
            if record.frame == 0:  # the device took the capture_request of that seq
                v.actions.check_answered(rt, record.capture, None)
        elif isinstance(record, Log):
            # Escaped: a table's text can neither forge a line nor drive a terminal.
            level = _LOG_LEVELS[record.level]
            log.log(level, "table %s says: %s", channel.table_id, printable(record.text))
        elif isinstance(record, Error):
            # A table's "not now" to an update it is asked for again every
            # few seconds until its match ends (host/venue/updates.py) is
            # no warning: the owner sees the update waiting.
            waits = record.type == host_codec.UPDATE_REQUEST and record.code == messages.ERR_REFUSED
            log.log(
                logging.DEBUG if waits else logging.WARNING,
                "table %s reports error %d: %s",
                channel.table_id,
                record.code,
                printable(record.text),
            )
            table_id = channel.table_id
            error = record  # the Error as received (record is replaced below)
            _aside("the desk's light", table_id, lambda: v.sessions.on_error(table_id, error))
            _aside("the money anchors", table_id, lambda: v.anchors.on_error(table_id, error))
            _aside("the firmware update", table_id, lambda: v.updates.on_error(table_id, error))
            # A pocket check's refusal, or else a scoring action's; a body the
            # device could not take (error 2) is refused as well, not waited for.
            refused = record.code == messages.ERR_REFUSED or record.code == messages.ERR_BODY
            if (
                record.code == messages.ERR_UNSUPPORTED
                and record.type == host_codec.CAPTURE_REQUEST
            ):
                refused = True  # a device before 1.3 (SPEC.md 11)
                record = dataclasses.replace(record, text="the table's firmware cannot capture")
            refusal = refused and record.seq is not None
            if refusal and not v.actions.check_answered(rt, record.seq or 0, record.text):
                v.actions.refused(rt, record.seq or 0, record.text)

    # ------------------------------------------------------------------ helpers
    def _health(self, rt: TableRuntime, table_id: str, h: Health) -> None:
        """The device's sensor counts: stored (each replaces the last) and
        put on the board; a check it started answers the operator's action."""
        v = self.venue
        now = wall_ms()
        v.committer.submit_health(
            HealthRow(
                table_id,
                now,
                list(h.balls),
                list(h.glitches),
                list(h.unclear),
                list(h.corrections),
                h.unplaced or 0,
                h.faulty or 0,
                h.weak or 0,
                bool(h.checking),
            )
        )
        rt.view.sensors = {
            "checking": bool(h.checking),
            "faulty": masks(h.faulty or 0),
            "weak": masks(h.weak or 0),
            "at_ms": now,
        }
        if h.checking and h.cmd:
            v.actions.check_answered(rt, h.cmd, None)
        # after an update's restart: the trial's sensors answer, so it may confirm
        _aside("the firmware update", table_id, lambda: v.updates.on_health(table_id, rt.boot))
        v.mark(table_id)

    def _check_device_state(self, rt: TableRuntime) -> None:
        key = rt.shadow.last_key
        if rt.view.device_state is None or key is None or rt.device_state_at != key[1]:
            return
        rt.shadow.compare_state(rt.view.device_state, wall_ms())
