"""The venue store: one SQLite file in WAL mode.

* ``raw_frames`` keeps the device's frames as they arrived (append-only: a
  trigger refuses UPDATE and DELETE).
* ``events`` keeps every device event once, by ``(table_id, boot_id, seq)``
  (a UNIQUE key; a repeat is ignored, never stored twice).
* ``matches``, ``frames`` and ``breaks`` are projected from the events by the
  shadow referee, in the same transaction as the events that made them, and
  ``baulk rebuild`` makes them again from the events alone.
* ``links`` remembers, per table, the device stream's committed sequence
  number, so a restarted daemon resumes the stream where the store ends.

Writes go through :class:`GroupCommitter`: everything that arrives while one
commit is on its way to the disk goes into the next, and the device's ack is
sent only after the commit that holds its event (DESIGN.md principle 2).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from baulk.host.shadow import Applied, ShadowReferee

log = logging.getLogger("baulk.store")

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS raw_frames (
    id INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    rx_ms INTEGER NOT NULL,
    mtype INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    data BLOB NOT NULL
);
CREATE TRIGGER IF NOT EXISTS raw_frames_no_update BEFORE UPDATE ON raw_frames
BEGIN SELECT RAISE(ABORT, 'raw_frames is append-only'); END;
CREATE TRIGGER IF NOT EXISTS raw_frames_no_delete BEFORE DELETE ON raw_frames
BEGIN SELECT RAISE(ABORT, 'raw_frames is append-only'); END;
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    boot_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    rx_ms INTEGER NOT NULL,
    src INTEGER NOT NULL DEFAULT 0,
    cmd INTEGER NOT NULL DEFAULT 0,
    name TEXT,
    ev TEXT,
    scores TEXT,
    rejected TEXT,
    invalid TEXT,
    match_id TEXT,
    frame INTEGER,
    UNIQUE (table_id, boot_id, seq)
);
CREATE INDEX IF NOT EXISTS events_match ON events (match_id, id);
CREATE INDEX IF NOT EXISTS events_table_name ON events (table_id, name, id);
CREATE TABLE IF NOT EXISTS matches (
    match_id TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    started_ms INTEGER NOT NULL,
    players TEXT NOT NULL,
    best_of INTEGER NOT NULL,
    reds INTEGER NOT NULL,
    frames_won TEXT NOT NULL DEFAULT '[0,0]',
    ended_ms INTEGER,
    winner INTEGER
);
CREATE INDEX IF NOT EXISTS matches_table ON matches (table_id, started_ms);
CREATE TABLE IF NOT EXISTS frames (
    match_id TEXT NOT NULL,
    frame INTEGER NOT NULL,
    scores TEXT NOT NULL,
    winner INTEGER,
    ended_ms INTEGER NOT NULL,
    PRIMARY KEY (match_id, frame)
);
CREATE TABLE IF NOT EXISTS breaks (
    id INTEGER PRIMARY KEY,
    match_id TEXT NOT NULL,
    frame INTEGER NOT NULL,
    side INTEGER NOT NULL,
    player TEXT,
    points INTEGER NOT NULL,
    ended_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS links (
    table_id TEXT PRIMARY KEY,
    name TEXT,
    delivered INTEGER NOT NULL DEFAULT 0,
    boot_id INTEGER NOT NULL DEFAULT 0,
    device_table TEXT,
    firmware TEXT,
    last_seen_ms INTEGER
);
CREATE TABLE IF NOT EXISTS commands (
    id INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    mtype INTEGER NOT NULL,
    body TEXT NOT NULL,
    who TEXT,
    created_ms INTEGER NOT NULL
);
"""


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def _dumps(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


class StoreError(RuntimeError):
    """The store file cannot be used (the message says why)."""


@dataclass
class EventRow:
    """One delivered reliable message of a device stream, ready to store."""

    table_id: str
    boot_id: int
    seq: int
    rx_ms: int
    ev: dict[str, Any] | None  # engine input (None for an invalid message)
    scores: list[int] | None = None
    rejected: str | None = None
    invalid: str | None = None
    src: int = 0
    cmd: int = 0
    raw: bytes | None = None
    mtype: int = 0
    applied: Applied | None = None


@dataclass
class LinkRow:
    table_id: str
    name: str | None = None
    boot_id: int | None = None
    device_table: str | None = None
    firmware: str | None = None
    last_seen_ms: int | None = None


@dataclass
class RawRow:
    table_id: str
    rx_ms: int
    mtype: int
    seq: int
    data: bytes


@dataclass
class CommandRow:
    table_id: str
    seq: int
    mtype: int
    body: dict[str, Any]
    who: str | None
    created_ms: int


@dataclass
class Batch:
    events: list[EventRow] = field(default_factory=list)
    links: list[LinkRow] = field(default_factory=list)
    raws: list[RawRow] = field(default_factory=list)
    commands: list[CommandRow] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.events) + len(self.links) + len(self.raws) + len(self.commands)


