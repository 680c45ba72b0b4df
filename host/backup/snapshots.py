"""SQLite's online backup API: a consistent copy of the store while the
daemon writes it (the fallback where Litestream cannot run, and ``baulk
backup --now``).

The copy is read through a read-only connection of its own in one step: one
read transaction, which in WAL mode never blocks the daemon's writer.  It is
written beside its final name, checked (``PRAGMA quick_check``), flushed to
the disk and only then renamed into place, so a snapshot folder never holds
half a copy under a snapshot's name.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path
from typing import Final

from baulk.host.store import StoreError, connect

FOLDER: Final = "snapshots"  # below the replica
SUFFIX: Final = ".sqlite"


class BackupError(RuntimeError):
    """A backup or a restore cannot be made (the text says why and what to do)."""


def snapshot_name(store: Path, at: float | None = None) -> str:
    """``<store>-<UTC time to the millisecond>.sqlite``: names sort by time."""
    when = time.time() if at is None else at
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(when))
    return f"{store.stem}-{stamp}.{int(when * 1000) % 1000:03d}Z{SUFFIX}"


def fsync_folder(folder: Path) -> None:
    """A rename is on the disk once its folder is."""
    with contextlib.suppress(OSError):  # not every file system lets a folder be opened
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def copy_database(source: sqlite3.Connection, target: Path) -> None:
    """``source``'s whole database into the new file ``target``, checked and
    on the disk."""
    part = target.with_name(target.name + ".partial")
    part.unlink(missing_ok=True)
    dst = sqlite3.connect(part)
    try:
        source.backup(dst)  # every page in one step: one consistent read
        # A file on its own, with no WAL files beside it; the daemon puts a
        # restored store back in WAL mode when it opens it.
        dst.execute("PRAGMA journal_mode = DELETE")
        found = dst.execute("PRAGMA quick_check").fetchone()[0]
        if found != "ok":
            raise BackupError(f"the copy in {part} does not check out: {found}")
    finally:
        dst.close()
    with part.open("rb") as f:
        os.fsync(f.fileno())
    os.replace(part, target)
    fsync_folder(target.parent)


def _copy(src: sqlite3.Connection, name: Path, target: Path) -> None:
    """``src`` (then closed) into ``target``; BackupError naming both."""
    try:
        copy_database(src, target)
    except (sqlite3.Error, OSError) as e:
        raise BackupError(f"cannot copy {name} to {target}: {e}") from None
    finally:
        src.close()


def take(store: Path, folder: Path, name: str | None = None) -> Path:
    """A snapshot of ``store`` in ``folder`` (made if missing); its path."""
    if not store.is_file():
        raise BackupError(f"there is no store at {store} to copy")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BackupError(f"cannot make the folder {folder}: {e.strerror or e}") from None
    target = folder / (name or snapshot_name(store))
    try:
        src = connect(store, readonly=True)
    except StoreError as e:
        raise BackupError(str(e)) from None
    _copy(src, store, target)
    return target


def listed(folder: Path) -> list[Path]:
    """The snapshots in ``folder``, oldest first (their names sort by time)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix == SUFFIX and p.is_file())


def newest(folder: Path) -> Path | None:
    found = listed(folder)
    return found[-1] if found else None


def prune(folder: Path, keep: int) -> list[Path]:
    """Delete all but the ``keep`` newest snapshots; the ones deleted."""
    old = listed(folder)[:-keep] if keep > 0 else []
    for p in old:
        p.unlink(missing_ok=True)
    return old


def restore_copy(snapshot: Path, target: Path) -> None:
    """A snapshot (or any SQLite file) into the new file ``target``."""
    try:
        src = sqlite3.connect(f"file:{snapshot}?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise BackupError(f"cannot open {snapshot}: {e}") from None
    _copy(src, snapshot, target)
