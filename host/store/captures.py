"""The tables' sensor captures (protocol/SPEC.md 7.6 ``capture_request`` and
``trace``; firmware/capture.py), in tables of their own beside the store's:

* ``sensor_captures``: one row a capture, by the table and the seq of the
  ``capture_request`` that started it: when it began, how it ended, the
  trace frames taken, those lost on the line (gaps in their numbers) and the
  records the device had no room for.
* ``sensor_trace``: the capture's records, one a row: a beam ``edge``, a
  colour ``window``, a ``mark`` (the referee asked), and the ``event`` the
  reliable stream carried meanwhile (a pot, the referee's answer), each at
  the device's ms.

Bounded: at most ``MAX_RECORDS`` records a capture (the rest counted, not
kept) and ``MAX_CAPTURES`` captures a table (the oldest dropped).

Off the score path: the daemon hands traces and events over with
:meth:`CaptureStore.trace` and :meth:`CaptureStore.event`, which only put
them on a bounded queue; one thread of its own, on a connection of its own,
writes them.  A trace that cannot be queued or written is logged, never
raised: no trace can stop an event from being stored and acknowledged.

:func:`export` writes a table's captures as JSON lines, one file a capture
(docs/CAPTURES.md), which ``bench/pockets.py --traces DIR`` replays.
"""

from __future__ import annotations

import json
import logging
import queue
import sqlite3
import struct
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger("baulk.captures")

MAX_RECORDS = 20000
MAX_CAPTURES = 8
QUEUE = 2000  # traces and events waiting for the writer
FORMAT = 1  # the export's format (docs/CAPTURES.md)
ENDS = ("running", "stopped", "time", "passages", "match")  # host_catalogue.CAPTURE_ENDS
MARKS = ("none", "asked")  # host_catalogue.CAPTURE_MARKS
GAINS = ("16x", "4x", "background")

CAPTURE_SCHEMA = """
CREATE TABLE IF NOT EXISTS sensor_captures (
    id INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    capture INTEGER NOT NULL,
    started_ms INTEGER NOT NULL,
    ended TEXT,
    frames INTEGER NOT NULL DEFAULT 0,
    lost_frames INTEGER NOT NULL DEFAULT 0,
    lost_records INTEGER NOT NULL DEFAULT 0,
    records INTEGER NOT NULL DEFAULT 0,
    dropped INTEGER NOT NULL DEFAULT 0,
    last_frame INTEGER NOT NULL DEFAULT -1
);
CREATE INDEX IF NOT EXISTS sensor_captures_table ON sensor_captures (table_id, id);
CREATE TABLE IF NOT EXISTS sensor_trace (
    id INTEGER PRIMARY KEY,
    capture_id INTEGER NOT NULL,
    t INTEGER NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sensor_trace_capture ON sensor_trace (capture_id, id);
"""


def unpack(t: int, edges: bytes, windows: bytes, marks: bytes | None) -> list[dict[str, Any]]:
    """A trace's records (SPEC.md 7.6 ``trace``), at the device's ms; a
    partial record at the end of a string is ignored."""
    out: list[dict[str, Any]] = []
    for i in range(0, len(edges) - 3, 4):
        src, level, dt = struct.unpack_from("<BBH", edges, i)
        out.append({"kind": "edge", "src": src, "level": level, "t": t + dt})
    for i in range(0, len(windows) - 11, 12):
        p, gain, dt, c, r, g, b = struct.unpack_from("<BBH4H", windows, i)
        gain_name = GAINS[gain] if gain < len(GAINS) else str(gain)
        out.append({"kind": "window", "pocket": p, "gain": gain_name, "t": t + dt,
                    "c": c, "r": r, "g": g, "b": b})  # fmt: skip
    m = marks or b""
    for i in range(0, len(m) - 3, 4):
        kind, p, dt = struct.unpack_from("<BBH", m, i)
        name = MARKS[kind] if kind < len(MARKS) else str(kind)
        out.append({"kind": "mark", "mark": name, "pocket": p, "t": t + dt})
    return out


