"""Soak, shared by tests/chaos/test_soak.py (short) and bench/soak_*.py (full).

* device_heap: the whole firmware under the real MicroPython (stepped, so
  garbage is collected between steps) plays many matches on the simulated
  board, in virtual time, with a host acking; the heap is taken at the start of
  every frame (bench/firmware_mp_heap.py).
* host_rss: ``baulk run`` as a real process serves many device peers on ptys,
  each streaming whole matches as fast as the link allows; the daemon's RSS is
  sampled all along; at the end every event is stored once and the log holds
  no error.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from baulk.host.sim import micropython
from baulk.host.sim.matches import generate_long_match
from tests.chaos.host_crash import DaemonProcess, write_config
from tests.chaos.kit import integrity, stored_events, wait_until
from tests.host.device_peer import DevicePeer

ROOT = Path(__file__).resolve().parents[2]


def matches_for(seed: int, frames: int) -> list[dict[str, Any]]:
    """Whole matches, one after another, `frames` frames in all (rounded up to odd matches)."""
    events: list[dict[str, Any]] = []
    left = frames
    n = 0
    while left > 0:
        best_of = min(35, left if left % 2 else left + 1)
        events += generate_long_match(seed * 1000 + n, frames=best_of)
        left -= best_of
        n += 1
    return events


def growth(samples: list[int]) -> dict[str, Any]:
    """Start-of-run versus end-of-run, past the first quarter (warm-up)."""
    q = max(1, len(samples) // 4)
    early = samples[q : 2 * q] or samples
    late = samples[-q:]
    return {
        "samples": len(samples),
        "first": samples[0] if samples else None,
        "early_median": statistics.median(early) if early else None,
        "late_median": statistics.median(late) if late else None,
        "late_max": max(late) if late else None,
        "max": max(samples) if samples else None,
        "growth": (statistics.median(late) - statistics.median(early)) if samples else None,
    }


def device_heap(frames: int, seed: int = 1, timeout: float = 3600) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="baulk-soak-"))
    events = tmp / "events.jsonl"
    events.write_text("".join(json.dumps(e) + "\n" for e in matches_for(seed, frames)))
    t0 = time.monotonic()
    done = micropython.run(
        ROOT / "bench" / "firmware_mp_heap.py",
        [str(events)],
        files=[events],
        stepped=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode()[-3000:])
    f = dict(line.split("=", 1) for line in done.stdout.decode().split() if "=" in line)
    starts = [int(x) for x in f["frame_starts"].split("/") if x]
    return {
        "frames": len(starts),
        "events": int(f["events"]),
        "host_events": int(f["host_events"]),
        "host_checkpoints": int(f["host_checkpoints"]),
        "journal_acked": int(f["journal_acked"]),
        "journal_lost": int(f["journal_lost"]),
        "peak_in_run": int(f["peak_in_match"]),
        "heap_at_frame_start": growth(starts),
        "seconds": round(time.monotonic() - t0, 1),
    }


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def host_rss(
    tmp: Path, tables: int, frames: int, seed: int = 1, timeout: float = 3600
) -> dict[str, Any]:
    ids = [f"s{i:02d}" for i in range(tables)]
    plays = {tid: matches_for(seed + i, frames) for i, tid in enumerate(ids)}
    total = sum(len(v) for v in plays.values())
    peers = {tid: DevicePeer(tid, link_path=tmp / f"tty-{tid}").start() for tid in ids}
    log = tmp / "daemon.log"
    daemon = DaemonProcess(
        write_config(tmp, {t: str(tmp / f"tty-{t}") for t in ids}), log, verbose=False
    )
    samples: list[int] = []
    progress: list[float] = []
    stop = threading.Event()
    try:
        daemon.start()
        assert daemon.proc is not None
        pid = daemon.proc.pid
        wait_until(lambda: all(daemon.board(t)["status"]["link"] == "online" for t in ids), 30, 0.2)

        def sample() -> None:
            while not stop.is_set():
                samples.append(_rss_kb(pid))
                progress.append(sum(p.acked() for p in peers.values()) / total)
                stop.wait(0.5)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        t0 = time.monotonic()
        for tid in ids:
            peers[tid].play(plays[tid])
        wait_until(lambda: all(peers[t].acked() == len(plays[t]) for t in ids), timeout, 0.5)
        seconds = time.monotonic() - t0
        stop.set()
        sampler.join(5)
        boards = {t: daemon.board(t) for t in ids}
        rc = daemon.stop()
        store = tmp / "store.sqlite"
        lost = doubled = 0
        for t in ids:
            seqs = [s for _b, s, _e in stored_events(store, t)]
            lost += len(set(range(1, len(plays[t]) + 1)) - set(seqs))
            doubled += len(seqs) - len(set(seqs))
        text = log.read_text(errors="replace")
        return {
            "tables": tables,
            "frames_per_table": frames,
            "events": total,
            "seconds": round(seconds, 1),
            "events_per_s": round(total / seconds),
            "lost": lost,
            "doubled": doubled,
            "alerts": sum(len(b["alerts"]) for b in boards.values()),
            "rss_kb": growth(samples),
            "clean_exit": rc,
            "integrity": integrity(store),
            "log_errors": [ln for ln in text.splitlines() if "ERROR" in ln or "Traceback" in ln],
            "log_warnings": sum(1 for ln in text.splitlines() if "WARNING" in ln),
        }
    finally:
        stop.set()
        daemon.stop()
        for p in peers.values():
            p.stop()