def connect(path: Path, readonly: bool = False) -> sqlite3.Connection:
    try:
        if readonly:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA busy_timeout = 5000")
        if not readonly:
            mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode != "wal":
                raise StoreError(f"{path}: SQLite refused WAL mode (got {mode})")
            # FULL: a commit is on the disk when COMMIT returns, so an ack
            # that follows it promises only what survives a power cut.
            db.execute("PRAGMA synchronous = FULL")
            db.executescript(SCHEMA)
            db.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)",
                (str(SCHEMA_VERSION),),
            )
        return db
    except sqlite3.DatabaseError as e:
        raise StoreError(f"cannot open the store {path}: {e}") from None


_INSERT_EVENT = (
    "INSERT OR IGNORE INTO events (table_id, boot_id, seq, rx_ms, src, cmd, name, ev, "
    "scores, rejected, invalid, match_id, frame) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"
)


def _event_values(row: EventRow) -> tuple[Any, ...]:
    a = row.applied
    name = row.ev.get("ev") if row.ev else None
    return (
        row.table_id,
        row.boot_id,
        row.seq,
        row.rx_ms,
        row.src,
        row.cmd,
        name if isinstance(name, str) else None,
        _dumps(row.ev) if row.ev is not None else None,
        _dumps(row.scores) if row.scores is not None else None,
        row.rejected,
        row.invalid,
        a.match_id if a else None,
        a.frame if a else None,
    )


