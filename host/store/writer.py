"""The store's one writer: batches in single transactions, the projections
written beside their events, and the group committer that feeds it from the
event loop.

Writes go through :class:`GroupCommitter`: everything that arrives while one
commit is on its way to the disk goes into the next, and the device's ack is
sent only after the commit that holds its event (docs/DESIGN.md, "Nothing is
lost").
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from baulk.protocol import messages

from .records import (
    Batch,
    CheckpointRow,
    CommandRow,
    EventRow,
    LinkRow,
    Projection,
    RawRow,
    StoredEvent,
)
from .schema import connect, dumps

log = logging.getLogger("baulk.store")

_INSERT_EVENT = (
    "INSERT OR IGNORE INTO events (table_id, boot_id, seq, rx_ms, src, cmd, name, ev, "
    "scores, rejected, invalid, match_id, frame, action, body) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
_INSERT_CHECKPOINT = (
    "INSERT OR IGNORE INTO checkpoints (table_id, boot_id, seq, rx_ms, at_seq, head, marks, mac) "
    "VALUES (?,?,?,?,?,?,?,?)"
)
_INSERT_RAW = "INSERT INTO raw_frames (table_id, rx_ms, mtype, seq, data) VALUES (?,?,?,?,?)"
_LINK_COLUMNS = ("name", "boot_id", "device_table", "firmware", "last_seen_ms")


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
        dumps(row.ev) if row.ev is not None else None,
        dumps(row.scores) if row.scores is not None else None,
        row.rejected,
        row.invalid,
        a.match_id if a else None,
        a.frame if a else None,
        row.action or None,
        row.body,
    )


class Store:
    """The writer's connection (one thread at a time)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.db = connect(self.path)
        self.commits = 0
        self.rows = 0

    def close(self) -> None:
        self.db.close()

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
                    _INSERT_RAW, [(r.table_id, r.rx_ms, r.mtype, r.seq, r.data) for r in batch.raws]
                )
            self._insert_events(batch.events)
            for row in batch.events:
                done[row.table_id] = row.seq
            for cp in batch.checkpoints:
                self._checkpoint(cp)
                done[cp.table_id] = max(done.get(cp.table_id, 0), cp.seq)
            for link in batch.links:
                self._link(link)
            for t, seq in done.items():
                db.execute(
                    "INSERT INTO links (table_id, delivered) VALUES (?, ?) "
                    "ON CONFLICT (table_id) DO UPDATE SET delivered = excluded.delivered",
                    (t, seq),
                )
            for c in batch.commands:
                self._command(c)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            for c in batch.commands:
                c.action = 0  # not stored: its id is drawn again with its row
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
            _INSERT_RAW,
            [(r.table_id, r.rx_ms, r.mtype, r.seq, r.raw) for r in rows if r.raw is not None],
        )
        for row in rows:
            if row.applied is not None and row.applied.projects:
                project(db, row.table_id, row.rx_ms, row.applied)

    def _command(self, c: CommandRow) -> None:
        cur = self.db.execute(
            "INSERT INTO commands (table_id, seq, mtype, body, who, created_ms) "
            "VALUES (?,?,?,?,?,?)",
            (c.table_id, c.seq, c.mtype, dumps(c.body), c.who, c.created_ms),
        )
        rowid = int(cur.lastrowid or 0)
        action = (c.epoch << 32) | rowid
        self.db.execute("UPDATE commands SET action = ? WHERE id = ?", (action, rowid))
        c.action = action

    def _checkpoint(self, cp: CheckpointRow) -> None:
        db = self.db
        values = (cp.table_id, cp.boot_id, cp.seq, cp.rx_ms, cp.at_seq, cp.head, cp.marks, cp.mac)
        if db.execute(_INSERT_CHECKPOINT, values).rowcount and cp.raw is not None:
            db.execute(_INSERT_RAW, (cp.table_id, cp.rx_ms, messages.CHECKPOINT, cp.seq, cp.raw))

    def _event(self, row: EventRow) -> None:
        db = self.db
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
            db.execute(_INSERT_RAW, (row.table_id, row.rx_ms, row.mtype, row.seq, row.raw))
        if row.applied is not None:
            project(db, row.table_id, row.rx_ms, row.applied)

    def _link(self, row: LinkRow) -> None:
        self.db.execute("INSERT OR IGNORE INTO links (table_id) VALUES (?)", (row.table_id,))
        for col in _LINK_COLUMNS:
            v = getattr(row, col)
            if v is not None:
                self.db.execute(f"UPDATE links SET {col} = ? WHERE table_id = ?", (v, row.table_id))

    def rebuild_projections(
        self, tables: Iterable[tuple[str, Iterable[tuple[StoredEvent, Projection]]]]
    ) -> None:
        """Write matches, frames and breaks again, in one transaction, from
        what the caller projects for every stored event of every table
        (host/rebuild.py runs the shadow referee over them)."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("DELETE FROM matches")
            db.execute("DELETE FROM frames")
            db.execute("DELETE FROM breaks")
            for table_id, projected in tables:
                updates = []
                for e, a in projected:
                    updates.append((a.match_id, a.frame, e.id))
                    project(db, table_id, e.rx_ms, a)
                db.executemany("UPDATE events SET match_id = ?, frame = ? WHERE id = ?", updates)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise


def project(db: sqlite3.Connection, table_id: str, at_ms: int, a: Projection) -> None:
    """Write what one event made (a new match, finished frames, big breaks)."""
    if a.match_id is None or not a.accepted:
        return
    if a.new_match is not None:
        nm = a.new_match
        db.execute(
            "INSERT OR REPLACE INTO matches (match_id, table_id, started_ms, players, best_of, "
            "reds) VALUES (?,?,?,?,?,?)",
            (a.match_id, table_id, at_ms, dumps(nm["players"]), nm["best_of"], nm["reds"]),
        )
    for f in a.frames_done:
        db.execute(
            "INSERT OR REPLACE INTO frames (match_id, frame, scores, winner, ended_ms) "
            "VALUES (?,?,?,?,?)",
            (a.match_id, f.frame, dumps(f.scores), f.winner, at_ms),
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
        on_command: Callable[[CommandRow], None] | None = None,
    ) -> None:
        self.store = store
        self.on_durable = on_durable
        # Runs on the event loop for each operator action once it is on the
        # disk, with its id (CommandRow.action): only then may it be sent.
        self.on_command = on_command
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

    def submit_checkpoint(self, row: CheckpointRow) -> None:
        self.pending.checkpoints.append(row)
        self._poke()

    def submit_command(self, row: CommandRow) -> None:
        """Store an operator action; ``on_command`` hears when it is stored."""
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
                    self.pending = batch + self.pending
                    await asyncio.sleep(0.5)
                    continue
                self.batches += 1
                for table_id, seq in done.items():
                    self.on_durable(table_id, seq)
                if self.on_command is not None:
                    for c in batch.commands:
                        self.on_command(c)
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
