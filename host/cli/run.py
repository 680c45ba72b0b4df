"""``baulk run`` and ``baulk rebuild``: their arguments, and the calls into
the daemon (host/venue/daemon.py) and the rebuild (host/referee/rebuild.py) that do the
work."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from baulk.host import config as config_mod
from baulk.host.cli.service import running_venue, setup_logging, wait_for_stop_signal
from baulk.host.referee.rebuild import rebuild as rebuild_store
from baulk.host.store import StoreError

if TYPE_CHECKING:
    from baulk.host.mqtt.connection import BridgeSettings


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


def run(args: argparse.Namespace) -> int:
    setup_logging(args.verbose)
    mqtt: BridgeSettings | None = None
    try:
        cfg = config_mod.load(args.config)
        if args.mqtt or cfg.mqtt:
            from baulk.host.mqtt.connection import settings_from_config

            mqtt = settings_from_config(cfg.mqtt, args.mqtt, args.venue, args.host_id)
    except config_mod.ConfigError as e:
        print(f"baulk run: {e}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_serve(cfg, mqtt))
    except StoreError as e:
        print(f"baulk run: {e}", file=sys.stderr)
    except OSError as e:
        print(f"baulk run: cannot serve on {cfg.bind}:{cfg.port}: {e}", file=sys.stderr)
    return 2


async def _serve(cfg: config_mod.Config, mqtt: BridgeSettings | None) -> int:
    async with running_venue(cfg) as (daemon, url):
        bridge = None
        if mqtt is not None:
            # Opt-in: without --mqtt or an [mqtt] section no broker is touched
            # and paho is never imported.
            from baulk.host.mqtt.bridge import attach_bridge
            from baulk.host.mqtt.connection import BrokerRefused

            try:
                bridge = await attach_bridge(daemon, mqtt)
            except BrokerRefused as e:
                print(f"baulk run: {e}", file=sys.stderr)
                return 2
        print(f"baulk run: boards on {url}", flush=True)
        try:
            await wait_for_stop_signal()
        finally:
            if bridge is not None:
                await bridge.close()
    return 0


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
        states = rebuild_store(path)
    except StoreError as e:
        print(f"baulk rebuild: {e}", file=sys.stderr)
        return 2
    for table_id, state in states.items():
        print(json.dumps({"table": table_id, "state": state}, ensure_ascii=False))
    return 0
