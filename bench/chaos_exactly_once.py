"""Operator actions exactly once, full form (tests/chaos/exactly_once.py):
``baulk run`` killed with SIGKILL a random few milliseconds after an
operator's action, with the table's power cut in the same window now and
then; and the firmware on a tearing flash with a host that restarts.

.venv/bin/python bench/chaos_exactly_once.py [--rounds 100] [--cuts 2000] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.chaos.exactly_once import run_host_crash, run_power_cuts


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=100, help="daemon kills")
    ap.add_argument("--cuts", type=int, default=2000, help="power cuts in virtual time")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        crash = run_host_crash(Path(tmp), a.seed, a.rounds)
    crash["seconds"] = round(time.monotonic() - t0, 1)
    t0 = time.monotonic()
    power = run_power_cuts(a.seed, a.cuts)
    power["seconds"] = round(time.monotonic() - t0, 1)
    print(json.dumps({"host_crash": crash, "power_cuts": power}))
    bad = crash["lost"] + crash["doubled"] + crash["unknown"] + crash["told_but_not_stored"]
    bad += power["lost"] + power["doubled"] + power["unknown"]
    return 1 if bad or crash["log_errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
