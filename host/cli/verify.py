"""``baulk verify``: a match's record against the device's signed checkpoints
(host/referee/verify.py, docs/LEDGER.md).

    baulk verify --key t1.key --store venue.sqlite [--match ID ...]
    baulk verify --key t1.key --report report.json

Exit status: 0 every event verified; 1 something was changed, deleted,
inserted or forged (each finding says which event and which checkpoint);
3 nothing wrong, but some events are not covered by a checkpoint yet (a
match still in play); 2 the input cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from baulk.firmware.sim.board import SIM_KEY
from baulk.host import config as config_mod
from baulk.host.referee.verify import (
    TAMPERED,
    UNCOVERED,
    LedgerError,
    Verdict,
    read_key,
    verify_report,
    verify_store,
)
from baulk.host.store import StoreError, StoreReader


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "verify",
        help="check a match's stored events or an exported report against the device's "
        "signed checkpoints",
        description="Walk the device's hash chain over a match's events (in the store, or in "
        "a report exported from /api/matches/ID/report.json) and check every checkpoint's "
        "signature with the device key. Exit 0: verified; 1: tampering found (each finding "
        "names the event and the checkpoint); 3: some events not signed yet; 2: unreadable "
        "input.",
    )
    keys = p.add_mutually_exclusive_group(required=True)
    keys.add_argument("--key", help="the device key file (hex, from baulk firmware deploy --key)")
    keys.add_argument(
        "--sim-key", action="store_true", help="the simulated tables' known key (baulk demo)"
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--store", help="the SQLite store file")
    src.add_argument("--config", help="TOML config file (its store is read)")
    src.add_argument("--report", help="a match report exported as JSON")
    p.add_argument(
        "--match", action="append", default=[], help="a match id (repeatable; default: every one)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON verdict per match")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        key = bytes.fromhex(SIM_KEY) if args.sim_key else read_key(args.key)
        verdicts = _report(args.report, key) if args.report else _store(args, key)
    except (LedgerError, StoreError, config_mod.ConfigError) as e:
        print(f"baulk verify: {e}", file=sys.stderr)
        return 2
    for v in verdicts:
        if args.json:
            print(json.dumps(v.as_dict(), ensure_ascii=False))
        else:
            _print(v)
    statuses = {v.status for v in verdicts}
    if TAMPERED in statuses:
        return TAMPERED
    return UNCOVERED if UNCOVERED in statuses else 0


def _report(path: str, key: bytes) -> list[Verdict]:
    try:
        data: Any = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeError, ValueError) as e:
        raise LedgerError(f"cannot read the report {path}: {e}") from None
    if isinstance(data, dict) and isinstance(data.get("report"), dict):
        data = data["report"]  # the API's envelope {"schema", "report"}
    if not isinstance(data, dict):
        raise LedgerError(f"{path} is not a match report")
    return [verify_report(data, key)]


def _store(args: argparse.Namespace, key: bytes) -> list[Verdict]:
    path = config_mod.load(args.config).store_path if args.config else Path(args.store)
    if not path.is_file():
        raise LedgerError(f"no store at {path}")
    reader = StoreReader(path)
    try:
        ids = args.match or [m["match_id"] for m in reader.matches(limit=1_000_000)]
        if not ids:
            raise LedgerError(f"{path} holds no match")
        return [verify_store(reader, match_id, key) for match_id in ids]
    finally:
        reader.close()


def _print(v: Verdict) -> None:
    findings = [f for f in v.findings if f.kind != "annotation"]
    if not findings:
        print(f"match {v.match_id}: verified: {v.events} events, {v.checkpoints} checkpoints")
    else:
        head = "TAMPERED" if v.tampered else "not covered yet"
        print(
            f"match {v.match_id}: {head}: {v.events} events verified, "
            f"{v.checkpoints} checkpoints hold, {len(findings)} finding(s):"
        )
        for f in findings:
            print(f"  {f.kind}: {f.text}")
    for f in v.annotations:
        print(f"  the venue's annotation: {f.text}")
