"""Tampering with a signed record at random, full form (tests/chaos/tamper.py):
a best-of-5 match by the firmware, stored by the daemon; each trial changes,
deletes or inserts an event, alters a checkpoint or a report, and
`baulk verify` must find it and name the event and the checkpoint.

.venv/bin/python bench/chaos_tamper.py [--trials 300] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.chaos.tamper import run


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    t0 = time.monotonic()
    f = run(a.seed, a.trials, best_of=5)
    f["seconds"] = round(time.monotonic() - t0, 1)
    print(json.dumps(f))
    return 0 if f["detected"] == f["located"] == f["trials"] else 1


if __name__ == "__main__":
    sys.exit(main())
