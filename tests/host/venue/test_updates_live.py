"""A firmware update pushed by the real daemon over a table's own link to
the real firmware (``SimulatedTable``: the simulated board on a pty): the
table refuses it during a match, takes it between matches, stages the real
release `baulk firmware bundle` makes, restarts into it on trial, and
confirms it once the trial has shaken hands and reported its sensors.  The
match played before the update is stored exactly once, and the table plays
on after it.  (The board's code itself is not swapped in a simulation: the
slots, the record and the selector are, and tests/firmware/mp_update.py boots
the slots' own code.)"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from baulk.firmware.update import record
from baulk.host.cli import main as cli
from baulk.host.release import bundle
from baulk.host.sim.table import SimulatedTable
from tests.e2e.sim_driver import TableDriver
from tests.host.harness import TOKEN, DaemonThread, http, make_config, stored_events, wait_for

pytestmark = pytest.mark.slow  # it builds the firmware


@pytest.fixture
def venue(
    tmp_path: Path, release: bundle.Bundle
) -> Iterator[tuple[DaemonThread, TableDriver, SimulatedTable]]:
    sim = SimulatedTable(
        "t1", seed=5, autoplay=False, flash_dir=tmp_path / "flash", mpy_abi=release.mpy
    )
    sim.start()
    releases = tmp_path / "releases"  # as `baulk firmware bundle` writes them
    releases.mkdir()
    (releases / release.name).write_bytes(release.to_bytes())
    try:
        cfg = make_config(tmp_path, {"t1": Path(sim.port)})
        cfg = dataclasses.replace(cfg, verify_sim_key=True, firmware_releases=releases)
        daemon = DaemonThread(cfg).start()
        try:
            wait_for(lambda: daemon.board("t1")["status"]["link"] == "online", what="online")
            yield daemon, TableDriver(sim), sim
        finally:
            daemon.stop()
    finally:
        sim.stop()


def start(daemon: DaemonThread, *tables: str, lang: str = "en") -> dict[str, Any]:
    status, reply = http(
        daemon.url + f"/api/firmware/update?lang={lang}", {"tables": list(tables)}, token=TOKEN
    )
    assert status == 202, reply
    return reply  # type: ignore[no-any-return]


def job(daemon: DaemonThread) -> dict[str, Any]:
    status, reply = http(daemon.url + "/api/firmware", token=TOKEN)
    assert status == 200, reply
    (row,) = [r for r in reply["tables"] if r["table"] == "t1"]
    return row["update"] or {}


def test_an_update_waits_for_the_match_to_end_then_stages_restarts_and_confirms(
    venue: tuple[DaemonThread, TableDriver, SimulatedTable], release: bundle.Bundle
) -> None:
    daemon, table, sim = venue
    store = daemon.cfg.store_path
    status, _ = http(
        daemon.url + "/api/tables/t1/match", {"players": ["Ali", "Reza"], "best_of": 1}, token=TOKEN
    )
    assert status == 200
    wait_for(
        lambda: [e for _, _, e in stored_events(store) if e and e["ev"] == "match"],
        what="the match on the table",
    )
    table.stroke("red")
    # during the match the table says no: the update waits, asking again
    # every few seconds, and nothing else happens
    assert start(daemon, "t1") == {"started": ["t1"], "refused": []}
    waiting = wait_for(lambda: (j := job(daemon))["phase"] == "waiting" and j, what="waiting")
    assert "match" in str(waiting["reason"]) and sim.updates_run == 0
    # one under way is not started twice; a table that is not there is named
    again = start(daemon, "t1", "t9", lang="fa")
    assert again["started"] == []
    assert [r["table"] for r in again["refused"]] == ["t1", "t9"]
    assert "در جریان است" in again["refused"][0]["text"]
    table.stroke()
    table.referee({"ev": "concede"})
    before = wait_for(
        lambda: (e := stored_events(store)) and e[-1][2]["ev"] == "concede" and e,
        what="the match stored, to its end",
    )
    assert table.state()["match_over"]
    board = daemon.board("t1")
    # the match over: staged, committed, restarted into the trial, confirmed,
    # by itself (its phases pass faster than a poll over a pty: the bytes the
    # table holds and the record on its flash say they all ran)
    wait_for(lambda: job(daemon)["phase"] == "confirmed", timeout=120, what="confirmed")
    assert sim.updates_run == 2  # the stage's update mode, and the confirm's
    rec = record.load(str(sim.flash_dir))
    version = ".".join(map(str, release.version))
    assert [rec[record.ACTIVE], rec[record.ACTIVE_V], rec[record.TRIAL]] == ["a", version, "-"]
    assert [rec[record.LAST], rec[record.LAST_V]] == ["confirmed", version]
    view = job(daemon)
    assert view["held"] == view["total"] == len(release.to_bytes()) + 32
    # the table is back, and what it played before is stored once
    wait_for(lambda: daemon.board("t1")["status"]["link"] == "online", what="online again")
    assert daemon.board("t1")["state"]["scores"] == board["state"]["scores"]  # the board kept them
    after = stored_events(store)
    assert after[: len(before)] == before
    keys = [(b, s) for b, s, _ in after]
    assert len(keys) == len(set(keys))
    status, reply = http(daemon.url + "/api/firmware", token=TOKEN)
    assert reply["tables"][0]["release"] == version
    # the activity log has the owner's request and the table's end of it
    status, log = http(daemon.url + "/api/staff/activity", token=TOKEN)
    assert status == 200
    ends = [r for r in log["rows"] if r["action"] == "firmware confirmed"]
    assert [(r["table_id"], r["result"]) for r in ends] == [("t1", "done")]
    assert any(r["action"] == "firmware update" for r in log["rows"])
    # and the same release again is refused by the table: it runs already
    assert start(daemon, "t1")["started"] == ["t1"]
    same = wait_for(lambda: (j := job(daemon))["phase"] == "refused" and j, what="refused")
    assert same["reason"] == "same"


def test_baulk_firmware_push_follows_the_update_to_its_end(
    venue: tuple[DaemonThread, TableDriver, SimulatedTable],
    release: bundle.Bundle,
    capsys: pytest.CaptureFixture[str],
) -> None:
    daemon, _table, sim = venue
    args = ["firmware", "push", "--table", "t1", "--url", daemon.url, "--token", TOKEN]
    assert cli.main(args) == 0
    out = capsys.readouterr().out.splitlines()
    # each phase once as it changes (over a pty, with no baud rate to slow
    # it, the sending may pass between two polls)
    assert out[0] == "table t1: started" and out[-1] == "table t1: confirmed", out
    assert len(out) == len(set(out))
    assert record.load(str(sim.flash_dir))[record.LAST] == "confirmed"
    # no token: told, nothing sent
    assert cli.main(["firmware", "push", "--all", "--url", daemon.url, "--token", ""]) == 2
    # the owner's token only: a wrong one is refused by the daemon
    assert cli.main(["firmware", "push", "--all", "--url", daemon.url, "--token", "nope"]) == 1
    assert "t1" not in capsys.readouterr().out


def test_two_phones_that_tap_update_at_once_start_one_update(
    venue: tuple[DaemonThread, TableDriver, SimulatedTable],
) -> None:
    daemon, _table, sim = venue
    barrier = threading.Barrier(2)
    replies: list[dict[str, Any]] = []

    def tap() -> None:
        barrier.wait()
        replies.append(start(daemon, "t1"))

    phones = [threading.Thread(target=tap) for _ in range(2)]
    for p in phones:
        p.start()
    for p in phones:
        p.join(60)
    assert sorted(len(r["started"]) for r in replies) == [0, 1]  # one started, one told
    told = next(r for r in replies if not r["started"])["refused"]
    assert [r["table"] for r in told] == ["t1"] and "under way" in told[0]["text"]
    wait_for(lambda: job(daemon)["phase"] == "confirmed", timeout=120, what="confirmed")
    assert sim.updates_run == 2  # one update, not two


def test_without_a_release_for_its_board_nothing_is_sent(
    tmp_path: Path, release: bundle.Bundle
) -> None:
    sim = SimulatedTable("t1", seed=6, autoplay=False, flash_dir=tmp_path / "flash")
    sim.start()
    try:
        cfg = make_config(tmp_path, {"t1": Path(sim.port)})
        daemon = DaemonThread(dataclasses.replace(cfg, firmware_releases=tmp_path)).start()
        try:
            wait_for(lambda: daemon.board("t1")["status"]["link"] == "online", what="online")
            reply = start(daemon, "t1")
            assert reply["started"] == []
            assert "no release for the pico board" in reply["refused"][0]["text"]
            assert job(daemon) == {} and sim.updates_run == 0
            # a bundle made into the folder afterwards is seen (the daemon
            # reads the folder again when its files change)
            (tmp_path / release.name).write_bytes(release.to_bytes())
            status, reply = http(daemon.url + "/api/firmware", token=TOKEN)
            assert status == 200
            assert reply["tables"][0]["release"] == ".".join(map(str, release.version))
        finally:
            daemon.stop()
    finally:
        sim.stop()


def test_a_table_of_another_rules_engine_is_followed_not_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the firmware's hello names engine 99 (as a later release would)
    monkeypatch.setattr("baulk.firmware.app.FIRMWARE", "baulk 9.0.0 e99")
    sim = SimulatedTable("t1", seed=7, autoplay=False, flash_dir=tmp_path / "flash")
    sim.start()
    try:
        daemon = DaemonThread(make_config(tmp_path, {"t1": Path(sim.port)})).start()
        try:
            wait_for(lambda: daemon.board("t1")["status"]["link"] == "online", what="online")
            board = wait_for(lambda: (b := daemon.board("t1"))["not_judged"] and b, what="seen")
            assert board["not_judged"] == {"table": 99, "host": 1}
            status, _ = http(
                daemon.url + "/api/tables/t1/match",
                {"players": ["Ali", "Reza"], "best_of": 1},
                token=TOKEN,
            )
            assert status == 200
            TableDriver(sim).stroke("red")
            board = wait_for(
                lambda: (b := daemon.board("t1"))["state"] and b["events"] and b, what="played"
            )
            assert board["verified"] is False and board["alerts"] == []
        finally:
            daemon.stop()
    finally:
        sim.stop()
