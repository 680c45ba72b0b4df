"""The score path isolated, the full run (tests/chaos/test_isolation.py is
the short form): a device peer and a simulated table (the real firmware)
play into the daemon while every other kind of row the store writes fails,
in SQL (a trigger aborts it), in Python (bugs in the statistics, the desk's
hook, the handset, another part's own row kind) and in value (1e308, a link
beyond 64 bits), and the desk and the console act all along.

    .venv/bin/python bench/chaos_isolation.py --seconds 120
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.chaos.isolation import run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="baulk-isolation-") as tmp:
        f = run(Path(tmp), args.seconds, args.seed)
    print(json.dumps(f, indent=2))
    t1, t2 = f["t1"], f["t2"]
    answers = sum(n for by_status in f["desk"].values() for n in by_status.values())
    lost = (t1["sent"] - t1["stored"]) + t2["lost"]
    doubled = (0 if t1["stored_once_in_order"] else 1) + t2["doubled"]
    print(
        f"\n| isolation: failing rows injected | every kind of row beside the events failing "
        f"while two tables play: {f['kinds']} kinds (links, hello frames, operator actions, "
        f"name and bill corrections, sessions, sensor health, 8 projections in SQL; bugs in the "
        f"statistics, the desk's hook, the handset, another part's row kind; 1e308 and 64-bit "
        f"overflows), {f['turned_on']} failures turned on in {args.seconds:.0f} s | "
        f"{t1['acked'] + t2['stored']:,} events stored and acknowledged ({t1['acked']:,} from a "
        f"device peer, {t2['stored']:,} from the firmware); {f['rows_refused']:,} rows refused "
        f"to their callers, {f['projections_dropped']:,} projections dropped and remade by "
        f"baulk rebuild, {f['python_bugs']:,} bugs raised; the store never failed "
        f"({f['store_failures']} failed commits); {answers:,} desk and console actions, each "
        f"answered, the slowest in {f['desk_slowest_s']} s | {lost} | {doubled} | "
        f"{1 if f['sim_error'] else 0} | `.venv/bin/python bench/chaos_isolation.py "
        f"--seconds {args.seconds:.0f}` |"
    )


if __name__ == "__main__":
    main()