class Store:
    """The writer side (one thread at a time) and simple reads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.db = connect(self.path)
        self.commits = 0
        self.rows = 0

    def close(self) -> None:
        self.db.close()

    # ------------------------------------------------------------------ writing
    def write(self, batch: Batch) -> dict[str, int]:
        """Store a batch in one transaction; returns, per table, the newest
        device seq the batch made durable.  Raises sqlite3 errors unchanged
        (the caller retries: nothing was acked)."""
        db = self.db
        done: dict[str, int] = {}
        db.execute("BEGIN IMMEDIATE")
        try:
            if batch.raws:
                db.executemany(
                    "INSERT INTO raw_frames (table_id, rx_ms, mtype, seq, data) VALUES (?,?,?,?,?)",
                    [(r.table_id, r.rx_ms, r.mtype, r.seq, r.data) for r in batch.raws],
                )
            self._insert_events(batch.events)
            for row in batch.events:
                done[row.table_id] = row.seq
            for link in batch.links:
                self._link(link)
            for t, seq in done.items():
                db.execute(
                    "INSERT INTO links (table_id, delivered) VALUES (?, ?) "
                    "ON CONFLICT (table_id) DO UPDATE SET delivered = excluded.delivered",
                    (t, seq),
                )
            for c in batch.commands:
                db.execute(
                    "INSERT INTO commands (table_id, seq, mtype, body, who, created_ms) "
                    "VALUES (?,?,?,?,?,?)",
                    (c.table_id, c.seq, c.mtype, _dumps(c.body), c.who, c.created_ms),
                )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self.commits += 1
        self.rows += len(batch)
        return done

    def _insert_events(self, rows: list[EventRow]) -> None:
        """All of a batch's events at once; one by one only when the batch
        holds an event that is already stored (so its repeat is skipped with
        what it would have projected)."""
        if not rows:
            return
        db = self.db
        db.execute("SAVEPOINT events")
        before = db.total_changes
        db.executemany(_INSERT_EVENT, [_event_values(r) for r in rows])
        if db.total_changes - before != len(rows):
            db.execute("ROLLBACK TO events")
            db.execute("RELEASE events")
            for row in rows:
                self._event(row)
            return
        db.execute("RELEASE events")
        db.executemany(
            "INSERT INTO raw_frames (table_id, rx_ms, mtype, seq, data) VALUES (?,?,?,?,?)",
            [(r.table_id, r.rx_ms, r.mtype, r.seq, r.raw) for r in rows if r.raw is not None],
        )
        for row in rows:
            a = row.applied
            if a is not None and (a.new_match or a.frames_done or a.breaks or a.match_over):
                project(db, row.table_id, row.rx_ms, a)

    def _event(self, row: EventRow) -> None:
        db = self.db
        a = row.applied
        cur = db.execute(_INSERT_EVENT, _event_values(row))
        if cur.rowcount == 0:
            log.warning(
                "table %s: event (boot %d, seq %d) is already stored; the repeat is dropped",
                row.table_id,
                row.boot_id,
                row.seq,
            )
            return
        if row.raw is not None:
            db.execute(
                "INSERT INTO raw_frames (table_id, rx_ms, mtype, seq, data) VALUES (?,?,?,?,?)",
                (row.table_id, row.rx_ms, row.mtype, row.seq, row.raw),
            )
        if a is not None:
            project(db, row.table_id, row.rx_ms, a)

    def _link(self, row: LinkRow) -> None:
        self.db.execute("INSERT OR IGNORE INTO links (table_id) VALUES (?)", (row.table_id,))
        for col in ("name", "boot_id", "device_table", "firmware", "last_seen_ms"):
            v = getattr(row, col)
            if v is not None:
                self.db.execute(f"UPDATE links SET {col} = ? WHERE table_id = ?", (v, row.table_id))

    # ------------------------------------------------------------------ reading
    def delivered(self, table_id: str) -> int:
        row = self.db.execute(
            "SELECT delivered FROM links WHERE table_id = ?", (table_id,)
        ).fetchone()
        return int(row[0]) if row else 0

    def link_rows(self) -> list[dict[str, Any]]:
        cur = self.db.execute(
            "SELECT table_id, name, delivered, boot_id, device_table, firmware, last_seen_ms "
            "FROM links ORDER BY table_id"
        )
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]

    def table_ids(self) -> list[str]:
        rows = self.db.execute("SELECT DISTINCT table_id FROM events ORDER BY table_id")
        return [r[0] for r in rows]

    def events_since_last_match(self, table_id: str) -> Iterator[StoredEvent]:
        """The table's events from its newest accepted ``match`` on (all of
        them when it has none), oldest first."""
        row = self.db.execute(
            "SELECT max(id) FROM events WHERE table_id = ? AND name = 'match' AND rejected IS NULL",
            (table_id,),
        ).fetchone()
        start = row[0] if row and row[0] is not None else 0
        yield from self._events("table_id = ? AND id >= ?", (table_id, start))

    def events(self, table_id: str) -> Iterator[StoredEvent]:
        yield from self._events("table_id = ?", (table_id,))

    def _events(self, where: str, args: tuple[Any, ...]) -> Iterator[StoredEvent]:
        cur = self.db.execute(
            "SELECT id, table_id, boot_id, seq, rx_ms, ev, scores, rejected, invalid "
            f"FROM events WHERE {where} ORDER BY id",
            args,
        )
        for r in cur:
            yield StoredEvent(
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                json.loads(r[5]) if r[5] else None,
                json.loads(r[6]) if r[6] else None,
                r[7],
                r[8],
            )

    # ------------------------------------------------------------------ rebuild
    def rebuild(self) -> dict[str, dict[str, Any]]:
        """Make matches, frames and breaks again from the events alone, and
        return every table's state after its last event."""
        db = self.db
        states: dict[str, dict[str, Any]] = {}
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("DELETE FROM matches")
            db.execute("DELETE FROM frames")
            db.execute("DELETE FROM breaks")
            for table_id in self.table_ids():
                shadow = ShadowReferee(table_id)
                updates = []
                for e in list(self.events(table_id)):
                    if e.ev is None:
                        continue
                    a = shadow.apply(e.ev, (e.boot_id, e.seq), e.scores, e.rejected, e.rx_ms)
                    updates.append((a.match_id, a.frame, e.id))
                    project(db, table_id, e.rx_ms, a)
                db.executemany("UPDATE events SET match_id = ?, frame = ? WHERE id = ?", updates)
                state = dict(shadow.state())
                state["mismatches"] = shadow.mismatches
                states[table_id] = state
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return states


