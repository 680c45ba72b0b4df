"""Link chaos, full form: simulated tables play whole matches through
fault-injecting relays into the real daemon (tests/chaos/link_chaos.py).

.venv/bin/python bench/chaos_link.py [--minutes 20] [--matches 1] [--seed 1]
Prints one JSON object per table and a summary line.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.chaos.link_chaos import Attack, run

ATTACKS = [
    Attack("ber-1e-4", ber=1e-4),
    Attack("ber-1e-3", ber=1e-3),
    Attack("drops", drop_rate=1e-3),
    Attack("disconnects", disconnect_every_s=10.0),
    Attack("resets", reset_every_s=15.0),
    Attack("all", ber=1e-3, drop_rate=1e-3, disconnect_every_s=20.0, reset_every_s=30.0),
]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=20.0)
    ap.add_argument(
        "--matches", type=int, default=1, help="stop once every table finished this many"
    )
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = run(Path(tmp), ATTACKS, a.seed, a.minutes * 60, until_matches=a.matches, settle_s=120)
    bad = 0
    for name, t in out["tables"].items():
        print(json.dumps({"table": name, **t}))
        bad += t["lost"] + t["doubled"] + t["out_of_order"] + t["differing"] + t["unknown"]
    total = sum(t["journaled"] for t in out["tables"].values())
    print(
        f"link chaos: {len(ATTACKS)} tables, {out['played_s']} s, {total} events journaled, "
        f"lost+doubled+reordered+differing = {bad}"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
