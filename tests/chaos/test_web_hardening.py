"""What a hostile spectator and a careless operator found in the web side:
bodies nested 8,000 deep or numbers 5,000 digits long, formulas in CSV cells,
invisible and direction-changing characters in names, and connections that
hold the server's file descriptors (idle, trickling, or hundreds from one
address)."""

from __future__ import annotations

import csv
import io
import socket

import pytest

from baulk.host.referee.reports import csv_cell
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, wait_for

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (b"[" * 8000 + b"]" * 8000, "nested too deeply"),
        (b'{"best_of": ' + b"7" * 5000 + b"}", "the body must be a JSON object"),
    ],
    ids=["deep", "long number"],
)
def test_a_hostile_body_is_a_clear_400_not_a_traceback(
    daemon: DaemonThread, peer: DevicePeer, raw: bytes, why: str
) -> None:
    status, reply = http(daemon.url + "/api/tables/t1/match", token=TOKEN, raw=raw)
    assert status == 400 and why in reply["error"], reply
    assert peer.last_seq() == 0


@pytest.mark.parametrize(
    ("name", "refused"),
    [
        ("Ali\u202eazeR", "U+202E"),  # right-to-left override: turns the board around it
        ("Re\u200bza", "U+200B"),  # zero-width space: two names that look the same
        ("Al\u0085i", "U+0085"),  # a C1 control (at an end it is trimmed as a space)
        ("Ali\u2028Reza", "U+2028"),  # a line separator
        ("Reza\u200cزاده", None),  # the zero-width non-joiner Persian names need
        ("=HYPERLINK(1)", None),  # a fine name: only the CSV must not run it
    ],
)
def test_names_with_invisible_or_direction_characters_are_refused(
    daemon: DaemonThread, peer: DevicePeer, name: str, refused: str | None
) -> None:
    status, reply = http(
        daemon.url + "/api/tables/t1/match", {"players": [name, "Sara"], "best_of": 1}, token=TOKEN
    )
    if refused is not None:
        assert status == 400 and refused in reply["error"], reply
        assert peer.last_seq() == 0
    else:
        assert status == 200, reply


def test_csv_cells_never_begin_a_formula(daemon: DaemonThread, peer: DevicePeer) -> None:
    players = ["=cmd|' /C calc'!A0", "@SUM(1+1)"]
    status, _ = http(
        daemon.url + "/api/tables/t1/match", {"players": players, "best_of": 1}, token=TOKEN
    )
    assert status == 200
    matches = wait_for(
        lambda: http(daemon.url + "/api/matches?table=t1")[1]["matches"], what="the match stored"
    )
    text = http(daemon.url + f"/api/matches/{matches[0]['match_id']}/report.csv")[1]
    cells = [c for row in csv.reader(io.StringIO(text)) for c in row]
    assert "'=cmd|' /C calc'!A0" in cells and "'@SUM(1+1)" in cells
    assert not any(c.startswith(("=", "+", "@")) for c in cells)
    assert [csv_cell(v) for v in ("-1+2", "+x", "\tx", "ok", 7)] == [
        "'-1+2",
        "'+x",
        "'\tx",
        "ok",
        7,
    ]


def _server(d: DaemonThread) -> tuple[str, int]:
    host, port = d.url.split("//")[1].split(":")
    return host, int(port)


def _closed_by_server(s: socket.socket, timeout: float = 30) -> bool:
    """True when the server closes the socket (recv gives b"") within timeout."""
    s.settimeout(timeout)
    try:
        while s.recv(4096):
            pass
    except TimeoutError:
        return False
    except ConnectionError:
        return True
    return True


def test_a_connection_that_dawdles_before_its_request_is_closed(daemon: DaemonThread) -> None:
    assert daemon.web is not None
    daemon.web.guard.head_timeout_s = 1.0  # ten seconds in service; one here
    silent = socket.create_connection(_server(daemon))
    trickle = socket.create_connection(_server(daemon))
    trickle.sendall(b"GET /api HTTP/1.1\r\nHost: x\r\n")  # ... and never the end of it
    assert _closed_by_server(silent) and _closed_by_server(trickle)
    assert daemon.web.guard.timed_out >= 2
    assert http(daemon.url + "/api")[0] == 200  # a real request is not cut short


def test_one_address_cannot_take_every_connection(daemon: DaemonThread) -> None:
    assert daemon.web is not None
    guard = daemon.web.guard
    hog = []
    for _ in range(guard.per_client + 8):
        s = socket.socket()
        s.bind(("127.0.0.7", 0))
        s.connect(_server(daemon))
        hog.append(s)
    try:
        # Each newcomer over the address's cap pushes out that address's own
        # oldest idle connection (a signed-in one never: test_roles.py), so
        # the address never holds more than its share.
        wait_for(lambda: guard.evicted >= 8, what="the address's oldest connections closed")
        assert sum(_closed_by_server(s, timeout=5) for s in hog[:8]) == 8
        assert guard.by_client["127.0.0.7"] == guard.per_client
        assert http(daemon.url + "/api/tables")[0] == 200  # another address is still served
    finally:
        for s in hog:
            s.close()