@dataclass
class StoredEvent:
    id: int
    table_id: str
    boot_id: int
    seq: int
    rx_ms: int
    ev: dict[str, Any] | None
    scores: list[int] | None
    rejected: str | None
    invalid: str | None


def project(db: sqlite3.Connection, table_id: str, at_ms: int, a: Applied) -> None:
    """Write what one event made (a new match, finished frames, big breaks)."""
    if a.match_id is None or not a.accepted:
        return
    if a.new_match is not None:
        nm = a.new_match
        db.execute(
            "INSERT OR REPLACE INTO matches (match_id, table_id, started_ms, players, best_of, "
            "reds) VALUES (?,?,?,?,?,?)",
            (a.match_id, table_id, at_ms, _dumps(nm["players"]), nm["best_of"], nm["reds"]),
        )
    for f in a.frames_done:
        db.execute(
            "INSERT OR REPLACE INTO frames (match_id, frame, scores, winner, ended_ms) "
            "VALUES (?,?,?,?,?)",
            (a.match_id, f.frame, _dumps(f.scores), f.winner, at_ms),
        )
    if a.frames_done:
        db.execute(
            "UPDATE matches SET frames_won = (SELECT json_array("
            "coalesce(sum(winner = 0), 0), coalesce(sum(winner = 1), 0)) "
            "FROM frames WHERE match_id = ?) WHERE match_id = ?",
            (a.match_id, a.match_id),
        )
    for b in a.breaks:
        db.execute(
            "INSERT INTO breaks (match_id, frame, side, player, points, ended_ms) "
            "VALUES (?,?,?,?,?,?)",
            (a.match_id, b.frame, b.side, b.player, b.points, at_ms),
        )
    if a.match_over:
        db.execute(
            "UPDATE matches SET ended_ms = ?, winner = ? WHERE match_id = ?",
            (at_ms, a.winner, a.match_id),
        )


class GroupCommitter:
    """Batches writes from the event loop into one transaction at a time.

    ``submit`` never blocks; the single writer thread commits whatever has
    gathered, then ``on_durable(table_id, seq)`` runs on the event loop for
    each table, which is where the daemon sends the device its ack.
    """

    def __init__(
        self,
        store: Store,
        on_durable: Callable[[str, int], None],
        max_batch: int = 5000,
    ) -> None:
        self.store = store
        self.on_durable = on_durable
        self.max_batch = max_batch
        self.pending = Batch()
        self.executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="baulk-store")
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self.batches = 0
        self.failures = 0
        self.closed = False

    def start(self) -> None:
        self._wake = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="group-commit")

    def submit_event(self, row: EventRow) -> None:
        self.pending.events.append(row)
        self._poke()

    def submit_link(self, row: LinkRow) -> None:
        self.pending.links.append(row)
        self._poke()

    def submit_raw(self, row: RawRow) -> None:
        self.pending.raws.append(row)
        self._poke()

    def submit_command(self, row: CommandRow) -> None:
        self.pending.commands.append(row)
        self._poke()

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    async def _run(self) -> None:
        assert self._wake is not None
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            while len(self.pending):
                batch, self.pending = self.pending, Batch()
                try:
                    done = await loop.run_in_executor(self.executor, self.store.write, batch)
                except Exception as e:  # sqlite3.Error, a full disk, a bug
                    # Nothing was acked, so the device still holds these
                    # events; keep them and try again shortly.
                    self.failures += 1
                    log.error("store commit failed (%r); retrying", e)
                    self.pending = _merge(batch, self.pending)
                    await asyncio.sleep(0.5)
                    continue
                self.batches += 1
                for table_id, seq in done.items():
                    self.on_durable(table_id, seq)
            if self.closed:
                return

    async def flush(self) -> None:
        """Wait until everything submitted so far is committed."""
        while len(self.pending) or (self._wake is not None and self._wake.is_set()):
            await asyncio.sleep(0.005)
        # one more round trip through the writer: the batch in flight is done
        await asyncio.get_running_loop().run_in_executor(self.executor, lambda: None)

    async def close(self) -> None:
        await self.flush()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self.executor.shutdown(wait=True)


