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
from tests.host.harness import TOKEN, DaemonThread, http, stored_events, wait_for

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
        ("\u3164", "U+3164"),  # the Hangul filler: a name that draws nothing
        ("Ali\u115f", "U+115F"),  # the Hangul choseong filler
        ("\u2800\u2800", "U+2800"),  # the braille blank
        ("Re\u034fza", "U+034F"),  # the combining grapheme joiner
        ("Ali \U0001f600", "emoji or symbols (U+1F600)"),  # the boards cannot draw it
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


def test_a_tables_own_names_are_shown_by_the_name_rules(
    daemon: DaemonThread, peer: DevicePeer
) -> None:
    # The table's match event is the record and cannot be refused; what the
    # host shows of it (boards, reports, the players' pages) keeps to the rules.
    players = ["\u202eAli\x1b[31m", "\u3164Re\u200bza"]
    peer.play([{"ev": "match", "players": players, "best_of": 1}])
    wait_for(lambda: peer.acked() == 1, what="the match acked")
    board = wait_for(lambda: (b := daemon.board("t1"))["match"] and b, what="the board")
    assert board["match"]["names"] == ["Ali[31m", "Reza"]
    found = http(daemon.url + "/api/players?q=")[1]["players"]
    assert sorted(p["name"] for p in found) == ["Ali[31m", "Reza"]
    matches = http(daemon.url + "/api/matches?table=t1")[1]["matches"]
    assert matches[0]["players"] == ["Ali[31m", "Reza"]
    stored = stored_events(daemon.cfg.store_path)
    assert stored[0][2]["players"] == players  # the record keeps what the table sent


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
        # The newest take the places of the address's own oldest, never
        # another address's: it holds per_client at most.
        wait_for(lambda: guard.evicted >= 8, what="the oldest pushed out")
        assert sum(_closed_by_server(s, timeout=5) for s in hog[:8]) == 8
        assert guard.by_client["127.0.0.7"] == guard.per_client
        assert http(daemon.url + "/api/tables")[0] == 200  # another address is still served
    finally:
        for s in hog:
            s.close()


MARK = b"XSSMARK"


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"G\x01T /" + MARK + b" HTTP/1.1\r\nHost: x\r\n\r\n",  # a malformed request line
        b"GET /\x1b[31m" + MARK + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /" + MARK * 2000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",  # an over-long URL
        b"POST /api/tables/t1/match HTTP/1.1\r\nHost: x\r\nContent-Length: " + MARK + b"\r\n\r\n",
        b"POST /api HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\nX: " + MARK + b"\r\n\r\n",
        b"GET /api HTTP/1.1\r\nHost: x\r\n" + MARK * 2000 + b": y\r\n\r\n",  # an over-long header
    ],
    ids=[
        "bad method",
        "escape in the path",
        "long url",
        "bad length",
        "negative length",
        "long header",
    ],
)
def test_a_request_aiohttp_cannot_read_gets_the_headers_and_no_echo(
    daemon: DaemonThread, request_bytes: bytes
) -> None:
    with socket.create_connection(_server(daemon), timeout=10) as s:
        s.sendall(request_bytes)
        got = b""
        while chunk := s.recv(65536):
            got += chunk
    head, _, body = got.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0].split()[1].startswith("4"), lines[0]
    headers = {k.lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert MARK not in got and b"\x1b" not in got
    assert body.strip() in (
        b"the request could not be read",
        b'{"error": "the request could not be read"}',
    )
