"""A million random keypad presses into the firmware (tests/chaos/keypad_fuzz.py).

.venv/bin/python bench/chaos_keypad.py [--presses 1000000] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.chaos.keypad_fuzz import run


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--presses", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    t0 = time.monotonic()
    f = run(a.seed, a.presses)
    f["seconds"] = round(time.monotonic() - t0, 1)
    print(json.dumps(f))
    return 1 if f["journal_lost"] or f["host_got"] != f["events_journaled"] else 0


if __name__ == "__main__":
    sys.exit(main())
