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
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from baulk.protocol import messages

from .club_writer import write_session
from .records import (
    Batch,
    CheckpointRow,
    CommandRow,
    EventRow,
    HealthRow,
    LinkRow,
    NameFixRow,
    Projection,
    RawRow,
    SessionWrite,
    StoredEvent,
)
from .schema import connect, dumps, now_ms
from .staff_schema import StaffWrite, tell, write_staff
from .stats_writer import clear_stats, project_stats

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
        self.play = PlayTracker()

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
            for f in batch.name_fixes:
                db.execute(
                    "INSERT OR REPLACE INTO name_fixes (match_id, players, who, at_ms) "
                    "VALUES (?,?,?,?)",
                    (f.match_id, dumps(f.players), f.who, f.at_ms),
                )
            for s in batch.sessions:
                write_session(db, s)
            for h in batch.health:
                write_health(db, h)
            staff = write_staff(db, batch.staff)
            db.execute("COMMIT")
        except BaseException:
            _roll_back(db)
            for c in batch.commands:
                c.action = 0  # not stored: its id is drawn again with its row
            raise
        self.commits += 1
        self.rows += len(batch)
        tell(staff)
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
        # The rows went in one after the other: their ids run up to this one.
        last_id = db.execute("SELECT last_insert_rowid()").fetchone()[0]
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
            if row.pocket_check is not None:
                write_pocket_check(db, row)
            if row.applied is not None and row.applied.projects:
                project(db, row.table_id, row.rx_ms, row.applied)
        if any(self.play.concerns(r.table_id, r.ev, r.applied) for r in rows):
            first = last_id - len(rows) + 1
            for i, row in enumerate(rows):
                self.play.note(db, first + i, row.table_id, row.ev, row.applied)

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
        if row.pocket_check is not None:
            write_pocket_check(db, row)
        if row.applied is not None:
            project(db, row.table_id, row.rx_ms, row.applied)
            self.play.note(db, int(cur.lastrowid or 0), row.table_id, row.ev, row.applied)

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
        (host/referee/rebuild.py runs the shadow referee over them)."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("DELETE FROM matches")
            db.execute("DELETE FROM frames")
            db.execute("DELETE FROM breaks")
            db.execute("DELETE FROM frame_play")
            db.execute("DELETE FROM sensor_disagreements")
            play = PlayTracker()
            clear_stats(db)
            for table_id, projected in tables:
                updates = []
                for e, a in projected:
                    updates.append((a.match_id, a.frame, e.id))
                    project(db, table_id, e.rx_ms, a)
                    play.note(db, e.id, table_id, e.ev, a)
                db.executemany("UPDATE events SET match_id = ?, frame = ? WHERE id = ?", updates)
            db.execute("COMMIT")
        except BaseException:
            _roll_back(db)
            raise


def _roll_back(db: sqlite3.Connection) -> None:
    """Undo a failed transaction without hiding why it failed: SQLite has
    already rolled back after some errors (a full disk), and a ROLLBACK then
    fails with an error of its own."""
    if db.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")


def project(db: sqlite3.Connection, table_id: str, at_ms: int, a: Projection) -> None:
    """Write what one event made (a new match, finished frames, big breaks,
    disagreements between the sensors and the referee)."""
    if a.accepted and a.disagreements:
        db.executemany(
            "INSERT INTO sensor_disagreements (table_id, match_id, frame, at_ms, kind, pocket, "
            "sensor_ball, keyed_ball) VALUES (?,?,?,?,?,?,?,?)",
            [
                (
                    table_id,
                    a.match_id,
                    a.frame,
                    at_ms,
                    d.kind,
                    d.pocket,
                    d.sensor_ball,
                    d.keyed_ball,
                )
                for d in a.disagreements
            ],
        )
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
    project_stats(db, at_ms, a)


# ---------------------------------------------------------------------- the pockets' sensors
def write_pocket_check(db: sqlite3.Connection, row: EventRow) -> None:
    """A pocket check's result, beside the event row that keeps its seq."""
    c = row.pocket_check
    assert c is not None
    db.execute(
        "INSERT OR IGNORE INTO pocket_checks (table_id, boot_id, seq, rx_ms, cmd, t, verdicts, "
        "reasons, break_ms, confidence, read) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (
            row.table_id,
            row.boot_id,
            row.seq,
            row.rx_ms,
            c.cmd,
            c.t,
            dumps(c.verdicts),
            dumps(c.reasons),
            dumps(c.break_ms),
            dumps(c.confidence),
            dumps(c.read),
        ),
    )


