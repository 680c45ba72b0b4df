"""Bills and the daily report of a busy club day, beside a baseline of the same run.

    .venv/bin/python bench/billing_bench.py [--tables 32] [--sessions 500]

A store is filled as the daemon fills it (the real shadow referee and store
writer, tests/host/billing_kit.py): ``--tables`` tables and ``--sessions``
sessions over one business day, each session a best-of-3 simulated match
(host/sim/matches.py) with the device's times on its events, a tariff with peak
hours and loser pays, a correction on every tenth bill and two teas on
every third.  Then, on a read-only connection as the web side has it:

* every bill of the day (host/club/daily.py day_bills);
* the daily report as GET /api/reports/day?lang=fa builds it: the bills,
  each table's and the venue's totals, and every amount and date written out
  in Persian (Solar Hijri dates, Persian digits);
* baseline: the same rows (sessions, their marks, frames, corrections and
  items) read with plain SQL and nothing worked out.

Each figure is the CPU time of the work, median of ``--runs`` runs (the
first, cold one and the median wall time printed beside it: on a shared
machine the wall time also counts waits for a core).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, date, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baulk.host.club import daily
from baulk.host.club.clock import Stamp
from baulk.host.club.tariffs import parse
from baulk.host.sim.matches import generate_match
from baulk.host.store import SessionWrite, StoreReader
from tests.host.billing_kit import HandVenue, stamp

DAY = date(2025, 3, 6)  # a Thursday: peak hours in the evening
BILLING = parse(
    {
        "billing": {"timezone": "Asia/Tehran", "day_starts": "06:00"},
        "tariff": [
            {
                "name": "club",
                "currency": "IRT",
                "per_hour": 120_000,
                "per_frame": 10_000,
                "minimum_min": 30,
                "round_min": 5,
                "loser_pays": True,
                "peak": [
                    {"days": ["thu", "fri"], "from": "18:00", "to": "24:00", "per_hour": 180_000}
                ],
            }
        ],
    }
)
EVENT_MS = 9_000  # device time between two inputs: a 100-event frame takes 15 minutes
BUDGET_MS = 100.0


def fill(venue: HandVenue, tables: int, sessions: int, seed: int) -> int:
    """Sessions round the tables from 10:00 (Tehran); returns the events stored."""
    rng = random.Random(seed)
    tariff = BILLING.tariffs[0]
    start = int(datetime(2025, 3, 6, 6, 30, tzinfo=UTC).timestamp() * 1000)  # 10:00 in Tehran
    clock = {f"t{i + 1}": start + i * 60_000 for i in range(tables)}
    device_t = {t: 0 for t in clock}
    events = 0
    for n in range(sessions):
        table = f"t{n % tables + 1}"
        opened = clock[table]
        sid = venue.open(table, tariff, stamp(opened, opened))
        match = generate_match(seed + n, best_of=3, reds=rng.choice((6, 10, 15)))
        first = t = device_t[table] + 60_000
        timed = []
        for ev in match:
            timed.append({**ev, "t": t})
            t += EVENT_MS
        venue.play(table, timed)
        events += len(timed)
        device_t[table] = t
        length = (t - first) + rng.randint(5, 25) * 60_000
        closed = opened + length
        venue.close(sid, stamp(closed, closed))
        if n % 10 == 0:
            venue.correct(sid, -5_000, "regular customer")
        if n % 3 == 0:
            venue.write(
                SessionWrite(
                    "item",
                    sid,
                    table,
                    "desk",
                    closed,
                    item="Tea",
                    item_fa="چای",
                    price=20_000,
                    quantity=2,
                )
            )
        clock[table] = closed + rng.randint(2, 20) * 60_000
    return events


def baseline(reader: StoreReader, lo: int, hi: int) -> int:
    db = reader.db
    rows = db.execute(
        "SELECT * FROM table_sessions WHERE opened_wall_ms >= ? AND opened_wall_ms < ?", (lo, hi)
    ).fetchall()
    marks = db.execute("SELECT * FROM session_marks").fetchall()
    frames = db.execute("SELECT * FROM frame_play").fetchall()
    fixes = db.execute("SELECT * FROM bill_corrections").fetchall()
    items = db.execute("SELECT * FROM bill_items").fetchall()
    return len(rows) + len(marks) + len(frames) + len(fixes) + len(items)


def the_report(reader: StoreReader, now: Stamp) -> dict[str, object]:
    names = {f"t{i}": f"Table {i}" for i in range(1, 65)}
    report = daily.day_report(reader, BILLING, DAY, now, names)
    report["formatted"] = daily.formatted_report(report, "fa")  # Persian: the costlier one
    return report


def timed_runs(fn: object, runs: int) -> tuple[float, float, float]:
    """(first run, median, median wall time) in ms.  The figure is the CPU
    time this process spent: on a machine shared with other work the wall
    time also counts the waits for a core (it is printed beside it)."""
    cpu, wall = [], []
    for _ in range(runs):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()  # type: ignore[operator]
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
    return cpu[0], statistics.median(cpu), statistics.median(wall)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", type=int, default=32)
    ap.add_argument("--sessions", type=int, default=500)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "store.sqlite"
        venue = HandVenue(path)
        t0 = time.perf_counter()
        events = fill(venue, a.tables, a.sessions, a.seed)
        fill_s = time.perf_counter() - t0
        venue.close_all()
        del venue  # the filler's shadow referees are no part of the web side's heap
        gc.collect()
        reader = StoreReader(path)
        now = Stamp(0, 0, "bench")
        lo, hi = daily.day_bounds(DAY, BILLING)
        bills = daily.day_bills(reader, BILLING, DAY, now)
        assert len(bills) == a.sessions, len(bills)
        frames = sum(b["frames_played"] for b in bills)
        base = timed_runs(lambda: baseline(reader, lo, hi), a.runs)
        day_bills = timed_runs(lambda: daily.day_bills(reader, BILLING, DAY, now), a.runs)
        report = timed_runs(lambda: the_report(reader, now), a.runs)
        reader.close()
    load = os.getloadavg()[0]
    print(
        f"{a.tables} tables, {a.sessions} sessions, {frames} frames, {events:,} events "
        f"(store filled in {fill_s:.0f} s).  CPU time, median of {a.runs} runs (first run; "
        f"median wall time), load average {load:.1f} on {os.cpu_count()} cores\n"
    )
    print("| figure | measured | baseline (same run) | budget |")
    print("| --- | --- | --- | --- |")
    verdict = "met" if max(day_bills[1], report[1]) <= BUDGET_MS else "NOT met"
    base_text = (
        f"the same rows read with plain SQL: {base[1]:.1f} ms ({base[0]:.1f}; {base[2]:.1f})"
    )
    print(
        f"| every bill of the day | {day_bills[1]:.1f} ms ({day_bills[0]:.1f}; {day_bills[2]:.1f}) "
        f"| {base_text} | {BUDGET_MS:.0f} ms: {verdict} |"
    )
    print(
        f"| the daily report (bills, totals, written out in Persian) | {report[1]:.1f} ms "
        f"({report[0]:.1f}; {report[2]:.1f}) | {base_text} | {BUDGET_MS:.0f} ms: {verdict} |"
    )
    return 0 if verdict == "met" else 1


if __name__ == "__main__":
    sys.exit(main())
