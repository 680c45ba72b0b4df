"""The publishing side of the MQTT bridge: ``baulk run --mqtt URL``.

The host's store is the single source of what goes out.  The bridge keeps, per
table, a *cursor*: the last stored event it handed to the broker.  Whenever the
daemon says new events are durable, a pump thread reads the store after the
cursor and publishes each event (QoS 1) with the position of the one before it
(``prev``), so a board can tell a gap from a late join.  Live publishing and
catching up after an outage are the same loop:

* the broker confirms events with PUBACK; the bridge remembers the last
  confirmed position per table (``acked``).  When the connection drops, every
  cursor goes back to its ``acked`` position, and after the reconnect the pump
  publishes again everything after it, read from the store.
* after a restart of the daemon the in-memory positions are gone; on its first
  connection the bridge reads its tables' retained ``state`` messages, whose
  ``pos`` says how far the broker got, and catches up from there.
* a board that notices a gap it cannot fill asks for the events again on
  ``baulk/<venue>/<host>/<table>/replay``; the bridge rewinds that table's cursor.

Everything goes out under the host's own id, ``baulk/<venue>/<host>/…``: the
venue's ACL lets the broker user of that name publish there and nowhere else
(docs/MQTT.md).  The host's ``status`` lists every table it serves, and is
published again whenever a new table appears, before that table's messages.

Anything sent twice is dropped by the boards, by ``(table, boot_id, seq)``.

The retained board state of each table, its link status and the host's own
status (also the connection's last will) are published beside the events.
The bridge never blocks the daemon: its entry points only note what changed
and wake the pump.  A daemon without ``--mqtt`` never imports this module.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import sqlite3
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

from paho.mqtt.client import MQTTMessage

from baulk.host.mqtt import wire
from baulk.host.mqtt.connection import BridgeSettings, BrokerSession
from baulk.host.mqtt.quiet import QuietLog
from baulk.host.mqtt.wire import BridgeEvent, Position
from baulk.host.store import StoreReader

if TYPE_CHECKING:
    from baulk.host.venue.daemon import Daemon

log = logging.getLogger("baulk.mqtt.bridge")

BATCH: Final = 200  # events per table per round, so one table's catch-up never starves the rest
MAX_UNACKED: Final = 1000  # events handed to paho and not yet confirmed: bounded memory
SYNC_TIMEOUT: Final = 3.0  # s to read the broker's retained positions after the first connect
REPLAY_EVERY: Final = 2.0  # s; at most one replay per table this often
SYNC_LEAF: Final = "sync"


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class EventSource(Protocol):
    """What the bridge reads from the host's store.  Called from the pump thread only."""

    def tables(self) -> list[str]:
        """Every table with stored events."""
        ...

    def last_position(self, table: str) -> Position | None:
        """The newest stored event of ``table`` (None: it has none)."""
        ...

    def contains(self, table: str, pos: Position) -> bool: ...

    def current_match_start(self, table: str) -> Position | None:
        """The event stored just before the table's newest accepted ``match``
        event (None: the stream's start, or no match yet)."""
        ...

    def events_after(self, table: str, after: Position | None) -> Iterator[BridgeEvent]:
        """The stored events of ``table`` that came after ``after``, in the
        order the store took them in (from the first when ``after`` is None).
        Raises LookupError when ``after`` is not in the store."""
        ...


