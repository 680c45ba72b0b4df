"""The ``baulk`` command line."""

from __future__ import annotations

import argparse
import sys

from baulk.host.cli import backup as backup_cmd
from baulk.host.cli import board as board_cmd
from baulk.host.cli import demo as demo_cmd
from baulk.host.cli import firmware as firmware_cmd
from baulk.host.cli import replay as replay_cmd
from baulk.host.cli import run as run_cmd
from baulk.host.cli import sensors as sensors_cmd
from baulk.host.cli import users as users_cmd
from baulk.host.cli import verify as verify_cmd


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="baulk", description="Snooker table controller tools")
    sub = parser.add_subparsers(dest="command", required=True)
    replay_cmd.add_parser(sub)
    firmware_cmd.add_parser(sub)
    run_cmd.add_parser(sub)
    demo_cmd.add_parser(sub)
    board_cmd.add_parser(sub)
    verify_cmd.add_parser(sub)
    users_cmd.add_parser(sub)
    backup_cmd.add_parser(sub)
    sensors_cmd.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        return 2
    result: int = handler(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
