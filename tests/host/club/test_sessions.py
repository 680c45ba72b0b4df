"""Table sessions through the running daemon and its API: the desk opens and
closes them, the light follows them over the wire, the alerts say what needs
the desk, bad requests change nothing, and the PC's wall clock set forward
or back changes no bill."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from baulk.host.club import tariffs
from baulk.protocol import messages
from baulk.protocol.session import DEVICE, Session
from tests.host.device_peer import DevicePeer, mono_ms
from tests.host.harness import TOKEN, DaemonThread, http, make_config, morning, wait_for

pytestmark = pytest.mark.slow
MIN = 60_000


def billing(**kw: Any) -> tariffs.Billing:
    section = {"timezone": "UTC", **kw}
    tariff = {"name": "std", "currency": "GBP", "per_hour": 6, "per_frame": 1, "round_min": 5}
    return tariffs.parse({"billing": section, "tariff": [tariff]}, {"t1"})


class OldSession(Session):
    """A 1.0 device's session: type 13 is not in its catalogue."""

    def on_message(self, mtype, flags, seq16, body, now, reason=None, checked=False):  # type: ignore[no-untyped-def]
        if mtype == messages.LIGHT and self.open and flags & 1:
            self.live.received(now)
            self._on_reliable(mtype, seq16, body, False, None)
            return
        super().on_message(mtype, flags, seq16, body, now, reason, checked)


def start(
    tmp: Path, old: bool = False, billing_config: tariffs.Billing | None = None, **kw: Any
) -> tuple[DaemonThread, DevicePeer]:
    peer = DevicePeer("t1", link_path=tmp / "ttyT1")
    if old:
        peer.session = OldSession(DEVICE, mono_ms(), {0: "fw 1.0", 1: "t1", 2: 1}, 256, 8)
    peer.start()
    billed = billing_config or billing(**kw)
    cfg = dataclasses.replace(make_config(tmp, {"t1": tmp / "ttyT1"}), billing=billed)
    d = DaemonThread(cfg).start()
    assert d.daemon is not None
    morning(d.daemon.sessions.clock, billed.timezone)
    wait_for(lambda: d.board("t1")["status"]["link"] == "online", what="table online")
    return d, peer


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[tuple[DaemonThread, DevicePeer]]:
    d, peer = start(tmp_path)
    yield d, peer
    d.stop()
    peer.stop()


def post(d: DaemonThread, path: str, body: Any = None, token: str | None = TOKEN) -> Any:
    return http(d.url + path, {} if body is None else body, token=token)


def get(d: DaemonThread, path: str, token: str | None = TOKEN) -> Any:
    return http(d.url + path, token=token)


def lights(peer: DevicePeer) -> list[bool]:
    return [body[0] for mtype, _, body in peer.commands if mtype == messages.LIGHT]


def desk_table(d: DaemonThread) -> dict[str, Any]:
    status, desk = get(d, "/api/desk")
    assert status == 200, desk
    table: dict[str, Any] = desk["tables"][0]
    table["alerts"] = desk["alerts"]
    return table


def play_a_frame(peer: DevicePeer, d: DaemonThread, t0: int) -> None:
    """A best-of-3 set up at the desk; Ali pots a red, misses, and Reza concedes frame 1."""
    status, reply = post(d, "/api/tables/t1/match", {"players": ["Ali", "Reza"], "best_of": 3})
    assert status == 200, reply
    before = len(peer.sent)
    for i, ev in enumerate(({"ev": "strike"}, {"ev": "pot", "ball": "red"}, {"ev": "rest"})):
        peer.inject({**ev, "t": t0 + i * 1000})
    peer.inject({"ev": "strike", "t": t0 + 60_000})
    peer.inject({"ev": "rest", "t": t0 + 61_000})
    peer.inject({"ev": "concede", "t": t0 + 120_000})
    wait_for(lambda: len(peer.sent) >= before + 6 and peer.acked() >= peer.last_seq(), what="acked")
    d.flush()


