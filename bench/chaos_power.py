"""Power loss on the device, full form: the firmware on a flash that tears
writes at any byte (tests/chaos/power_loss.py).

.venv/bin/python bench/chaos_power.py [--cuts 10000] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.chaos.power_loss import run


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cuts", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    t0 = time.monotonic()
    f = run(a.seed, a.cuts)
    f["seconds"] = round(time.monotonic() - t0, 1)
    print(json.dumps(f))
    return 1 if f["lost"] + f["doubled"] + f["out_of_order"] + f["differing"] else 0


if __name__ == "__main__":
    sys.exit(main())
