"""The venue PC's disk dies mid-match, shared by tests/backup/test_disk_loss.py
(short) and bench/chaos_backup.py (longer).

``baulk run --config`` and ``baulk backup --config`` run as real processes; a
simulated table (the real firmware, autoplaying) is on the daemon's pty, and
the desk opens and closes table sessions on a tariff.  Each round:

1. the desk closes the open session (its bill is what the desk was told) and
   opens another; the test waits until ``baulk backup --check`` shows the
   backup holds both, as a club would check its backup;
2. the replication falls behind: ``baulk backup`` is killed (SIGKILL), and the
   table plays on until the store holds ``lag`` events the backup has not;
3. the disk dies: the daemon is killed (SIGKILL) and the store, its WAL files
   and Litestream's notes beside it are deleted; the table plays on;
4. ``baulk restore``, then ``baulk backup`` and ``baulk run`` again.

After every restart every bill the desk was told is as it was told and the
open session is still open; at the end the store equals the table's journal
(each event once, in order), and the open session's bill still holds every
frame it held before the disk died."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

from baulk.host.sim.table import SimulatedTable
from tests.chaos.host_crash import BAULK, BILLING, DaemonProcess, Desk, desk_get, write_config
from tests.chaos.kit import (
    JournalTap,
    compare,
    integrity,
    run_faults,
    settled,
    stop_play,
    stored_events,
    wait_until,
)

BACKUP = """
[backup]
replica = "backup-disk"
sync_ms = 200
"""


class BackupProcess(DaemonProcess):
    """``baulk backup --config`` as a child process; its log goes to a file
    (killed and stopped as the daemon is)."""

    def start(self, timeout: float = 30) -> BackupProcess:
        with self.log.open("ab") as err:
            self.proc = subprocess.Popen(
                [BAULK, "backup", "--config", str(self.config), "-v"],
                stdout=subprocess.PIPE,
                stderr=err,
            )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()  # "replicating ... to ..." once it runs
        if b"replicating" not in line:
            raise RuntimeError(f"baulk backup did not start: {self.log.read_text()[-2000:]}")
        return self


def baulk(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BAULK, *args], capture_output=True, text=True, timeout=120, check=False)


def backup_check(config: Path) -> dict[str, Any] | None:
    """``baulk backup --check --json``: what the backup holds (None: nothing yet)."""
    done = baulk("backup", "--config", str(config), "--check", "--json")
    return json.loads(done.stdout) if done.returncode == 0 and done.stdout else None


def sessions_in(path: Path) -> dict[int, bool]:
    """Session id -> closed, in a store file (what a restore would give)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        rows = db.execute("SELECT id, closed_wall_ms IS NOT NULL FROM table_sessions").fetchall()
    finally:
        db.close()
    return {sid: bool(closed) for sid, closed in rows}


def destroy(store: Path) -> None:
    """The disk is gone: the store, its WAL files and Litestream's notes."""
    for p in (store, *(store.with_name(store.name + s) for s in ("-wal", "-shm"))):
        p.unlink(missing_ok=True)
    state = store.with_name(f".{store.name}-litestream")
    if state.exists():
        for f in sorted(state.rglob("*"), reverse=True):
            f.rmdir() if f.is_dir() else f.unlink()
        state.rmdir()


def frames_of(bill: dict[str, Any]) -> set[tuple[str, int, bool, Any]]:
    return {(f["match_id"], f["frame"], f["finished"], f["winner"]) for f in bill["frames"]}


