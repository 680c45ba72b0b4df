"""Tampering at random with a closed day's money rows, full form
(tests/chaos/money_tamper.py): a best-of-3 match by the firmware and four
bills on its table (18 desk writes, 19 money rows), each commit's chain
head signed by the table; each trial changes one money row by hand in
SQLite (an update of any column, an insertion, a deletion; the triggers
dropped first), the chain left as it was (naive) or rewritten to match
(rewritten), and `baulk verify --day` must flag it and name its bill.

.venv/bin/python bench/money_tamper.py [--trials 300] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.chaos.money_tamper import run


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    t0 = time.monotonic()
    f = run(a.seed, a.trials)
    f["seconds"] = round(time.monotonic() - t0, 1)
    print(json.dumps(f, ensure_ascii=False))
    naive = f["naive"]
    return 0 if naive["detected"] == naive["located"] == naive["trials"] else 1


if __name__ == "__main__":
    sys.exit(main())
