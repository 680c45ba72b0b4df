"""Host crash, shared by tests/chaos/test_host_crash.py (short) and
bench/chaos_host_crash.py (full): ``baulk run --config`` runs as a real
process; a simulated table (the real firmware, autoplaying) is on its pty.
The daemon is killed with SIGKILL at random points and started again.  After
every kill the store passes ``PRAGMA integrity_check``; after every restart
the board comes back from the store; at the end the store equals the table's
journal (each event once, in order) and the board equals the table.

With ``desk=True`` the desk opens and closes table sessions meanwhile, and
some kills land while a session change is on its way to the disk.  After
every restart each change the desk was told had gone through is in the store
as it was told (a closed session's bill to the unit), whatever the desk was
not told is there whole or not at all, and a table never holds two sessions."""

from __future__ import annotations

import json
import os
import random
import resource
import selectors
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from baulk.host.sim.table import SimulatedTable
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

BAULK = str(Path(sys.executable).with_name("baulk"))
TOKEN = "chaos-operator-token-123"
BILLING = """
[billing]
timezone = "Asia/Tehran"
[[tariff]]
name = "club"
currency = "IRT"
per_hour = 120000
per_frame = 10000
loser_pays = true
round_min = 5
"""


def write_config(tmp: Path, tables: dict[str, str], extra: str = "") -> Path:
    lines = [
        "[server]",
        'bind = "127.0.0.1"',
        "port = 0",
        f'operator_token = "{TOKEN}"',
        "[store]",
        'path = "store.sqlite"',
        "[autodetect]",
        "enabled = false",
    ]
    for tid, port in tables.items():
        lines += ["[[table]]", f'id = "{tid}"', f'port = "{port}"']
    path = tmp / "baulk.toml"
    path.write_text("\n".join(lines) + "\n" + extra)
    return path


class DaemonProcess:
    """``baulk run --config`` as a child process; its log goes to a file."""

    def __init__(
        self, config: Path, log: Path, verbose: bool = True, open_files: int | None = None
    ) -> None:
        self.config = config
        self.log = log
        self.verbose = verbose
        self.open_files = open_files  # RLIMIT_NOFILE (soft and hard) of the process
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self, timeout: float = 30) -> DaemonProcess:
        env = dict(os.environ)
        env.pop("BAULK_TOKEN", None)
        args = [BAULK, "run", "--config", str(self.config)] + (["-v"] if self.verbose else [])
        limit = self.open_files

        def limits() -> None:  # in the child, before baulk starts
            if limit is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

        with self.log.open("ab") as err:
            self.proc = subprocess.Popen(
                args, stdout=subprocess.PIPE, stderr=err, env=env, preexec_fn=limits
            )
        assert self.proc.stdout is not None
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        end = time.monotonic() + timeout
        line = b""
        while time.monotonic() < end and b"boards on" not in line:
            if sel.select(0.2):
                line = self.proc.stdout.readline()
                if not line and self.proc.poll() is not None:
                    break
        sel.close()
        if b"boards on" not in line:
            raise RuntimeError(f"baulk run did not start: {self.log.read_text()[-2000:]}")
        self.url = line.decode().split("boards on", 1)[1].strip()
        return self

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self.proc = None

    def stop(self) -> int:
        if self.proc is None:
            return 0
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait(10)
        self.proc = None
        return rc

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as r:
            return json.loads(r.read())

    def board(self, table: str) -> dict[str, Any]:
        board: dict[str, Any] = self.get(f"/api/tables/{table}")["board"]
        return board


