"""Run every rules scenario through ``baulk replay`` and compare with its expectations.

Each ``NAME.jsonl`` has a ``NAME.expect.json``::

    {"exit": 0 | 3, "state": {...subset of the final state...}, "rejected_lines": [...]}

``state`` values are compared exactly, except ``respot_places``, whose order the
documents leave open (compared as a multiset).  ``rejected_lines`` (missing = none)
is compared with the line numbers in the state's ``rejected`` list, and for each
rejected line a ``--each`` run checks that the whole state (but ``rejected``) is
exactly what it was after the event before it.

Usage: ``python tests/scenarios/check.py [--engine micropython] [NAME ...]``.
Prints one line per mismatch (scenario, key, expected, got); exits 1 on any.
The scenario files themselves are also checked for the two header comment lines.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
UNORDERED = {"respot_places"}


def canon(key: str, value: Any) -> Any:
    if key in UNORDERED and isinstance(value, list):
        return sorted(json.dumps(v, sort_keys=True) for v in value)
    return value


def header_problems(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    problems = []
    if not lines or not lines[0].startswith("# ") or lines[0].startswith("# rules:"):
        problems.append("first line is not a '# <description>' comment")
    rules = [ln for ln in lines if ln.startswith("# rules:")]
    if len(rules) != 1:
        problems.append(f"{len(rules)} '# rules:' lines, expected exactly one")
    elif not all(re.fullmatch(r"R\d+\.\d+(\.\d+)?[a-d]?", r) for r in rules[0].split()[2:]):
        problems.append("malformed rule id in " + rules[0])
    return problems


def replay_cmd(path: Path, engine: str | None, each: bool = False) -> list[str]:
    cmd = [str(ROOT / ".venv" / "bin" / "baulk"), "replay", str(path)]
    if each:
        cmd.append("--each")
    if engine:
        cmd += ["--engine", engine]
    return cmd


def run(path: Path, engine: str | None) -> tuple[int, dict[str, Any] | None, str]:
    cmd = replay_cmd(path, engine)
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=300)
    try:
        state = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return proc.returncode, None, proc.stderr.strip()[-300:]
    return proc.returncode, state, ""


def unchanged_problems(name: str, path: Path, lines: list[int], engine: str | None) -> list[str]:
    """Each rejected line must leave the state exactly as the event before left it."""
    text = path.read_text().splitlines()
    events = [i + 1 for i, ln in enumerate(text) if ln.strip() and not ln.startswith("#")]
    cmd = replay_cmd(path, engine, each=True)
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=300)
    try:
        states = [json.loads(ln) for ln in proc.stdout.splitlines()]
    except json.JSONDecodeError:
        return [f"{name}: --each output is not JSON lines"]
    if len(states) != len(events):
        return [f"{name}: --each printed {len(states)} states for {len(events)} events"]
    out = []
    for line in lines:
        k = events.index(line) if line in events else -1
        if k <= 0:
            continue
        before = {key: v for key, v in states[k - 1].items() if key != "rejected"}
        after = {key: v for key, v in states[k].items() if key != "rejected"}
        changed = sorted(
            key for key in before.keys() | after.keys() if before.get(key) != after.get(key)
        )
        if changed:
            out.append(f"{name}: rejected line {line} changed the state: {changed}")
    return out


def check(path: Path, engine: str | None) -> list[str]:
    name = path.name[: -len(".jsonl")]
    expect = json.loads(path.with_name(name + ".expect.json").read_text())
    out = [f"{name}: {p}" for p in header_problems(path)]
    code, state, err = run(path, engine)
    if code != expect["exit"]:
        out.append(f"{name}: exit expected {expect['exit']} got {code}")
    if state is None:
        out.append(f"{name}: no state printed ({err})")
        return out
    for key, want in expect["state"].items():
        if key not in state:
            out.append(f"{name}: {key} expected {json.dumps(want)} got <missing>")
        elif canon(key, state[key]) != canon(key, want):
            out.append(f"{name}: {key} expected {json.dumps(want)} got {json.dumps(state[key])}")
    want_lines = sorted(expect.get("rejected_lines", []))
    got_lines = sorted(r.get("line") for r in state.get("rejected", []))
    if got_lines != want_lines:
        reasons = [r.get("reason") for r in state.get("rejected", [])]
        out.append(
            f"{name}: rejected_lines expected {want_lines} got {got_lines} (reasons {reasons})"
        )
    if want_lines:
        out += unchanged_problems(name, path, want_lines, engine)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="scenario names (default: all)")
    parser.add_argument("--engine", choices=["cpython", "micropython"])
    args = parser.parse_args()
    paths = sorted(HERE.glob("*.jsonl"))
    if args.names:
        wanted = {n.removesuffix(".jsonl") for n in args.names}
        paths = [p for p in paths if p.name[: -len(".jsonl")] in wanted]
    failed = 0
    for path in paths:
        problems = check(path, args.engine)
        if problems:
            failed += 1
            print("\n".join(problems))
    print(f"{len(paths) - failed}/{len(paths)} scenarios match")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
