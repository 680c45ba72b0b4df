"""A signed-in member of staff is never shut out by the connection cap that
a stranger on the same address (a café's Wi-Fi, the club's one NAT address)
fills: with every connection the address may hold idle, or as many as it
may hold busy with live feeds and the rest idle, the staff's request still
gets through, again and again."""

from __future__ import annotations

import base64
import http.client
import json
import os
import socket
from collections.abc import Iterator

import pytest

from tests.host.harness import TOKEN, DaemonThread, wait_for
from tests.web.client import Browser

SHARED = "127.0.0.9"  # the address the stranger and the staff share


def _hostport(d: DaemonThread) -> tuple[str, int]:
    host, port = d.url.split("//")[1].split(":")
    return host, int(port)


@pytest.fixture
def cookie(daemon: DaemonThread) -> str:
    b = Browser(daemon.url)
    assert b.sign_in(TOKEN).status == 200
    return "; ".join(f"{k}={v}" for k, v in b.cookies.items())


def _ask(d: DaemonThread, headers: dict[str, str]) -> tuple[int, dict[str, object] | str]:
    host, port = _hostport(d)
    conn = http.client.HTTPConnection(host, port, timeout=30, source_address=(SHARED, 0))
    try:
        conn.request("GET", "/console/session", headers=headers)
        r = conn.getresponse()
        raw = r.read()
        return r.status, json.loads(raw) if raw.startswith(b"{") else raw.decode()
    finally:
        conn.close()


def _hog(d: DaemonThread, live: bool) -> Iterator[socket.socket]:
    """Every connection the shared address may hold: idle, or as many busy
    with a live feed (a WebSocket is a request that never ends) as an
    address may have, and the rest idle."""
    assert d.web is not None
    guard = d.web.guard
    held = []
    for n in range(guard.per_client):
        s = socket.socket()
        s.bind((SHARED, 0))
        s.connect(_hostport(d))
        if live and n < guard.feeds_per_client:
            key = base64.b64encode(os.urandom(16)).decode()
            s.sendall(
                (
                    "GET /api/live HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                    f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                    "Sec-WebSocket-Version: 13\r\n\r\n"
                ).encode()
            )
            assert s.recv(12).startswith(b"HTTP/1.1 101")
        held.append(s)
    wait_for(lambda: guard.by_client.get(SHARED, 0) == guard.per_client, what="the hog's share")
    return iter(held)


@pytest.mark.parametrize("live", [False, True], ids=["idle", "busy"])
def test_signed_in_staff_get_through_a_filled_address(
    daemon: DaemonThread, cookie: str, live: bool
) -> None:
    held = list(_hog(daemon, live))
    try:
        for _ in range(3):  # and again: each time the address's own idle one goes
            status, body = _ask(daemon, {"Cookie": cookie})
            assert status == 200 and isinstance(body, dict) and body["signed_in"] is True
    finally:
        for s in held:
            s.close()