class StoreEventSource:
    """:class:`EventSource` over the daemon's SQLite store, through a
    :class:`~baulk.host.store.StoreReader` of its own (opened on the pump
    thread's first read): WAL lets it read while the daemon writes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._reader: StoreReader | None = None

    def _store(self) -> StoreReader:
        if self._reader is None:
            self._reader = StoreReader(self.path)
        return self._reader

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def tables(self) -> list[str]:
        return self._store().table_ids()

    def last_position(self, table: str) -> Position | None:
        found = self._store().last_position(table)
        return Position(*found) if found else None

    def contains(self, table: str, pos: Position) -> bool:
        return self._store().row_id(table, pos.boot, pos.seq) is not None

    def current_match_start(self, table: str) -> Position | None:
        found = self._store().before_current_match(table)
        return Position(*found) if found else None

    def events_after(self, table: str, after: Position | None) -> Iterator[BridgeEvent]:
        store = self._store()
        start = 0
        if after is not None:
            found = store.row_id(table, after.boot, after.seq)
            if found is None:
                raise LookupError(f"table {table}: event {after} is not in the store")
            start = found
        for e in store.events(table, start):
            yield BridgeEvent(
                table=table,
                pos=Position(e.boot_id, e.seq),
                rx_ms=e.rx_ms,
                ev=e.ev,
                scores=e.scores,
                rejected=e.rejected,
                invalid=e.invalid,
            )


@dataclass
class _TableOut:
    """The bridge's bookkeeping for one table."""

    started: bool = False  # cursor set (on the first connection, or when first seen after it)
    cursor: Position | None = None  # last event handed to the broker (None: from the start)
    acked: Position | None = None  # the broker has every event up to here
    events_dirty: bool = True
    board: dict[str, Any] | None = None
    board_dirty: bool = False
    state_pos: Position | None = None  # ``pos`` of the last state published
    online: bool | None = None
    last_seen_ms: int | None = None
    link_dirty: bool = False
    inflight: deque[tuple[int, Position]] = field(default_factory=deque)
    confirmed: set[int] = field(default_factory=set)
    replay_at: float = 0.0


@dataclass
class BridgeStats:
    events: int = 0
    states: int = 0
    links: int = 0
    replays: int = 0
    replays_refused: int = 0
    rewinds: int = 0
    store_errors: int = 0


