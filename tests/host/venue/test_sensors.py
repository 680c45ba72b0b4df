"""The pockets' sensors on the host: the store's new tables added to an old
store, the disagreement log of the shadow referee, and the pocket check and
the counts through the API with the real firmware (``SimulatedTable``, the
simulated board on a pty) at the other end of the real daemon."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from baulk.firmware.sim.board import between, nearest
from baulk.host.referee.shadow import ShadowReferee
from baulk.host.store import connect
from baulk.host.store.schema import SCHEMA, SCHEMA_VERSION
from baulk.host.store.stats_schema import STATS_SCHEMA
from baulk.protocol.messages import SRC_KEYPAD, SRC_SENSOR
from tests.e2e.sim_driver import TableDriver, simulated_venue
from tests.host.harness import TOKEN, DaemonThread, http, wait_for
from tests.host.old_club_schema import FIRST_CLUB_SCHEMA

POCKETS = ["tl", "tr", "ml", "mr", "bl", "br"]


# ---------------------------------------------------------------------- the store
def test_an_older_store_gets_the_sensor_tables_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    old = sqlite3.connect(path)
    old.executescript(SCHEMA + FIRST_CLUB_SCHEMA + STATS_SCHEMA)  # a store of version 1
    old.execute("INSERT INTO meta (key, value) VALUES ('schema', '1')")
    old.execute(
        "INSERT INTO events (table_id, boot_id, seq, rx_ms, name, ev, scores) "
        "VALUES ('t1', 1, 1, 5, 'strike', '{\"ev\":\"strike\"}', '[0,0]')"
    )
    old.commit()
    old.close()
    db = connect(path)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"sensor_health", "pocket_checks", "sensor_disagreements"} <= tables
    assert db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == "3"
    assert db.execute("SELECT table_id, seq, name FROM events").fetchall() == [("t1", 1, "strike")]
    db.close()
    assert SCHEMA_VERSION == 3


# ---------------------------------------------------------------------- the log
def replay(events: list[tuple[dict[str, Any], int]]) -> list[list[Any]]:
    shadow = ShadowReferee("t1")
    found = []
    for seq, (ev, src) in enumerate(events, 1):
        a = shadow.apply(ev, (1, seq), src=src)
        found += [[d.kind, d.pocket, d.sensor_ball, d.keyed_ball] for d in a.disagreements]
    return found


MATCH = ({"ev": "match", "players": ["Ali", "Reza"], "best_of": 3}, 2)
STRIKE = ({"ev": "strike"}, SRC_SENSOR)
REST = ({"ev": "rest"}, SRC_SENSOR)


def sensor_pot(ball: str, pocket: str) -> tuple[dict[str, Any], int]:
    return {"ev": "pot", "ball": ball, "pocket": pocket}, SRC_SENSOR


def keyed(ev: dict[str, Any]) -> tuple[dict[str, Any], int]:
    return ev, SRC_KEYPAD


def test_the_log_holds_each_kind_of_disagreement_once() -> None:
    undo = keyed({"ev": "undo"})
    key_strike = keyed({"ev": "strike"})
    key_rest = keyed({"ev": "rest"})
    # The sensor's red in tl, taken back and keyed as a yellow: changed.
    assert replay(
        [MATCH, STRIKE, sensor_pot("red", "tl"), REST, undo, key_strike,
         keyed({"ev": "pot", "ball": "yellow"}), key_rest]
    ) == [["changed", "tl", "red", "yellow"]]  # fmt: skip
    # Taken back and not keyed again: taken_back when play goes on.
    assert replay(
        [MATCH, STRIKE, sensor_pot("red", "mr"), REST, undo, key_strike, key_rest, STRIKE, REST]
    ) == [["taken_back", "mr", "red", None]]
    # Keyed again as the same ball: he took the stroke back for another reason.
    assert replay(
        [MATCH, STRIKE, sensor_pot("red", "tl"), REST, undo, key_strike,
         keyed({"ev": "pot", "ball": "red"}), key_rest, STRIKE, REST]
    ) == []  # fmt: skip
    # A pot keyed where no sensor pot was taken back: the sensor saw nothing.
    assert replay([MATCH, STRIKE, keyed({"ev": "pot", "ball": "red", "pocket": "bl"}), REST]) == [
        ["keyed", "bl", None, "red"]
    ]
    assert replay([MATCH, STRIKE, keyed({"ev": "pot", "ball": "red"}), REST]) == [
        ["keyed", None, None, "red"]
    ]
    # A sensor pot the engine refuses leaves nothing to take back.
    assert replay([MATCH, STRIKE, sensor_pot("pink", "tl"), REST, STRIKE, REST]) == []


# ---------------------------------------------------------------------- the API
@pytest.fixture
def venue(tmp_path: Path) -> Iterator[tuple[DaemonThread, TableDriver]]:
    with simulated_venue(tmp_path, seed=4) as v:
        yield v


def sensors(daemon: DaemonThread, lang: str = "en") -> dict[str, Any]:
    status, body = http(daemon.url + "/api/tables/t1/sensors?lang=" + lang)
    assert status == 200, body
    return body  # type: ignore[no-any-return]


@pytest.mark.slow
def test_a_pocket_check_from_the_api_and_the_counts_reach_the_store(
    tmp_path: Path, venue: tuple[DaemonThread, TableDriver]
) -> None:
    daemon, table = venue
    url = daemon.url + "/api/tables/t1/pocket-check"
    assert sensors(daemon)["check"] is None
    # No operator: refused, and the table hears nothing.
    status, reply = http(url, {})
    assert status == 401 and table.check_pocket() is None
    status, reply = http(url, {"pockets": 6}, token=TOKEN)
    assert status == 400 and reply["message"] == "unknown key 'pockets' (allowed: who)"
    status, reply = http(daemon.url + "/api/tables/t9/pocket-check", {}, token=TOKEN)
    assert status == 404
    assert table.check_pocket() is None
    # Before the match: the device takes it.
    status, reply = http(url, {"who": "desk"}, token=TOKEN)
    assert status == 200, reply
    assert reply["message"].startswith("the pocket check runs on the handset")
    assert wait_for(lambda: daemon.board("t1")["sensors"]["checking"], what="checking")
    drifted = between(7, nearest(7), 30)
    for pocket in POCKETS:
        if pocket == "bl":
            table.drop_white(pocket, beam=False)
        else:
            table.drop_white(pocket, rgbc=drifted if pocket == "ml" else None)
    table.press("ok")
    found = wait_for(lambda: (s := sensors(daemon))["check"] and s, what="the check stored")
    check = found["check"]
    assert check["from"] == "console"
    assert [p["verdict"] for p in check["pockets"]] == ["ok", "ok", "weak", "ok", "faulty", "ok"]
    ml, bl = check["pockets"][2], check["pockets"][4]
    assert ml["reason"] == "low_confidence" and ml["read"] == "white" and ml["confidence"] < 70
    assert bl["reason"] == "no_break" and bl["break_ms"] == 0 and bl["read"] is None
    board = wait_for(lambda: (b := daemon.board("t1"))["sensors"]["faulty"] and b, what="board")
    assert board["sensors"]["faulty"] == ["bl"] and board["sensors"]["weak"] == ["ml"]
    assert not board["sensors"]["checking"]
    health = wait_for(
        lambda: (h := sensors(daemon)["health"]) and h["faulty"] == ["bl"] and h, what="counts"
    )
    assert [p["balls"] for p in health["pockets"]] == [1, 1, 1, 1, 0, 1]
    assert health["pockets"][4]["faulty"] and health["pockets"][2]["weak"]
    # Mid-frame: the device refuses, in the operator's language, and nothing changes.
    status, reply = http(
        daemon.url + "/api/tables/t1/match", {"players": ["Ali", "Reza"], "best_of": 3}, token=TOKEN
    )
    assert status == 200, reply
    table.strike()
    status, reply = http(url, {}, token=TOKEN)
    assert status == 409
    assert reply["message"] == (
        "the table refused: no pocket check mid-frame: check before the match or between frames"
    )
    status, reply = http(url + "?lang=fa", {}, token=TOKEN)
    assert status == 409 and "فریم" in reply["message"]
    assert table.check_pocket() is None and table.state()["stroke_open"]
    daemon.flush()
    db = sqlite3.connect(f"file:{tmp_path / 'store.sqlite'}?mode=ro", uri=True)
    try:
        assert db.execute("SELECT count(*) FROM pocket_checks").fetchone()[0] == 1
        seq = db.execute("SELECT seq FROM pocket_checks").fetchone()[0]
        # One check stored; its event row keeps the stream's place, marked as
        # no device event (outside the signed chain: host/referee/verify.py skips it).
        row = db.execute(
            "SELECT name, ev, body, invalid FROM events WHERE seq = ?", (seq,)
        ).fetchone()
        assert row[:3] == (None, None, None) and "not a device event" in row[3]
    finally:
        db.close()
