"""The venue daemon: every table of the venue at run time — its serial link,
its shadow referee and board — and the store they feed.  ``baulk run`` and
``baulk demo`` start one; the web app and the MQTT bridge are attached to it
from outside (host/web/app.py ``serve``, host/mqtt/bridge.py).

The flow of one pot: the device's event frame arrives on a
:class:`~baulk.host.link.channel.TableChannel`; the device handler
(host/venue/devices.py) has the shadow referee replay it and marks the board; the
event and what it made (match, frames, breaks) go to the group committer;
once the commit is on the disk the channel acks the device.  Operator actions
go the other way (host/venue/actions.py): stored first, then sent, each exactly once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from baulk.host import config as config_mod
from baulk.host.club.sessions import TableSessions
from baulk.host.handset.sync import Handsets
from baulk.host.link.channel import TableChannel, wall_ms
from baulk.host.link.port import PortFinder, fixed_path
from baulk.host.referee.shadow import ShadowReferee
from baulk.host.release import bundle
from baulk.host.sentences import Message
from baulk.host.staff import activity, takings
from baulk.host.staff.takings import Keys
from baulk.host.store import GroupCommitter, LinkRow, Store, StoreReader, sensor_queries
from baulk.host.store.captures import CaptureStore
from baulk.host.venue.actions import OperatorActions
from baulk.host.venue.anchors import MoneyAnchors
from baulk.host.venue.devices import DeviceHandler
from baulk.host.venue.live import LiveHub, TableView
from baulk.host.venue.tables import TableRuntime
from baulk.host.venue.updates import NO_RELEASE, Job, Updates
from baulk.protocol.host_codec import Anchor, Light

log = logging.getLogger("baulk.daemon")

AUTODETECT_EVERY_S = 2.0
MAX_LEFT_OUT = 20
PUBLISH_GAP_S = 0.005
DEFAULT_BAUD = 115200


class Daemon:
    """Every table of the venue: links, store, shadow referees, live boards."""

    def __init__(
        self,
        config: config_mod.Config,
        locators: dict[str, Callable[[], str | None]] | None = None,
        finder: PortFinder | None = None,
    ) -> None:
        self.config = config
        self.locators = dict(locators or {})
        self.finder = finder or PortFinder(config.usb_ids)
        self.store = Store(config.store_path)
        self.reader = StoreReader(config.store_path)
        self.hub = LiveHub()
        self.tables: dict[str, TableRuntime] = {}
        # Each handler sees the part of the daemon it needs (its Venue protocol).
        self.devices = DeviceHandler(self)
        self.actions = OperatorActions(self)
        # Each table's handset language, and the players' names drawn for it.
        self.handsets = Handsets(config)
        self.sessions = TableSessions(self, config.billing)  # table sessions, bills, the light
        self.committer = GroupCommitter(
            self.store,
            self._durable,
            self._store_health,
            on_command=self.actions.stored,
            on_alert=self._store_alert,
        )
        # The money chain's newest head to the tables, to sign (host/venue/anchors.py).
        self.anchors = MoneyAnchors(self)
        self.committer.on_money = self.anchors.written
        # What the store left out of the tables' events (host/store/edges.py),
        # the newest last: the events are stored, their projections are not.
        self.left_out: deque[dict[str, Any]] = deque(maxlen=MAX_LEFT_OUT)
        # The tables' sensor captures: written by a thread of their own, off the score path.
        self.captures = CaptureStore(config.store_path)
        # Firmware pushed to the tables over their links (host/venue/updates.py),
        # each release tagged under its table's device key.
        self.updates = Updates(self._channel_of, self._device_key, self.mark, self._update_ended)
        self._releases: dict[str, tuple[tuple[Any, ...], bundle.Bundle | None]] = {}
        self._keys = (
            takings.keys_from(None, True) if config.verify_sim_key else Keys(config.verify_keys)
        )
        self.left_out_count = 0
        self._dirty: set[str] = set()
        self._publish_armed = False
        self._last_publish = 0.0
        self._tasks: list[asyncio.Task[None]] = []

    # ------------------------------------------------------------------ start and stop
    async def start(self) -> None:
        self.committer.start()
        self._restore()
        self.sessions.restore()
        self.sessions.start()
        for t in self.config.tables:
            locate = self.locators.get(t.id)
            if t.port is not None:
                where = f"port {t.port}"
                locate = locate or fixed_path(t.port)
            else:
                where = f"the USB device with serial number {t.serial_number}"
                locate = locate or self._by_serial(t.serial_number or "")
            self._open_channel(t.id, t.name, locate, t.baud, where)
            if locate() is None:
                log.warning(
                    "table %s (%s): %s is not present; its board says it is waiting for the "
                    "table controller until it appears",
                    t.id,
                    t.name,
                    where,
                )
        for table_id, locate in self.locators.items():
            if table_id not in self.tables or self.tables[table_id].channel is None:
                self._open_channel(table_id, table_id, locate, DEFAULT_BAUD, "its port")
        if self.config.autodetect:
            self._tasks.append(asyncio.get_running_loop().create_task(self._autodetect()))
        for table_id in self.tables:
            self.mark(table_id)

    async def stop(self) -> None:
        await self.sessions.stop()
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for rt in self.tables.values():
            if rt.channel is not None:
                await rt.channel.stop()
        await self.committer.close()
        self.captures.close()
        if not self.committer.writer_busy:  # a commit stuck on the disk keeps its connection
            self.store.close()
        self.reader.close()

    def _by_serial(self, serial_number: str) -> Callable[[], str | None]:
        return lambda: self.finder.by_serial(serial_number)

    def runtime(self, table_id: str, name: str | None = None) -> TableRuntime:
        """The table's runtime, made on first use."""
        rt = self.tables.get(table_id)
        if rt is None:
            cfg = self.config.table(table_id)
            label = name or (cfg.name if cfg else table_id)
            rt = TableRuntime(TableView(table_id, label), ShadowReferee(table_id))
            # None: the table has no tariff, so no sessions (its board cannot say free)
            billed = self.config.billing.tariff_for(table_id) is not None
            rt.view.session_open = False if billed else None
            self.tables[table_id] = rt
        elif name is not None:
            rt.view.name = name
        return rt

    def _open_channel(
        self,
        table_id: str,
        name: str,
        locate: Callable[[], str | None],
        baud: int,
        where: str,
    ) -> TableChannel:
        rt = self.runtime(table_id, name)
        channel = TableChannel(
            table_id,
            locate,
            self.devices,
            baud=baud,
            delivered=self.reader.delivered(table_id),
            where=where,
        )
        rt.channel = channel
        rt.view.status = channel.status()
        self.committer.submit_link(LinkRow(table_id, name=name))
        self.actions.restore(rt, table_id)
        channel.start()
        return channel

    def _restore(self) -> None:
        """Boards as the store left them: each table's events since its last
        match, replayed through the shadow referee."""
        for row in self.reader.link_rows():
            table_id = row["table_id"]
            rt = self.runtime(table_id, row["name"])
            rt.boot = row["boot_id"] or 0
            rt.view.status = {
                "link": "offline",
                "state": "offline",
                "reason": "daemon started; not connected yet",
                "last_seen_ms": row["last_seen_ms"],
            }
            n = 0
            for e in self.reader.events_since_last_match(table_id):
                if e.ev is None:
                    continue
                key = (e.boot_id, e.seq)
                a = rt.shadow.apply(e.ev, key, e.scores, e.rejected, e.rx_ms, e.src)
                if a.new_match is not None:
                    rt.view.match = {"match_id": a.match_id, **a.new_match}
                n += 1
            rt.view.events = self.reader.event_count(table_id)
            rt.view.sensors = sensor_queries.board_sensors(self.reader.db, table_id)
            if rt.view.match is not None:
                fixed = self.reader.name_fix(str(rt.view.match["match_id"]))
                if fixed is not None:
                    rt.view.names_fix = {"match_id": rt.view.match["match_id"], "players": fixed}
            log.info("table %s: restored from the store (%d events replayed)", table_id, n)

    async def _autodetect(self) -> None:
        """Hot-plug: a table controller that appears on USB gets a channel."""
        claimed = {t.serial_number for t in self.config.tables if t.serial_number}
        claimed_paths = {t.port for t in self.config.tables if t.port}
        while True:
            for p in self.finder.controllers():
                if p.serial_number in claimed or p.device in claimed_paths:
                    continue
                table_id = f"usb-{p.serial_number or Path(p.device).name}"
                if table_id in self.tables and self.tables[table_id].channel is not None:
                    continue
                log.info("auto-detected a table controller on %s (%s)", p.device, table_id)
                if p.serial_number:
                    locate = self._by_serial(p.serial_number)
                    where = f"the USB device with serial number {p.serial_number}"
                else:
                    locate = fixed_path(p.device)
                    where = f"port {p.device}"
                self._open_channel(table_id, table_id, locate, DEFAULT_BAUD, where)
                self.mark(table_id)
            await asyncio.sleep(AUTODETECT_EVERY_S)

    # ------------------------------------------------------------------ publishing
    def mark(self, table_id: str) -> None:
        """The table's board changed: publish it soon."""
        self._dirty.add(table_id)
        if not self._publish_armed:
            self._publish_armed = True
            loop = asyncio.get_running_loop()
            wait = self._last_publish + PUBLISH_GAP_S - loop.time()
            if wait > 0:
                loop.call_later(wait, self._publish)
            else:
                loop.call_soon(self._publish)

    def _publish(self) -> None:
        # At most one round of boards per PUBLISH_GAP_S: a burst of events
        # (a table catching up after an unplug) costs one board, not hundreds.
        self._publish_armed = False
        self._last_publish = asyncio.get_running_loop().time()
        dirty, self._dirty = self._dirty, set()
        for table_id in dirty:
            rt = self.tables[table_id]
            view = rt.view
            shadow = rt.shadow
            if shadow.in_context:
                view.shadow_state = shadow.state()
                current = shadow.last_key is not None and rt.device_state_at == shadow.last_key[1]
                if not current:
                    view.device_state = None
            view.extras = shadow.board_extras()
            if rt.channel is not None:
                view.status = self.devices.status(rt, rt.channel)
            self.hub.publish(table_id, view.board())

    def store_status(self) -> dict[str, Any]:
        """{"ok": true}, or why the store cannot commit and since when; with
        ``left_out`` when it stored events without what they made (run
        ``baulk rebuild``), the newest of them in ``latest``."""
        c = self.committer
        status: dict[str, Any] = {"ok": True}
        if c.failing is not None:
            status = {"ok": False, "error": c.failing, "since_ms": c.failing_since_ms}
        if self.left_out:
            status.update(left_out=self.left_out_count, latest=self.left_out[-1])
        return status

    def _store_alert(self, table_id: str, seq: int, text: str) -> None:
        self.left_out_count += 1
        self.left_out.append({"table": table_id, "seq": seq, "text": text, "at_ms": wall_ms()})
        for t, rt in self.tables.items():
            rt.view.store = self.store_status()
            self.mark(t)

    def _store_health(self, failing: str | None) -> None:
        # Every board says the store is failing (its scores are still the
        # devices' own; only the record is behind), and says when it is back.
        for table_id, rt in self.tables.items():
            rt.view.store = self.store_status()
            self.mark(table_id)

    def _durable(self, table_id: str, seq: int) -> None:
        rt = self.tables.get(table_id)
        if rt is not None and rt.channel is not None:
            rt.channel.durable(seq)
            self.actions.durable(rt, seq)

    # ------------------------------------------------------------------ queries
    def table_ids(self) -> list[str]:
        return sorted(self.tables)

    def board(self, table_id: str) -> dict[str, Any] | None:
        return self.hub.boards.get(table_id)

    # The club's sessions reach the tables through these (club/sessions.py, Venue).
    def table_name(self, table_id: str) -> str:
        rt = self.tables.get(table_id)
        return rt.view.name if rt is not None else table_id

    def link_of(self, table_id: str) -> str:
        rt = self.tables.get(table_id)
        return str(rt.view.status.get("link", "offline")) if rt is not None else "offline"

    def session_changed(self, table_id: str, is_open: bool) -> None:
        rt = self.tables.get(table_id)
        if rt is not None and rt.view.session_open != is_open:
            rt.view.session_open = is_open
            self.mark(table_id)

    def board_of(self, table_id: str) -> str:
        t = self.config.table(table_id)
        return t.board if t is not None else "pico"  # found by USB alone: a Pico

    def release_for(self, board: str) -> bundle.Bundle | None:
        """The newest release for ``board`` in [firmware] releases.  Each
        bundle file is read and checked whole once, then again only when the
        folder's files change (names, sizes, times): the owner's page asks
        every second while an update runs."""
        folder = self.config.firmware_releases
        if folder is None:
            return None
        try:
            seen = tuple(
                (p.name, st.st_size, st.st_mtime_ns)
                for p in sorted(folder.glob(f"baulk-*-{board}{bundle.SUFFIX}"))
                for st in (p.stat(),)
            )
        except OSError:
            return None
        cached = self._releases.get(board)
        if cached is None or cached[0] != seen:
            cached = (seen, bundle.newest(folder, board))
            self._releases[board] = cached
        return cached[1]

    def start_update(self, table_id: str, who: str | None) -> Message | None:
        """Update a table over its link to the newest release for its board:
        None, or why not (nothing is sent then)."""
        board = self.board_of(table_id)
        release = self.release_for(board)
        if release is None:
            return NO_RELEASE.but(board=board)
        return self.updates.start(table_id, release, who)

    def _update_ended(self, job: Job) -> None:
        """A table's update ended: a row of the activity log, the table's own."""
        entry = activity.Entry(
            self.sessions.clock.now(), None, None, None, None,
            activity.FIRMWARE_ENDS[job.phase], f"table {job.table_id}: firmware {job.version}",
            job.table_id, None, "done" if job.phase == "confirmed" else "refused", job.reason,
        )  # fmt: skip
        try:
            self.committer.submit(entry.write())
        except Exception:  # the log never stops an update
            log.exception("the activity log could not take a table's update")

    def _channel_of(self, table_id: str) -> TableChannel | None:
        rt = self.tables.get(table_id)
        return None if rt is None else rt.channel

    def _device_key(self, table_id: str) -> bytes | None:
        return self._keys.key_for(table_id)

    def send_to_table(self, table_id: str, record: Light | Anchor) -> int | None:
        rt = self.tables.get(table_id)
        if rt is None or rt.channel is None:
            return None
        return rt.channel.send(record)

    def acked_by_table(self, table_id: str) -> int | None:
        rt = self.tables.get(table_id)
        if rt is None or rt.channel is None:
            return None
        base: int = rt.channel.session.sender.base
        return base - 1
