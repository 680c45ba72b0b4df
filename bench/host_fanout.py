"""Fan-out: 500 live-feed (WebSocket) clients on one table; p99 delivery time
from the pot handed to the device to the board message parsed at each client.

    .venv/bin/python bench/host_fanout.py [--clients 500] [--seconds 15] [--rate 8]

The clients run in processes of their own (so they do not share the
daemon's interpreter; one per CLIENTS_PER_PROCESS, so that parsing the
boards at 2,000 clients is not one interpreter's queue) and stamp each
message with the wall clock; the daemon process stamps each pot the same
way.  They connect from many loopback addresses,
as a venue's screens do (at most FEEDS_PER_ADDRESS each, under the daemon's
cap of live feeds per address).  Same-run baseline: the identical run with
one client.  Target: p99 at most 200 ms with 500 clients.  Whatever
happens, the client process, the daemon and the table are stopped and the
run's folder removed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baulk.host import config as config_mod  # noqa: E402
from baulk.host.sim.matches import generate_match  # noqa: E402
from baulk.host.venue.daemon import Daemon  # noqa: E402
from baulk.host.web.app import serve  # noqa: E402
from baulk.host.web.guard import FEEDS_PER_CLIENT, raise_fd_limit  # noqa: E402
from tests.host.device_peer import DevicePeer  # noqa: E402

TARGET_P99_MS = 200.0


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    if not s:
        return float("nan")
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


FEEDS_PER_ADDRESS = FEEDS_PER_CLIENT  # the daemon refuses more from one address
READY_S = 120.0
CLIENTS_PER_PROCESS = 500


def client_address(i: int) -> str:
    """The loopback address client ``i`` connects from."""
    n = i // FEEDS_PER_ADDRESS
    return f"127.3.{n // 200}.{n % 200 + 1}"


# ---------------------------------------------------------------------- the client process
async def clients_main(url: str, n: int, seconds: float, first: int) -> None:
    """Clients ``first`` .. ``first + n - 1``, from their own addresses."""
    raise_fd_limit()  # a socket for each client
    seen: list[dict[int, int]] = [{} for _ in range(n)]
    ready = 0
    sessions: dict[str, aiohttp.ClientSession] = {}
    for i in range(n):
        address = client_address(first + i)
        if address not in sessions:
            connector = aiohttp.TCPConnector(limit=0, local_addr=(address, 0))
            sessions[address] = aiohttp.ClientSession(connector=connector)
    stop = asyncio.Event()

    async def one(i: int) -> None:
        nonlocal ready
        session = sessions[client_address(first + i)]
        async with session.ws_connect(f"{url}/api/live?tables=t1") as ws:
            ready += 1
            end = time.monotonic() + seconds + 60
            while time.monotonic() < end:
                try:
                    msg = await asyncio.wait_for(ws.receive(), 1.0)
                except TimeoutError:
                    if stop.is_set():
                        return
                    continue
                if msg.type != aiohttp.WSMsgType.TEXT:
                    return
                now = time.time_ns()
                data = json.loads(msg.data)
                if data["type"] == "board":
                    seen[i].setdefault(data["board"]["events"], now)

    try:
        tasks = [asyncio.create_task(one(i)) for i in range(n)]
        while ready < n:
            failed = [t for t in tasks if t.done() and t.exception() is not None]
            if failed:
                raise RuntimeError(f"a client could not connect: {failed[0].exception()!r}")
            await asyncio.sleep(0.05)
        print("READY", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        await asyncio.sleep(1.0)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        for session in sessions.values():
            await session.close()
    print(json.dumps([{str(k): v for k, v in s.items()} for s in seen]), flush=True)


# ---------------------------------------------------------------------- the daemon process
async def run_once(n_clients: int, seconds: float, rate: float) -> tuple[list[float], int, int]:
    work = Path(tempfile.mkdtemp(prefix="baulk-fanout-"))
    peer = DevicePeer("t1", link_path=work / "tty1").start()
    cfg = config_mod.Config(
        tables=(config_mod.TableConfig("t1", "T1", port=str(work / "tty1")),),
        port=0,
        store_path=work / "fanout.sqlite",
        autodetect=False,
    )
    daemon = Daemon(cfg)
    runner = None
    procs: list[asyncio.subprocess.Process] = []
    outs: list[bytes] = []
    try:
        await daemon.start()
        runner, url = await serve(daemon, cfg.bind, cfg.port)
        channel = daemon.tables["t1"].channel
        for _ in range(200):  # the device's hello first: measure play, not the handshake
            if channel is not None and channel.state == "online":
                break
            await asyncio.sleep(0.05)
        for first in range(0, n_clients, CLIENTS_PER_PROCESS):
            procs.append(
                await asyncio.create_subprocess_exec(
                    sys.executable,
                    __file__,
                    "--client-process",
                    url,
                    "--clients",
                    str(min(CLIENTS_PER_PROCESS, n_clients - first)),
                    "--first",
                    str(first),
                    "--seconds",
                    str(seconds),
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                )
            )
        for proc in procs:
            assert proc.stdout is not None
            line = await asyncio.wait_for(proc.stdout.readline(), READY_S)
            if line.strip() != b"READY":
                raise RuntimeError(f"the clients did not all connect: {line[:200]!r}")
        events = generate_match(7, best_of=7)
        pots: dict[int, int] = {}

        def play() -> None:
            end = time.monotonic() + seconds
            for i, ev in enumerate(events, 1):
                if time.monotonic() > end:
                    return
                if ev["ev"] == "pot":
                    pots[i] = time.time_ns()
                peer.inject(ev)
                time.sleep(1 / rate)

        player = threading.Thread(target=play, daemon=True)
        player.start()
        while player.is_alive():
            await asyncio.sleep(0.1)
        await asyncio.sleep(1.0)
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write(b"done\n")
            await proc.stdin.drain()
        for proc in procs:
            assert proc.stdout is not None
            outs.append(await asyncio.wait_for(proc.stdout.read(), 120))
            await proc.wait()
    finally:
        for proc in procs:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        if runner is not None:
            await runner.cleanup()
        await daemon.stop()
        peer.stop()
        shutil.rmtree(work, ignore_errors=True)
    seen = [{int(k): v for k, v in s.items()} for out in outs for s in json.loads(out)]
    lat: list[float] = []
    missing = 0
    for got in seen:
        counts = sorted(got)
        for n, t0 in pots.items():
            first = next((got[c] for c in counts if c >= n), None)
            if first is None:
                missing += 1
            else:
                lat.append((first - t0) / 1e6)
    return lat, missing, len(pots)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=500)
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--rate", type=float, default=8.0, help="events per second on the table")
    ap.add_argument("--client-process", metavar="URL", help=argparse.SUPPRESS)
    ap.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.client_process:
        asyncio.run(clients_main(args.client_process, args.clients, args.seconds, args.first))
        return
    base, base_missing, _ = asyncio.run(run_once(1, args.seconds, args.rate))
    lat, missing, pots = asyncio.run(run_once(args.clients, args.seconds, args.rate))
    ok = pct(lat, 99) <= TARGET_P99_MS
    print(f"one table, {args.rate} events/s for {args.seconds} s: {pots} pots")
    print(
        f"fan-out to {args.clients} clients: p50 {pct(lat, 50):.1f} ms, p99 {pct(lat, 99):.1f} ms, "
        f"max {max(lat):.1f} ms over {len(lat)} deliveries ({missing} not seen); "
        f"target p99 <= {TARGET_P99_MS:.0f} ms: {'PASS' if ok else 'FAIL'}"
    )
    print(
        f"baseline, same run, 1 client: p50 {pct(base, 50):.1f} ms, p99 {pct(base, 99):.1f} ms "
        f"({base_missing} not seen)"
    )


if __name__ == "__main__":
    main()
