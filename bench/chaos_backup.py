"""Backup and restore, longer form: the venue PC's disk dies mid-match again
and again; ``baulk restore`` puts the backup back, and the table's journal
fills what the backup had not caught (tests/backup/disk_loss.py).

.venv/bin/python bench/chaos_backup.py [--rounds 10] [--seed 1] [--lag 10 60]

Prints one JSON object of counts; exit status 1 if anything was lost, doubled
or changed, a bill changed, or an error was logged.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.backup.disk_loss import run


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--lag",
        type=int,
        nargs=2,
        default=(10, 60),
        metavar=("LEAST", "MOST"),
        help="events the store holds beyond the backup when the disk dies (the journal keeps 64)",
    )
    a = ap.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        f = run(Path(tmp), a.seed, a.rounds, lag=(a.lag[0], a.lag[1]))
    f["seconds"] = round(time.monotonic() - started)
    behind = f["behind_at_loss"]
    f["behind_at_loss"] = {
        "total": sum(behind),
        "least": min(behind, default=0),
        "most": max(behind, default=0),
    }
    for key in ("integrity_restored", "restored_events"):
        values = f[key]
        f[key] = {str(v): values.count(v) for v in sorted(set(values), key=str)}
    print(json.dumps(f))
    bad = f["lost"] + f["doubled"] + f["out_of_order"] + f["differing"] + f["unknown"]
    bad += f["frames_dropped_from_bill"] + len(f["desk_problems"]) + len(f["restore_errors"])
    return 1 if bad or f["log_errors"] or f["sim_error"] else 0


if __name__ == "__main__":
    sys.exit(main())