class MqttBridge:
    """Publishes every table of one host to the broker.  Thread-safe entry
    points: :meth:`events_stored`, :meth:`board_changed`, :meth:`link_changed`."""

    def __init__(
        self,
        settings: BridgeSettings,
        source: EventSource,
        *,
        batch: int = BATCH,
        max_unacked: int = MAX_UNACKED,
        tables: list[str] | None = None,
    ) -> None:
        self.settings = settings
        self.venue = settings.venue
        self.host = settings.host_id
        self.source = source
        self.batch = batch
        self.max_unacked = max_unacked
        self.stats = BridgeStats()
        self._cond = threading.Condition()
        self._tables: dict[str, _TableOut] = {}
        self._mids: dict[int, str] = {}
        self._early_acks: set[int] = set()
        self._unacked = 0
        self._gen = 0  # bumped on every (re)connect
        self._synced_gen = 0
        self._stop = False
        self._first_sync_done = False
        self._broker_positions: dict[str, Position] = {}
        self._learning = False
        self._sync_nonce = ""
        self._sync_seen = threading.Event()
        self._replays: deque[tuple[str, wire.ReplayMessage]] = deque()
        self._status_dirty = False  # a table appeared after the status went out
        self._quiet = QuietLog(log)
        self._thread: threading.Thread | None = None
        for table in tables or ():
            if wire.valid_id(table):
                self._tables[table] = _TableOut()
        user = settings.options.username
        if user and user != self.host:
            log.warning(
                "mqtt bridge: host id %s logs in as user %s; the venue's ACL (docs/MQTT.md) "
                "lets user %s publish only under baulk/%s/%s/, so the broker may drop "
                "everything this host publishes",
                self.host,
                user,
                user,
                self.venue,
                user,
            )
        status = wire.host_topic(self.venue, self.host)
        # The will names the tables known now, so a board that joins while
        # this host is away still knows they are its.
        will = wire.status_payload(
            self.venue, self.host, False, "connection lost", None, sorted(self._tables)
        )
        self.session = BrokerSession(
            settings.options,
            f"baulk-host-{self.venue}-{self.host}",
            clean_session=True,
            name=f"bridge {self.venue}/{self.host}",
            will=(status, will),
            on_up=self._on_up,
            on_down=self._on_down,
            on_message=self._on_message,
            on_acked=self._on_acked,
        )

    # ------------------------------------------------------------------ life
    def start(self, timeout: float = 5.0) -> bool:
        """Connect and start the pump.  Raises BrokerRefused when the broker
        refuses us; returns False when it is not reachable yet (the bridge
        keeps trying and catches up later)."""
        self._thread = threading.Thread(target=self._run, name="baulk-mqtt-bridge", daemon=True)
        self._thread.start()
        try:
            return self.session.start(timeout)
        except Exception:
            self._halt_pump()
            raise

    def stop(self) -> None:
        """Say the host goes offline (retained), disconnect cleanly, stop the pump."""
        self._halt_pump()
        payload = wire.status_payload(
            self.venue, self.host, False, "stopped", now_ms(), sorted(self._tables)
        )
        self.session.stop(publish_offline=(wire.host_topic(self.venue, self.host), payload))
        close = getattr(self.source, "close", None)
        if callable(close):
            close()

    def _halt_pump(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=5)

    # ------------------------------------------------------------------ entry points
    def _table(self, table: str) -> _TableOut:
        rec = self._tables.get(table)
        if rec is None:
            rec = self._tables[table] = _TableOut()
            # Boards take a table from the host whose status lists it: say so
            # before its first message goes out.
            self._status_dirty = True
        return rec

    def events_stored(self, table: str) -> None:
        """New events of ``table`` are durable in the store."""
        if not wire.valid_id(table):
            return
        with self._cond:
            self._table(table).events_dirty = True
            self._cond.notify()

    def board_changed(self, table: str, board: dict[str, Any]) -> None:
        """The table's board changed; the newest one goes out retained.  A
        ``status`` key like the daemon's (``{"link": "online", "last_seen_ms": …}``)
        also drives the table's link topic."""
        if not wire.valid_id(table):
            return
        status = board.get("status")
        with self._cond:
            rec = self._table(table)
            rec.board = board
            rec.board_dirty = True
            if isinstance(status, dict):
                online = status.get("link") == "online"
                seen = status.get("last_seen_ms")
                if online != rec.online:
                    rec.online = online
                    rec.last_seen_ms = seen if isinstance(seen, int) else None
                    rec.link_dirty = True
            self._cond.notify()

    def link_changed(self, table: str, online: bool, last_seen_ms: int | None) -> None:
        if not wire.valid_id(table):
            return
        with self._cond:
            rec = self._table(table)
            rec.online = online
            rec.last_seen_ms = last_seen_ms
            rec.link_dirty = True
            self._cond.notify()

    def positions(self) -> dict[str, tuple[Position | None, Position | None]]:
        """(cursor, acked) of every table, for tests and the bench."""
        with self._cond:
            return {t: (r.cursor, r.acked) for t, r in self._tables.items()}

    def drained(self) -> bool:
        """Everything noted so far is out and confirmed."""
        with self._cond:
            return (
                self.session.connected
                and self._synced_gen == self._gen
                and self._unacked == 0
                and not self._status_dirty
                and not any(
                    r.events_dirty
                    or r.board_dirty
                    or r.link_dirty
                    or (r.board is not None and r.state_pos != r.cursor)
                    for r in self._tables.values()
                )
            )

    # ------------------------------------------------------------------ paho thread
    def _on_up(self, first: bool) -> None:
        with self._cond:
            self._gen += 1
            self._cond.notify()

    def _on_down(self) -> None:
        with self._cond:
            # Whatever was not confirmed goes out again after the reconnect.
            for rec in self._tables.values():
                if rec.cursor != rec.acked:
                    self.stats.rewinds += 1
                rec.cursor = rec.acked
                rec.inflight.clear()
                rec.confirmed.clear()
                rec.events_dirty = rec.board_dirty = rec.link_dirty = True
            self._mids.clear()
            self._early_acks.clear()
            self._unacked = 0
            self._cond.notify()

    def _on_acked(self, mid: int) -> None:
        with self._cond:
            table = self._mids.pop(mid, None)
            if table is None:
                # The ack can beat the pump's bookkeeping of its own publish.
                if len(self._early_acks) > 10_000:
                    self._early_acks.clear()
                self._early_acks.add(mid)
                return
            self._confirm(self._tables[table], mid)
            self._cond.notify()

    def _confirm(self, rec: _TableOut, mid: int) -> None:
        """With the lock held: the broker has the message ``mid``."""
        self._unacked -= 1
        rec.confirmed.add(mid)
        while rec.inflight and rec.inflight[0][0] in rec.confirmed:
            m, pos = rec.inflight.popleft()
            rec.confirmed.discard(m)
            rec.acked = pos

    def _on_message(self, msg: MQTTMessage) -> None:
        if msg.topic == self._sync_topic():
            if msg.payload.decode(errors="replace") == self._sync_nonce:
                self._sync_seen.set()
            return
        try:
            t = wire.parse_topic(msg.topic)
            if t.venue != self.venue or t.host != self.host or t.table is None:
                return  # not ours: another host's, or our own status
            if t.leaf == wire.STATE and self._learning and msg.retain and msg.payload:
                state = wire.parse_state(t, bytes(msg.payload))
                if state.pos is not None:
                    self._broker_positions[state.table] = state.pos
            elif t.leaf == wire.REPLAY:
                req = wire.parse_replay(bytes(msg.payload))
                with self._cond:
                    if t.table in self._tables and len(self._replays) < 1000:
                        self._replays.append((t.table, req))
                        self._cond.notify()
        except wire.Malformed as e:
            self._quiet.warn(msg.topic, f"skipped a message on {msg.topic[:200]}: {e}")
        except Exception as e:  # whatever it holds: a line, never a traceback
            why = f"could not be read ({type(e).__name__}: {str(e)[:100]})"
            self._quiet.warn(msg.topic, f"skipped a message on {msg.topic[:200]}: {why}")

    def _sync_topic(self) -> str:
        # Outside baulk/ on purpose: boards never see the marker.
        return f"baulk-sync/{self.venue}/{self.host}"

    # ------------------------------------------------------------------ pump thread
    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stop and not self._work_waiting():
                    self._cond.wait(1.0)
                if self._stop:
                    return
            try:
                self._round()
            except sqlite3.Error as e:
                self.stats.store_errors += 1
                log.error("mqtt bridge: reading the store failed (%s); retrying in 1 s", e)
                time.sleep(1.0)
            except Exception:
                log.exception("mqtt bridge: unexpected error; retrying in 1 s")
                time.sleep(1.0)

    def _work_waiting(self) -> bool:
        if not self.session.connected:
            return False
        if self._synced_gen != self._gen or self._replays or self._status_dirty:
            return True
        if self._unacked >= self.max_unacked:
            return False
        return any(r.events_dirty or r.board_dirty or r.link_dirty for r in self._tables.values())

    def _round(self) -> None:
        with self._cond:
            gen = self._gen
            need_sync = self._synced_gen != gen
        if need_sync:
            self._sync(gen)
        self._serve_replays()
        with self._cond:
            names = sorted(self._tables)
            status_dirty = self._status_dirty
        if status_dirty:
            self._publish_status(names)
        for table in names:
            if not self.session.connected:
                return
            self._pump_table(table)

    def _sync(self, gen: int) -> None:
        """After a (re)connect: learn positions (first time), say we are online."""
        if not self._first_sync_done:
            self._learn_broker_positions()
            for t in self.source.tables():
                with self._cond:
                    self._table(t)
            self._first_sync_done = True
        with self._cond:
            for t, rec in self._tables.items():
                if not rec.started:
                    self._start_cursor(t, rec)
                rec.events_dirty = rec.board_dirty = rec.link_dirty = True
            tables = sorted(self._tables)
        self._publish_status(tables)
        self.session.subscribe([wire.table_topic(self.venue, self.host, "+", wire.REPLAY)])
        with self._cond:
            if self._gen == gen:
                self._synced_gen = gen

    def _publish_status(self, tables: list[str]) -> None:
        with self._cond:
            self._status_dirty = False
        status = wire.status_payload(self.venue, self.host, True, "online", now_ms(), tables)
        topic = wire.host_topic(self.venue, self.host)
        if self.session.publish(topic, status, retain=True) is None:
            with self._cond:
                self._status_dirty = True

    def _start_cursor(self, table: str, rec: _TableOut) -> None:
        """Where a table's stream starts on this broker (called with the lock held)."""
        pos = self._broker_positions.get(table)
        if pos is not None and self.source.contains(table, pos):
            start: Position | None = pos
        else:
            # Never on this broker (or not from this store): the current match
            # goes out whole, older matches stay in the host's reports.
            start = self.source.current_match_start(table)
        rec.cursor = rec.acked = start
        rec.started = True

    def _learn_broker_positions(self) -> None:
        """Read the retained ``state`` of every table of the venue: its ``pos``
        says how far the broker got before this process started."""
        states = wire.table_topic(self.venue, self.host, "+", wire.STATE)
        marker = self._sync_topic()
        self._sync_nonce = uuid.uuid4().hex
        self._sync_seen.clear()
        self._learning = True
        self.session.subscribe([states, marker])
        # Retained messages are queued to us when we subscribe, before the
        # broker routes our own later publish back: the marker comes last.
        self.session.client.publish(marker, self._sync_nonce, qos=1)
        if not self._sync_seen.wait(SYNC_TIMEOUT):
            log.warning("mqtt bridge: the broker did not echo the sync marker; starting anyway")
        self._learning = False
        self.session.unsubscribe([states, marker])
        if self._broker_positions:
            log.info(
                "mqtt bridge: the broker holds %d tables' positions",
                len(self._broker_positions),
            )

    def _serve_replays(self) -> None:
        while True:
            with self._cond:
                if not self._replays:
                    return
                table, req = self._replays.popleft()
            with self._cond:
                rec = self._tables.get(table)
                if rec is None or not rec.started:
                    continue
                if time.monotonic() - rec.replay_at < REPLAY_EVERY:
                    self.stats.replays_refused += 1
                    continue
            if not self.source.contains(table, req.after):
                self.stats.replays_refused += 1
                log.warning(
                    "table %s: %s asked for the events after %s, which this host's store "
                    "does not hold; ignored",
                    table,
                    req.by,
                    req.after,
                )
                continue
            with self._cond:
                rec.cursor = req.after
                rec.events_dirty = True
                rec.replay_at = time.monotonic()
                self.stats.replays += 1
            log.info("table %s: replaying the events after %s for %s", table, req.after, req.by)

    def _pump_table(self, table: str) -> None:
        with self._cond:
            rec = self._tables[table]
            if not rec.started:
                self._start_cursor(table, rec)
            events_dirty = rec.events_dirty
            rec.events_dirty = False
            cursor = rec.cursor
        if events_dirty:
            try:
                done = self._publish_events(table, cursor)
            except BaseException:
                with self._cond:
                    rec.events_dirty = True  # the store failed: try again next round
                raise
            if not done:
                with self._cond:
                    rec.events_dirty = True
                return  # the board waits until its events are out
        with self._cond:
            # A state goes out when the board changed, and also when events went
            # out after it: its ``pos`` must reach the newest event published.
            stale = rec.state_pos != rec.cursor
            board = rec.board if (rec.board_dirty or stale) else None
            rec.board_dirty = False
            link = (
                (rec.online, rec.last_seen_ms)
                if rec.link_dirty and rec.online is not None
                else None
            )
            rec.link_dirty = False
            pos = rec.cursor
        now = now_ms()
        if link is not None:
            payload = wire.link_payload(self.venue, self.host, table, link[0], link[1], now)
            if (
                self.session.publish(
                    wire.table_topic(self.venue, self.host, table, wire.LINK), payload, retain=True
                )
                is None
            ):
                self._redo(table, link=True)
            else:
                self.stats.links += 1
        if board is not None:
            payload = wire.state_payload(self.venue, self.host, table, pos, now, board)
            if (
                self.session.publish(
                    wire.table_topic(self.venue, self.host, table, wire.STATE),
                    payload,
                    retain=True,
                )
                is None
            ):
                self._redo(table, board=True)
            else:
                self.stats.states += 1
                with self._cond:
                    rec.state_pos = pos

    def _redo(self, table: str, board: bool = False, link: bool = False) -> None:
        with self._cond:
            rec = self._tables[table]
            rec.board_dirty |= board
            rec.link_dirty |= link

    def _publish_events(self, table: str, cursor: Position | None) -> bool:
        """Publish up to ``batch`` events after ``cursor``; True when none are left."""
        try:
            stored = self.source.events_after(table, cursor)
            chunk = list(itertools.islice(stored, self.batch + 1))
        except LookupError as why:
            log.error("mqtt bridge: %s; going on from the newest stored event", why)
            with self._cond:
                rec = self._tables[table]
                rec.cursor = rec.acked = self.source.last_position(table)
            return True
        topic = wire.table_topic(self.venue, self.host, table, wire.EVENTS)
        prev = cursor
        for e in chunk[: self.batch]:
            with self._cond:
                if self._unacked >= self.max_unacked:
                    return False
                if self._tables[table].cursor != prev:
                    return False  # rewound meanwhile (reconnect or replay): start again
            # Never call paho with our lock held: paho runs on_publish under its
            # own lock, and _on_acked takes ours.
            mid = self.session.publish(topic, wire.event_payload(self.venue, self.host, e, prev))
            if mid is None:
                return False
            with self._cond:
                rec = self._tables[table]
                if rec.cursor != prev:
                    return False
                rec.cursor = e.pos
                self._unacked += 1
                rec.inflight.append((mid, e.pos))
                if mid in self._early_acks:
                    self._early_acks.discard(mid)
                    self._confirm(rec, mid)
                else:
                    self._mids[mid] = table
            prev = e.pos
            self.stats.events += 1
        return len(chunk) <= self.batch


