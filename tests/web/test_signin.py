"""Signing in as a person: name and password, a desk clerk's PIN, what no
input can do to the check (no 500, no traceback), sign-ins that outlive a
restart of the daemon, and the activity log the gate keeps."""

from __future__ import annotations

import collections
import json
import logging
import socket
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from baulk.host.staff import activity
from baulk.host.web import throttle
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, make_config, wait_for
from tests.web.client import Browser

PASSWORD = "correct horse battery"
MATCH = {"players": ["Ali", "Reza"], "best_of": 3}


def add(d: DaemonThread, name: str, role: str, **more: Any) -> None:
    status, body = http(
        d.url + "/api/staff/users",
        {"name": name, "role": role, "password": PASSWORD, **more},
        TOKEN,
    )
    assert status == 200, body


def signed(b: Browser, body: dict[str, Any]) -> dict[str, str]:
    answer = b.send("POST", "/console/signin", body)
    assert answer.status == 200, answer.body
    return {"X-CSRF-Token": answer.body["csrf"]}


def activity_rows(store: Path) -> list[dict[str, Any]]:
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in db.execute("SELECT * FROM staff_activity ORDER BY id")]
    finally:
        db.close()


def raw_request(url: str, head: bytes, body: bytes = b"") -> bytes:
    """Bytes as they go on the wire, whatever a client library would allow."""
    u = urlsplit(url)
    assert u.hostname and u.port
    with socket.create_connection((u.hostname, u.port), timeout=15) as s:
        s.sendall(head + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out


@pytest.fixture(scope="module")
def hostile_target(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[DaemonThread, DevicePeer]]:
    """One staffed daemon for the hostile-input cases: bad input changes
    nothing, so they need no fresh daemon each (22 of them, 0.5 s apiece)."""
    tmp = tmp_path_factory.mktemp("hostile")
    peer = DevicePeer("t1", link_path=tmp / "ttyT1").start()
    d = DaemonThread(make_config(tmp, {"t1": tmp / "ttyT1"})).start()
    try:
        wait_for(lambda: d.board("t1")["status"]["link"] == "online", what="online")
        add(d, "Dina", "desk", pin="2468")
        yield d, peer
    finally:
        d.stop()
        peer.stop()


@pytest.fixture
def staffed(daemon: DaemonThread) -> Iterator[DaemonThread]:
    add(daemon, "Dina", "desk", pin="2468")
    add(daemon, "Reza", "referee", tables=["t1"])
    yield daemon


@pytest.mark.slow  # a daemon of its own and argon2: make test
def test_a_person_signs_in_by_name_and_acts_with_his_own_name(
    staffed: DaemonThread, peer: DevicePeer
) -> None:
    d = staffed
    b = Browser(d.url)
    answer = b.send("POST", "/console/signin", {"name": "reza ", "password": PASSWORD})
    assert answer.status == 200 and answer.body["name"] == "Reza"
    assert answer.body["role"] == "referee" and answer.body["tables"] == ["t1"]
    headers = {"X-CSRF-Token": answer.body["csrf"]}
    assert b.send("POST", "/api/tables/t1/match", MATCH, headers).status == 200
    desk = b.send("GET", "/api/desk", None, headers)
    assert desk.status == 403
    assert desk.body["error"] == "refused: this needs the owner or desk role, and Reza is referee"
    persian = b.send("POST", "/api/tables/t1/session?lang=fa", {}, headers)
    assert (
        persian.body["message"]
        == "رد شد: این کار نقش مالک یا پیشخوان می‌خواهد و \u2068Reza\u2069 داور است"
    )
    d.flush()
    rows = activity_rows(d.cfg.store_path)
    setup = next(r for r in rows if r["action"] == "match set-up")
    assert (setup["who"], setup["role"], setup["result"], setup["table_id"]) == (
        "Reza",
        "referee",
        "done",
        "t1",
    )
    assert setup["mono_ms"] > 0 and setup["address"] == "127.0.0.1"
    refused = [r for r in rows if r["result"] == "refused" and r["who"] == "Reza"]
    assert refused and "needs the owner or desk role" in refused[0]["why"]


@pytest.mark.slow  # a daemon of its own and argon2: make test
def test_a_desk_pin_signs_in_and_is_held_harder_than_a_password(staffed: DaemonThread) -> None:
    d = staffed
    signed(Browser(d.url), {"name": "Dina", "pin": "۲۴۶۸"})  # Persian digits are digits
    guesser = Browser(d.url)
    codes = [
        guesser.send("POST", "/console/signin", {"name": "Dina", "pin": f"{i:04d}"}).status
        for i in range(throttle.PIN.free + 1)
    ]
    assert codes == [401] * throttle.PIN.free + [429]  # the next waits 30 s, then longer
    assert throttle.PIN.free < throttle.PASSWORD.free
    assert throttle.PIN.first_s > throttle.PASSWORD.first_s
    # the PIN's wait holds the PIN alone: her password still signs her in
    signed(guesser, {"name": "Dina", "password": PASSWORD})


HOSTILE: list[dict[str, Any] | bytes] = [
    {"token": "\ud800"},
    {"name": "\ud800", "password": "\ud800x" * 5},
    {"name": "Dina", "pin": "\udcff\udcff\udcff\udcff"},
    {"token": 5},
    {"name": ["Dina"], "password": PASSWORD},
    {"name": "Dina", "password": {"$ne": ""}},
    {"name": "Dina", "pin": 2468},
    {"name": "x" * 10_000, "password": "y" * 10_000},
    {"what": "else"},
    {},
    b"\xff\xfe not json",
    b"[1, 2, 3]",
    b'{"token": "' + b"9" * 5000 + b'"}',
    b"[" * 8000,
]


@pytest.mark.parametrize("body", HOSTILE, ids=lambda b: repr(b)[:40])
def test_no_body_makes_the_sign_in_fail(
    hostile_target: tuple[DaemonThread, DevicePeer],
    body: dict[str, Any] | bytes,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    data = body if isinstance(body, bytes) else _json(body)
    head = b"POST /console/signin HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    answer = raw_request(hostile_target[0].url, head, data)
    status = int(answer.split(b" ", 2)[1])
    assert 400 <= status < 500, answer[:300]
    assert b"Traceback" not in answer and b"baulk_session" not in answer
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


def _json(body: dict[str, Any]) -> bytes:
    return json.dumps(body).encode()


@pytest.mark.parametrize(
    "header",
    [
        b"Authorization: Bearer \xff",
        b"Authorization: Bearer \xed\xa0\x80",
        b"Authorization: Bearer " + b"A" * 7000,
        b"Authorization: Basic b3BlcmF0b3I6eA==",
        b"Authorization: Bearer",
        b"Cookie: baulk_session=\xff\xfe; baulk_device=\x80",
        b"Cookie: baulk_session=" + b"A" * 4000,
        b"X-CSRF-Token: \xff",
    ],
    ids=lambda h: repr(h)[:40],
)
def test_no_header_makes_the_token_check_fail(
    hostile_target: tuple[DaemonThread, DevicePeer],
    header: bytes,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    d, peer = hostile_target
    head = b"POST /api/tables/t1/command HTTP/1.1\r\nHost: x\r\n" + header + b"\r\n"
    answer = raw_request(d.url, head, b'{"ev": "undo"}')
    status = int(answer.split(b" ", 2)[1])
    # 429 once the cases before it have spent the operator token's free guesses
    assert status in (400, 401, 403, 429), answer[:300]
    assert b"Traceback" not in answer
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
    assert peer.last_seq() == 0


@pytest.mark.slow  # a daemon of its own and argon2: make test
def test_sign_ins_outlive_a_restart_and_sign_out_ends_them(
    tmp_path: Path, peer: DevicePeer
) -> None:
    cfg = make_config(tmp_path, {"t1": tmp_path / "ttyT1"})
    d = DaemonThread(cfg).start()
    try:
        add(d, "Dina", "desk")
        add(d, "Reza", "referee")
        people = {}
        for body in (
            {"name": "Dina", "password": PASSWORD},
            {"name": "Reza", "password": PASSWORD},
        ):
            b = Browser(d.url)
            people[body["name"]] = (b, signed(b, body))
        owner = Browser(d.url)
        people["operator"] = (owner, signed(owner, {"token": TOKEN}))
        gone = Browser(d.url)
        gone_headers = signed(gone, {"name": "Dina", "password": PASSWORD})
        assert gone.send("POST", "/console/signout", {}, gone_headers).status == 200
    finally:
        d.stop()
    d = DaemonThread(cfg).start()  # the same store, a new process's worth of memory
    try:
        wait_for(lambda: d.board("t1")["status"]["link"] == "online", what="online")
        for b, _ in [*people.values(), (gone, {})]:
            b.base = d.url  # a new port: the browsers keep their cookies
        for name, (b, headers) in people.items():
            state = b.send("GET", "/console/session").body
            assert state["signed_in"] and state["name"] == name
            assert state["csrf"] == headers["X-CSRF-Token"]
        b, headers = people["Reza"]
        assert b.send("POST", "/api/tables/t1/match", MATCH, headers).status == 200
        b, headers = people["Dina"]
        assert b.send("GET", "/api/desk", None, headers).status == 200
        # the one signed out before the restart stays signed out
        assert gone.send("GET", "/console/session").body["signed_in"] is False
    finally:
        d.stop()


@pytest.mark.slow  # a daemon of its own and argon2: make test
def test_disabling_an_account_ends_its_sign_ins(staffed: DaemonThread) -> None:
    d = staffed
    b = Browser(d.url)
    headers = signed(b, {"name": "Reza", "password": PASSWORD})
    status, _ = http(d.url + "/api/staff/users/Reza", {"disabled": True}, TOKEN)
    assert status == 200
    assert b.send("GET", "/console/session").body["signed_in"] is False
    assert b.send("POST", "/api/tables/t1/command", {"ev": "undo"}, headers).status == 401
    again = b.send("POST", "/console/signin", {"name": "Reza", "password": PASSWORD})
    assert again.status == 401


@pytest.mark.slow  # a daemon of its own and argon2: make test
def test_the_log_keeps_secrets_out_and_a_flood_in_bounds(staffed: DaemonThread) -> None:
    d = staffed
    b = Browser(d.url)
    assert (
        b.send("POST", "/console/signin", {"name": "Dina", "password": "wrong one!"}).status == 401
    )
    signed(b, {"name": "Dina", "password": PASSWORD})
    stranger = Browser(d.url)
    for _ in range(activity.QUIET_MOST + 40):
        assert stranger.send("POST", "/api/tables/t1/command", {"ev": "undo"}).status == 401
    d.flush()
    rows = activity_rows(d.cfg.store_path)
    text = repr(rows)
    assert PASSWORD not in text and "wrong one!" not in text and TOKEN not in text
    failed = [r for r in rows if r["action"] == "sign-in" and r["result"] == "refused"]
    # a name only tried is kept as tried, never as Dina's own action
    assert (failed[0]["who"], failed[0]["tried"]) == (None, "Dina")
    assert failed[0]["why"] == "the name or password is wrong"
    assert '"password":"***"' in failed[0]["what"]
    anonymous = [r for r in rows if r["who"] is None and r["action"] != "refusals"]
    # the cap is a minute's: a busy machine may spread the flood over two
    by_minute = collections.Counter(r["mono_ms"] // 60_000 for r in anonymous)
    assert by_minute and max(by_minute.values()) <= activity.QUIET_MOST
    assert len(anonymous) < activity.QUIET_MOST + 40  # and some were summed up, not logged


@pytest.mark.slow  # a daemon of its own and argon2: make test
def test_the_log_is_append_only(staffed: DaemonThread) -> None:
    d = staffed
    signed(Browser(d.url), {"name": "Dina", "password": PASSWORD})
    d.flush()
    db = sqlite3.connect(d.cfg.store_path)
    try:
        for sql in ("UPDATE staff_activity SET who = 'nobody'", "DELETE FROM staff_activity"):
            with pytest.raises(sqlite3.DatabaseError, match="append-only"):
                db.execute(sql)
    finally:
        db.close()