def test_the_desk_opens_and_closes_a_session_and_the_light_follows(
    venue: tuple[DaemonThread, DevicePeer],
) -> None:
    d, peer = venue
    wait_for(lambda: lights(peer) == [False], what="the light's state after the handshake")
    status, reply = post(d, "/api/tables/t1/session", {"who": "Sara"})
    assert status == 200, reply
    sid = reply["bill"]["session_id"]
    # who opened it is who signed in (the bearer token: the owner "operator"),
    # never the name a body gives
    assert reply["bill"]["open"] and reply["bill"]["opened_by"] == "operator"
    wait_for(lambda: lights(peer) == [False, True], what="light on")
    wait_for(lambda: desk_table(d)["light"]["state"] is True, what="the device's ack")
    # one session a table: a second is refused and changes nothing
    status, again = post(d, "/api/tables/t1/session")
    assert status == 409 and "the table changed: look again" in again["error"]
    play_a_frame(peer, d, 10_000)  # two minutes of play by the device's clock ...
    assert d.daemon is not None
    running = desk_table(d)["bill"]
    # ... in the few seconds the session has been open: play is never more than table time
    assert running["play_s"] <= running["open_ms"] // 1000
    d.daemon.sessions.clock.advance(3 * MIN)  # and now the table has been open 3 minutes
    running = desk_table(d)["bill"]
    assert running["session_id"] == sid and running["frames_played"] == 1
    assert running["frames"][0]["loser"] == "Reza" and running["play_s"] == 120
    status, closed = post(d, f"/api/sessions/{sid}/close", {"who": "Sara"})
    assert status == 200 and not closed["bill"]["open"]
    assert closed["bill"]["total"] == 50 + 100  # a first 5-minute step at 6.00/h, a frame
    wait_for(lambda: lights(peer) == [False, True, False], what="light off")
    status, twice = post(d, f"/api/sessions/{sid}/close")
    assert status == 409 and "already closed" in twice["error"]
    # the receipt reads the same from the store afterwards
    status, stored = get(d, f"/api/sessions/{sid}")
    assert status == 200 and stored["bill"] == closed["bill"]
    assert stored["receipt"]["fa"]["total"] == "\u200e£\xa0۱٫۵۰"


def test_bad_requests_are_refused_and_change_nothing(
    venue: tuple[DaemonThread, DevicePeer],
) -> None:
    d, _ = venue
    assert post(d, "/api/tables/t1/session", token=None)[0] == 401
    assert post(d, "/api/tables/t1/session", token="wrong-token-123")[0] == 401
    assert get(d, "/api/desk", token=None)[0] == 401
    assert post(d, "/api/tables/nope/session")[0] == 404
    assert post(d, "/api/tables/t1/session", {"colour": "red"})[0] == 400
    assert post(d, "/api/sessions/77/close")[0] == 404
    assert get(d, "/api/sessions/x1")[0] == 404
    assert get(d, "/api/reports/day?date=2025-13-45")[0] == 400
    status, reply = post(d, "/api/tables/t1/session")
    sid = reply["bill"]["session_id"]
    for body, code, words in [
        ({"amount": -100}, 400, "needs a reason"),
        ({"amount": -100, "reason": "   "}, 400, "needs a reason"),
        # the bill's currency has 2 decimals: a rule of the state's
        ({"amount": "1.234", "reason": "x"}, 409, "more than 2 decimals"),
        ({"amount": "lots", "reason": "x"}, 400, "must be a plain decimal number"),
        ({"amount": 0, "reason": "x"}, 400, "must not be 0"),
        ({"reason": "x"}, 400, "amount is missing"),
        ({"amount": 1, "reason": "a\nb"}, 400, "must not hold control"),
    ]:
        status, error = post(d, f"/api/sessions/{sid}/corrections", body)
        assert status == code and words in error["error"], (body, error)
    status, bill = get(d, f"/api/sessions/{sid}")
    assert bill["bill"]["corrections"] == []
    status, fixed = post(d, f"/api/sessions/{sid}/corrections", {"amount": "-0.50", "reason": "ok"})
    assert status == 200 and fixed["bill"]["total"] == fixed["bill"]["charged"] - 50
    assert post(d, f"/api/sessions/{sid}/confirm")[0] == 409  # opened at the desk


def test_setting_the_pc_clock_forward_or_back_changes_no_bill(
    venue: tuple[DaemonThread, DevicePeer],
) -> None:
    d, _ = venue
    assert d.daemon is not None
    clock = d.daemon.sessions.clock
    status, reply = post(d, "/api/tables/t1/session")
    sid = reply["bill"]["session_id"]
    clock.advance(40 * MIN)  # forty minutes of play pass ...
    clock.wall_offset_ms += 3 * 3_600_000  # ... and someone sets the PC's clock 3 h forward
    status, fwd = get(d, f"/api/sessions/{sid}")
    assert fwd["bill"]["minutes_open"] == 40
    clock.advance(5 * MIN)
    clock.wall_offset_ms -= 8 * 3_600_000  # ... then 8 h back
    status, closed = post(d, f"/api/sessions/{sid}/close")
    assert status == 200, closed
    bill = closed["bill"]
    assert bill["minutes_open"] == 45 and bill["clock"] == "monotonic"
    assert bill["closed_ms"] - bill["opened_ms"] == bill["open_ms"]
    # 45 min and the test's own few ms, rounded up to 50 at 6.00/h: as if
    # nobody had touched the clock
    assert bill["billed_minutes"] == 50 and bill["total"] == 500


