"""``baulk replay``: run a scenario through the rules engine (CPython or MicroPython)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from baulk.firmware import replay
from baulk.host.sim import micropython

MP_ENTRY = Path(__file__).resolve().parents[1] / "sim" / "mp_replay.py"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "replay",
        help="replay a JSON Lines scenario through the rules engine",
        description="Feed every event of FILE to the rules engine and print the final state "
        "as JSON (exit 0: all accepted, 3: some rejected, 2: unreadable file).",
    )
    p.add_argument("file", help="scenario: JSON Lines, one input event per line")
    p.add_argument("--each", action="store_true", help="print the state after every event")
    p.add_argument(
        "--engine",
        choices=("cpython", "micropython"),
        default="cpython",
        help="interpreter that runs the engine (default: cpython)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if not path.is_file():
        print(f"baulk replay: cannot read {args.file}", file=sys.stderr)
        return replay.EXIT_BAD_FILE
    if args.engine == "cpython":
        status: int = replay.main(
            [str(path), *(["--each"] if args.each else [])], sys.stdout.write, sys.stderr.write
        )
        sys.stdout.flush()
        return status
    absolute = path.resolve()
    try:
        done = micropython.run(
            MP_ENTRY, [str(absolute), *(["--each"] if args.each else [])], files=[absolute]
        )
    except micropython.MicroPythonUnavailable as why:
        print(f"baulk replay: {why}", file=sys.stderr)
        return 2
    sys.stdout.buffer.write(done.stdout)
    sys.stdout.flush()
    sys.stderr.buffer.write(done.stderr)
    return done.returncode
