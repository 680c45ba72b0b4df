"""The daemon against a device peer on a real pty: store, acks, unplug,
restart, shadow referee, operator access control."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from baulk.firmware.engine import Engine
from baulk.host.referee.rebuild import rebuild
from baulk.host.sim.matches import generate_match
from baulk.host.store import Store
from tests.host.device_peer import DevicePeer, forged_event, send_raw
from tests.host.harness import TOKEN, DaemonThread, http, make_config, stored_events, wait_for

pytestmark = pytest.mark.slow

CONTRACT_KEYS = ("frame", "frames", "scores", "striker", "break", "highest_break", "history")


@pytest.fixture
def peer(tmp_path: Path) -> Iterator[DevicePeer]:
    p = DevicePeer("t1", link_path=tmp_path / "ttyTABLE1").start()
    yield p
    p.stop()


@pytest.fixture
def daemon(tmp_path: Path, peer: DevicePeer) -> Iterator[DaemonThread]:
    d = DaemonThread(make_config(tmp_path, {"t1": tmp_path / "ttyTABLE1"})).start()
    yield d
    d.stop()


def test_events_stored_once_acked_after_commit_and_board_matches(
    tmp_path: Path, peer: DevicePeer, daemon: DaemonThread
) -> None:
    events = generate_match(5, best_of=3)[:400]
    peer.play(events)
    wait_for(lambda: peer.acked() == len(events), what="every event acked")
    # acked means stored: the store holds each event exactly once, in order
    rows = stored_events(tmp_path / "store.sqlite")
    assert [s for _, s, _ in rows] == list(range(1, len(events) + 1))
    assert [ev for _, _, ev in rows] == events
    board = wait_for(lambda: (b := daemon.board("t1"))["events"] == len(events) and b, what="board")
    device = peer.engine.state()
    for key in CONTRACT_KEYS:
        assert board["state"][key] == device[key], key
    assert board["status"]["link"] == "online"
    assert board["verified"] and board["alerts"] == []


def test_unplug_and_replug_mid_frame_loses_nothing(
    tmp_path: Path, peer: DevicePeer, daemon: DaemonThread
) -> None:
    events = generate_match(11, best_of=3)[:260]
    peer.play(events[:120])
    wait_for(lambda: peer.acked() == 120, what="first part acked")
    peer.unplug()
    wait_for(lambda: daemon.board("t1")["status"]["link"] == "offline", what="offline status")
    status = daemon.board("t1")["status"]
    assert status["last_seen_ms"] is not None and status["reason"]
    peer.play(events[120:200])  # played while the cable is out: journaled on the device
    peer.replug()
    peer.play(events[200:])
    wait_for(lambda: peer.acked() == len(events), what="every event acked after replug")
    wait_for(lambda: daemon.board("t1")["status"]["link"] == "online", what="online again")
    rows = stored_events(tmp_path / "store.sqlite")
    assert [s for _, s, _ in rows] == list(range(1, len(events) + 1))
    assert [ev for _, _, ev in rows] == events
    want = peer.engine.state()["scores"]
    wait_for(lambda: daemon.board("t1")["state"]["scores"] == want, what="board scores")


def test_daemon_restart_restores_state_from_the_store(tmp_path: Path, peer: DevicePeer) -> None:
    cfg = make_config(tmp_path, {"t1": tmp_path / "ttyTABLE1"})
    events = generate_match(21, best_of=5)[:300]
    first = DaemonThread(cfg).start()
    try:
        peer.play(events[:200])
        wait_for(lambda: peer.acked() == 200, what="acked before the restart")
        # boards are published a moment apart from acks: wait for the 200th
        wait_for(lambda: first.board("t1")["events"] == 200, what="board of 200 events")
        before = first.board("t1")["state"]
    finally:
        first.stop()
    peer.unplug()  # the daemon comes back before the table does
    second = DaemonThread(cfg).start()
    try:
        board = second.board("t1")
        assert board["status"]["link"] == "offline"
        for key in CONTRACT_KEYS:
            assert board["state"][key] == before[key], key
        assert board["match"]["names"] == ["Ali", "Reza"]
        peer.replug()
        peer.play(events[200:])
        wait_for(lambda: peer.acked() == len(events), what="acked after the restart")
        rows = stored_events(tmp_path / "store.sqlite")
        assert [s for _, s, _ in rows] == list(range(1, len(events) + 1))
        assert [ev for _, _, ev in rows] == events
    finally:
        second.stop()


def test_rebuild_reconstructs_state_and_projection(tmp_path: Path, peer: DevicePeer) -> None:
    cfg = make_config(tmp_path, {"t1": tmp_path / "ttyTABLE1"})
    events = generate_match(8, best_of=3)
    d = DaemonThread(cfg).start()
    try:
        peer.play(events)
        wait_for(lambda: peer.acked() == len(events), what="whole match acked")
        d.flush()
        status, matches = http(d.url + "/api/matches?table=t1")
        assert status == 200 and len(matches["matches"]) == 1
        live = matches["matches"][0]
    finally:
        d.stop()
    engine = Engine()
    for ev in events:
        engine.apply(ev)
    want = engine.state()
    states = rebuild(tmp_path / "store.sqlite")
    store = Store(tmp_path / "store.sqlite")
    try:
        db = store.db
        frames = db.execute("SELECT frame, scores, winner FROM frames ORDER BY frame").fetchall()
        rebuilt = db.execute("SELECT frames_won, winner FROM matches").fetchall()
    finally:
        store.close()
    for key in (*CONTRACT_KEYS, "match_over", "match_winner"):
        assert states["t1"][key] == want[key], key
    assert [(f, json.loads(s), w) for f, s, w in frames] == [
        (h["frame"], h["scores"], h["winner"]) for h in want["history"]
    ]
    assert rebuilt == [(json.dumps(want["frames"], separators=(",", ":")), want["match_winner"])]
    assert live["frames_won"] == want["frames"] and live["winner"] == want["match_winner"]


def test_noise_and_broken_frames_change_nothing(
    tmp_path: Path, peer: DevicePeer, daemon: DaemonThread
) -> None:
    events = generate_match(2, best_of=3)[:60]
    peer.play(events[:30])
    wait_for(lambda: peer.acked() == 30, what="first part")
    send_raw(peer, b"\x00garbage\xff\xfe\x00" + bytes(range(1, 255)) * 3 + b"\x00")
    send_raw(peer, b"\x05\x10\x03\x01\x01\x00")  # a short frame
    peer.play(events[30:])
    wait_for(lambda: peer.acked() == len(events), what="rest after noise")
    rows = stored_events(tmp_path / "store.sqlite")
    assert [ev for _, _, ev in rows] == events
    # the noise was seen and counted, and cost nothing else
    wait_for(lambda: daemon.board("t1")["status"]["stream"]["bad_frames"] > 0, what="counted")
    assert daemon.board("t1")["status"]["link"] == "online"


def test_shadow_referee_raises_an_alert_on_mismatch(
    tmp_path: Path, peer: DevicePeer, daemon: DaemonThread
) -> None:
    peer.play([{"ev": "match", "players": ["Ali", "Reza"], "best_of": 3}, {"ev": "strike"}])
    peer.play([{"ev": "pot", "ball": "red", "pocket": "tl"}])
    wait_for(lambda: peer.acked() == 3, what="set-up acked")
    forged_event(peer, {"ev": "rest"}, [5, 0])  # the device claims 5 for one red
    board = wait_for(lambda: (b := daemon.board("t1"))["alerts"] and b, what="shadow referee alert")
    assert "5-0" in board["alerts"][-1]["text"] and "1-0" in board["alerts"][-1]["text"]


# ---------------------------------------------------------------------- operator actions
def test_action_without_token_is_401_and_changes_nothing(
    tmp_path: Path, peer: DevicePeer, daemon: DaemonThread
) -> None:
    wait_for(lambda: daemon.board("t1")["status"]["link"] == "online", what="online")
    url = daemon.url + "/api/tables/t1/match"
    body = {"players": ["Ali", "Reza"], "best_of": 5}
    status, reply = http(url, body)
    assert status == 401 and reply["error"].startswith("sign in first")
    status, reply = http(url, body, token="wrong-token-value")
    assert status == 401 and "operator token" in reply["error"]
    status, reply = http(daemon.url + "/api/tables/t1/command", {"ev": "undo"})
    assert status == 401
    daemon.flush()
    db = sqlite3.connect(f"file:{tmp_path / 'store.sqlite'}?mode=ro", uri=True)
    assert db.execute("SELECT count(*) FROM commands").fetchone()[0] == 0
    db.close()
    assert peer.commands == [] and daemon.board("t1")["match"] is None


@pytest.mark.parametrize(
    ("path", "body", "needle"),
    [
        ("match", b"{not json", "JSON object"),
        ("match", b"[1, 2]", "JSON object"),
        ("match", b'{"players": ["Ali"], "best_of": 5}', "players must be a list of two"),
        ("match", b'{"players": ["Ali", "Reza"], "best_of": 4}', "best_of must be an odd"),
        ("match", b'{"players": ["Ali", ""], "best_of": 5}', "player 2 must be a non-empty"),
        ("match", b'{"players": ["Ali", "Reza"], "best_of": 5, "reds": 7}', "reds must be"),
        ("match", b'{"players": ["Ali", "Reza"], "best_of": 5, "x": 1}', "unknown key 'x'"),
        ("match", b'{"players": ["Ali", ["B", "C"]], "best_of": 5}', "not a name and a team"),
        # the engine plays doubles as pairs: refused here, before any "done"
        ("match", b'{"players": [["Ali"], ["B", "C"]], "best_of": 5}', "team 1 must have two"),
        ("match", b'{"players": [["A", "B"], ["C", "D", "E"]], "best_of": 5}', "team 2 must have"),
        ("match", ('{"players": ["' + "x" * 60 + '", "B"], "best_of": 5}').encode(), "longer"),
        ("command", b'{"ev": "teleport"}', "ev must be one of"),
        ("command", b'{"ev": "foul", "kind": "bad_kind"}', "kind"),
        ("command", b'{"ev": "match", "players": ["A", "B"], "best_of": 3}', "new match"),
    ],
)
def test_malformed_action_is_400_with_a_clear_message(
    peer: DevicePeer, daemon: DaemonThread, path: str, body: bytes, needle: str
) -> None:
    status, reply = http(daemon.url + f"/api/tables/t1/{path}", raw=body, token=TOKEN)
    assert status == 400, reply
    assert needle in reply["error"]
    assert peer.commands == []


def test_operator_sets_up_a_match_through_the_device(
    peer: DevicePeer, daemon: DaemonThread
) -> None:
    wait_for(lambda: daemon.board("t1")["status"]["link"] == "online", what="online")
    hostile = "<script>alert(1)</script>"
    status, reply = http(
        daemon.url + "/api/tables/t1/match",
        {"players": [hostile, "Reza"], "best_of": 7, "who": "desk"},
        token=TOKEN,
    )
    assert status == 200 and reply["status"] == "done", reply
    board = wait_for(lambda: (b := daemon.board("t1"))["match"] and b, what="match on board")
    assert board["match"]["names"] == [hostile, "Reza"]
    assert board["match"]["best_of"] == 7
    assert peer.engine.state()["players"] == [hostile, "Reza"]  # it went through the device
    status, reply = http(daemon.url + "/api/tables/t1/command", {"ev": "undo"}, token=TOKEN)
    assert status == 409 and "refused" in reply["error"]  # nothing to undo: the engine says no
    status, reply = http(daemon.url + "/api/tables/t9/command", {"ev": "undo"}, token=TOKEN)
    assert status == 404


def test_report_exports(tmp_path: Path, peer: DevicePeer, daemon: DaemonThread) -> None:
    events = generate_match(8, best_of=3)
    peer.play(events)
    wait_for(lambda: peer.acked() == len(events), what="match acked")
    daemon.flush()
    _, matches = http(daemon.url + "/api/matches")
    mid = matches["matches"][0]["match_id"]
    status, report = http(daemon.url + f"/api/matches/{mid}/report.json")
    assert status == 200
    frames = report["report"]["frames"]
    engine = Engine()
    for ev in events:
        engine.apply(ev)
    assert [f["scores"] for f in frames] == [h["scores"] for h in engine.state()["history"]]
    for f in frames:  # each chart starts at 0-0 and ends on the frame's score
        assert f["progression"][0] == [0, 0] and f["progression"][-1] == f["scores"]
    assert all(b["points"] >= 50 for b in report["report"]["breaks"])
    status, csv_text = http(daemon.url + f"/api/matches/{mid}/report.csv")
    assert status == 200 and csv_text.splitlines()[1] == "frame,Ali,Reza,winner"
    status, page = http(daemon.url + f"/report/{mid}?lang=fa")
    assert status == 200 and 'dir="rtl"' in page and "<svg" in page
    assert http(daemon.url + "/api/matches/nope")[0] == 404


@pytest.mark.parametrize(
    ("wrong_last", "hello_first"),
    [(0, False), (0, True), (100, True)],
    ids=["order-left-to-chance", "hello-before-its-events", "numbered-ahead"],
)
def test_a_wrong_device_on_the_port_costs_the_right_one_nothing(
    tmp_path: Path, peer: DevicePeer, daemon: DaemonThread, wrong_last: int, hello_first: bool
) -> None:
    """Cables mixed up: table t2's controller sits on t1's port for a while.
    Its events are refused, neither stored nor acked, but they moved the
    channel's stream on; when t1's controller came back, its own events with
    those numbers were taken for repeats and dropped (a window of them stalled
    t1 for good; fewer were acked by its next commit and lost).  The channel
    now takes the stream again from what the store holds when a hello arrives.

    hello-before-its-events pins the order the first case leaves to chance:
    the wrong device's numbering starts below what t1 had stored, so the
    channel follows it as a restarted device.  numbered-ahead is a wrong
    device whose journal starts beyond t1's stream: that looks like 80 lost
    events, but they were never t1's, so the gap count stays 0."""
    events = generate_match(31, best_of=3)[:60]
    peer.play(events[:20])
    wait_for(lambda: peer.acked() == 20, what="t1's first events acked")
    peer.unplug()
    # The port goes with the cable: left behind, its link would name a pty
    # number the kernel hands to the next pty opened, another test's device.
    assert not (tmp_path / "ttyTABLE1").is_symlink()
    # A swap takes longer than the dead-link timer: t1 says hello when it is back.
    wait_for(lambda: not peer.session.open, what="t1 finds its link dead")
    rt = daemon.daemon.tables["t1"] if daemon.daemon else None
    assert rt is not None
    wrong = DevicePeer("t2", link_path=tmp_path / "ttyTABLE1", last=wrong_last).start()
    try:
        if hello_first:
            wait_for(lambda: daemon.board("t1")["status"]["state"] == "refused", what="t2 refused")
        wrong.play(generate_match(32, best_of=3)[:40])
        wait_for(lambda: rt.refused_events >= 8, what="the wrong device's events refused")
        assert daemon.board("t1")["status"]["state"] == "refused"
        assert daemon.board("t1")["status"]["stream"]["gaps"] == 0
    finally:
        wrong.stop()
    peer.replug()
    peer.play(events[20:])
    wait_for(lambda: peer.acked() == len(events), what="t1's events acked after the mix-up")
    rows = stored_events(tmp_path / "store.sqlite")
    assert [s for _, s, _ in rows] == list(range(1, len(events) + 1))
    assert [ev for _, _, ev in rows] == events
    # Nothing was lost, so nothing may be counted as lost either.
    assert daemon.board("t1")["status"]["stream"]["gaps"] == 0


def test_a_delivery_the_daemon_fails_to_take_is_asked_for_again_not_acked(
    tmp_path: Path, peer: DevicePeer, daemon: DaemonThread
) -> None:
    """If taking one event in raises, neither it nor anything after it in the
    same pass may be acked by a later commit: the channel takes the stream
    again from it, the device sends it again, and the store ends up with every
    event exactly once, in order."""
    d = daemon.daemon
    assert d is not None
    take = d.devices.on_delivery
    failed: list[int] = []

    def flaky(channel: Any, mtype: int, seq: int, record: Any, reason: Any, raw: Any) -> None:
        if seq == 7 and not failed:
            failed.append(seq)
            raise RuntimeError("a handler bug, once")
        take(channel, mtype, seq, record, reason, raw)

    d.devices.on_delivery = flaky  # type: ignore[method-assign]
    events = generate_match(5, best_of=3)[:60]
    peer.play(events)
    wait_for(lambda: peer.acked() == len(events), what="every event acked")
    assert failed == [7]
    rows = stored_events(tmp_path / "store.sqlite")
    assert [s for _, s, _ in rows] == list(range(1, len(events) + 1))
    assert [ev for _, _, ev in rows] == events
