"""File-descriptor exhaustion, the full run (tests/chaos/test_fd_exhaustion.py
is the short form): ``baulk run`` with 1,024 open files at most (soft and
hard, as systemd gives a service), a swarm on many loopback addresses
holding 2,000 idle connections (half trickling request heads) and 2,000
hostile live feeds (WebSockets that never read) and reopening each one the
server closes, while a viewer from its own address keeps loading the board
and keeps a live feed, and the table plays, unplugged and plugged back in
halfway.

    .venv/bin/python bench/chaos_fds.py --seconds 120 --idle 2000 --ws 2000
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
    ap.add_argument("--idle", type=int, default=2000, help="idle connections to hold")
    ap.add_argument("--ws", type=int, default=2000, help="hostile live feeds to hold")
    ap.add_argument("--open-files", type=int, default=1024)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="baulk-fds-") as tmp:
        f = run(Path(tmp), args.seconds, args.idle, args.ws, args.open_files)
    print(json.dumps(f, indent=2))
    total = f["viewer_served"] + f["viewer_failed"]
    served = f["viewer_served"] / max(1, total)
    print(
        f"\n| WebSockets under the fd limit | {f['ws']:,} hostile live feeds (never read) and "
        f"{f['idle']:,} idle connections (half trickling) held from {f['addresses']} loopback "
        f"addresses against {f['open_files']:,} open files, for {args.seconds:.0f} s, the table "
        f"unplugged and back | {f['attack_connections']:,} attack connections opened; the board "
        f"loaded {f['viewer_served']:,} of {total:,} times ({served:.1%}), p50 "
        f"{f['viewer_p50_s'] * 1000:.0f} ms, p99 {f['viewer_p99_s'] * 1000:.0f} ms; the viewer's "
        f"feed {f['viewer_feed_messages']:,} boards, dropped {f['viewer_feed_drops']} times; log "
        f"{f['log_bytes']:,} B, {f['log_tracebacks']} tracebacks | "
        f"{0 if f['stored_once_in_order'] else 'some'} | 0 | {f['clean_exit'] != 0:d} |"
    )


if __name__ == "__main__":
    main()
