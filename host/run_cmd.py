"""``baulk run`` and ``baulk rebuild``, and the :class:`Daemon` they share with
``baulk demo``: serial links in, store and live boards out, one process for
every table of the venue.

The flow of one pot: the device's event frame arrives on a
:class:`~baulk.host.link.TableChannel`; the shadow referee replays it and the
board is published at once; the event and what it made (match, frames,
breaks) go to the group committer; once the commit is on the disk the channel
acks the device.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from baulk.host import config as config_mod
from baulk.host.handset import Handsets
from baulk.host.link import PortFinder, TableChannel, fixed_path, wall_ms
from baulk.host.live import LiveHub, TableView
from baulk.host.shadow import ShadowReferee
from baulk.host.store import (
    CommandRow,
    EventRow,
    GroupCommitter,
    LinkRow,
    RawRow,
    Store,
    StoreError,
    StoreReader,
)
from baulk.protocol import host_catalogue, messages

if TYPE_CHECKING:
    from baulk.host.mqtt_connection import BridgeSettings

log = logging.getLogger("baulk.daemon")

AUTODETECT_EVERY_S = 2.0
COMMAND_WAIT_S = 2.0
PUBLISH_GAP_S = 0.005


class ActionError(Exception):
    """An operator action that cannot be carried out (HTTP status and text)."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.text = text