def run(
    tmp: Path,
    seed: int,
    rounds: int,
    lag: tuple[int, int] = (10, 30),
    speed: float = 20.0,
) -> dict[str, Any]:
    rng = random.Random(seed)
    tap = JournalTap().install()
    sim = SimulatedTable("t1", seed=seed, speed=speed, flash_dir=tmp / "flash")
    sim.wait_for_host_s = 0.5
    figures: dict[str, Any] = {
        "rounds": 0,
        "behind_at_loss": [],  # events the store had and the backup not, each time
        "restored_events": [],  # events restored beyond what the backup held (0 each time)
        "integrity_restored": [],
        "desk_problems": [],
        "bills_checked": 0,
        "frames_before_loss": 0,
        "frames_dropped_from_bill": 0,
        "restore_errors": [],
    }
    clerk = Desk(rng)
    daemon: DaemonProcess | None = None
    copier: BackupProcess | None = None
    store = tmp / "store.sqlite"
    before: dict[int, set[tuple[str, int, bool, Any]]] = {}
    try:
        sim.start()
        config = write_config(tmp, {"t1": sim.port}, BILLING + BACKUP)
        log = tmp / "daemon.log"
        backup_log = tmp / "backup.log"
        copier = BackupProcess(config, backup_log).start()
        daemon = DaemonProcess(config, log).start()
        started = time.monotonic()
        for _ in range(rounds):
            wait_until(lambda: len(stored_events(store, "t1")) >= 20, 60, 0.2)
            # 1. the desk: close the open session, open the next; the backup has both
            if clerk.open_id is not None:
                clerk.act(daemon.url)
            clerk.act(daemon.url)
            want = {sid: not bill["open"] for sid, bill in clerk.told.items()}
            wait_until(lambda want=want: _replica_sessions(config) == want, 60, 0.3)
            bill = desk_get(daemon.url, f"/api/sessions/{clerk.open_id}")["bill"]
            before[bill["session_id"]] = frames_of(bill)
            # 2. the replication falls behind by `lag` events
            copier.kill9()
            copier = None
            had = _backup_events(config)
            goal = had + rng.randint(*lag)
            wait_until(lambda goal=goal: len(stored_events(store, "t1")) >= goal, 60, 0.05)
            # 3. the disk dies mid-match; the table plays on
            daemon.kill9()
            daemon = None
            figures["behind_at_loss"].append(len(stored_events(store, "t1")) - had)
            destroy(store)
            time.sleep(rng.uniform(0.0, 2.0))
            # 4. restore, and start both again
            done = baulk("restore", "--config", str(config))
            if done.returncode != 0:
                figures["restore_errors"].append(done.stderr.strip())
            figures["restored_events"].append(len(stored_events(store, "t1")) - had)
            figures["integrity_restored"].append(integrity(store))
            copier = BackupProcess(config, backup_log).start()
            daemon = DaemonProcess(config, log).start()
            figures["desk_problems"] += clerk.check(daemon.url, store)
            figures["rounds"] += 1
        stop_play(sim)
        played_s = time.monotonic() - started
        wait_until(settled(tap, {"t1": sim}, store), 90, 0.25)
        # Every bill intact: the closed ones as told (Desk.check), and every
        # frame an open session's bill held before a loss is in it after.
        figures["desk_problems"] += clerk.check(daemon.url, store)
        for sid, frames in before.items():
            after = frames_of(desk_get(daemon.url, f"/api/sessions/{sid}")["bill"])
            finished = {f for f in frames if f[2]}
            figures["frames_before_loss"] += len(finished)
            figures["frames_dropped_from_bill"] += len(finished - after)
            figures["bills_checked"] += 1
        figures["sessions_told"] = len(clerk.told)
        figures["clean_exit"] = daemon.stop()
        daemon = None
        figures["backup_exit"] = copier.stop()
        copier = None
        figures["integrity_at_end"] = integrity(store)
        figures.update(compare(tap.of(sim.flash_dir), stored_events(store, "t1")).as_dict())
        figures["played_s"] = round(played_s, 1)
        figures["frames"] = sim.frames_played
        text = log.read_text(errors="replace") + backup_log.read_text(errors="replace")
        figures.update(run_faults(text, sim))
        return figures
    finally:
        if daemon is not None:
            daemon.stop()
        if copier is not None:
            copier.stop()
        sim.stop()
        tap.remove()


def _replica_sessions(config: Path) -> dict[int, bool]:
    """The sessions the backup holds, read from a scratch restore."""
    scratch = config.parent / "check.sqlite"
    scratch.unlink(missing_ok=True)
    done = baulk("restore", "--config", str(config), "--to", str(scratch))
    if done.returncode != 0:
        return {}
    try:
        return sessions_in(scratch)
    finally:
        for suffix in ("", "-wal", "-shm"):
            scratch.with_name(scratch.name + suffix).unlink(missing_ok=True)


def _backup_events(config: Path) -> int:
    c = backup_check(config)
    assert c is not None, "the backup holds nothing"
    events: int = c["replica"]["events"]
    return events