class CaptureStore:
    """The captures' writer: a thread and a connection of its own."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.q: queue.Queue[tuple[str, tuple[Any, ...]] | None] = queue.Queue(QUEUE)
        self.open: dict[str, int] = {}  # table: the capture running there (its request's seq)
        self.dropped = 0  # what found the queue full
        self.failed = 0  # what the writer could not store
        self._db: sqlite3.Connection | None = None
        self._thread = threading.Thread(target=self._run, name="baulk-captures", daemon=True)
        self._thread.start()

    # -- the daemon's side: never raises, never waits --------------------------------
    def trace(self, table_id: str, rx_ms: int, fields: dict[str, Any]) -> None:
        """A trace as its record's fields (capture, frame, t, edges, windows, marks, lost, end)."""
        try:
            if fields.get("end"):
                self.open.pop(table_id, None)
            else:
                self.open[table_id] = fields["capture"]
            self._put("trace", (table_id, rx_ms, fields))
        except Exception:
            log.exception("table %s: a trace was not kept", table_id)

    def event(self, table_id: str, seq: int, event: dict[str, Any]) -> None:
        """An event of the reliable stream, kept with the capture running there (if any)."""
        try:
            if table_id in self.open:
                self._put("event", (table_id, self.open[table_id], seq, event))
        except Exception:
            log.exception("table %s: an event was not kept with its capture", table_id)

    def _put(self, what: str, args: tuple[Any, ...]) -> None:
        try:
            self.q.put_nowait((what, args))
        except queue.Full:
            self.dropped += 1
            if self.dropped in (1, 10, 100) or self.dropped % 1000 == 0:
                log.warning("the captures' queue is full: %d traces dropped", self.dropped)

    def flush(self, timeout: float = 10.0) -> None:
        """Wait until what was handed over is written (tests, shutdown)."""
        done = threading.Event()
        self.q.put(("flush", (done,)))
        done.wait(timeout)

    def close(self) -> None:
        self.q.put(None)
        self._thread.join(10)

    # -- the writer's thread --------------------------------------------------------
    def _run(self) -> None:
        while True:
            item = self.q.get()
            if item is None:
                break
            what, args = item
            if what == "flush":
                args[0].set()
                continue
            try:
                db = self._connect()
                with db:
                    if what == "trace":
                        self._trace(db, *args)
                    else:
                        self._event(db, *args)
            except Exception:
                self.failed += 1
                log.exception("a %s of a capture was not stored", what)
        if self._db is not None:
            self._db.close()

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA busy_timeout = 5000")
            db.executescript(CAPTURE_SCHEMA)
            db.isolation_level = "DEFERRED"
            self._db = db
        return self._db

    def _capture_id(self, db: sqlite3.Connection, table_id: str, capture: int,
                    rx_ms: int, create: bool) -> int | None:  # fmt: skip
        row = db.execute(
            "SELECT id FROM sensor_captures WHERE table_id = ? AND capture = ? "
            "ORDER BY id DESC LIMIT 1",
            (table_id, capture),
        ).fetchone()
        if row is not None:
            return int(row[0])
        if not create:
            return None
        cur = db.execute(
            "INSERT INTO sensor_captures (table_id, capture, started_ms) VALUES (?, ?, ?)",
            (table_id, capture, rx_ms),
        )
        new = int(cur.lastrowid or 0)
        old = [
            r[0]
            for r in db.execute(
                "SELECT id FROM sensor_captures WHERE table_id = ? "
                "ORDER BY id DESC LIMIT -1 OFFSET ?",
                (table_id, MAX_CAPTURES),
            )
        ]
        for cid in old:  # the oldest go
            db.execute("DELETE FROM sensor_trace WHERE capture_id = ?", (cid,))
            db.execute("DELETE FROM sensor_captures WHERE id = ?", (cid,))
        return new

    def _keep(self, db: sqlite3.Connection, cid: int, records: list[dict[str, Any]]) -> None:
        (n,) = db.execute("SELECT records FROM sensor_captures WHERE id = ?", (cid,)).fetchone()
        room = max(0, MAX_RECORDS - n)
        kept = records[:room]
        db.executemany(
            "INSERT INTO sensor_trace (capture_id, t, record) VALUES (?, ?, ?)",
            [(cid, r["t"], json.dumps(r, separators=(",", ":"))) for r in kept],
        )
        db.execute(
            "UPDATE sensor_captures SET records = records + ?, dropped = dropped + ? WHERE id = ?",
            (len(kept), len(records) - len(kept), cid),
        )

    def _trace(self, db: sqlite3.Connection, table_id: str, rx_ms: int, f: dict[str, Any]) -> None:
        cid = self._capture_id(db, table_id, int(f["capture"]), rx_ms, True)
        assert cid is not None
        (last,) = db.execute(
            "SELECT last_frame FROM sensor_captures WHERE id = ?", (cid,)
        ).fetchone()
        gap = max(0, int(f["frame"]) - last - 1)
        end = f.get("end")
        db.execute(
            "UPDATE sensor_captures SET frames = frames + 1, lost_frames = lost_frames + ?, "
            "lost_records = lost_records + ?, last_frame = ?, ended = COALESCE(?, ended) "
            "WHERE id = ?",
            (
                gap,
                f.get("lost") or 0,
                max(last, int(f["frame"])),
                (ENDS[end] if end < len(ENDS) else str(end)) if end else None,
                cid,
            ),
        )
        self._keep(db, cid, unpack(int(f["t"]), f["edges"], f["windows"], f.get("marks")))

    def _event(self, db: sqlite3.Connection, table_id: str, capture: int, seq: int,
               event: dict[str, Any]) -> None:  # fmt: skip
        cid = self._capture_id(db, table_id, capture, 0, False)
        if cid is None:
            return
        rec = {"kind": "event", "seq": seq, **event}
        rec["t"] = int(event.get("t") or 0)
        self._keep(db, cid, [rec])


def export(store: Path, table_id: str, folder: Path) -> list[Path]:
    """Each of the table's captures as ``folder/TABLE-CAPTURE-ID.jsonl``: a
    header line, then its records in time order.  Raises LookupError when
    the table has none (or the store no captures at all)."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        try:
            caps = db.execute(
                "SELECT id, capture, started_ms, ended, frames, lost_frames, lost_records, "
                "records, dropped FROM sensor_captures WHERE table_id = ? ORDER BY id",
                (table_id,),
            ).fetchall()
        except sqlite3.OperationalError:
            caps = []
        if not caps:
            raise LookupError(f"the store holds no sensor capture of table '{table_id}'")
        folder.mkdir(parents=True, exist_ok=True)
        out = []
        for cid, capture, started, ended, frames, lost_f, lost_r, records, dropped in caps:
            path = folder / f"{table_id}-{capture}-{cid}.jsonl"
            head = {"kind": "capture", "format": FORMAT, "table": table_id, "capture": capture,
                    "started_ms": started, "ended": ended or "running", "frames": frames,
                    "lost_frames": lost_f, "lost_records": lost_r, "records": records,
                    "dropped": dropped}  # fmt: skip
            rows = db.execute(
                "SELECT record FROM sensor_trace WHERE capture_id = ? ORDER BY t, id", (cid,)
            )
            with path.open("w", encoding="utf-8") as f:
                f.write(json.dumps(head) + "\n")
                for (rec,) in rows:
                    f.write(rec + "\n")
            out.append(path)
        return out
    finally:
        db.close()
