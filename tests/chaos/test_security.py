"""Security: token and constant-time comparison, rate limiting of
authentication failures, no secret in any log, Content-Security-Policy,
escaped player names in a real Chromium, no path traversal, loopback by
default, and refusal of a device with the wrong table id or protocol major
version."""

from __future__ import annotations

import hmac
import http.client as httpclient
import os
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import cbor2
import pytest

from baulk.host import config as config_mod
from baulk.host.web import auth, console_session, throttle
from baulk.host.web.http import THROTTLE_KEY
from baulk.protocol import cobs, messages
from tests.chaos.host_crash import TOKEN as PROCESS_TOKEN
from tests.chaos.host_crash import DaemonProcess, write_config
from tests.chaos.kit import stored_events
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, make_config, wait_for

pytestmark = pytest.mark.slow


MATCH = {"players": ["Ali", "Reza"], "best_of": 3}


# ---------------------------------------------------------------------- the token
def test_actions_need_the_token_compared_in_constant_time(
    daemon: DaemonThread, peer: DevicePeer, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(console_session.hmac, "compare_digest", spy)
    url = daemon.url + "/api/tables/t1/match"
    assert http(url, MATCH)[0] == 401
    assert http(url, MATCH, token="wrong-token-of-some-length")[0] == 401
    assert http(url, MATCH, token=TOKEN[:-1])[0] == 401  # all but the last character
    assert peer.last_seq() == 0  # nothing reached the table
    assert http(url, MATCH, token=TOKEN)[0] == 200
    assert (b"wrong-token-of-some-length", TOKEN.encode()) in calls
    assert (TOKEN[:-1].encode(), TOKEN.encode()) in calls
    assert (TOKEN.encode(), TOKEN.encode()) in calls


def test_wrong_tokens_are_capped_and_a_named_token_always_works(
    daemon: DaemonThread, peer: DevicePeer
) -> None:
    status, made = http(
        daemon.url + "/api/staff/tokens", {"name": "scoreboard script", "role": "referee"}, TOKEN
    )
    assert status == 200, made
    url = daemon.url + "/api/tables/t1/command"
    free = throttle.PASSWORD.free
    codes = [http(url, {"ev": "strike"}, token=f"guess-{i:08d}")[0] for i in range(free + 4)]
    assert codes[:free] == [401] * free
    assert 429 in codes[free:] and codes.count(401) <= free + 2
    assert peer.last_seq() == 0
    # As after an hour of guessing (the wait has grown to its ceiling) ...
    assert daemon.web is not None
    guessing = daemon.web.runner.app[THROTTLE_KEY]
    guessing.states[auth.OPERATOR_KEY].failures = 30
    # ... the right operator token gets the same 429 as a wrong one:
    # guessing it learns nothing ...
    assert http(daemon.url + "/api/tables/t1/match", MATCH, token=TOKEN)[0] == 429
    # ... and a named token (32 random bytes: no guess finds one) always works.
    status, body = http(daemon.url + "/api/tables/t1/match", MATCH, token=made["token"])
    assert status == 200 and body["status"] == "done"


def test_wrong_tokens_from_many_addresses_are_capped_in_all(daemon: DaemonThread) -> None:
    host, port = _hostport(daemon.url)
    codes = []
    for i in range(throttle.PASSWORD.free + 20):
        # each guess from an address of its own: 127.0.0.x are all this machine
        conn = httpclient.HTTPConnection(
            host, port, timeout=10, source_address=(f"127.0.{1 + i // 250}.{2 + i % 250}", 0)
        )
        conn.request(
            "POST",
            "/api/tables/t1/command",
            body=b'{"ev": "strike"}',
            headers={"Authorization": f"Bearer guess-{i:08d}"},
        )
        codes.append(conn.getresponse().status)
        conn.close()
    free = throttle.PASSWORD.free
    assert codes[:free] == [401] * free
    # past the free ones, only a guess a growing wait (2, 4, 8 s ...) apart is checked
    assert codes.count(401) <= free + 4 and codes.count(429) >= 15


def test_the_guessing_cap_grows_forgets_and_stays_bounded() -> None:
    g = throttle.Guessing(bucket=100)
    plan = throttle.PASSWORD
    for i in range(plan.free):  # the free failures: no wait
        assert g.begin("a", plan, trusted=False, now=i) == 0
        g.end("a", False, now=i)
    waits = []
    t = float(plan.free)
    for _ in range(4):  # then each failure doubles the wait
        wait = g.begin("a", plan, trusted=False, now=t)
        waits.append(wait)
        t += wait
        assert g.begin("a", plan, trusted=False, now=t) == 0
        assert g.begin("a", plan, trusted=False, now=t) == 1.0  # one check of an account at a time
        g.end("a", False, now=t)
    assert waits == [
        1.0,
        4.0,
        8.0,
        16.0,
    ]  # 2 s after the last free failure (1 s ago), then doubling
    assert g.begin("a", plan, False, now=t + plan.forget_s) == 0  # an hour later: forgotten
    # a PIN locks after ten failures in a row, until cleared by a password sign-in
    for _ in range(throttle.PIN.lock_after):
        g.failed("pin", now=0)
    assert g.begin("pin", throttle.PIN, False, now=10**6) == throttle.LOCKED
    g.clear("pin")
    assert g.begin("pin", throttle.PIN, False, now=10**6) == 0
    # in all: unknown browsers share one bucket, however many accounts they try
    few = throttle.Guessing(bucket=3, refill_per_s=0.5)
    assert [few.begin(f"x{i}", plan, False, now=0) for i in range(3)] == [0, 0, 0]
    assert few.begin("another account", plan, False, now=0) == pytest.approx(2.0)
    assert few.begin("known browser", plan, True, now=0) == 0  # not from the bucket
    many = throttle.Guessing()
    for i in range(throttle.KEYS_MOST + 50):
        many.failed(f"k{i}", now=0)
    assert len(many.states) <= throttle.KEYS_MOST


# ---------------------------------------------------------------------- logs
@pytest.mark.broker
def test_no_secret_appears_in_any_log(tmp_path: Path) -> None:
    from tests.mqtt.broker import Broker, mosquitto_missing

    password = "mqtt-pass-Zq81x0"
    peer = DevicePeer("t1", link_path=tmp_path / "ttyT1").start()
    extra = ""
    broker = None
    if mosquitto_missing() is None:
        (tmp_path / "broker").mkdir()
        broker = Broker(tmp_path / "broker", users={"venue": password})
        broker.start()
        extra = f'[mqtt]\nurl = "mqtt://venue@127.0.0.1:{broker.port}"\npassword = "{password}"\n'
    log = tmp_path / "daemon.log"
    proc = DaemonProcess(write_config(tmp_path, {"t1": str(tmp_path / "ttyT1")}, extra), log)
    try:
        proc.start()
        url = proc.url + "/api/tables/t1/match"
        wait_for(lambda: proc.board("t1")["status"]["link"] == "online", what="online")
        assert http(url, MATCH, token="not-the-token-" + PROCESS_TOKEN[:6])[0] == 401
        assert http(url, MATCH, token=PROCESS_TOKEN)[0] == 200
        assert (
            http(url, {"players": [PROCESS_TOKEN, password], "best_of": 2}, token=PROCESS_TOKEN)[0]
            == 400
        )
        peer.play([{"ev": "strike"}, {"ev": "pot", "ball": "red"}, {"ev": "rest"}])
        # the match and its three inputs stored (and on their way to MQTT)
        wait_for(
            lambda: peer.pending() == 0 and peer.acked() == peer.last_seq() >= 4,
            what="the events acked",
        )
    finally:
        proc.stop()
        peer.stop()
        if broker is not None:
            broker.stop()
    text = log.read_text(errors="replace")
    assert "table t1" in text  # -v logged the link's life
    assert PROCESS_TOKEN not in text
    assert password not in text
    # a config mistake around a secret must not print it either
    bad = tmp_path / "bad.toml"
    bad.write_text("[server]\noperator_token = 12345678901\n")
    with pytest.raises(config_mod.ConfigError) as why:
        config_mod.load(bad)
    assert "12345678901" not in str(why.value)


# ---------------------------------------------------------------------- headers and files
PAGES = ("/", "/table/t1", "/venue", "/overlay/t1", "/console", "/api/tables", "/static/board.js")
# Errors too: the router's 404 and 405 used to go out without them.
ERRORS = (("GET", "/no/such/page", 404), ("GET", "/api/nothing", 404), ("PUT", "/api", 405))


@pytest.mark.parametrize(
    ("method", "path", "status"), [("GET", p, 200) for p in PAGES] + list(ERRORS)
)
def test_every_answer_sends_the_security_headers(
    daemon: DaemonThread, method: str, path: str, status: int
) -> None:
    conn = httpclient.HTTPConnection(*_hostport(daemon.url), timeout=10)
    conn.request(method, path)
    r = conn.getresponse()
    r.read()
    conn.close()
    assert r.status == status
    csp = r.getheader("Content-Security-Policy") or ""
    assert "default-src 'self'" in csp and "script-src 'self'" in csp, (path, csp)
    assert "unsafe-eval" not in csp and "script-src 'self' 'unsafe-inline'" not in csp
    assert "frame-ancestors 'none'" in csp and r.getheader("X-Frame-Options") == "DENY"
    assert r.getheader("X-Content-Type-Options") == "nosniff"
    if status == 405:
        assert "GET" in (r.getheader("Allow") or ""), "a 405 says which methods it takes"


def _hostport(url: str) -> tuple[str, int]:
    u = urlsplit(url)
    assert u.hostname and u.port
    return u.hostname, u.port


TRAVERSALS = [
    "/static/../web/app.py",
    "/static/../../config.py",
    "/static/%2e%2e/app.py",
    "/static/%2e%2e/%2e%2e/config.py",
    "/static/..%2fapp.py",
    "/static/..%2F..%2Fconfig.py",
    "/static/....//app.py",
    "/static/%252e%252e/app.py",
    "/static//etc/passwd",
    "/static/..\\app.py",
    "/static/../../../../../../etc/passwd",
]


@pytest.mark.parametrize("path", TRAVERSALS)
def test_static_files_refuse_path_traversal(daemon: DaemonThread, path: str) -> None:
    conn = httpclient.HTTPConnection(*_hostport(daemon.url), timeout=10)
    conn.request("GET", path)
    r = conn.getresponse()
    body = r.read()
    conn.close()
    assert r.status in (400, 403, 404), (path, r.status)
    assert b"import" not in body and b"root:" not in body


# ---------------------------------------------------------------------- binding
def _outside_address() -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET: nothing is sent
            ip = str(s.getsockname()[0])
        except OSError:
            return None
    return None if ip.startswith("127.") else ip


def test_the_server_binds_to_loopback_by_default(tmp_path: Path) -> None:
    assert config_mod.parse({}).bind == "127.0.0.1"
    assert config_mod.DEFAULT_BIND == "127.0.0.1"
    cfg = tmp_path / "b.toml"
    cfg.write_text(
        '[server]\nport = 0\n[store]\npath = "s.sqlite"\n[autodetect]\nenabled = false\n'
    )
    proc = DaemonProcess(cfg, tmp_path / "log").start()
    try:
        host, port = _hostport(proc.url)
        assert host == "127.0.0.1"
        outside = _outside_address()
        if outside is not None:
            with pytest.raises(OSError), socket.create_connection((outside, port), timeout=2):
                pass
    finally:
        proc.stop()


# ---------------------------------------------------------------------- devices
def test_a_device_with_another_table_id_is_refused_and_reported(tmp_path: Path) -> None:
    peer = DevicePeer("t9", link_path=tmp_path / "ttyT1").start()  # t9's controller on t1's port
    d = DaemonThread(make_config(tmp_path, {"t1": tmp_path / "ttyT1"})).start()
    try:
        board = wait_for(
            lambda: (b := d.board("t1"))["status"]["state"] == "refused" and b, what="refused"
        )
        assert "'t9'" in board["status"]["reason"] and "'t1'" in board["status"]["reason"]
        sender = peer.session.sender
        sent_again = sender.retransmits
        peer.play([{"ev": "match", "players": ["A", "B"], "best_of": 1}, {"ev": "strike"}])
        # the daemon had them, and let them go unacknowledged long enough for
        # the device to send them again
        wait_for(
            lambda: peer.pending() == 0 and sender.retransmits > sent_again,
            what="the device sending its events again",
        )
        d.flush()
        assert stored_events(tmp_path / "store.sqlite", "t1") == []
        assert stored_events(tmp_path / "store.sqlite", "t9") == []
        assert peer.acked() == 0  # not acked: the device keeps its journal
        assert d.board("t1")["status"]["state"] == "refused"
    finally:
        d.stop()
        peer.stop()


def _other_major_frame(mtype: int, flags: int, seq: int, body: Any) -> bytes:
    import binascii

    raw = bytes((0x20, mtype, flags, seq & 0xFF, seq >> 8)) + cbor2.dumps(body, canonical=True)
    raw += binascii.crc32(raw).to_bytes(4, "little")
    return bytes(cobs.encode(raw))


def test_a_device_with_another_protocol_major_version_is_refused_and_reported(
    tmp_path: Path,
) -> None:
    master, slave = os.openpty()
    import tty

    tty.setraw(slave)
    link = tmp_path / "ttyT1"
    link.symlink_to(os.ttyname(slave))
    d = DaemonThread(make_config(tmp_path, {"t1": link})).start()
    try:
        hello = {0: "fw-2.0", 1: "t1", 2: 1, 3: 0, 4: 0, 5: 8}
        event = messages.event_body({"ev": "strike", "t": 5}, (0, 0), None, 1, 0, 0)

        def refused() -> dict[str, Any] | None:
            os.write(master, _other_major_frame(messages.HELLO, 0, 0, hello))
            os.write(master, _other_major_frame(messages.EVENT, 1, 1, event))
            b = d.board("t1")
            return b if b["status"]["state"] == "refused" else None

        board = wait_for(refused, what="refused")
        assert "major versions differ" in board["status"]["reason"]
        assert "protocol 2.0 on the device" in board["status"]["reason"]
        d.flush()
        assert stored_events(tmp_path / "store.sqlite", "t1") == []
    finally:
        d.stop()
        os.close(master)
        os.close(slave)
