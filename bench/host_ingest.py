"""Ingest: device event frames decoded, replayed by the shadow referee,
durably stored (SQLite WAL, synchronous=FULL, group commit) and acknowledged,
per second; beside it, the raw SQLite insert rate of the same rows measured
in the same run.

    .venv/bin/python bench/host_ingest.py [--tables 16] [--events 4000] [--audit 1000]

``--audit N`` runs the ingest a second time while N activity-log rows a
second (host/staff/activity.py, what the web gate appends for every staff
action) go to the same store writer, and prints both: the log rides in the
events' commits and must not slow them.

Each simulated table behaves like the device's sender: it has at most
``window`` frames in flight and sends more only when the daemon's ack (sent
after the commit) comes back.  Frames are encoded before the clock starts,
so the figure is the host's work alone.  Target: >= 20,000 frames/s.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from baulk.firmware.engine import Engine
from baulk.host import config as config_mod
from baulk.host.club.clock import VenueClock
from baulk.host.link.channel import TableChannel
from baulk.host.sim.matches import generate_match
from baulk.host.staff import activity
from baulk.host.staff.roles import Actor
from baulk.host.venue.daemon import Daemon
from baulk.protocol import frame, host_codec, messages
from baulk.protocol.reliability import DEAD_MS

TARGET = 20_000


def table_frames(table: int, count: int) -> list[bytes]:
    """count event frames of realistic play (matches back to back)."""
    out: list[bytes] = []
    seed = table * 1000
    engine = Engine()
    while len(out) < count:
        seed += 1
        for ev in generate_match(seed, best_of=3):
            engine.apply(ev)
            body = messages.event_body(ev, [engine.s0, engine.s1], None, 1)
            seq = len(out) + 1
            data: bytes = frame.encode_frame(messages.EVENT, frame.FLAG_REL, seq & 0xFFFF, body)
            out.append(data)
            if len(out) == count:
                break
    return out


def hello_frame(table: int) -> bytes:
    body = {0: "bench", 1: f"t{table}", 2: 1, 3: 0, 4: 1, 5: 0, 6: 32, 7: 256}
    data: bytes = frame.encode_frame(messages.HELLO, 0, 0, body)
    return data


def raw_sqlite_rate(path: Path, rows: list[tuple[Any, ...]], batch: int) -> float:
    """Plain INSERTs of the same event rows, same file settings, one commit
    per `batch` rows: the floor the store is measured against."""
    db = sqlite3.connect(str(path), isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")
    db.execute(
        "CREATE TABLE events (id INTEGER PRIMARY KEY, table_id TEXT, boot_id INTEGER, "
        "seq INTEGER, rx_ms INTEGER, ev TEXT, scores TEXT, UNIQUE (table_id, boot_id, seq))"
    )
    t0 = time.perf_counter()
    for i in range(0, len(rows), batch):
        db.execute("BEGIN")
        db.executemany(
            "INSERT INTO events (table_id, boot_id, seq, rx_ms, ev, scores) VALUES (?,?,?,?,?,?)",
            rows[i : i + batch],
        )
        db.execute("COMMIT")
    dt = time.perf_counter() - t0
    db.close()
    return len(rows) / dt


async def audit_flood(daemon: Daemon, per_s: int, stop: asyncio.Event) -> int:
    """Activity rows as the web gate makes them, ``per_s`` a second."""
    clock = VenueClock()
    sent = 0
    while not stop.is_set():
        for _ in range(max(1, per_s // 100)):
            entry = activity.Entry(
                clock.now(), Actor("Dina", "desk"), None, "127.0.0.1", "bench", "undo",
                'POST /api/tables/t1/command {"ev":"undo"}', "t1", None, "done", None,
            )  # fmt: skip
            daemon.committer.submit_staff(entry.write())
            sent += 1
        await asyncio.sleep(0.01)
    return sent


async def ingest(
    work: Path, tables: int, frames: list[list[bytes]], window: int, audit: int = 0
) -> dict[str, Any]:
    cfg = config_mod.Config(store_path=work / f"ingest-{audit}.sqlite", autodetect=False, port=0)
    daemon = Daemon(cfg)
    await daemon.start()
    channels: list[TableChannel] = []
    splitter = host_codec.StreamDecoder()
    for t in range(tables):
        rt = daemon.runtime(f"t{t}")
        ch = TableChannel(f"t{t}", lambda: None, daemon.devices)
        rt.channel = ch
        channels.append(ch)
        ch.feed(splitter.feed_raw(hello_frame(t)))
    total = sum(len(f) for f in frames)
    sent = [0] * tables
    done = asyncio.Event()
    acked = 0

    def send_more(t: int) -> None:
        ch = channels[t]
        committed = ch.session.receiver.committed
        limit = min(committed + window, len(frames[t]))
        if sent[t] < limit:
            chunk = b"".join(frames[t][sent[t] : limit])
            sent[t] = limit
            ch.feed(splitter.feed_raw(chunk))

    original = daemon.committer.on_durable

    def on_durable(table_id: str, seq: int) -> None:
        nonlocal acked
        original(table_id, seq)
        t = int(table_id[1:])
        acked = sum(c.session.receiver.committed for c in channels)
        if acked >= total:
            done.set()
        else:
            send_more(t)

    daemon.committer.on_durable = on_durable
    stop = asyncio.Event()
    flood = asyncio.ensure_future(audit_flood(daemon, audit, stop)) if audit else None
    t0 = time.perf_counter()
    for t in range(tables):
        send_more(t)
    await asyncio.wait_for(done.wait(), timeout=600)
    dt = time.perf_counter() - t0
    stop.set()
    logged = await flood if flood is not None else 0
    # every ack was actually produced for the device
    acks_ok = all(c.session.receiver.committed == len(frames[i]) for i, c in enumerate(channels))
    batches = daemon.committer.batches
    mismatches = sum(rt.shadow.mismatches for rt in daemon.tables.values())
    await daemon.stop()
    db = sqlite3.connect(str(work / f"ingest-{audit}.sqlite"))
    stored = db.execute(
        "SELECT count(*), count(DISTINCT table_id || '/' || seq) FROM events"
    ).fetchone()
    activity_rows = db.execute("SELECT count(*) FROM staff_activity").fetchone()[0]
    db.close()
    assert DEAD_MS > 0
    return {
        "rate": total / dt,
        "seconds": dt,
        "batches": batches,
        "stored": stored[0],
        "distinct": stored[1],
        "acks_ok": acks_ok,
        "mismatches": mismatches,
        "audit_sent": logged,
        "audit_stored": activity_rows,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=16)
    ap.add_argument("--events", type=int, default=4000, help="event frames per table")
    ap.add_argument("--window", type=int, default=64, help="frames in flight per table")
    ap.add_argument("--audit", type=int, default=0, help="activity-log rows a second, a 2nd run")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="baulk-bench-"))
    t0 = time.perf_counter()
    frames = [table_frames(t, args.events) for t in range(args.tables)]
    prep = time.perf_counter() - t0
    total = args.tables * args.events
    result = asyncio.run(ingest(work, args.tables, frames, args.window))
    rows = [
        (f"t{t}", 1, s + 1, 0, '{"ev":"pot","ball":"red","pocket":"tl"}', "[1,0]")
        for t in range(args.tables)
        for s in range(args.events)
    ]
    avg_batch = max(1, total // max(result["batches"], 1))
    raw_same = raw_sqlite_rate(work / "raw_same.sqlite", rows, avg_batch)
    raw_big = raw_sqlite_rate(work / "raw_big.sqlite", rows, 10_000)
    print(f"frames: {total} ({args.tables} tables x {args.events}), window {args.window}")
    print(f"  (frames encoded beforehand in {prep:.1f} s, outside the clock)")
    print(
        f"ingest (decode + shadow + store + ack): {result['rate']:,.0f} frames/s "
        f"in {result['seconds']:.2f} s, {result['batches']} commits "
        f"(~{avg_batch} events each); target >= {TARGET:,}/s: "
        f"{'PASS' if result['rate'] >= TARGET else 'FAIL'}"
    )
    print(f"baseline raw SQLite INSERT, same commit size ({avg_batch}): {raw_same:,.0f} rows/s")
    print(f"baseline raw SQLite INSERT, 10,000-row commits:            {raw_big:,.0f} rows/s")
    print(f"ratio ingest / raw (same commit size): {result['rate'] / raw_same:.2f}")
    print(f"ratio ingest / raw (10,000-row commits): {result['rate'] / raw_big:.2f}")
    print(
        f"check: stored {result['stored']} rows, {result['distinct']} distinct, "
        f"every table acked to its last frame: {result['acks_ok']}, "
        f"shadow mismatches: {result['mismatches']}"
    )
    if args.audit:
        logged = asyncio.run(ingest(work, args.tables, frames, args.window, args.audit))
        print(
            f"the same ingest beside {args.audit} activity-log rows/s: "
            f"{logged['rate']:,.0f} frames/s in {logged['seconds']:.2f} s "
            f"({logged['rate'] / result['rate']:.2f} of the run without); "
            f"{logged['audit_stored']} of {logged['audit_sent']} log rows stored "
            f"({logged['audit_sent'] / logged['seconds']:,.0f}/s while it ran), "
            f"every table acked to its last frame: {logged['acks_ok']}"
        )


if __name__ == "__main__":
    main()
