"""The store's one writer: batches in single transactions, the projections
written beside their events, and the group committer that feeds it from the
event loop.

Writes go through :class:`GroupCommitter`: everything that arrives while one
commit is on its way to the disk goes into the next, and the device's ack is
sent only after the commit that holds its event (docs/DESIGN.md, "Nothing is
lost").  The score path comes first (docs/DESIGN.md, principle 3): each part
of a transaction is tried in a savepoint, and a batch whose transaction
fails is narrowed (:meth:`Store.commit`), so a row that fails is refused
alone and never holds up the events.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from baulk.host.logsafe import Tally
from baulk.protocol import messages

from .club_writer import write_session
from .edges import (
    StoreFailing,
    StoreRefused,
    check_row,
    checkpoint_unread,
    fit_event,
    refused_by_writer,
    unstorable,
)
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
    kind_of,
)
from .schema import connect, dumps, now_ms
from .staff_schema import StaffWrite
from .stats_writer import clear_stats, project_stats

log = logging.getLogger("baulk.store")

_INSERT_EVENT = (
    "INSERT OR IGNORE INTO events (table_id, boot_id, seq, rx_ms, src, cmd, name, ev, "
    "scores, rejected, invalid, match_id, frame, action, body) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
_INSERT_CHECKPOINT = (
    "INSERT OR IGNORE INTO checkpoints (table_id, boot_id, seq, rx_ms, at_seq, head, marks, mac, "
    "money_n, money, money_mac) VALUES (?,?,?,?,?,?,?,?,?,?,?)"
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


@dataclass
class Written:
    """What one write did: per table, the newest device seq it made durable;
    the rows beside the score path it could not write (each with why); the
    projections it left out (table, seq, why), their events stored."""

    done: dict[str, int] = field(default_factory=dict)
    refused: list[tuple[Any, str]] = field(default_factory=list)
    dropped: list[tuple[str, int, str]] = field(default_factory=list)


class StoreDown(Exception):
    """Not even the score path alone can be written: the store is failing
    (a full disk, a broken file), not one row of it."""


def _why(e: BaseException) -> str:
    """An error in a few words: SQLite's own ("database or disk is full"),
    or any other's with its type (a bug: "OverflowError: ...")."""
    text = str(e).splitlines()[0][:200] if str(e) else ""
    if isinstance(e, sqlite3.Error) and text:
        return text
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


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

    def commit(self, batch: Batch) -> Written:
        """Write a batch, narrowed to the row that fails: the whole batch in
        one transaction; if that fails, the score path alone, then each
        other row in a transaction of its own, a row that still fails
        refused (in ``Written.refused``).  Raises :class:`StoreDown` only
        when the score path alone cannot be written: nothing was stored."""
        try:
            return self.write(batch)
        except Exception as e:
            if not batch.others():
                raise StoreDown(_why(e)) from e
            first = e
        try:
            written = self.write(batch.score_part())
        except Exception as e:
            raise StoreDown(_why(e)) from first
        for row in batch.others():
            try:
                one = self.write(Batch.of(row))
            except Exception as e:
                written.refused.append((row, _why(e)))
            else:
                written.refused += one.refused
        return written

    def write(self, batch: Batch) -> Written:
        """Store a batch in one transaction.  Inside it each part is tried in
        a savepoint: an event or a projection that fails is narrowed down
        (the event kept bare, the projection dropped), a row beside the score
        path that fails is undone alone and refused.  Raises sqlite3 errors
        (and any other) when the transaction itself fails: then nothing was
        stored (the caller retries: nothing was acked)."""
        db = self.db
        written = Written()
        play = dict(self.play.current)
        db.execute("BEGIN IMMEDIATE")
        try:
            self._score_path(batch, written)
            self._others(batch, written)
            db.execute("COMMIT")
        except BaseException:
            _roll_back(db)
            self.play.current = play
            for c in batch.commands:
                c.action = 0  # not stored: its id is drawn again with its row
            raise
        for row, _ in written.refused:
            if isinstance(row, CommandRow):
                row.action = 0
        self.commits += 1
        self.rows += len(batch)
        return written

    # ------------------------------------------------------------------ savepoints
    def _isolated(self, fn: Callable[[], object]) -> Exception | None:
        """Run ``fn`` in a savepoint: kept when it returns, undone when it
        raises (the exception is returned).  Raises when the transaction
        itself is gone (SQLite rolls a whole one back after some errors)."""
        db = self.db
        db.execute("SAVEPOINT part")
        try:
            fn()
        except Exception as e:
            if not db.in_transaction:
                raise
            db.execute("ROLLBACK TO part")
            db.execute("RELEASE part")
            return e
        db.execute("RELEASE part")
        return None

    # ------------------------------------------------------------------ the score path
    def _score_path(self, batch: Batch, w: Written) -> None:
        play = dict(self.play.current)
        if self._isolated(lambda: self._score_fast(batch)) is not None:
            self.play.current = play
            self._score_narrowed(batch, w)
        for row in batch.events:
            w.done[row.table_id] = row.seq
        for cp in batch.checkpoints:
            w.done[cp.table_id] = max(w.done.get(cp.table_id, 0), cp.seq)
        for t, seq in w.done.items():
            self.db.execute(
                "INSERT INTO links (table_id, delivered) VALUES (?, ?) "
                "ON CONFLICT (table_id) DO UPDATE SET delivered = excluded.delivered",
                (t, seq),
            )

    def _score_fast(self, batch: Batch) -> None:
        self._insert_events(batch.events)
        for cp in batch.checkpoints:
            self._checkpoint(cp)

    def _score_narrowed(self, batch: Batch, w: Written) -> None:
        """One event at a time: an event whose row fails is kept bare (its
        numbers, its bytes and why), one whose projection fails keeps its
        row and loses the projection; one that cannot be kept even bare
        means the store is failing (raises)."""
        for row in batch.events:
            err = self._isolated(partial(self._event, row, w))
            if err is not None:
                why = _why(err)
                failed = self._isolated(partial(self._bare_event, row, why))
                if failed is not None:
                    raise failed
        for cp in batch.checkpoints:
            err = self._isolated(partial(self._checkpoint, cp))
            if err is not None:
                why = f"its checkpoint ({_why(err)})"
                w.dropped.append((cp.table_id, cp.seq, why))
                failed = self._isolated(partial(self._bare_checkpoint, cp, why))
                if failed is not None:
                    raise failed

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

    def _event(self, row: EventRow, w: Written | None = None) -> None:
        """One event row and what it made.  With ``w`` (narrowing), what it
        made is written in a savepoint of its own and dropped if it fails."""
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
        event_id = int(cur.lastrowid or 0)
        if row.raw is not None:
            db.execute(_INSERT_RAW, (row.table_id, row.rx_ms, row.mtype, row.seq, row.raw))
        if w is None:
            self._made(row, event_id)
            return
        before = self.play.current.get(row.table_id)
        err = self._isolated(lambda: self._made(row, event_id))
        if err is not None:
            if before is None:
                self.play.current.pop(row.table_id, None)
            else:
                self.play.current[row.table_id] = before
            w.dropped.append((row.table_id, row.seq, f"what it made ({_why(err)})"))

    def _made(self, row: EventRow, event_id: int) -> None:
        if row.pocket_check is not None:
            write_pocket_check(self.db, row)
        if row.applied is not None:
            project(self.db, row.table_id, row.rx_ms, row.applied)
            self.play.note(self.db, event_id, row.table_id, row.ev, row.applied)

    def _bare_event(self, row: EventRow, why: str) -> None:
        """The event as little as it can be kept: its place in the stream,
        the device's bytes (the chain covers them) and why the rest is not;
        its raw frame too, when that can still be written."""
        log.error(
            "table %s: event (boot %d, seq %d) could not be stored as decoded (%s); "
            "kept with its bytes only",
            row.table_id,
            row.boot_id,
            row.seq,
            why,
        )
        self.db.execute(
            "INSERT OR IGNORE INTO events (table_id, boot_id, seq, rx_ms, src, invalid, body) "
            "VALUES (?,?,?,?,?,?,?)",
            (
                row.table_id,
                row.boot_id,
                row.seq,
                row.rx_ms,
                row.src,
                f"the host could not store this event as decoded: {why}"[:300],
                row.body,
            ),
        )
        if row.raw is not None:
            raw = (row.table_id, row.rx_ms, row.mtype, row.seq, row.raw)
            self._isolated(partial(self.db.execute, _INSERT_RAW, raw))

    def _bare_checkpoint(self, cp: CheckpointRow, why: str) -> None:
        """A checkpoint that cannot be kept keeps its place in the stream as
        a row the host could not read, with the device's frame beside it."""
        self.db.execute(
            "INSERT OR IGNORE INTO events (table_id, boot_id, seq, rx_ms, invalid) "
            "VALUES (?,?,?,?,?)",
            (
                cp.table_id,
                cp.boot_id,
                cp.seq,
                cp.rx_ms,
                f"a checkpoint the host could not store: {why}"[:300],
            ),
        )
        if cp.raw is not None:
            raw = (cp.table_id, cp.rx_ms, messages.CHECKPOINT, cp.seq, cp.raw)
            self._isolated(partial(self.db.execute, _INSERT_RAW, raw))

    # ------------------------------------------------------------------ beside the score path
    def _others(self, batch: Batch, w: Written) -> None:
        """Every other row, kind by kind in a savepoint; a kind that fails is
        tried row by row, and the row that fails is undone and refused."""
        groups: list[list[Any]] = [
            batch.links,
            batch.raws,
            batch.commands,
            batch.name_fixes,
            batch.sessions,
            batch.health,
            batch.writes,
        ]
        for rows in groups:
            if not rows:
                continue
            if self._isolated(partial(self._write_each, rows)) is None:
                continue
            for row in rows:
                err = self._isolated(partial(self._other, row))
                if err is not None:
                    w.refused.append((row, _why(err)))

    def _write_each(self, rows: list[Any]) -> None:
        for row in rows:
            self._other(row)

    def _other(self, row: Any) -> None:
        db = self.db
        if isinstance(row, LinkRow):
            self._link(row)
        elif isinstance(row, RawRow):
            db.execute(_INSERT_RAW, (row.table_id, row.rx_ms, row.mtype, row.seq, row.data))
        elif isinstance(row, CommandRow):
            row.action = 0
            self._command(row)
        elif isinstance(row, NameFixRow):
            db.execute(
                "INSERT INTO name_fixes (match_id, players, who, at_ms) VALUES (?,?,?,?)",
                (row.match_id, dumps(row.players), row.who, row.at_ms),
            )
        elif isinstance(row, SessionWrite):
            write_session(db, row)
        elif isinstance(row, HealthRow):
            write_health(db, row)
        else:
            row.write(db)

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
        values = (
            *(cp.table_id, cp.boot_id, cp.seq, cp.rx_ms, cp.at_seq, cp.head, cp.marks, cp.mac),
            *(cp.money_n, cp.money, cp.money_mac),
        )
        if db.execute(_INSERT_CHECKPOINT, values).rowcount and cp.raw is not None:
            db.execute(_INSERT_RAW, (cp.table_id, cp.rx_ms, messages.CHECKPOINT, cp.seq, cp.raw))

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
# the first accepted input after them (the club's sessions read the same
# rule, host/club/sessions.py).
SET_UP = ("match", "toss", "order")
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
            and ev.get("ev") not in SET_UP
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
        if a.frame >= 1 and self.current.get(table_id) != key and ev and ev.get("ev") not in SET_UP:
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