@dataclass
class TableRuntime:
    view: TableView
    shadow: ShadowReferee
    channel: TableChannel | None = None
    device_state_at: int = -1
    boot: int = 0
    refused: str | None = None  # why the device on this table's port is not heard
    refused_events: int = 0
    skipped_from: int = 0  # the first seq of the device stream refused, not stored
    waiting: dict[int, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)


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
        self.committer = GroupCommitter(self.store, self._durable)
        self.hub = LiveHub()
        self.tables: dict[str, TableRuntime] = {}
        self._dirty: set[str] = set()
        self._publish_armed = False
        self._last_publish = 0.0
        self._tasks: list[asyncio.Task[None]] = []
        self.web: Any = None  # the aiohttp runner, when serving
        self.url: str | None = None
        # Handset hook (host/handset.py): each table's handset language and the
        # players' names drawn for it.  Used in on_hello and on_delivery below.
        self.handsets = Handsets(config)

    # ------------------------------------------------------------------ start and stop
    async def start(self, serve: bool = True) -> None:
        self.committer.start()
        self._restore()
        for t in self.config.tables:
            locate = self.locators.get(t.id)
            if locate is None:
                if t.port is not None:
                    locate = fixed_path(t.port)
                else:
                    serial_number = t.serial_number or ""
                    locate = self._by_serial(serial_number)
            self._open_channel(t.id, t.name, locate, t.baud)
        for table_id, locate in self.locators.items():
            if table_id not in self.tables or self.tables[table_id].channel is None:
                self._open_channel(table_id, table_id, locate, 115200)
        if self.config.autodetect:
            self._tasks.append(asyncio.get_running_loop().create_task(self._autodetect()))
        for table_id in self.tables:
            self._mark(table_id)
        if serve:
            from baulk.host.web.app import serve as serve_web

            self.web, self.url = await serve_web(self, self.config.bind, self.config.port)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for rt in self.tables.values():
            if rt.channel is not None:
                await rt.channel.stop()
        if self.web is not None:
            await self.web.cleanup()
            self.web = None
        await self.committer.close()
        self.store.close()
        self.reader.close()

    def _by_serial(self, serial_number: str) -> Callable[[], str | None]:
        return lambda: self.finder.by_serial(serial_number)

    def _runtime(self, table_id: str, name: str | None = None) -> TableRuntime:
        rt = self.tables.get(table_id)
        if rt is None:
            cfg = self.config.table(table_id)
            label = name or (cfg.name if cfg else table_id)
            rt = TableRuntime(TableView(table_id, label), ShadowReferee(table_id))
            self.tables[table_id] = rt
        elif name is not None:
            rt.view.name = name
        return rt

    def _open_channel(
        self, table_id: str, name: str, locate: Callable[[], str | None], baud: int
    ) -> TableChannel:
        rt = self._runtime(table_id, name)
        # Read through the reader's own connection: the writer thread owns the store's.
        channel = TableChannel(
            table_id,
            locate,
            self,
            baud=baud,
            delivered=self.reader.delivered(table_id),
        )
        rt.channel = channel
        rt.view.status = channel.status()
        self.committer.submit_link(LinkRow(table_id, name=name))
        channel.start()
        return channel

    def _restore(self) -> None:
        """Boards as the store left them: each table's events since its last
        match, replayed through the shadow referee."""
        for row in self.store.link_rows():
            table_id = row["table_id"]
            rt = self._runtime(table_id, row["name"])
            rt.boot = row["boot_id"] or 0
            rt.view.status = {
                "link": "offline",
                "state": "offline",
                "reason": "daemon started; not connected yet",
                "last_seen_ms": row["last_seen_ms"],
            }
            n = 0
            for e in self.store.events_since_last_match(table_id):
                if e.ev is None:
                    continue
                a = rt.shadow.apply(e.ev, (e.boot_id, e.seq), e.scores, e.rejected, e.rx_ms)
                if a.new_match is not None:
                    rt.view.match = {"match_id": a.match_id, **a.new_match}
                n += 1
            rt.view.events = self.reader.event_count(table_id)
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
                else:
                    locate = fixed_path(p.device)
                self._open_channel(table_id, table_id, locate, 115200)
                self._mark(table_id)
            await asyncio.sleep(AUTODETECT_EVERY_S)

    # ------------------------------------------------------------------ publishing
    def _mark(self, table_id: str) -> None:
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
                view.status = self._status(rt, rt.channel)
            self.hub.publish(table_id, view.board())

    # ------------------------------------------------------------------ ChannelHandler
    def _status(self, rt: TableRuntime, channel: TableChannel) -> dict[str, Any]:
        status = channel.status()
        if rt.refused is not None:
            status.update(link="offline", state="refused", reason=rt.refused)
        return status

    def _check_identity(
        self, rt: TableRuntime, channel: TableChannel, hello: dict[Any, Any]
    ) -> None:
        """A configured table's port must carry that table's device: events
        from another table's controller would be stored under the wrong id."""
        claimed = hello.get(1)
        if self.config.table(channel.table_id) is None or claimed in (None, channel.table_id):
            rt.refused = None
            return
        rt.refused = (
            f"the device on {channel.path} says it is table {str(claimed)[:32]!r}, not "
            f"{channel.table_id!r}: its events are refused; fix the config or the device's "
            "table id"
        )
        log.error("table %s: %s", channel.table_id, rt.refused)

    def on_status(self, channel: TableChannel) -> None:
        rt = self._runtime(channel.table_id)
        rt.view.status = self._status(rt, channel)
        self.committer.submit_link(LinkRow(channel.table_id, last_seen_ms=channel.last_seen_ms))
        self._mark(channel.table_id)

    def on_hello(self, channel: TableChannel, hello: dict[Any, Any], raw: bytes) -> None:
        rt = self._runtime(channel.table_id)
        if rt.skipped_from:
            # Refused events left the channel's stream without reaching the
            # store.  Whichever device this is, its stream is taken again from
            # there: numbers it shares with the refused events are not repeats.
            channel.retake(rt.skipped_from - 1)
            rt.skipped_from = 0
        self._check_identity(rt, channel, hello)
        if rt.refused is not None:
            rt.view.status = self._status(rt, channel)
            self._mark(channel.table_id)
            return
        rt.boot = int(hello.get(2, 0))
        log.info(
            "table %s: device %s (firmware %s, boot %d) online; it holds seq %d..%d",
            channel.table_id,
            hello.get(1),
            hello.get(0),
            rt.boot,
            hello.get(4, 0),
            hello.get(3, 0),
        )
        now = wall_ms()
        if raw:
            self.committer.submit_raw(RawRow(channel.table_id, now, messages.HELLO, 0, raw))
        self.committer.submit_link(
            LinkRow(
                channel.table_id,
                boot_id=rt.boot,
                device_table=str(hello.get(1)),
                firmware=str(hello.get(0)),
                last_seen_ms=now,
            )
        )
        rt.view.status = self._status(rt, channel)
        self._mark(channel.table_id)
        # Handset hook: the language, and the names of the match it plays.
        self.handsets.on_hello(channel.table_id, channel, rt.shadow.engine.players)

    def on_delivery(
        self,
        channel: TableChannel,
        what: str,
        mtype: int,
        seq: int,
        body: Any,
        raw: bytes | None,
    ) -> None:
        table_id = channel.table_id
        rt = self._runtime(table_id)
        if rt.refused is not None:  # neither stored nor acked: the device keeps them
            rt.refused_events += 1
            if not rt.skipped_from:
                rt.skipped_from = seq
            return
        now = wall_ms()
        if what == "deliver" and mtype == messages.EVENT:
            ev = messages.wire_to_event(body)
            scores, rejected, boot, src, cmd = messages.event_result(body)
            key = (int(boot or rt.boot), seq)
            applied = rt.shadow.apply(ev, key, scores, rejected, now)
            if applied.new_match is not None:
                rt.view.match = {"match_id": applied.match_id, **applied.new_match}
                # Handset hook: a new match, its players' names drawn for the handset.
                self.handsets.on_players(table_id, channel, applied.new_match.get("players"))
            row = EventRow(
                table_id,
                key[0],
                seq,
                now,
                ev,
                scores=list(scores) if scores is not None else None,
                rejected=rejected,
                src=src,
                cmd=cmd,
                raw=raw,
                mtype=mtype,
                applied=applied,
            )
            rt.view.events += 1
            if cmd and cmd in rt.waiting:
                fut = rt.waiting.pop(cmd)
                if not fut.done():
                    fut.set_result({"rejected": rejected, "scores": scores, "seq": seq})
        else:
            reason = body if isinstance(body, str) else f"message type {mtype} is not known here"
            log.warning("table %s: reliable seq %d dropped: %s", table_id, seq, reason)
            row = EventRow(table_id, rt.boot, seq, now, None, invalid=reason, raw=raw, mtype=mtype)
        self.committer.submit_event(row)
        self._check_device_state(rt)
        self._mark(table_id)

    def on_message(
        self, channel: TableChannel, mtype: int, body: dict[Any, Any], raw: bytes
    ) -> None:
        rt = self._runtime(channel.table_id)
        if rt.refused is not None:
            return
        if mtype == messages.STATE:
            at, st = host_catalogue.wire_to_state(body)
            rt.view.device_state = st
            rt.device_state_at = int(at)
            self._check_device_state(rt)
            self._mark(channel.table_id)
        elif mtype == messages.LOG:
            level = (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR)[body[0]]
            log.log(level, "table %s says: %s", channel.table_id, body[1])
        elif mtype == messages.ERROR:
            log.warning("table %s reports error %d: %s", channel.table_id, body[0], body[1])
            seq = body.get(3)
            if body[0] == messages.ERR_REFUSED and isinstance(seq, int) and seq in rt.waiting:
                fut = rt.waiting.pop(seq)
                if not fut.done():
                    fut.set_result({"rejected": body[1], "scores": None, "seq": None})

    def _check_device_state(self, rt: TableRuntime) -> None:
        key = rt.shadow.last_key
        if rt.view.device_state is None or key is None or rt.device_state_at != key[1]:
            return
        rt.shadow.compare_state(rt.view.device_state, wall_ms())

    def _durable(self, table_id: str, seq: int) -> None:
        rt = self.tables.get(table_id)
        if rt is not None and rt.channel is not None:
            rt.channel.durable(seq)

    # ------------------------------------------------------------------ operator actions
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
        return await self._forward(table_id, messages.SETUP_MATCH, body, who)

    async def command(
        self, table_id: str, ev: dict[str, Any], who: str | None = None
    ) -> dict[str, Any]:
        body = messages.event_to_wire(ev)
        if who:
            body[-1] = who[:48]
        return await self._forward(table_id, messages.COMMAND, body, who)

    async def _forward(
        self, table_id: str, mtype: int, body: dict[Any, Any], who: str | None
    ) -> dict[str, Any]:
        rt = self.tables.get(table_id)
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
        self.committer.submit_command(
            CommandRow(table_id, seq, mtype, _jsonable(body), who, wall_ms())
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

    # ------------------------------------------------------------------ queries
    def table_ids(self) -> list[str]:
        return sorted(self.tables)

    def board(self, table_id: str) -> dict[str, Any] | None:
        return self.hub.boards.get(table_id)


def _jsonable(body: dict[Any, Any]) -> dict[str, Any]:
    return {str(k): v for k, v in body.items()}


# ---------------------------------------------------------------------- the commands
def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "run",
        help="run the venue daemon: table links, store, scoreboards",
        description="Serve every table of the config: serial links, the SQLite store and "
        "the scoreboards (http://127.0.0.1:8047 unless configured otherwise).",
    )
    p.add_argument("--config", required=True, help="TOML config file")
    p.add_argument("-v", "--verbose", action="store_true", help="log every link event")
    p.add_argument(
        "--mqtt", metavar="URL", help="also publish every table to this MQTT broker (docs/MQTT.md)"
    )
    p.add_argument("--venue", help="venue id on the broker (default: [mqtt] venue)")
    p.add_argument(
        "--host-id", help="this host's id on the broker (default: [mqtt] host_id, else hostname)"
    )
    p.set_defaults(handler=run)

    r = subparsers.add_parser(
        "rebuild",
        help="rebuild matches, frames and breaks from the stored events",
        description="Reconstruct every table's state from the events in the store, print it "
        "as one JSON object per table (stop the daemon first).",
    )
    src = r.add_mutually_exclusive_group(required=True)
    src.add_argument("--config", help="TOML config file (its store is rebuilt)")
    src.add_argument("--store", help="the SQLite store file")
    r.set_defaults(handler=rebuild)


