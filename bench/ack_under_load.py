"""The score path under a flood of public reads: a table's acknowledgements a
second before, during and after strangers load the public pages and the API
as fast as the server answers.

    .venv/bin/python bench/ack_under_load.py [--seconds 8] [--rounds 4] [--addresses 1]
                                             [--connections 30] [--reads all|pages|heavy|rest]
                                             [--store FILE]

``baulk run`` serves a store of 1,300 matches (made as bench/stats_player.py
makes it: one player with 1,000 of them), and a device peer
(tests/host/device_peer.py, the firmware's window of 8) streams events on
its pty as fast as the daemon acknowledges them.  After ``--seconds`` of
that alone (the baseline, same run), a flood process opens ``--connections``
connections from each of ``--addresses`` loopback addresses, each loading
in turn the boards, the index, a static file, ``/api/tables``,
``/api/matches?limit=1000``, a match's report (page and JSON) and the
1,000-match player's page and JSON (``--reads``: the pages alone, the
heavy reads alone, or the rest: the API's description, the console's, the
desk's and the staff's pages, the live table's sensors and handset), as
fast as the server answers, for ``--seconds``; then
``--seconds`` alone again; ``--rounds`` times, so that the machine's other
work drifts through the quiet and the flooded phases alike.  Acks a second
are the peer's acknowledged sequence number, sampled every 250 ms; each
phase gives its mean and its slowest second, and the figure is the flooded
phases' mean over the quiet phases'.  Target: the flood costs the table at
most 20 % of its acks (host/web/public_reads.py).

Then, with ``--cache-seconds``, how often the kept answers hold while the
table streams: the same daemon in this process (its public reads' counts
at hand), the table streaming as before, and 4 readers asking the heavy
reads in turn for that long.  It counts the answers given from memory and
worked out, and the worker's time; and, on the same requests, how many
would have been kept under the store-wide version the answers had before
(SQLite's ``data_version``, which every commit moves).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

TARGET_CUT = 0.20
TABLE = "live"
SAMPLE_S = 0.25


# ---------------------------------------------------------------------- the flood process
async def flood(url: str, paths: list[str], seconds: float, addresses: int, conns: int) -> None:
    import aiohttp

    counts: dict[str, int] = {}
    times: list[float] = []
    sent = 0
    print("READY", flush=True)
    stop = time.monotonic() + seconds

    async def loop(session: aiohttp.ClientSession, n: int) -> None:
        nonlocal sent
        i = n
        while (left := stop - time.monotonic()) > 0:
            path = paths[i % len(paths)]
            i += 1
            t = time.perf_counter()
            try:
                # What is still waiting when the flood ends is given up.
                timeout = aiohttp.ClientTimeout(total=left)
                async with session.get(url + path, timeout=timeout) as r:
                    await r.read()
                    key = str(r.status)
            except TimeoutError:
                continue
            except aiohttp.ClientError as e:
                key = type(e).__name__
            times.append(time.perf_counter() - t)
            counts[key] = counts.get(key, 0) + 1
            sent += 1

    sessions = [
        aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=conns, local_addr=(f"127.0.3.{10 + a}", 0)),
        )
        for a in range(addresses)
    ]
    started = time.monotonic()
    try:
        await asyncio.gather(
            *(loop(s, a * conns + c) for a, s in enumerate(sessions) for c in range(conns))
        )
    finally:
        for s in sessions:
            await s.close()
    took = time.monotonic() - started
    times.sort()
    print(
        json.dumps(
            {
                "took": took,
                "requests": sent,
                "counts": counts,
                "p50_ms": times[len(times) // 2] * 1000 if times else None,
                "max_ms": times[-1] * 1000 if times else None,
                "cpu_s": time.process_time(),
            }
        ),
        flush=True,
    )


# ---------------------------------------------------------------------- the table
class Streamer:
    """Keeps the peer's queue full: it sends as fast as it is acknowledged."""

    def __init__(self, peer: Any) -> None:
        from baulk.host.sim.matches import generate_match

        self.peer = peer
        self.generate = generate_match
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        n = 0
        while not self.stop.is_set():
            for ev in self.generate(10_000 + n, best_of=3):
                while self.peer.pending() > 32 and not self.stop.is_set():
                    time.sleep(0.002)
                if self.stop.is_set():
                    return
                self.peer.inject(ev)
            n += 1


def rates(samples: list[tuple[float, int]]) -> tuple[float, float]:
    """(mean acks/s, the slowest whole second's acks) over the samples."""
    if len(samples) < 2:
        return 0.0, 0.0
    (t0, a0), (t1, a1) = samples[0], samples[-1]
    mean = (a1 - a0) / (t1 - t0)
    per = int(1 / SAMPLE_S)
    seconds = [
        (samples[i + per][1] - samples[i][1]) / (samples[i + per][0] - samples[i][0])
        for i in range(0, len(samples) - per, per)
    ]
    return mean, min(seconds) if seconds else mean


