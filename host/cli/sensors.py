"""``baulk sensors``: a table's raw sensor traces, for the pocket benchmark.

    baulk sensors record --table T [--during-match] [--seconds N] [--passages N]
                         [--url URL] [--token TOKEN]
    baulk sensors record --table T --stop
    baulk sensors export --table T DIR (--store FILE | --config FILE)

``record`` asks the running daemon (its operator API, POST
/api/tables/T/sensor-capture) to put the table into its capture mode
(firmware/capture.py): off by default, bounded by time and passages, and
refused during a match unless ``--during-match``.  The daemon stores the
traces (host/store/captures.py).  ``export`` writes them from the store as
JSON lines, one file a capture (docs/CAPTURES.md), which
``bench/pockets.py --traces DIR`` replays through the firmware's detector.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from baulk.host import config as config_mod
from baulk.host.cli import daemon_api
from baulk.host.store.captures import export


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("sensors", help="record a table's raw sensor traces, export them")
    sub = p.add_subparsers(dest="sensors_command", required=True)
    rec = sub.add_parser("record", help="start (or --stop) a sensor capture on a table")
    rec.add_argument("--table", required=True)
    rec.add_argument("--during-match", action="store_true",
                     help="capture during a match too (refused otherwise)")  # fmt: skip
    rec.add_argument("--seconds", type=int, default=None, help="at most this long (1-900; 120)")
    rec.add_argument("--passages", type=int, default=None, help="at most so many balls (1-255; 30)")
    rec.add_argument("--stop", action="store_true", help="stop the capture running")
    rec.add_argument("--url", default=None, help="the daemon (default: http://127.0.0.1:8047)")
    rec.add_argument("--token", default=None, help="operator token (default: $BAULK_TOKEN)")
    rec.set_defaults(handler=record)
    ex = sub.add_parser("export", help="write a table's captures as JSON lines files")
    ex.add_argument("--table", required=True)
    ex.add_argument("dir", type=Path)
    src = ex.add_mutually_exclusive_group(required=True)
    src.add_argument("--store", type=Path, help="the SQLite store file")
    src.add_argument("--config", help="TOML config file (its store is read)")
    ex.set_defaults(handler=export_cmd)


def record(args: argparse.Namespace) -> int:
    url = daemon_api.url_of(args.url)
    token = daemon_api.token_of(args.token, "sensors record", "an operator")
    if not token:
        return 2
    body: dict[str, object] = {"on": not args.stop}
    if not args.stop:
        body["during_match"] = args.during_match
        if args.seconds is not None:
            body["seconds"] = args.seconds
        if args.passages is not None:
            body["passages"] = args.passages
    try:
        reply = daemon_api.call(url, token, f"/api/tables/{args.table}/sensor-capture", body)
    except daemon_api.ApiError as e:
        print(f"baulk sensors record: {e}", file=sys.stderr)
        return 1
    print(f"table {args.table}: {reply.get('message', reply.get('status'))} "
          f"(capture {reply.get('seq')})")  # fmt: skip
    return 0


def export_cmd(args: argparse.Namespace) -> int:
    try:
        store = config_mod.load(args.config).store_path if args.config else args.store
        if not Path(store).exists():
            raise LookupError(f"no store at {store}")
        files = export(Path(store), args.table, args.dir)
    except (LookupError, config_mod.ConfigError, OSError) as e:
        print(f"baulk sensors export: {e}", file=sys.stderr)
        return 1
    for f in files:
        print(f)
    return 0