class Changes:
    """What changed the store's rows, counted where the public reads can ask
    without reading the store (host/web/public_reads.py): a count a venue
    table, moved by every commit of the daemon's that writes one of its rows
    (its events, checkpoints, link, raw frames, commands, health, sessions);
    ``venue``, moved by rows of no one table (a name correction, a session
    without a table) and by every commit of another process; ``any``, moved
    by all of them.  The staff's rows (sign-ins, the activity log) move none:
    no public read reads them.  A streaming table thus moves its own count
    alone, and an answer that depends on another table's rows stays good.

    Another process's commits are seen by the writer's own connection:
    SQLite's ``data_version`` there moves with every commit of another
    connection, never with its own, and it is read before and after each
    commit (:meth:`watch`, in the writer's thread).  While the daemon
    commits nothing the public reads see them on their own connection.
    A commit that failed counts too: what is unsure counts as changed."""

    def __init__(self) -> None:
        self.tables: dict[str, int] = {}
        self.venue = 0  # rows of no one table, and other processes' commits
        self.any = 0  # every count above, summed: an answer of every table
        self.commits = 0  # the daemon's, counted
        self.writing = False  # a commit of the daemon's is on its way
        self._seen: int | None = None  # data_version on the writer's connection

    def watch(self, db: sqlite3.Connection) -> None:
        """In the writer's thread, beside each commit: another process's
        commit since the last look moves every count."""
        try:
            now = int(db.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error:
            now = None
        if now != self._seen or now is None:
            if self._seen is not None:
                self.moved_outside()
            self._seen = now

    def moved_outside(self) -> None:
        self.venue += 1
        self.any += 1

    def note(self, batch: Batch) -> None:
        """On the event loop, once a commit of the daemon's is over."""
        self.commits += 1
        touched = {r.table_id for r in batch.events} | {r.table_id for r in batch.checkpoints}
        touched |= {r.table_id for r in batch.links} | {r.table_id for r in batch.raws}
        touched |= {r.table_id for r in batch.commands} | {r.table_id for r in batch.health}
        touched |= {r.table_id for r in batch.sessions}
        # another part's own rows but the staff's are of no one table either
        others = any(not isinstance(w, StaffWrite) for w in batch.writes)
        venue = "" in touched or bool(batch.name_fixes) or others
        touched.discard("")
        for table in touched:
            self.tables[table] = self.tables.get(table, 0) + 1
        self.venue += venue
        self.any += bool(touched) or venue


class GroupCommitter:
    """Batches writes from the event loop into one transaction at a time.

    ``submit_*`` never blocks; the single writer thread commits whatever has
    gathered, then ``on_durable(table_id, seq)`` runs on the event loop for
    each table, which is where the daemon sends the device its ack.

    The score path comes first.  Every row is held to the store's edges as
    it is submitted (host/store/edges.py): an event row is made storable
    (never refused), any other row that the store cannot keep is refused at
    once (:class:`StoreRefused`).  The rows beside the score path return a
    receipt, a future that the caller may await: done once the row is on the
    disk, or failed with :class:`StoreRefused` when the writer could not
    write it (the batch is narrowed to that row, which is refused alone and
    logged once by its kind, never tried again), or with
    :class:`StoreFailing` when the store cannot write at all.

    When the store cannot commit (a full disk, a broken file), nothing is
    acknowledged, so the devices keep their events and those rows wait here;
    every other row is refused meanwhile (its caller hears "the store cannot
    write" at once instead of waiting).  The error is logged once by its own
    words, then at most once a minute, with a line when commits succeed
    again; ``on_health`` hears of both (``failing`` is the error meanwhile),
    so the boards and the API can say so.  Retries back off up to
    RETRY_MAX_S.
    """

    RETRY_FIRST_S = 0.5
    RETRY_MAX_S = 5.0
    REMIND_EVERY_S = 60.0
    CLOSE_WAIT_S = 3.0  # at most this long for the writer's last commit when stopping

    def __init__(
        self,
        store: Store,
        on_durable: Callable[[str, int], None],
        on_health: Callable[[str | None], None] | None = None,
        on_command: Callable[[CommandRow], None] | None = None,
        on_alert: Callable[[str, int, str], None] | None = None,
    ) -> None:
        self.store = store
        self.on_durable = on_durable
        self.on_health = on_health
        # Runs on the event loop for each operator action once it is on the
        # disk, with its id (CommandRow.action): only then may it be sent.
        self.on_command = on_command
        # Runs on the event loop with the money rows of each commit that
        # wrote some (host/venue/anchors.py sends the chain's head on).
        self.on_money: Callable[[list[SessionWrite]], None] | None = None
        # (table, seq, text): what of a table's event the store could not keep.
        self.on_alert = on_alert
        self.pending = Batch()
        self.changes = Changes()  # what the commits changed, for the public reads
        self.executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="baulk-store")
        self._receipts: dict[int, asyncio.Future[None]] = {}  # by id() of the row
        self._wake: asyncio.Event | None = None
        self._idle: asyncio.Event | None = None  # nothing pending, nothing on its way
        self._news: asyncio.Event | None = None  # set (and replaced) after every try
        self._closing: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._writing: asyncio.Future[Written] | None = None
        self.batches = 0
        self.failures = 0
        self.refused = 0  # rows beside the score path refused
        self.dropped = 0  # projections left out, their events stored
        self.failing: str | None = None  # why commits fail, while they do
        self.failing_since_ms: int | None = None
        self._failed_at = 0.0  # monotonic time of the first failure in a row
        self._told_at = 0.0
        self._tries = 0
        self._tally = Tally(log, self.REMIND_EVERY_S)
        self.closed = False

    def start(self) -> None:
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._news = asyncio.Event()
        self._closing = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="group-commit")

    # ------------------------------------------------------------------ the score path
    def submit_event(self, row: EventRow) -> None:
        """A device event: made storable here (never refused), stored with
        what it made, and acknowledged once on the disk."""
        left = fit_event(row)
        if left:
            self._alert(
                row.table_id, row.seq, "the store keeps this event without: " + ", ".join(left)
            )
        self.pending.events.append(row)
        self._poke()

    def submit_checkpoint(self, row: CheckpointRow) -> None:
        why = unstorable(row)
        if why is None:
            self.pending.checkpoints.append(row)
        else:
            # Its place in the stream is kept, as a row the host could not read.
            self._alert(row.table_id, row.seq, f"a checkpoint the store cannot keep: {why}")
            self.submit_event(checkpoint_unread(row, why))
        self._poke()

    # ------------------------------------------------------------------ beside it
    def submit_link(self, row: LinkRow) -> asyncio.Future[None]:
        return self.submit(row)

    def submit_raw(self, row: RawRow) -> asyncio.Future[None]:
        return self.submit(row)

    def submit_command(self, row: CommandRow) -> asyncio.Future[None]:
        """Store an operator action; ``on_command`` hears when it is stored."""
        return self.submit(row)

    def submit_name_fix(self, row: NameFixRow) -> asyncio.Future[None]:
        return self.submit(row)

    def submit_session(self, row: SessionWrite) -> asyncio.Future[None]:
        return self.submit(row)

    def submit_health(self, row: HealthRow) -> asyncio.Future[None]:
        return self.submit(row)

    def submit(self, row: Any) -> asyncio.Future[None]:
        """Any row beside the score path (the kinds of records.py, or a
        :class:`~.records.RowWrite` of another part of the host).  Raises
        :class:`StoreRefused` when the row is beyond what the store keeps;
        returns its receipt (see the class)."""
        kind = kind_of(row)
        check_row(row, kind)
        receipt: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        receipt.add_done_callback(_observed)
        if self.failing is not None or self.closed:
            self._refuse(row, kind, StoreFailing(self.failing or "the daemon is stopping"))
            receipt.set_exception(StoreFailing(self.failing or "the daemon is stopping"))
            return receipt
        self._receipts[id(row)] = receipt
        self.pending.add(row)
        self._poke()
        return receipt

    def _poke(self) -> None:
        if self._wake is not None and self._idle is not None:
            self._idle.clear()
            self._wake.set()

    # ------------------------------------------------------------------ the writer's loop
    async def _run(self) -> None:
        assert self._wake is not None and self._idle is not None
        loop = asyncio.get_running_loop()
        while not self.closed:
            await self._wake.wait()
            self._wake.clear()
            while len(self.pending) and not self.closed:
                batch, self.pending = self.pending, Batch()
                try:
                    self.changes.writing = True
                    self._writing = loop.run_in_executor(self.executor, self._commit, batch)
                    written = await self._writing
                except Exception as e:  # StoreDown: not even the score path could be written
                    # Nothing was acked, so the devices still hold these
                    # events; keep them and try again.  Everything else is
                    # refused now rather than kept waiting.
                    self.pending = batch.score_part() + self.pending
                    why = str(e) if isinstance(e, StoreDown) else _why(e)
                    for row in batch.others():
                        self._settle(row, StoreFailing(why))
                    self._failed(why)
                    self._told()
                    await self._pause()
                    continue
                finally:
                    self._writing = None
                    self.changes.note(batch)
                    self.changes.writing = False
                self._recovered()
                self.batches += 1
                self._took(batch, written)
                self._told()
            if not len(self.pending):
                self._idle.set()

    def _commit(self, batch: Batch) -> Written:
        """In the writer's thread: the batch, and what another process
        committed before or while it waited for the lock (Changes.watch)."""
        self.changes.watch(self.store.db)
        try:
            return self.store.commit(batch)
        finally:
            self.changes.watch(self.store.db)

    def _took(self, batch: Batch, written: Written) -> None:
        refused = {id(row): why for row, why in written.refused}
        for row in batch.others():
            why = refused.get(id(row))
            if why is None:
                self._settle(row, None)
            else:
                kind = kind_of(row)
                self.refused += 1
                self._refuse(row, kind, refused_by_writer(kind, why))
        for table_id, seq, why in written.dropped:
            self.dropped += 1
            self._alert(table_id, seq, f"the store left out {why}; its event is stored")
        for table_id, seq in written.done.items():
            self.on_durable(table_id, seq)
        if self.on_command is not None:
            for c in batch.commands:
                if id(c) not in refused:
                    self.on_command(c)
        money = [r for r in batch.sessions if id(r) not in refused]
        if money and self.on_money is not None:
            self.on_money(money)  # the money chain moved: its head to the tables

    def _settle(self, row: Any, error: Exception | None) -> None:
        receipt = self._receipts.pop(id(row), None)
        if receipt is None or receipt.done():
            return
        if error is None:
            receipt.set_result(None)
        else:
            receipt.set_exception(error)

    def _refuse(self, row: Any, kind: str, error: StoreRefused | StoreFailing) -> None:
        """A row that is not stored: its caller hears through its receipt;
        the log hears once per kind and reason, then a count."""
        if isinstance(error, StoreFailing):
            text = f"a {kind} was not stored: the store cannot write ({error.why})"
            self._tally.tell(f"failing {kind}", logging.WARNING, text)
        else:
            self._tally.tell(f"refused {kind} {error.text[:80]}", logging.ERROR, error.text)
        self._settle(row, error)

    def _alert(self, table_id: str, seq: int, text: str) -> None:
        self._tally.tell(
            f"alert {text[:60]}", logging.ERROR, f"table {table_id}, seq {seq}: {text}"
        )
        if self.on_alert is not None:
            self.on_alert(table_id, seq, text)

    def _told(self) -> None:
        """Wake whoever waits for the outcome of a try (``flush``)."""
        if self._news is not None:
            news, self._news = self._news, asyncio.Event()
            news.set()

    def _failed(self, why: str) -> None:
        self.failures += 1
        self._tries += 1
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

    # ------------------------------------------------------------------ waiting and stopping
    async def flush(self) -> None:
        """Wait until everything submitted so far is committed (or refused).
        Raises :class:`StoreFailing` at once while the store cannot write,
        and as soon as it cannot while this waits: nobody waits for a disk
        that is full."""
        assert self._idle is not None
        while True:
            if self.failing is not None:
                raise StoreFailing(self.failing)
            if self._idle.is_set():
                return
            assert self._news is not None
            news = self._news
            idle = asyncio.ensure_future(self._idle.wait())
            told = asyncio.ensure_future(news.wait())
            try:
                await asyncio.wait((idle, told), return_when=asyncio.FIRST_COMPLETED)
            finally:
                idle.cancel()
                told.cancel()

    @property
    def writer_busy(self) -> bool:
        """The writer thread is still in a commit (after a close that did
        not wait for it): its connection must not be closed under it."""
        w = self._writing
        return w is not None and not w.done()

    async def close(self, timeout: float = CLOSE_WAIT_S) -> None:
        """Commit what is pending (waiting at most ``timeout`` seconds, and
        not at all while the store is failing), then stop; a commit stuck
        on the disk is left to finish on its own.  Rows left are not lost:
        nothing of them was acknowledged, so the devices send their events
        again to the next daemon; every other row left is refused."""
        loop = asyncio.get_running_loop()
        until = loop.time() + timeout
        if self.failing is None and self._idle is not None:
            with contextlib.suppress(TimeoutError, StoreFailing):
                await asyncio.wait_for(self.flush(), timeout)
        self.closed = True
        if self._closing is not None:
            self._closing.set()
        if self._wake is not None:
            self._wake.set()
        writing = self._writing
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if writing is not None and not writing.done():
            with contextlib.suppress(TimeoutError, Exception):
                await asyncio.wait_for(asyncio.shield(writing), max(0.0, until - loop.time()))
            self._writing = writing
        self.executor.shutdown(wait=not self.writer_busy, cancel_futures=True)
        stopping = StoreFailing("the daemon is stopping")
        for row in self.pending.others():
            self._settle(row, stopping)
        for receipt in self._receipts.values():
            if not receipt.done():
                receipt.set_exception(stopping)
        self._receipts.clear()
        waiting = len(self.pending.events) + len(self.pending.checkpoints)
        if waiting:
            log.warning(
                "stopped with %d rows not stored: the tables send their events again", waiting
            )


def _observed(receipt: asyncio.Future[None]) -> None:
    """Nobody need await a receipt: its error is already in the log."""
    if not receipt.cancelled():
        receipt.exception()
