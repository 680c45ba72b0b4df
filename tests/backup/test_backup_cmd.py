"""``baulk backup`` and ``baulk restore`` as a club runs them: the
``[backup]`` section checked, Litestream replicating a store that is being
written, the online-backup fallback on a schedule and at the end, and a
restore that never overwrites a store nor touches one that is open."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from baulk.host import config as config_mod
from baulk.host.backup import litestream, snapshots
from baulk.host.backup.restore import in_use, summarize
from baulk.host.store import Batch, EventRow, Store
from tests.chaos.host_crash import BAULK
from tests.chaos.kit import wait_until

# Each test runs baulk, Litestream or SQLite's backup as processes of their
# own: make test runs them, make check (the quick loop) leaves them out.
pytestmark = pytest.mark.slow


def write(tmp: Path, backup: str) -> Path:
    config = tmp / "baulk.toml"
    config.write_text(
        '[server]\nport = 0\n[store]\npath = "venue/store.sqlite"\n'
        f"[autodetect]\nenabled = false\n[backup]\n{backup}\n"
    )
    return config


def baulk(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BAULK, *args], capture_output=True, text=True, timeout=120, check=False)


def add_events(store: Store, first: int, n: int, table: str = "t1") -> None:
    rows = [
        EventRow(table, 7, s, 1_700_000_000_000 + s, {"ev": "strike"}, [0, 0])
        for s in range(first, first + n)
    ]
    store.write(Batch(events=rows))


def stored(path: Path) -> list[int]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [s for (s,) in db.execute("SELECT seq FROM events ORDER BY seq")]
    finally:
        db.close()


class Replicating:
    """``baulk backup --config`` running, until stopped with SIGTERM."""

    def __init__(self, config: Path) -> None:
        self.proc = subprocess.Popen(
            [BAULK, "backup", "--config", str(config)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.first_line = self.proc.stdout.readline()

    def stop(self) -> tuple[int, str, str]:
        self.proc.send_signal(signal.SIGTERM)
        out, err = self.proc.communicate(timeout=60)
        return self.proc.returncode, out, err


def check(config: Path) -> dict[str, Any] | None:
    done = baulk("backup", "--config", str(config), "--check", "--json")
    return json.loads(done.stdout) if done.returncode == 0 else None


# ---------------------------------------------------------------------- config
@pytest.mark.parametrize(
    ("section", "problem"),
    [
        ('method = "litestream"', "backup.replica must name the folder"),
        ("", "backup.replica must name the folder"),  # an empty [backup] is a mistake too
        ('replica = "venue"', "is the store's own place"),
        ('replica = "r"\nmethod = "rsync"', "backup.method must be one of litestream, snapshots"),
        ('replica = "r"\nsync_ms = 10', "backup.sync_ms must be 100..60000"),
        ('replica = "r"\nevery_min = 0', "backup.every_min must be 1..1440"),
        ('replica = "r"\nkeep = true', "backup.keep must be an integer"),
        ('replica = "r"\ncolour = "red"', "backup: unknown key 'colour'"),
        ("replica = 5", "backup.replica must be a str"),
    ],
)
def test_a_bad_backup_section_is_refused_naming_the_key(
    tmp_path: Path, section: str, problem: str
) -> None:
    with pytest.raises(config_mod.ConfigError, match=problem):
        config_mod.load(write(tmp_path, section))


def test_the_backup_section_and_its_defaults(tmp_path: Path) -> None:
    cfg = config_mod.load(write(tmp_path, 'replica = "/mnt/backup/baulk"'))
    assert cfg.backup == config_mod.BackupConfig(Path("/mnt/backup/baulk"))
    cfg = config_mod.load(write(tmp_path, 'replica = "r"\nmethod = "snapshots"\nkeep = 3'))
    assert cfg.backup is not None and cfg.backup.replica == tmp_path / "r"
    assert (cfg.backup.method, cfg.backup.keep, cfg.backup.every_min) == ("snapshots", 3, 10)
    (tmp_path / "plain.toml").write_text('[store]\npath = "venue/store.sqlite"\n')
    assert config_mod.load(tmp_path / "plain.toml").backup is None


def test_the_commands_need_a_backup_section(tmp_path: Path) -> None:
    config = tmp_path / "plain.toml"
    config.write_text('[store]\npath = "venue/store.sqlite"\n')
    for args in (["backup"], ["backup", "--check"], ["restore"]):
        done = baulk(*args, "--config", str(config))
        assert done.returncode == 2, done
        assert "has no [backup] section" in done.stderr


# ---------------------------------------------------------------------- litestream
def test_litestream_installed_with_baulk_runs_here() -> None:
    binary = litestream.find(None)
    assert binary is not None and binary.parent == Path(sys.executable).parent
    assert litestream.version(binary).startswith("0.5.")


def test_litestream_replicates_a_store_being_written_and_restores_it(tmp_path: Path) -> None:
    config = write(tmp_path, 'replica = "second-disk"\nsync_ms = 100')
    store = Store(tmp_path / "venue" / "store.sqlite")
    running = Replicating(config)
    try:
        assert "replicating" in running.first_line and "litestream 0.5" in running.first_line
        add_events(store, 1, 50)
        add_events(store, 51, 50)
        wait_until(lambda: (c := check(config)) and c["replica"]["events"] == 100, 30, 0.2)
        found = check(config)
        assert found is not None
        assert found["source"]["kind"] == "litestream" and found["behind_events"] == 0
        assert found["replica"]["integrity"] == "ok"
        add_events(store, 101, 20)  # the last commits before the stop ...
        code, out, _ = running.stop()
        assert code == 0 and "stopped" in out
    finally:
        if running.proc.poll() is None:
            running.stop()
        store.close()
    # ... are in the replica: Litestream syncs what is left when it is stopped.
    out = tmp_path / "restored.sqlite"
    done = baulk("restore", "--config", str(config), "--to", str(out))
    assert done.returncode == 0, done.stderr
    assert "120 events of 1 table" in done.stdout
    assert stored(out) == list(range(1, 121))


# ---------------------------------------------------------------------- snapshots
def test_snapshots_on_a_schedule_and_at_the_end(tmp_path: Path) -> None:
    """The fallback: SQLite's online backup API; the last copy is taken when
    baulk backup stops, so it holds every commit made before."""
    config = write(tmp_path, 'replica = "nas"\nmethod = "snapshots"\nevery_min = 60\nkeep = 2')
    store = Store(tmp_path / "venue" / "store.sqlite")
    folder = tmp_path / "nas" / snapshots.FOLDER
    try:
        add_events(store, 1, 10)
        running = Replicating(config)
        assert (
            "SQLite" in running.first_line and "every 60 min and at the end" in running.first_line
        )
        wait_until(lambda: len(snapshots.listed(folder)) == 1, 30, 0.1)
        add_events(store, 11, 5)
        code, _, err = running.stop()
        assert code == 0, err
    finally:
        store.close()
    taken = snapshots.listed(folder)
    assert len(taken) == 2
    assert stored(taken[0]) == list(range(1, 11)) and stored(taken[-1]) == list(range(1, 16))
    assert not [p for p in folder.iterdir() if p.suffix != ".sqlite"]  # no -wal, no .partial


def test_without_litestream_the_backup_falls_back_to_snapshots(tmp_path: Path) -> None:
    config = write(tmp_path, 'replica = "nas"\nlitestream = "/nowhere/litestream"')
    store = Store(tmp_path / "venue" / "store.sqlite")
    try:
        add_events(store, 1, 3)
        running = Replicating(config)
        assert "SQLite" in running.first_line
        code, _, err = running.stop()
    finally:
        store.close()
    assert code == 0
    assert "no litestream binary (/nowhere/litestream): falling back to snapshots" in err
    assert len(snapshots.listed(tmp_path / "nas" / snapshots.FOLDER)) == 1


def test_a_snapshot_while_the_store_is_written_is_always_whole(tmp_path: Path) -> None:
    """Copies taken while a writer commits: each checks out and holds a
    prefix of the commits, never half of one (a batch of 20 is all or none)."""
    store = Store(tmp_path / "store.sqlite")
    add_events(store, 1, 20)
    done = threading.Event()

    def writer() -> None:
        n = 21
        while not done.is_set() and n < 4000:
            add_events(store, n, 20)
            n += 20

    t = threading.Thread(target=writer)
    t.start()
    try:
        copies = [snapshots.take(store.path, tmp_path / "snaps", f"s{i}.sqlite") for i in range(8)]
    finally:
        done.set()
        t.join()
        store.close()
    for copy in copies:
        seqs = stored(copy)
        assert summarize(copy).integrity == "ok"
        assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) % 20 == 0


def test_backup_now_to_a_file(tmp_path: Path) -> None:
    config = write(tmp_path, 'replica = "nas"')
    store = Store(tmp_path / "venue" / "store.sqlite")
    try:
        add_events(store, 1, 4)
        out = tmp_path / "usb-stick" / "copy.sqlite"
        done = baulk("backup", "--config", str(config), "--now", "--to", str(out))
    finally:
        store.close()
    assert done.returncode == 0, done.stderr
    assert "4 events of 1 table" in done.stdout and stored(out) == [1, 2, 3, 4]


# ---------------------------------------------------------------------- restore
def test_restore_never_overwrites_nor_touches_an_open_store(tmp_path: Path) -> None:
    config = write(tmp_path, 'replica = "nas"\nmethod = "snapshots"')
    path = tmp_path / "venue" / "store.sqlite"
    store = Store(path)
    add_events(store, 1, 6)
    store.close()
    assert baulk("backup", "--config", str(config), "--now").returncode == 0
    store = Store(path)
    add_events(store, 7, 3)  # after the backup
    store.close()

    done = baulk("restore", "--config", str(config))
    assert done.returncode == 1
    assert "there is a store at" in done.stderr and "--force" in done.stderr
    assert stored(path) == list(range(1, 10))

    # Another process has it open (as baulk run would): refused even with --force.
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"open\n"
        assert in_use(path)
        done = baulk("restore", "--config", str(config), "--force")
        assert done.returncode == 1 and "is open in another process" in done.stderr
    finally:
        holder.communicate(b"", timeout=30)
    assert not in_use(path)
    assert stored(path) == list(range(1, 10))

    done = baulk("restore", "--config", str(config), "--force")
    assert done.returncode == 0, done.stderr
    assert stored(path) == list(range(1, 7))
    aside = [p for p in path.parent.iterdir() if ".replaced-" in p.name and p.name.endswith("Z")]
    assert len(aside) == 1 and stored(aside[0]) == list(range(1, 10))  # kept, not deleted
    assert not (path.parent / "store.sqlite.restoring").exists()


# A process that keeps the store open until its stdin closes.
HOLD = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("SELECT count(*) FROM events").fetchone()
print("open", flush=True)
sys.stdin.read()
"""


def test_restore_with_nothing_to_restore_says_so(tmp_path: Path) -> None:
    config = write(tmp_path, 'replica = "nas"')
    done = baulk("restore", "--config", str(config))
    assert done.returncode == 1
    assert "holds no backup" in done.stderr
    assert not (tmp_path / "venue" / "store.sqlite").exists()
