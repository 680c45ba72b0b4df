"""Live feeds (WebSockets on /api/live) within the connection budget: a cap
per address, a feed that does not read loses its socket (not a viewer's
page), a swarm of hostile feeds and idle connections pushes out its own and
not a venue's screen or a signed-in staff member, and nothing of it makes
the daemon write a traceback."""

from __future__ import annotations

import http.client
import json
import logging
import socket
import threading
from collections.abc import Iterator

import pytest

from baulk.host.web import boards, guard
from tests.chaos.fd_exhaustion import Swarm, ViewerFeed, page_load, ws_handshake
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, wait_for

pytestmark = pytest.mark.slow


def server_of(d: DaemonThread) -> tuple[str, int]:
    host, port = d.url.split("//")[1].split(":")
    return host, int(port)


def feed_from(d: DaemonThread, address: str) -> tuple[socket.socket, bytes]:
    """A live feed that never reads after its answer's first bytes."""
    s = socket.create_connection(server_of(d), timeout=10, source_address=(address, 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(ws_handshake())
    return s, s.recv(512)


def closed_by_server(s: socket.socket, timeout: float) -> bool:
    s.settimeout(timeout)
    try:
        while s.recv(65536):
            pass
    except TimeoutError:
        return False
    except OSError:
        return True
    return True


@pytest.fixture
def swift(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ping every second and a second to take a board, instead of 10 and 5."""
    monkeypatch.setattr(boards, "HEARTBEAT_S", 1.0)
    monkeypatch.setattr(guard, "FEED_STALL_S", 1.0)


def test_one_address_holds_at_most_its_feeds(daemon: DaemonThread) -> None:
    assert daemon.web is not None
    held = [feed_from(daemon, "127.0.6.1") for _ in range(daemon.web.guard.feeds_per_client)]
    try:
        assert all(b" 101 " in answer for _, answer in held)
        s, answer = feed_from(daemon, "127.0.6.1")
        s.close()
        assert b" 429 " in answer and b"too many live feeds from this address" in answer
        other, answer = feed_from(daemon, "127.0.6.2")  # another address is not held to it
        other.close()
        assert b" 101 " in answer
    finally:
        for s, _ in held:
            s.close()


def test_a_feed_that_does_not_read_loses_its_socket_and_a_reader_keeps_its_own(
    swift: None, daemon: DaemonThread, peer: DevicePeer
) -> None:
    stop = threading.Event()
    reader = ViewerFeed(server_of(daemon), "127.0.6.3", stop)
    reader.start()
    try:
        wait_for(lambda: reader.messages > 0, what="the reading feed's first board")
        deaf, answer = feed_from(daemon, "127.0.6.4")
        assert b" 101 " in answer
        events = [{"ev": "match", "players": ["Ali", "Reza"], "best_of": 35}]
        events += [{"ev": e} for e in ("strike", "rest") * 150]
        peer.play(events, gap_s=0.005)  # boards that the deaf feed never takes
        assert closed_by_server(deaf, timeout=30)
        wait_for(lambda: peer.acked() == len(events), what="the events acked")
        assert reader.drops == 0 and reader.messages > 10
        assert daemon.web is not None
    finally:
        stop.set()
        reader.join(10)


@pytest.fixture
def tight(daemon: DaemonThread) -> Iterator[DaemonThread]:
    """A budget of 40 connections, as if the process had few descriptors."""
    assert daemon.web is not None
    guard = daemon.web.guard
    most = guard.most
    guard.most = 40
    yield daemon
    guard.most = most


def test_a_swarm_pushes_out_its_own_not_a_screen_nor_a_viewers_page(
    tight: DaemonThread, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    d = tight
    server = server_of(d)
    stop = threading.Event()
    screen = ViewerFeed(server, "127.0.6.5", stop)
    screen.start()
    wait_for(lambda: screen.messages > 0, what="the screen's feed")
    assert page_load(server, "/table/t1", "127.0.6.6")  # a phone that was here before
    swarms = [
        Swarm(server, [f"127.0.7.{i}" for i in range(1, 9)], 8, "ws", stop),
        Swarm(server, [f"127.0.8.{i}" for i in range(1, 5)], 32, "idle", stop),
    ]
    for s in swarms:
        s.start()
    try:
        wait_for(lambda: swarms[0].closed_by_server > 40, what="the swarm pushed out")
        loads = [page_load(server, "/api/tables/t1", "127.0.6.6") for _ in range(30)]
        assert all(loads), loads.count(False)
        assert screen.drops == 0
        assert d.web is not None and d.web.guard.refused + d.web.guard.evicted > 40
    finally:
        stop.set()
        for s in swarms:
            s.join(10)
        screen.join(10)
    assert not [r for r in caplog.records if r.exc_info], "a traceback in the log"


def test_a_signed_in_staff_member_is_never_shut_out_by_a_stranger_on_the_same_address(
    tight: DaemonThread,
) -> None:
    d = tight
    assert d.web is not None
    d.web.guard.per_client = 6
    server = server_of(d)
    staff = http.client.HTTPConnection(*server, timeout=10, source_address=("127.0.6.9", 0))
    body = json.dumps({"token": TOKEN})
    staff.request("POST", "/console/signin", body, {"Content-Type": "application/json"})
    r = staff.getresponse()
    cookie = r.getheader("Set-Cookie", "").split(";")[0]
    assert r.status == 200 and json.loads(r.read())["signed_in"]
    staff.request("GET", "/console/session", headers={"Cookie": cookie})  # the console loads
    assert json.loads(staff.getresponse().read())["signed_in"]
    # A stranger behind the same address fills it, and the rest of the budget.
    stop = threading.Event()
    swarms = [
        Swarm(server, ["127.0.6.9"], 12, "idle", stop),
        Swarm(server, [f"127.0.9.{i}" for i in range(1, 9)], 8, "idle", stop),
    ]
    for s in swarms:
        s.start()
    try:
        wait_for(lambda: swarms[0].closed_by_server > 20, what="the stranger pushed out")
        for _ in range(10):  # the signed-in connection is never pushed out
            staff.request("GET", "/console/session", headers={"Cookie": cookie})
            r = staff.getresponse()
            assert r.status == 200 and json.loads(r.read())["signed_in"]
        # ... and a new one of the staff member's takes a stranger's place.
        again = http.client.HTTPConnection(*server, timeout=10, source_address=("127.0.6.9", 0))
        again.request("GET", "/console/session", headers={"Cookie": cookie})
        assert json.loads(again.getresponse().read())["signed_in"]
        again.close()
    finally:
        stop.set()
        for s in swarms:
            s.join(10)
        staff.close()


def test_handshakes_cut_short_leave_no_traceback(
    daemon: DaemonThread, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for i in range(200):
        s = socket.create_connection(server_of(daemon), source_address=("127.0.6.10", 0))
        s.sendall(ws_handshake()[: 40 + i % 120])  # a head cut anywhere, or whole
        if i % 2:
            s.sendall(ws_handshake())
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.close()  # a reset, mid-handshake
    wait_for(lambda: page_load(server_of(daemon), "/api", "127.0.6.11"), what="still serving")
    assert not [r for r in caplog.records if r.exc_info], [
        r.getMessage() for r in caplog.records if r.exc_info
    ]