def sample(peer: Any, seconds: float) -> list[tuple[float, int]]:
    out = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        out.append((time.monotonic(), peer.acked()))
        time.sleep(SAMPLE_S)
    out.append((time.monotonic(), peer.acked()))
    return out


def public_paths(store: Path, reads: str = "all") -> list[str]:
    """The public reads the flood cycles through, with a real match and player."""
    import sqlite3

    from stats_player import PLAYER

    from baulk.host.store.player_names import player_key

    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        (match,) = db.execute(
            "SELECT match_id FROM matches ORDER BY started_ms LIMIT 1 OFFSET 500"
        ).fetchone()
    finally:
        db.close()
    key = player_key(PLAYER)
    pages = ["/venue", f"/table/{TABLE}", "/", "/static/board.js", "/api/tables"]
    rest = ["/api/openapi.json", "/console", "/desk", "/staff", f"/api/tables/{TABLE}/sensors",
            f"/api/tables/{TABLE}/handset"]  # fmt: skip
    heavy = [
        "/api/matches?limit=1000",
        f"/report/{match}",
        f"/api/matches/{match}",
        f"/player/{key}",
        f"/api/players/{key}",
    ]
    return {"all": pages + heavy, "pages": pages, "heavy": heavy, "rest": rest}[reads]


