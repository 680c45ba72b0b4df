"""Soak of the device heap: the whole firmware under MicroPython plays 200
frames (whole matches back to back); heap at every frame start
(tests/chaos/soak.py, bench/firmware_mp_heap.py).

.venv/bin/python bench/soak_device_heap.py [--frames 200] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.chaos.soak import device_heap


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    f = device_heap(a.frames, a.seed)
    print(json.dumps(f))
    return 1 if f["journal_lost"] or f["host_events"] != f["events"] else 0


if __name__ == "__main__":
    sys.exit(main())
