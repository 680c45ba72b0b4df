"""End to end with the real firmware (``SimulatedTable``) on a pty and the real
daemon: unplug and replug mid-frame, daemon restart mid-match, device power
cut.  Nothing may be lost or stored twice, and the boards must agree with the
table."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from baulk.host.sim.table import SimulatedTable
from tests.e2e.sim_driver import TableDriver
from tests.host.harness import TOKEN, DaemonThread, http, make_config, wait_for

pytestmark = pytest.mark.slow

KEYS = ("frame", "frames", "scores", "striker", "break", "reds", "ball_on", "highest_break")


@pytest.fixture
def table(tmp_path: Path) -> Iterator[TableDriver]:
    sim = SimulatedTable("t1", seed=5, autoplay=False, flash_dir=tmp_path / "flash")
    sim.start()
    yield TableDriver(sim)
    sim.stop()


def stored_seqs(store: Path) -> list[tuple[int, int]]:
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        return [
            (b, s)
            for b, s in db.execute(
                "SELECT boot_id, seq FROM events WHERE table_id='t1' ORDER BY id"
            )
        ]
    finally:
        db.close()


def stored_stream(store: Path) -> list[int]:
    """The seqs of every stored record of the device's stream: its events and
    its checkpoints, which the journal numbers together."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        return sorted(
            s
            for (s,) in db.execute(
                "SELECT seq FROM events WHERE table_id='t1' "
                "UNION ALL SELECT seq FROM checkpoints WHERE table_id='t1'"
            )
        )
    finally:
        db.close()


def all_stored(daemon: DaemonThread, table: TableDriver, store: Path) -> bool:
    daemon.flush()
    seqs = stored_stream(store)
    return bool(seqs) and seqs[-1] == table.journal_next() - 1


def same_as_table(daemon: DaemonThread, table: TableDriver) -> None:
    board = daemon.board("t1")
    device = table.state()
    for key in KEYS:
        assert board["state"][key] == device[key], key
    assert board["alerts"] == [], board["alerts"]  # the shadow replay agrees


def setup(daemon: DaemonThread) -> None:
    """Once the table is online, start a match on it through the operator API."""
    wait_for(lambda: daemon.board("t1")["status"]["link"] == "online", what="online")
    status, reply = http(
        daemon.url + "/api/tables/t1/match",
        {"players": ["Ali", "Reza"], "best_of": 5},
        token=TOKEN,
    )
    assert status == 200, reply


def test_unplug_and_replug_mid_frame_loses_no_event(tmp_path: Path, table: TableDriver) -> None:
    store = tmp_path / "store.sqlite"
    daemon = DaemonThread(make_config(tmp_path, {"t1": Path(table.sim.port)})).start()
    try:
        setup(daemon)
        table.stroke("red")
        table.stroke("black")
        table.stroke("red")
        wait_for(lambda: all_stored(daemon, table, store), what="first strokes stored")
        table.sim.unplug()
        wait_for(lambda: daemon.board("t1")["status"]["link"] == "offline", what="offline shown")
        assert daemon.board("t1")["status"]["last_seen_ms"]
        # the frame goes on while the cable is out: the firmware journals it
        table.stroke("pink")
        table.stroke()
        table.stroke("red")
        table.stroke("blue")
        assert not all_stored(daemon, table, store)
        table.sim.replug()
        wait_for(lambda: all_stored(daemon, table, store), what="every journaled event stored")
        wait_for(lambda: daemon.board("t1")["status"]["link"] == "online", what="online again")
        assert stored_stream(store) == list(range(1, table.journal_next()))  # each once
        wait_for(lambda: daemon.board("t1")["state"]["scores"] == table.state()["scores"])
        same_as_table(daemon, table)
        # red, black, red, pink for Ali (15); a stroke with no pot; red, blue for Reza (6)
        assert daemon.board("t1")["state"]["scores"] == [15, 6]
    finally:
        daemon.stop()


def test_daemon_restart_mid_match_restores_state_from_the_store(
    tmp_path: Path, table: TableDriver
) -> None:
    store = tmp_path / "store.sqlite"
    cfg = make_config(tmp_path, {"t1": Path(table.sim.port)})
    first = DaemonThread(cfg).start()
    try:
        setup(first)
        table.stroke("red")
        table.stroke("blue")
        table.stroke("red")
        wait_for(lambda: all_stored(first, table, store), what="strokes stored")
        wait_for(lambda: first.board("t1")["state"]["scores"] == table.state()["scores"])
        before = first.board("t1")["state"]
    finally:
        first.stop()
    table.sim.unplug()  # the new daemon must rebuild the board from its store alone
    second = DaemonThread(cfg).start()
    try:
        board = second.board("t1")
        assert board["status"]["link"] == "offline"
        assert board["match"]["names"] == ["Ali", "Reza"]
        for key in KEYS:
            assert board["state"][key] == before[key], key
        table.sim.replug()
        table.stroke("green")
        wait_for(lambda: all_stored(second, table, store), what="stored after restart")
        assert stored_stream(store) == list(range(1, table.journal_next()))
        wait_for(lambda: second.board("t1")["state"]["scores"] == table.state()["scores"])
        same_as_table(second, table)
    finally:
        second.stop()


def test_device_power_cut_mid_frame(tmp_path: Path, table: TableDriver) -> None:
    store = tmp_path / "store.sqlite"
    daemon = DaemonThread(make_config(tmp_path, {"t1": Path(table.sim.port)})).start()
    try:
        setup(daemon)
        table.stroke("red")
        table.stroke("black")
        table.sim.reset()  # the firmware restarts from its flash journal
        table.stroke("red")
        wait_for(lambda: all_stored(daemon, table, store), what="stored after the reset")
        keys = stored_seqs(store)
        assert len(keys) == len(set(keys))
        assert stored_stream(store) == list(range(1, table.journal_next()))
        wait_for(lambda: daemon.board("t1")["state"]["scores"] == table.state()["scores"])
        same_as_table(daemon, table)
    finally:
        daemon.stop()