def start_flood(args: argparse.Namespace, url: str, paths: list[str]) -> subprocess.Popen[str]:
    flooder = subprocess.Popen(
        [
            sys.executable,
            __file__,
            "--flood",
            url,
            "--paths",
            json.dumps(paths),
            "--seconds",
            str(args.seconds),
            "--addresses",
            str(args.addresses),
            "--connections",
            str(args.connections),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert flooder.stdout is not None
    if flooder.stdout.readline().strip() != "READY":
        raise RuntimeError("the flood process did not start")
    return flooder


def run(args: argparse.Namespace, work: Path, store: Path) -> dict[str, Any]:
    from tests.chaos.host_crash import DaemonProcess, write_config
    from tests.host.device_peer import DevicePeer

    served = work / "venue.sqlite"
    shutil.copyfile(store, served)
    config = write_config(work, {TABLE: str(work / "tty-live")})
    config.write_text(config.read_text().replace('path = "store.sqlite"', f'path = "{served}"'))
    peer = DevicePeer(TABLE, link_path=work / "tty-live", boot=777).start()
    daemon = DaemonProcess(config, work / "daemon.log", verbose=False)
    streamer = Streamer(peer)
    flooder = None
    quiet: list[tuple[float, float]] = []
    flooded: list[tuple[float, float]] = []
    floods: list[dict[str, Any]] = []
    try:
        daemon.start()
        while daemon.board(TABLE)["status"]["link"] != "online":
            time.sleep(0.05)
        streamer.thread.start()
        time.sleep(2.0)  # past the first match's set-up and the daemon's warm caches
        paths = public_paths(store, args.reads)
        # Quiet and flooded in turn, so that the machine's other work drifts
        # through both alike: before, (during, after) x rounds.
        quiet.append(rates(sample(peer, args.seconds)))
        for _ in range(args.rounds):
            flooder = start_flood(args, daemon.url, paths)
            flooded.append(rates(sample(peer, args.seconds)))
            assert flooder.stdout is not None
            floods.append(json.loads(flooder.stdout.readline()))
            flooder.wait(60)
            quiet.append(rates(sample(peer, args.seconds)))
    finally:
        streamer.stop.set()
        if flooder is not None and flooder.poll() is None:
            flooder.kill()
        daemon.stop()
        peer.stop()
    return {"quiet": quiet, "flooded": flooded, "floods": floods}


def cache_phase(store: Path, work: Path, seconds: float) -> dict[str, Any]:
    """The kept answers' hits while the table streams (see the docstring)."""
    import dataclasses
    import urllib.request
    from collections.abc import Hashable

    from baulk.host.web.public_reads import READS_KEY
    from tests.host.device_peer import DevicePeer
    from tests.host.harness import DaemonThread, make_config

    served = work / "cache.sqlite"
    shutil.copyfile(store, served)
    cfg = make_config(work, {TABLE: work / "tty-cache"})
    cfg = dataclasses.replace(cfg, store_path=served)
    peer = DevicePeer(TABLE, link_path=work / "tty-cache", boot=778).start()
    d = DaemonThread(cfg).start()
    streamer = Streamer(peer)
    old = {"hits": 0, "asked": 0}
    try:
        while d.board(TABLE)["status"]["link"] != "online":
            time.sleep(0.05)
        assert d.web is not None
        reads = d.web.runner.app[READS_KEY]
        answer = reads.answer
        # What the store-wide version would have kept: one version for every
        # answer, moved by any table's commit (Versions.of(None)).
        kept_under: dict[Hashable, Hashable] = {}

        async def counted(request: Any, key: Hashable, *args: Any, **kw: Any) -> Any:
            versions = reads.version_of()
            every = versions.of(None) if versions is not None else None
            old["asked"] += 1
            old["hits"] += kept_under.get(key) == every
            found = await answer(request, key, *args, **kw)
            kept_under[key] = every  # the version from before the work
            return found

        reads.answer = counted
        streamer.thread.start()
        time.sleep(2.0)  # past the first match's set-up
        paths = public_paths(store, "heavy")
        stop = time.monotonic() + seconds
        base_hits, base_worked, base_s = reads.hits, reads.computed, reads.worker.worked_s
        acked0 = peer.acked()
        started = time.monotonic()

        def read(n: int) -> None:
            i = n
            while time.monotonic() < stop:
                with urllib.request.urlopen(d.url + paths[i % len(paths)], timeout=60) as r:
                    r.read()
                i += 1

        readers = [threading.Thread(target=read, args=(n,)) for n in range(4)]
        for t in readers:
            t.start()
        for t in readers:
            t.join()
        took = time.monotonic() - started
        return {
            "hits": reads.hits - base_hits,
            "worked": reads.computed - base_worked,
            "worker_s": reads.worker.worked_s - base_s,
            "old_hits": old["hits"],
            "asked": old["asked"],
            "acks_per_s": (peer.acked() - acked0) / took,
            "seconds": took,
        }
    finally:
        streamer.stop.set()
        d.stop()
        peer.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--addresses", type=int, default=1)
    ap.add_argument("--connections", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=4, help="floods, each followed by a quiet phase")
    ap.add_argument(
        "--reads",
        choices=("all", "pages", "heavy", "rest"),
        default="all",
        help="what the flood loads: the pages and the boards' API, the heavy reads, both, or "
        "the rest (the API's description, the staff's pages, the sensors and the handset)",
    )
    ap.add_argument("--store", type=Path, help="keep the 1,300-match store here for reruns")
    ap.add_argument(
        "--cache-seconds",
        type=float,
        default=0.0,
        help="then this long of heavy reads while the table streams, in this process: how "
        "often the kept answers hold",
    )
    ap.add_argument("--flood", help=argparse.SUPPRESS)  # the flood process: the daemon's URL
    ap.add_argument("--paths", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.flood:
        asyncio.run(
            flood(args.flood, json.loads(args.paths), args.seconds, args.addresses,
                  args.connections)
        )  # fmt: skip
        return 0
    work = Path(tempfile.mkdtemp(prefix="baulk-ack-load-"))
    try:
        store = args.store or work / "matches.sqlite"
        if not store.exists():
            from stats_player import build

            t0 = time.perf_counter()
            made = build(store, 1000, 300)
            print(
                f"store: {made['matches']:,} matches, {made['events']:,} events, "
                f"{made['bytes'] / 1e6:.0f} MB (made in {time.perf_counter() - t0:.0f} s)",
                flush=True,
            )
        r = run(args, work, store)
        cache = cache_phase(store, work, args.cache_seconds) if args.cache_seconds else None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for n, f in enumerate(r["floods"], 1):
        counts = ", ".join(f"{k}: {v:,}" for k, v in sorted(f["counts"].items()))
        print(
            f"flood {n}: {args.addresses} address(es) x {args.connections} connections, "
            f"{f['took']:.0f} s: {f['requests']:,} public reads answered "
            f"({f['requests'] / f['took']:.0f}/s; {counts}), p50 {f['p50_ms']:.0f} ms, "
            f"slowest {f['max_ms']:.0f} ms; the flood process used {f['cpu_s']:.1f} s of CPU"
        )

    def phase(rate: tuple[float, float]) -> str:
        return f"{rate[0]:,.0f} (slowest second {rate[1]:,.0f})"

    quiet, flooded = r["quiet"], r["flooded"]
    print(f"acks/s before: {phase(quiet[0])}")
    for n, (during, after) in enumerate(zip(flooded, quiet[1:], strict=True), 1):
        print(f"acks/s during flood {n}: {phase(during)}; after it: {phase(after)}")
    if cache is not None:
        asked = cache["asked"]

        def share(n: int) -> str:
            return f"{n:,} of {asked:,} ({n / asked if asked else 0:.0%})"

        worked = cache["worked"]
        each = cache["worker_s"] / worked * 1000 if worked else 0.0
        print(
            f"kept answers while the table streams ({cache['seconds']:.0f} s, 4 readers of the "
            f"heavy reads, {cache['acks_per_s']:,.0f} acks/s): from memory {share(cache['hits'])}"
            f", worked out {worked:,} in {cache['worker_s']:.1f} s of the worker ({each:.0f} ms "
            f"each); under the store-wide version they would have been kept "
            f"{share(cache['old_hits'])}"
        )
    base = statistics.mean(q[0] for q in quiet)
    under = statistics.mean(f[0] for f in flooded)
    ratio = under / base if base else float("nan")
    verdict = "met" if ratio >= 1 - TARGET_CUT else "not met"
    print(
        f"during / quiet (before and after, the same run): {under:,.0f} / {base:,.0f} = "
        f"{ratio:.2f} (target at least {1 - TARGET_CUT:.2f}: {verdict}); "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
