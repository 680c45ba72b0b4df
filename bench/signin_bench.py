"""The cost of a sign-in, and the guessing cap under attack.

    .venv/bin/python bench/signin_bench.py [--seconds 20] [--addresses 8] [--connections 32]

1. One argon2id check (host/staff/passwords.py), median of 15, beside a
   SHA-256 of a token (what a bearer or cookie check costs); then a whole
   sign-in over HTTP with a password, beside one with the operator token.
2. The attack: ``--addresses`` loopback addresses, each holding
   ``--connections`` connections, send wrong passwords as fast as the server
   answers for ``--seconds``: half at one real account, half spread over
   made-up names.  The guessing rate is the attempts the server actually
   checked (answered 401) per second; the rest were held back unchecked
   (429).  Meanwhile the account's owner signs in from his own phone (a
   browser he signed in from before) every two seconds: each must get in.
   Baseline, same run: the same attack with the cap switched off.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baulk.host.staff.passwords import HASHER, hash_secret, verify_secret  # noqa: E402
from baulk.host.web import throttle  # noqa: E402
from baulk.host.web.http import THROTTLE_KEY  # noqa: E402
from tests.host.harness import TOKEN, DaemonThread, http, make_config  # noqa: E402

PASSWORD = "the real password of Dina"
SIGN_IN = {"name": "Dina", "password": PASSWORD}


class NoCap(throttle.Guessing):
    """The baseline: every attempt is let through to the check."""

    def begin(
        self, key: str, plan: throttle.Schedule, trusted: bool, now: float | None = None
    ) -> float:
        return 0.0

    def waiting(self, key: str, plan: throttle.Schedule, now: float | None = None) -> float:
        return 0.0


def hash_cost() -> tuple[float, float, float]:
    """(median CPU ms, median wall ms) of one argon2id check, and µs of a SHA-256."""
    hashed = hash_secret(PASSWORD)
    times, cpu = [], []
    for _ in range(15):
        t, c = time.perf_counter(), time.thread_time()
        verify_secret(hashed, PASSWORD)
        times.append(time.perf_counter() - t)
        cpu.append(time.thread_time() - c)
    token = b"x" * 43
    t = time.perf_counter()
    for _ in range(10_000):
        hashlib.sha256(token).digest()
    sha = (time.perf_counter() - t) / 10_000
    return statistics.median(cpu) * 1000, statistics.median(times) * 1000, sha * 1e6


async def sign_in_times(url: str, body: dict[str, Any], n: int = 9) -> float:
    times = []
    async with aiohttp.ClientSession() as s:
        for _ in range(n):
            t = time.perf_counter()
            async with s.post(url + "/console/signin", json=body) as r:
                assert r.status == 200, await r.text()
            times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


async def attack(url: str, seconds: float, addresses: int, connections: int) -> dict[str, Any]:
    counts = {"401": 0, "429": 0, "other": 0}
    stop = time.monotonic() + seconds

    async def loop(session: aiohttp.ClientSession, n: int) -> None:
        i = 0
        while time.monotonic() < stop:
            i += 1
            name = "Dina" if n % 2 == 0 else f"guess-{n}-{i}"
            body = {"name": name, "password": f"guess {n} {i}"}
            try:
                async with session.post(url + "/console/signin", json=body) as r:
                    await r.read()
                    key = str(r.status) if r.status in (401, 429) else "other"
                    counts[key] += 1
            except aiohttp.ClientError:
                counts["other"] += 1

    # Dina's own phone, signed in before, signs in again every two seconds.
    owner: list[tuple[int, float]] = []

    async def phone() -> None:
        jar = aiohttp.CookieJar(unsafe=True)
        async with aiohttp.ClientSession(cookie_jar=jar) as s:
            async with s.post(
                url + "/console/signin", json={"name": "Dina", "password": PASSWORD}
            ) as r:
                assert r.status == 200
            while time.monotonic() < stop:
                await asyncio.sleep(2)
                t = time.perf_counter()
                async with s.post(
                    url + "/console/signin", json={"name": "Dina", "password": PASSWORD}
                ) as r:
                    owner.append((r.status, (time.perf_counter() - t) * 1000))

    sessions = [
        aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=connections, local_addr=(f"127.0.0.{10 + a}", 0))
        )
        for a in range(addresses)
    ]
    try:
        started = time.monotonic()
        await asyncio.gather(
            phone(),
            *(
                loop(s, a * connections + c)
                for a, s in enumerate(sessions)
                for c in range(connections)
            ),
        )
        took = time.monotonic() - started
    finally:
        for s in sessions:
            await s.close()
    return {"took": took, **counts, "owner": owner}


def run(seconds: float, addresses: int, connections: int, capped: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="baulk-signin-") as tmp:
        d = DaemonThread(make_config(Path(tmp), {})).start()
        try:
            assert d.web is not None
            if not capped:  # the baseline: every attempt is checked
                d.web.runner.app[THROTTLE_KEY].__class__ = NoCap
            status, body = http(
                d.url + "/api/staff/users",
                {"name": "Dina", "role": "desk", "password": PASSWORD},
                TOKEN,
            )
            assert status == 200, body
            pw = asyncio.run(sign_in_times(d.url, {"name": "Dina", "password": PASSWORD}))
            tok = asyncio.run(sign_in_times(d.url, {"token": TOKEN}))
            got = asyncio.run(attack(d.url, seconds, addresses, connections))
            got["sign_in_ms"], got["token_ms"] = pw, tok
            return got
        finally:
            d.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--addresses", type=int, default=8)
    ap.add_argument("--connections", type=int, default=32)
    args = ap.parse_args()
    cpu_ms, wall_ms, sha_us = hash_cost()
    print(
        f"argon2id check (t={HASHER.time_cost}, m={HASHER.memory_cost} KiB, "
        f"p={HASHER.parallelism}), median of 15: {cpu_ms:.0f} ms of CPU ({wall_ms:.0f} ms wall, "
        f"load average {os.getloadavg()[0]:.1f}); SHA-256 of a token: {sha_us:.2f} µs"
    )
    logging.getLogger("baulk").setLevel(logging.ERROR)  # each refusal is logged: not here
    capped = run(args.seconds, args.addresses, args.connections, capped=True)
    print(
        f"sign-in over HTTP, p50 of 9: password {capped['sign_in_ms']:.0f} ms; "
        f"operator token {capped['token_ms']:.1f} ms"
    )
    base = run(args.seconds, args.addresses, args.connections, capped=False)
    for label, r in (("capped", capped), ("baseline, cap off", base)):
        attempts = r["401"] + r["429"] + r["other"]
        owner = r["owner"]
        ok = sum(1 for s, _ in owner if s == 200)
        worst = max((ms for _, ms in owner), default=0.0)
        print(
            f"{label}: {args.addresses} addresses x {args.connections} connections, "
            f"{r['took']:.0f} s: {attempts} attempts ({attempts / r['took']:.0f}/s), "
            f"checked {r['401']} ({r['401'] / r['took']:.2f} guesses/s), held back {r['429']}, "
            f"other {r['other']}; the owner's phone signed in {ok}/{len(owner)} "
            f"(slowest {worst:.0f} ms)"
        )


if __name__ == "__main__":
    main()