def write_health(db: sqlite3.Connection, h: HealthRow) -> None:
    """A table's newest sensor counts replace the ones before."""
    db.execute(
        "INSERT OR REPLACE INTO sensor_health (table_id, rx_ms, balls, glitches, unclear, "
        "corrections, unplaced, faulty, weak, checking) VALUES (?,?,?,?,?,?,?,?,?,?)",
        (
            h.table_id,
            h.rx_ms,
            dumps(h.balls),
            dumps(h.glitches),
            dumps(h.unclear),
            dumps(h.corrections),
            h.unplaced,
            h.faulty,
            h.weak,
            int(h.checking),
        ),
    )


# ---------------------------------------------------------------------- play and sessions
# Inputs that set a frame up rather than play it: a frame's play starts with
# the first accepted input after them.
_SET_UP = ("match", "toss", "order")
_FRAME_ENDED = (
    "INSERT INTO frame_play (match_id, frame, table_id, start_id, start_t, end_id, end_t, winner) "
    "VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (match_id, frame) DO UPDATE SET "
    "end_id = excluded.end_id, end_t = excluded.end_t, winner = excluded.winner"
)


def _device_t(ev: dict[str, Any] | None) -> int | None:
    t = ev.get("t") if ev else None
    return t if isinstance(t, int) and not isinstance(t, bool) else None


class PlayTracker:
    """Writes ``frame_play``: a frame begins at its first accepted input of
    play and ends at the event that finished it, each with its id and the
    device's own time ``t``.  It remembers the frame each table is in, so an
    event costs one comparison and a frame two writes."""

    def __init__(self) -> None:
        self.current: dict[str, tuple[str, int]] = {}

    def concerns(self, table_id: str, ev: dict[str, Any] | None, a: Projection | None) -> bool:
        if a is None or not a.accepted or a.match_id is None or ev is None:
            return False
        if a.frames_done:
            return True
        return (
            a.frame >= 1
            and ev.get("ev") not in _SET_UP
            and self.current.get(table_id) != (a.match_id, a.frame)
        )

    def note(
        self,
        db: sqlite3.Connection,
        event_id: int,
        table_id: str,
        ev: dict[str, Any] | None,
        a: Projection | None,
    ) -> None:
        if not self.concerns(table_id, ev, a):
            return
        assert a is not None and a.match_id is not None
        t = _device_t(ev)
        key = (a.match_id, a.frame)
        if (
            a.frame >= 1
            and self.current.get(table_id) != key
            and ev
            and ev.get("ev") not in _SET_UP
        ):
            self.current[table_id] = key
            db.execute(
                "INSERT OR IGNORE INTO frame_play (match_id, frame, table_id, start_id, start_t) "
                "VALUES (?,?,?,?,?)",
                (a.match_id, a.frame, table_id, event_id, t),
            )
        for f in a.frames_done:
            db.execute(
                _FRAME_ENDED,
                (a.match_id, f.frame, table_id, event_id, t, event_id, t, f.winner),
            )