# --------------------------------------------------------------------------- daemon glue


class AttachedBridge:
    """A bridge wired into a running :class:`~baulk.host.venue.daemon.Daemon`."""

    def __init__(self, bridge: MqttBridge, feed: asyncio.Task[None]) -> None:
        self.bridge = bridge
        self._feed = feed

    async def close(self) -> None:
        self._feed.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._feed
        await asyncio.get_running_loop().run_in_executor(None, self.bridge.stop)


async def attach_bridge(daemon: Daemon, settings: BridgeSettings) -> AttachedBridge:
    """Publish ``daemon``'s tables to the broker of ``settings``.

    Call it after ``daemon.start()``.  Raises BrokerRefused (wrong password,
    untrusted TLS certificate): ``baulk run`` prints it and exits non-zero.
    A broker that is not reachable is not an error: the bridge keeps trying
    and catches up from the store once it is.
    """
    bridge = MqttBridge(
        settings, StoreEventSource(daemon.config.store_path), tables=daemon.table_ids()
    )
    committer = daemon.committer
    inner = committer.on_durable

    def on_durable(table_id: str, seq: int) -> None:
        inner(table_id, seq)
        bridge.events_stored(table_id)

    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, bridge.start)
    committer.on_durable = on_durable
    sub = daemon.hub.subscribe(None)

    async def feed() -> None:
        try:
            while True:
                for message in await sub.take():
                    data = json.loads(message)
                    if data.get("type") == "board":
                        bridge.board_changed(str(data["table"]), data["board"])
        finally:
            daemon.hub.unsubscribe(sub)
            committer.on_durable = inner

    task = loop.create_task(feed(), name="mqtt-bridge-feed")
    # Events stored before the hook was in place go out with the first round.
    for table_id in daemon.table_ids():
        bridge.events_stored(table_id)
    return AttachedBridge(bridge, task)
