"""Tampering with a signed record at random, full form (tests/chaos/tamper.py):
a best-of-5 match by the firmware, stored by the daemon; each trial changes,
deletes or inserts an event, alters a checkpoint or a report, and
`baulk verify` must find it and name the event and the checkpoint.

``--money`` (tests/chaos/money_tamper.py): a closed day's money rows
instead, a best-of-3 match and four bills on its table (18 desk writes, 19
money rows), each commit's chain head signed by the table; each trial
changes one money row by hand in SQLite (an update of any column, an
insertion, a deletion; the triggers dropped first), the chain left as it
was (naive) or rewritten to match (rewritten), and `baulk verify --day`
must flag it and name its bill.

.venv/bin/python bench/chaos_tamper.py [--money] [--trials 300] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.chaos import money_tamper, tamper


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--money", action="store_true", help="the money rows of a closed day")
    ap.add_argument("--trials", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    t0 = time.monotonic()
    f = money_tamper.run(a.seed, a.trials) if a.money else tamper.run(a.seed, a.trials, best_of=5)
    f["seconds"] = round(time.monotonic() - t0, 1)
    print(json.dumps(f, ensure_ascii=False))
    done = f["naive"] if a.money else f
    return 0 if done["detected"] == done["located"] == done["trials"] else 1


if __name__ == "__main__":
    sys.exit(main())
