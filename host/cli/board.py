"""``baulk board --mqtt URL``: the venue's boards served from an MQTT broker alone.

No serial device and no store: the table board, the venue board, the overlay,
the JSON API and the live feed are the daemon's own web app
(``host/web/app.py``), fed by a :class:`~baulk.host.mqtt.mirror.BrokerMirror`
instead of table links.  The venue board then shows the tables of every host
that publishes to the venue.  ``/api/mqtt`` adds what the mirror knows: hosts,
events received per table, duplicates dropped, gaps.

Read-only: operator actions belong to the host a table is plugged into, so
they are switched off here.  Match reports need a store and are not served.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import socket
import sys
from typing import TYPE_CHECKING, Any

from aiohttp import web

from baulk.host import config as config_mod
from baulk.host.cli.service import wait_for_stop_signal
from baulk.host.mqtt.connection import BrokerRefused, settings_from_config
from baulk.host.mqtt.mirror import BrokerMirror
from baulk.host.venue.live import LiveHub

if TYPE_CHECKING:
    from baulk.host.web.app import WebServer

log = logging.getLogger("baulk.board")


class NoReports:
    """The web app's report source on a board without a store: no matches."""

    def matches(
        self, table_id: str | None = None, limit: int = 50, skip_empty: bool = False
    ) -> list[dict[str, Any]]:
        return []

    def referee_of(self, match_id: str) -> str | None:
        return None

    def name_fix(self, match_id: str) -> list[Any] | None:
        return None

    def name_fix_record(self, match_id: str) -> dict[str, Any] | None:
        return None

    def match(self, match_id: str) -> dict[str, Any] | None:
        return None

    def frames(self, match_id: str) -> list[dict[str, Any]]:
        return []

    def breaks(self, match_id: str, minimum: int = 50) -> list[dict[str, Any]]:
        return []

    def progression(self, match_id: str) -> dict[int, list[list[int]]]:
        return {}


class MirroredBoards:
    """What every server of the boards offers the web app
    (host/web/doors.py ``Boards``), filled from the broker.  Runs on the
    event loop; the mirror hands boards over with :meth:`publish_threadsafe`."""

    def __init__(self, config: config_mod.Config, loop: asyncio.AbstractEventLoop) -> None:
        # No operator token: actions go to the host the table is plugged into.
        self.config = dataclasses.replace(config, operator_token=None)
        self.hub = LiveHub()
        self.tables: dict[str, None] = {}
        self.reader = NoReports()
        self._loop = loop

    def table_ids(self) -> list[str]:
        return sorted(self.tables)

    def board(self, table_id: str) -> dict[str, Any] | None:
        return self.hub.boards.get(table_id)

    def store_status(self) -> dict[str, Any]:
        # No store here: each table's board carries its own host's.
        return {"ok": True}

    def publish(self, table_id: str, board: dict[str, Any]) -> None:
        self.tables.setdefault(table_id, None)
        self.hub.publish(table_id, board)

    def publish_threadsafe(self, table_id: str, board: dict[str, Any]) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closing
            self._loop.call_soon_threadsafe(self.publish, table_id, board)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "board",
        help="serve the boards of a whole venue from an MQTT broker",
        description="Serve the table boards, the venue board and the overlay of every table "
        "that any host publishes to the broker (docs/MQTT.md). No serial device, no store.",
    )
    p.add_argument(
        "--mqtt",
        metavar="URL",
        help="the broker: mqtt://user:password@host:1883 or mqtts://... "
        "(password also from BAULK_MQTT_PASSWORD); default: url in the config's [mqtt]",
    )
    p.add_argument("--config", help="TOML config: [server] bind/port and [mqtt] are used")
    p.add_argument("--venue", help="the venue to show (default: the config's, else 'venue')")
    p.add_argument("--bind", help="address to serve on (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port to serve on (default 8047; 0: any free)")
    p.add_argument(
        "--client-id",
        help="MQTT client id; keep it stable so the broker holds events while the board "
        "is away (default: baulk-board-<venue>-<machine>-<port>)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log connections and gaps")
    p.set_defaults(handler=run)


def _setup_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


def run(args: argparse.Namespace) -> int:
    _setup_logging(args.verbose)
    try:
        cfg = config_mod.load(args.config) if args.config else config_mod.Config()
        settings = settings_from_config(cfg.mqtt, url=args.mqtt, venue=args.venue)
    except config_mod.ConfigError as e:
        print(f"baulk board: {e}", file=sys.stderr)
        return 2
    if settings is None:
        print(
            "baulk board: name the broker with --mqtt URL (or url in the config's [mqtt])",
            file=sys.stderr,
        )
        return 2
    bind = args.bind or cfg.bind
    port = cfg.port if args.port is None else args.port
    if not 0 <= port <= 65535:
        print(f"baulk board: --port must be 0..65535, not {port}", file=sys.stderr)
        return 2
    machine = "".join(c if c.isalnum() or c in "-_" else "-" for c in socket.gethostname())
    # Two boards with one client id would throw each other off the broker:
    # the port tells boards on one machine apart (the process id, for port 0).
    tail = str(port) if port else f"pid{os.getpid()}"
    client_id = args.client_id or f"baulk-board-{settings.venue}-{machine[:24]}-{tail}"
    return asyncio.run(_main(cfg, settings.options, settings.venue, bind, port, client_id))


async def _main(
    cfg: config_mod.Config,
    options: Any,
    venue: str,
    bind: str,
    port: int,
    client_id: str,
) -> int:
    loop = asyncio.get_running_loop()
    boards = MirroredBoards(cfg, loop)
    mirror = BrokerMirror(options, venue, client_id=client_id, on_board=boards.publish_threadsafe)
    try:
        connected = await loop.run_in_executor(None, mirror.start)
    except BrokerRefused as e:
        print(f"baulk board: {e}", file=sys.stderr)
        return 2
    if not connected:
        print(
            f"baulk board: {options.describe()} does not answer yet; the boards fill in "
            "once it does",
            file=sys.stderr,
        )
    try:
        runner, url = await serve(boards, mirror, bind, port)
    except OSError as e:
        await loop.run_in_executor(None, mirror.stop)
        print(f"baulk board: cannot serve on {bind}:{port}: {e}", file=sys.stderr)
        return 2
    print(f"baulk board: boards of venue {venue} from {options.describe()} on {url}", flush=True)
    try:
        await wait_for_stop_signal()
    finally:
        await runner.cleanup()
        await loop.run_in_executor(None, mirror.stop)
    return 0


MIRROR_KEY: web.AppKey[BrokerMirror] = web.AppKey("mqtt_mirror")


async def api_mqtt(request: web.Request) -> web.Response:
    mirror = request.app[MIRROR_KEY]
    return web.json_response(mirror.snapshot(), dumps=lambda v: json.dumps(v, ensure_ascii=False))


async def serve(
    boards: MirroredBoards, mirror: BrokerMirror, host: str, port: int
) -> tuple[WebServer, str]:
    """The daemon's web app over ``boards``, plus ``/api/mqtt``; returns the
    server and the base URL (with the real port when ``port`` was 0)."""
    from baulk.host.web.app import build_boards_app, serve_app

    app = build_boards_app(boards)
    app[MIRROR_KEY] = mirror
    app.router.add_get("/api/mqtt", api_mqtt)
    return await serve_app(app, host, port)