def setup_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


async def wait_for_stop_signal() -> None:
    """Return on SIGINT or SIGTERM (Ctrl-C, or the service manager)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()


async def serve_forever(daemon: Daemon) -> None:
    try:
        await wait_for_stop_signal()
    finally:
        await daemon.stop()


def run(args: argparse.Namespace) -> int:
    setup_logging(args.verbose)
    mqtt: BridgeSettings | None = None
    try:
        cfg = config_mod.load(args.config)
        if args.mqtt or cfg.mqtt:
            from baulk.host.mqtt_connection import settings_from_config

            mqtt = settings_from_config(cfg.mqtt, args.mqtt, args.venue, args.host_id)
    except config_mod.ConfigError as e:
        print(f"baulk run: {e}", file=sys.stderr)
        return 2

    async def main() -> int:
        try:
            daemon = Daemon(cfg)
        except StoreError as e:
            print(f"baulk run: {e}", file=sys.stderr)
            return 2
        try:
            await daemon.start()
        except OSError as e:
            await daemon.stop()
            print(f"baulk run: cannot serve on {cfg.bind}:{cfg.port}: {e}", file=sys.stderr)
            return 2
        bridge = None
        if mqtt is not None:
            # Opt-in: without --mqtt or an [mqtt] section no broker is touched
            # and paho is never imported.
            from baulk.host.mqtt_bridge import attach_bridge
            from baulk.host.mqtt_connection import BrokerRefused

            try:
                bridge = await attach_bridge(daemon, mqtt)
            except BrokerRefused as e:
                await daemon.stop()
                print(f"baulk run: {e}", file=sys.stderr)
                return 2
        print(f"baulk run: boards on {daemon.url}", flush=True)
        try:
            await serve_forever(daemon)
        finally:
            if bridge is not None:
                await bridge.close()
        return 0

    return asyncio.run(main())


def rebuild(args: argparse.Namespace) -> int:
    if args.config:
        try:
            path = config_mod.load(args.config).store_path
        except config_mod.ConfigError as e:
            print(f"baulk rebuild: {e}", file=sys.stderr)
            return 2
    else:
        path = Path(args.store)
    if not path.is_file():
        print(f"baulk rebuild: no store at {path}", file=sys.stderr)
        return 2
    try:
        store = Store(path)
        states = store.rebuild()
        store.close()
    except StoreError as e:
        print(f"baulk rebuild: {e}", file=sys.stderr)
        return 2
    for table_id, state in states.items():
        print(json.dumps({"table": table_id, "state": state}, ensure_ascii=False))
    return 0