def desk_post(url: str, path: str) -> tuple[int, Any]:
    """A desk action with the operator token: (status, reply); (0, None) when
    the daemon died before it answered."""
    req = urllib.request.Request(
        url + path,
        data=b"{}",
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return 0, None


def desk_get(url: str, path: str) -> Any:
    req = urllib.request.Request(url + path, headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


class Desk:
    """The desk opening and closing table t1's sessions, and what it was told."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.told: dict[int, dict[str, Any]] = {}  # session id -> the bill in the last 200
        self.open_id: int | None = None
        self.actions = 0
        self.cut_short = 0  # changes the daemon died in the middle of
        self.unsure: int | None = None  # the session a cut-short close was for

    def act(self, url: str) -> tuple[int, Any]:
        self.actions += 1
        if self.open_id is None:
            status, reply = desk_post(url, "/api/tables/t1/session")
        else:
            status, reply = desk_post(url, f"/api/sessions/{self.open_id}/close")
        if status == 200:
            bill = reply["bill"]
            self.told[bill["session_id"]] = bill
            self.open_id = bill["session_id"] if bill["open"] else None
        return status, reply

    def act_while_killed(self, daemon: DaemonProcess) -> None:
        """A desk action with the kill landing at a random moment of it."""
        result: list[tuple[int, Any]] = []
        self.unsure = self.open_id
        worker = threading.Thread(target=lambda: result.append(self.act(daemon.url)))
        worker.start()
        time.sleep(self.rng.uniform(0.0, 0.03))
        daemon.kill9()
        worker.join(15)
        if not result or result[0][0] == 0:
            self.cut_short += 1

    def check(self, url: str, store: Path) -> list[str]:
        """What the restarted daemon and its store say against what the desk was told."""
        problems = []
        db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=10)
        try:
            rows = db.execute(
                "SELECT session_id, open FROM session_state WHERE table_id = 't1'"
            ).fetchall()
        finally:
            db.close()
        open_now = [sid for sid, is_open in rows if is_open]
        if len(open_now) > 1:
            problems.append(f"two sessions open: {open_now}")
        stored = {sid for sid, _ in rows}
        for sid, bill in self.told.items():
            if sid not in stored:
                problems.append(f"session {sid} was acknowledged but is not stored")
                continue
            now = desk_get(url, f"/api/sessions/{sid}")["bill"]
            if not bill["open"] and now != bill:
                problems.append(f"the bill of closed session {sid} changed")
            elif bill["open"] and not now["open"]:
                if sid != self.unsure:
                    problems.append(f"session {sid} closed with nobody closing it")
                self.told[sid] = now  # closed whole by the cut-short close: it stays so
        # an open session the desk was not told of (the kill took the reply) is the desk's now
        self.open_id = open_now[0] if open_now else None
        desk = desk_get(url, "/api/desk")["tables"][0]
        if (desk["bill"] or {}).get("session_id") != self.open_id:
            problems.append("the desk view differs from the store")
        return problems


def run(
    tmp: Path,
    seed: int,
    kills: int,
    gap_s: tuple[float, float],
    speed: float = 50.0,
    desk: bool = False,
) -> dict[str, Any]:
    rng = random.Random(seed)
    tap = JournalTap().install()
    sim = SimulatedTable("t1", seed=seed, speed=speed, flash_dir=tmp / "flash")
    sim.wait_for_host_s = 0.5
    figures: dict[str, Any] = {
        "kills": 0,
        "integrity_after_kill": [],
        "boards_restored": 0,
        "events_at_kill": [],
        "desk_actions": 0,
        "desk_cut_short": 0,
        "desk_problems": [],
    }
    clerk = Desk(rng) if desk else None
    daemon: DaemonProcess | None = None
    try:
        sim.start()
        config = write_config(tmp, {"t1": sim.port}, BILLING if desk else "")
        store = tmp / "store.sqlite"
        log = tmp / "daemon.log"
        started = time.monotonic()
        daemon = DaemonProcess(config, log).start()
        for _ in range(kills):
            time.sleep(rng.uniform(*gap_s))
            figures["events_at_kill"].append(len(tap.of(sim.flash_dir)))
            if clerk is not None:
                clerk.act(daemon.url)  # acknowledged: it must survive the kill
                clerk.act_while_killed(daemon)  # cut short, at any point of it
            else:
                daemon.kill9()
            figures["kills"] += 1
            figures["integrity_after_kill"].append(integrity(store))
            if rng.random() < 0.5:
                time.sleep(rng.uniform(0.0, 3.0))  # the table plays on meanwhile
            # What the store held before the restart: once the new daemon
            # runs, the table's resent events reach the store at any moment.
            had_events = bool(stored_events(store, "t1"))
            daemon = DaemonProcess(config, log).start()
            board = daemon.board("t1")
            if board["match"] is not None or not had_events:
                figures["boards_restored"] += 1
            if clerk is not None:
                figures["desk_problems"] += clerk.check(daemon.url, store)
        stop_play(sim)
        played_s = time.monotonic() - started
        wait_until(settled(tap, {"t1": sim}, store), 60, 0.25)
        state = sim.state()
        board = wait_until(
            lambda: (
                (b := daemon.board("t1"))["state"] is not None
                and b["state"]["scores"] == state["scores"]
                and b["state"]["frame"] == state["frame"]
                and b
            ),
            20,
        )
        figures["board_equals_table"] = bool(board)
        if clerk is not None:
            figures["desk_actions"] = clerk.actions
            figures["desk_cut_short"] = clerk.cut_short
            figures["sessions_told"] = len(clerk.told)
            figures["desk_problems"] += clerk.check(daemon.url, store)
        figures["alerts"] = len(board["alerts"]) if board else -1
        figures["clean_exit"] = daemon.stop()
        daemon = None
        figures["integrity_at_end"] = integrity(store)
        cmp = compare(tap.of(sim.flash_dir), stored_events(store, "t1"))
        figures.update(cmp.as_dict())
        figures["played_s"] = round(played_s, 1)
        figures["frames"] = sim.frames_played
        text = log.read_text(errors="replace")
        figures.update(run_faults(text, sim))
        return figures
    finally:
        if daemon is not None:
            daemon.stop()
        sim.stop()
        tap.remove()