class GroupCommitter:
    """Batches writes from the event loop into one transaction at a time.

    ``submit`` never blocks; the single writer thread commits whatever has
    gathered, then ``on_durable(table_id, seq)`` runs on the event loop for
    each table, which is where the daemon sends the device its ack.

    When the store cannot commit (a full disk, a broken file), nothing is
    acknowledged, so the devices keep their events and the rows wait here.
    The error is logged once by its own words, then at most once a minute,
    with a line when commits succeed again; ``on_health`` hears of both
    (``failing`` is the error meanwhile), so the boards and the API can say
    so.  Retries back off up to RETRY_MAX_S.
    """

    RETRY_FIRST_S = 0.5
    RETRY_MAX_S = 5.0
    REMIND_EVERY_S = 60.0

    def __init__(
        self,
        store: Store,
        on_durable: Callable[[str, int], None],
        on_health: Callable[[str | None], None] | None = None,
        on_command: Callable[[CommandRow], None] | None = None,
    ) -> None:
        self.store = store
        self.on_durable = on_durable
        self.on_health = on_health
        # Runs on the event loop for each operator action once it is on the
        # disk, with its id (CommandRow.action): only then may it be sent.
        self.on_command = on_command
        self.pending = Batch()
        self.executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="baulk-store")
        self._wake: asyncio.Event | None = None
        self._idle: asyncio.Event | None = None  # nothing pending, nothing on its way
        self._closing: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self.batches = 0
        self.failures = 0
        self.failing: str | None = None  # why commits fail, while they do
        self.failing_since_ms: int | None = None
        self._failed_at = 0.0  # monotonic time of the first failure in a row
        self._told_at = 0.0
        self._tries = 0
        self.closed = False

    def start(self) -> None:
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._closing = asyncio.Event()
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

    def submit_name_fix(self, row: NameFixRow) -> None:
        self.pending.name_fixes.append(row)
        self._poke()

    def submit_session(self, row: SessionWrite) -> None:
        self.pending.sessions.append(row)
        self._poke()

    def submit_health(self, row: HealthRow) -> None:
        self.pending.health.append(row)
        self._poke()

    def submit_staff(self, row: StaffWrite) -> None:
        """An account, token, sign-in or activity row (host/store/staff_schema.py):
        written in a savepoint of its own, so it never holds up an event."""
        self.pending.staff.append(row)
        self._poke()

    def _poke(self) -> None:
        if self._wake is not None and self._idle is not None:
            self._idle.clear()
            self._wake.set()

    async def _run(self) -> None:
        assert self._wake is not None and self._idle is not None
        loop = asyncio.get_running_loop()
        while not self.closed:
            await self._wake.wait()
            self._wake.clear()
            while len(self.pending) and not self.closed:
                batch, self.pending = self.pending, Batch()
                try:
                    done = await loop.run_in_executor(self.executor, self.store.write, batch)
                except Exception as e:  # sqlite3.Error, a full disk, a bug
                    # Nothing was acked, so the device still holds these
                    # events; keep them and try again.
                    self.pending = batch + self.pending
                    self._failed(e)
                    await self._pause()
                    continue
                self._recovered()
                self.batches += 1
                for table_id, seq in done.items():
                    self.on_durable(table_id, seq)
                if self.on_command is not None:
                    for c in batch.commands:
                        self.on_command(c)
            if not len(self.pending):
                self._idle.set()

    def _failed(self, e: Exception) -> None:
        self.failures += 1
        self._tries += 1
        why = str(e) or type(e).__name__
        now = time.monotonic()
        waiting = len(self.pending)
        if self.failing is None:
            self._failed_at = self._told_at = now
            self.failing_since_ms = now_ms()
            log.error(
                "the store cannot commit: %s; %d rows wait and nothing is acknowledged "
                "(the tables keep their events) until it can",
                why,
                waiting,
            )
        elif why != self.failing or now - self._told_at >= self.REMIND_EVERY_S:
            self._told_at = now
            log.error(
                "the store still cannot commit: %s (%d tries in %.0f s, %d rows wait)",
                why,
                self._tries,
                now - self._failed_at,
                waiting,
            )
        changed = why != self.failing
        self.failing = why
        if changed and self.on_health is not None:
            self.on_health(why)

    def _recovered(self) -> None:
        if self.failing is None:
            return
        log.warning(
            "the store commits again, after %d failed tries in %.0f s",
            self._tries,
            time.monotonic() - self._failed_at,
        )
        self.failing = None
        self.failing_since_ms = None
        self._tries = 0
        if self.on_health is not None:
            self.on_health(None)

    async def _pause(self) -> None:
        """Wait before the next try, longer each time; a close cuts it short."""
        assert self._closing is not None
        delay = min(self.RETRY_FIRST_S * 2 ** (self._tries - 1), self.RETRY_MAX_S)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._closing.wait(), delay)

    async def flush(self) -> None:
        """Wait until everything submitted so far is committed."""
        assert self._idle is not None
        while not self._idle.is_set():
            await self._idle.wait()

    async def close(self, timeout: float = 5.0) -> None:
        """Commit what is pending (waiting at most ``timeout`` seconds, and
        not at all while the store is failing), then stop.  Rows left are
        not lost: nothing of them was acknowledged, so the devices send their
        events again to the next daemon."""
        if self.failing is None and self._idle is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.flush(), timeout)
        self.closed = True
        if self._closing is not None:
            self._closing.set()
        if self._wake is not None:
            self._wake.set()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self.executor.shutdown(wait=True)
        if len(self.pending):
            log.warning(
                "stopped with %d rows not stored: the tables send their events again",
                len(self.pending),
            )
