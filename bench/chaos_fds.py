"""File-descriptor exhaustion, the full run (tests/chaos/test_fd_exhaustion.py
is the short form): ``baulk run`` with 256 open files at most (soft and hard),
attackers on many loopback addresses holding every connection they can (idle,
or trickling request heads) and reconnecting when closed, while a viewer keeps
loading the board and the table plays, unplugged and plugged back in
halfway.

    .venv/bin/python bench/chaos_fds.py --seconds 120 --addresses 40
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.chaos.fd_exhaustion import run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--addresses", type=int, default=40)
    ap.add_argument("--open-files", type=int, default=256)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="baulk-fds-") as tmp:
        f = run(Path(tmp), args.seconds, args.addresses, args.open_files)
    print(json.dumps(f, indent=2))
    served = f["viewer_served"] / max(1, f["viewer_served"] + f["viewer_failed"])
    print(
        f"\n| file descriptors | {f['addresses']} addresses hold what they can "
        f"(idle or trickling) against {f['open_files']} open files, for {args.seconds:.0f} s, "
        f"the table unplugged and back | {f['attack_connections']:,} attack connections; "
        f"the board loaded {f['viewer_served']:,} times ({served:.1%}), p50 "
        f"{f['viewer_p50_s'] * 1000:.0f} ms, max {f['viewer_max_s'] * 1000:.0f} ms; "
        f"log {f['log_bytes']:,} B, {f['log_tracebacks']} tracebacks | "
        f"{0 if f['stored_once_in_order'] else 'some'} | 0 | {f['clean_exit'] != 0:d} |"
    )


if __name__ == "__main__":
    main()