def test_auto_open_asks_the_desk_and_an_idle_frame_end_closes(tmp_path: Path) -> None:
    d, peer = start(tmp_path, auto_open=True, auto_close_min=10, idle_alert_min=5)
    try:
        assert d.daemon is not None
        clock = d.daemon.sessions.clock
        play_a_frame(peer, d, 5_000)
        table = desk_table(d)
        bill = table["bill"]
        assert bill is not None and bill["how"] == "auto" and not bill["confirmed"]
        assert bill["frames_played"] == 1  # from the very first stroke
        assert [a["kind"] for a in table["alerts"]] == ["confirm"]
        wait_for(lambda: lights(peer)[-1:] == [True], what="light on")
        # and its ack back at the daemon: the clock jumps below would
        # otherwise pass the light's grace with the light still unconfirmed
        wait_for(lambda: desk_table(d)["light"]["state"] is True, what="light on, acked")
        sid = bill["session_id"]
        status, ok = post(d, f"/api/sessions/{sid}/confirm", {"who": "Sara"})
        assert status == 200 and ok["bill"]["confirmed"]
        assert desk_table(d)["alerts"] == []
        clock.advance(6 * MIN)
        assert [a["kind"] for a in desk_table(d)["alerts"]] == ["idle"]
        clock.advance(5 * MIN)  # 11 min with no stroke after the frame ended
        wait_for(lambda: desk_table(d)["bill"] is None, what="the idle close")
        wait_for(lambda: not get(d, f"/api/sessions/{sid}")[1]["bill"]["open"], what="stored")
        status, closed = get(d, f"/api/sessions/{sid}")
        bill = closed["bill"]
        assert bill["close_reason"] == "idle" and bill["minutes_open"] == 0  # to the last stroke
        wait_for(lambda: lights(peer)[-1:] == [False], what="light off")
    finally:
        d.stop()
        peer.stop()


def test_play_with_no_session_raises_an_alert(
    venue: tuple[DaemonThread, DevicePeer],
) -> None:
    d, peer = venue
    play_a_frame(peer, d, 1_000)
    assert [(a["kind"], a["table"]) for a in desk_table(d)["alerts"]] == [("no_session", "t1")]
    post(d, "/api/tables/t1/session")
    assert desk_table(d)["alerts"] == []


def test_a_light_that_disagrees_with_its_session(tmp_path: Path) -> None:
    d, peer = start(tmp_path)
    try:
        assert d.daemon is not None
        post(d, "/api/tables/t1/session")
        wait_for(lambda: desk_table(d)["light"]["state"] is True, what="light on, acked")
        peer.unplug()  # the table goes offline, then the session closes
        wait_for(lambda: desk_table(d)["link"] == "offline", what="offline")
        sid = desk_table(d)["bill"]["session_id"]
        post(d, f"/api/sessions/{sid}/close")
        d.daemon.sessions.clock.advance(10_000)  # past the light's grace
        alerts = desk_table(d)["alerts"]
        assert [(a["kind"], a["wanted"], a["light"]) for a in alerts] == [("light", False, True)]
        peer.replug()
        wait_for(lambda: desk_table(d)["light"]["state"] is False, what="light off once back")
        assert desk_table(d)["alerts"] == []
    finally:
        d.stop()
        peer.stop()


def test_an_older_controller_takes_the_light_as_unknown_and_the_desk_is_told(
    tmp_path: Path,
) -> None:
    d, peer = start(tmp_path, old=True)
    try:
        status, _ = post(d, "/api/tables/t1/session")
        assert status == 200
        wait_for(
            lambda: [a["kind"] for a in desk_table(d)["alerts"]] == ["light"], what="light alert"
        )
        table = desk_table(d)
        assert table["light"]["unsupported"] and "older firmware" in table["alerts"][0]["text"]
        # the stream goes on: a match set up afterwards reaches the table
        status, reply = post(d, "/api/tables/t1/match", {"players": ["A", "B"], "best_of": 1})
        assert status == 200, reply
        assert lights(peer) == []  # never delivered as a light
    finally:
        d.stop()
        peer.stop()


def test_an_open_session_and_the_light_survive_a_daemon_restart(tmp_path: Path) -> None:
    d, peer = start(tmp_path)
    status, reply = post(d, "/api/tables/t1/session")
    sid = reply["bill"]["session_id"]
    d.stop()
    cfg = dataclasses.replace(make_config(tmp_path, {"t1": tmp_path / "ttyT1"}), billing=billing())
    d = DaemonThread(cfg).start()
    try:
        wait_for(lambda: desk_table(d)["bill"] is not None, what="the session restored")
        assert desk_table(d)["bill"]["session_id"] == sid
        wait_for(lambda: lights(peer)[-1:] == [True], what="the light repeated on the new stream")
        assert post(d, "/api/tables/t1/session")[0] == 409
        status, reply = post(
            d, "/api/tables/t1/session".replace("tables/t1/session", f"sessions/{sid}/close")
        )
        assert status == 200 and reply["bill"]["session_id"] == sid
        status, again = post(d, "/api/tables/t1/session")
        assert status == 200 and again["bill"]["session_id"] == sid + 1
    finally:
        d.stop()
        peer.stop()


def test_the_board_says_whether_a_session_is_open(
    venue: tuple[DaemonThread, DevicePeer],
) -> None:
    d, _ = venue
    assert d.board("t1")["session_open"] is False
    _, reply = post(d, "/api/tables/t1/session")
    wait_for(lambda: d.board("t1")["session_open"] is True, what="the board hears of it")
    post(d, f"/api/sessions/{reply['bill']['session_id']}/close")
    wait_for(lambda: d.board("t1")["session_open"] is False, what="closed")