def _merge(a: Batch, b: Batch) -> Batch:
    return Batch(a.events + b.events, a.links + b.links, a.raws + b.raws, a.commands + b.commands)


class StoreReader:
    """Read-only queries for the web side (its own connection; WAL lets it
    read while the writer commits)."""

    def __init__(self, path: str | Path) -> None:
        self.db = connect(Path(path), readonly=True)
        self.db.row_factory = sqlite3.Row

    def close(self) -> None:
        self.db.close()

    def matches(self, table_id: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        q = "SELECT * FROM matches"
        args: tuple[Any, ...] = ()
        if table_id is not None:
            q += " WHERE table_id = ?"
            args = (table_id,)
        q += " ORDER BY started_ms DESC, match_id DESC LIMIT ?"
        rows = self.db.execute(q, (*args, limit)).fetchall()
        return [_match_dict(r) for r in rows]

    def match(self, match_id: str) -> dict[str, Any] | None:
        r = self.db.execute("SELECT * FROM matches WHERE match_id = ?", (match_id,)).fetchone()
        return _match_dict(r) if r else None

    def frames(self, match_id: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT frame, scores, winner, ended_ms FROM frames WHERE match_id = ? ORDER BY frame",
            (match_id,),
        ).fetchall()
        return [
            {
                "frame": r["frame"],
                "scores": json.loads(r["scores"]),
                "winner": r["winner"],
                "ended_ms": r["ended_ms"],
            }
            for r in rows
        ]

    def breaks(self, match_id: str, minimum: int = 50) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT frame, side, player, points, ended_ms FROM breaks "
            "WHERE match_id = ? AND points >= ? ORDER BY id",
            (match_id, minimum),
        ).fetchall()
        return [dict(r) for r in rows]

    def progression(self, match_id: str) -> dict[int, list[list[int]]]:
        """Per frame, the scores after every event that changed them."""
        out: dict[int, list[list[int]]] = {}
        rows = self.db.execute(
            "SELECT frame, scores, name FROM events WHERE match_id = ? AND rejected IS NULL "
            "AND scores IS NOT NULL ORDER BY id",
            (match_id,),
        )
        for r in rows:
            frame = r["frame"]
            if r["name"] == "match" or frame is None or frame < 1:
                continue
            scores = json.loads(r["scores"])
            points = out.setdefault(frame, [[0, 0]])
            if points[-1] != scores:
                points.append(scores)
        return out

    def delivered(self, table_id: str) -> int:
        row = self.db.execute(
            "SELECT delivered FROM links WHERE table_id = ?", (table_id,)
        ).fetchone()
        return int(row[0]) if row else 0

    def event_count(self, table_id: str) -> int:
        row = self.db.execute(
            "SELECT count(*) FROM events WHERE table_id = ?", (table_id,)
        ).fetchone()
        return int(row[0])


def _match_dict(r: sqlite3.Row) -> dict[str, Any]:
    return {
        "match_id": r["match_id"],
        "table_id": r["table_id"],
        "started_ms": r["started_ms"],
        "players": json.loads(r["players"]),
        "best_of": r["best_of"],
        "reds": r["reds"],
        "frames_won": json.loads(r["frames_won"]),
        "ended_ms": r["ended_ms"],
        "winner": r["winner"],
    }
