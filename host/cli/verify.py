"""``baulk verify``: a match's record against the device's signed checkpoints
(host/referee/verify.py, docs/LEDGER.md).

    baulk verify --key t1.key --store venue.sqlite [--match ID ...]
    baulk verify --key t1.key --report report.json
    baulk verify --keys DIR --config baulk.toml --day 2026-03-21

``--day`` checks the day's bills against the tables' signed record
(host/staff/takings.py): each bill's frames and minutes in play worked again
from the signed events, every correction audited.  ``--keys`` is a folder
of TABLE.key files (``--key``: one key for every table).

Exit status: 0 every event verified; 1 something was changed, deleted,
inserted or forged (each finding says which event and which checkpoint);
3 nothing wrong, but some events are not covered by a checkpoint yet (a
match still in play); 2 the input cannot be read.  With ``--day``: 1 a bill
is flagged (built on events that fail) or differs from what the signed
events make, or a correction is not audited; 3 some bill cannot be covered.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
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
    keys.add_argument("--keys", help="a folder of TABLE.key device keys (with --day)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--store", help="the SQLite store file")
    src.add_argument("--config", help="TOML config file (its store is read)")
    src.add_argument("--report", help="a match report exported as JSON")
    p.add_argument(
        "--match", action="append", default=[], help="a match id (repeatable; default: every one)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON verdict per match")
    p.add_argument(
        "--day",
        metavar="YYYY-MM-DD",
        help="check that business day's bills against the tables' signed events",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.day is not None:
        return _day(args)
    if args.keys:
        print("baulk verify: --keys goes with --day (one match: --key FILE)", file=sys.stderr)
        return 2
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
        # One moment for the whole run, however the tables play on meanwhile.
        with reader.snapshot():
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


def _day(args: argparse.Namespace) -> int:
    from baulk.host.club.clock import VenueClock
    from baulk.host.club.tariffs import Billing
    from baulk.host.staff import takings

    try:
        day = date.fromisoformat(args.day)
        if args.report:
            raise LedgerError("--day checks a store (--config or --store), not a report")
        cfg = config_mod.load(args.config) if args.config else None
        path = cfg.store_path if cfg else Path(args.store)
        if not path.is_file():
            raise LedgerError(f"no store at {path}")
        if args.sim_key:
            keys = takings.keys_from(None, True)
        elif args.keys:
            keys = takings.keys_from(Path(args.keys), False)
        else:
            keys = takings.Keys(everyone=read_key(args.key))
    except (LedgerError, StoreError, config_mod.ConfigError, ValueError) as e:
        print(f"baulk verify: {e}", file=sys.stderr)
        return 2
    reader = StoreReader(path)
    try:
        with reader.snapshot():  # the day's bills and their events at one moment
            result = takings.check_day(
                reader, cfg.billing if cfg else Billing(), day, keys, VenueClock().now()
            )
    finally:
        reader.close()
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(
            f"day {result['day']}: {len(result['bills'])} bills, "
            + ", ".join(f"{n} {status}" for status, n in sorted(result["counts"].items()))
        )
        for b in result["bills"]:
            print(f"  session {b['session_id']} ({b['table_id']}): {b['status']}")
            for f in b["findings"]:
                print(f"    {f['kind']}: {f['text']}")
                if f.get("detail"):  # a tampering's, in the verifier's own words
                    print(f"      {f['detail']}")
            for why in b["uncovered"]:
                print(f"    cannot cover: {why}")
            for note in b["unanchored"]:
                print(f"    not yet anchored: {note['text']}")
    statuses = set(result["counts"])
    if statuses & {"flagged", "differs"}:
        return TAMPERED
    return UNCOVERED if "uncovered" in statuses else 0
