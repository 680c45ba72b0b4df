"""Host crash, full form: ``baulk run`` killed with SIGKILL at random points
of a match, restarted each time (tests/chaos/host_crash.py).

.venv/bin/python bench/chaos_host_crash.py [--kills 50] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.chaos.host_crash import run


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kills", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        f = run(Path(tmp), a.seed, a.kills, gap_s=(0.2, 8.0))
    f.pop("events_at_kill")
    ok = f["integrity_after_kill"].count("ok")
    f["integrity_after_kill"] = f"{ok}/{len(f['integrity_after_kill'])} ok"
    print(json.dumps(f))
    bad = f["lost"] + f["doubled"] + f["out_of_order"] + f["differing"]
    return 1 if bad or ok != f["kills"] or f["log_errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
