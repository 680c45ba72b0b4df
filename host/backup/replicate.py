"""What ``baulk backup`` runs until it is told to stop: the store replicated
to ``[backup] replica``, continuously.

* **Litestream** (the default): a supervised child process.  If it exits on
  its own, it is started again after a pause that doubles up to a minute;
  each time is logged.  On stop it syncs what is left before it exits.
* **Snapshots** (``method = "snapshots"``, or where no Litestream binary
  runs): SQLite's online backup API every ``every_min`` minutes, and once
  more at the end, keeping the ``keep`` newest.  A snapshot is taken only
  when the store changed since the last one.

Either way the daemon is never waited for, and nothing is written to the
store: the replica is another disk's business.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from baulk.host.backup import litestream, snapshots
from baulk.host.backup.snapshots import BackupError
from baulk.host.config import BackupConfig

log = logging.getLogger("baulk.backup")

RESTART_FIRST: Final = 1.0  # s before a Litestream that died is started again ...
RESTART_MOST: Final = 60.0  # ... doubling up to this


@dataclass(frozen=True)
class Plan:
    """How this machine replicates: the method, and why if it is not the one
    configured."""

    method: str
    binary: Path | None
    tool: str  # "litestream 0.5.17", "SQLite 3.40.1 online backup"
    note: str | None = None


def plan(cfg: BackupConfig) -> Plan:
    online = f"SQLite {sqlite3.sqlite_version} online backup"
    if cfg.method == "snapshots":
        return Plan("snapshots", None, online)
    binary = litestream.find(cfg.litestream)
    if binary is None:
        where = cfg.litestream or "beside baulk or on the PATH"
        return Plan("snapshots", None, online, f"no litestream binary ({where})")
    try:
        return Plan("litestream", binary, f"litestream {litestream.version(binary)}")
    except BackupError as e:
        return Plan("snapshots", None, online, str(e))


def same_disk(store: Path, replica: Path) -> bool:
    """Whether the replica's folder is on the store's own file system."""
    try:
        near = replica if replica.exists() else replica.parent
        return os.stat(store.parent).st_dev == os.stat(near).st_dev
    except OSError:
        return False


def _fingerprint(store: Path) -> tuple[int, ...] | None:
    """Changes whenever the daemon commits (the WAL or the file)."""
    out: list[int] = []
    for suffix in ("", "-wal"):
        try:
            st = os.stat(store.with_name(store.name + suffix))
        except FileNotFoundError:
            continue
        out += [st.st_size, st.st_mtime_ns]
    return tuple(out) or None


class Replication:
    """``run(stop)`` replicates ``store`` until ``stop`` is set."""

    def __init__(self, cfg: BackupConfig, store: Path, how: Plan) -> None:
        self.cfg = cfg
        self.store = store
        self.how = how
        self.snapshots_taken = 0
        self.restarts = 0
        self._last_copied: tuple[int, ...] | None = None

    def run(self, stop: threading.Event) -> None:
        if self.how.method == "litestream":
            self._litestream(stop)
        else:
            self._snapshots(stop)

    # ------------------------------------------------------------------ litestream
    def _litestream(self, stop: threading.Event) -> None:
        assert self.how.binary is not None
        cfg = self.cfg
        child = litestream.Litestream(self.how.binary, self.store, cfg.replica, cfg.sync_ms)
        pause = RESTART_FIRST
        try:
            child.start()
            while not stop.wait(0.5):
                if child.running():
                    pause = RESTART_FIRST
                    continue
                log.error(
                    "litestream stopped by itself (exit status %s); starting it again in %.0f s",
                    child.exit_code(),
                    pause,
                )
                if stop.wait(pause):
                    break
                pause = min(pause * 2, RESTART_MOST)
                self.restarts += 1
                child.start()
        finally:
            code = child.stop()
            log.info("litestream stopped (exit status %s)", code)

    # ------------------------------------------------------------------ snapshots
    def _snapshots(self, stop: threading.Event) -> None:
        every = self.cfg.every_min * 60.0
        while True:
            self.snapshot_if_changed()
            if stop.wait(every):
                break
        self.snapshot_if_changed()  # the last one, at the end

    def snapshot_if_changed(self) -> Path | None:
        now = _fingerprint(self.store)
        if now is None or now == self._last_copied:
            return None
        folder = self.cfg.replica / snapshots.FOLDER
        try:
            made = snapshots.take(self.store, folder)
        except BackupError as e:
            log.error("backup: %s; trying again at the next one", e)
            return None
        self._last_copied = now
        self.snapshots_taken += 1
        for gone in snapshots.prune(folder, self.cfg.keep):
            log.info("backup: removed the old snapshot %s", gone.name)
        log.info("backup: snapshot %s", made)
        return made
