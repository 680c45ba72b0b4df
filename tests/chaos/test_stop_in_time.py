"""SIGTERM ends ``baulk run`` within 10 s in every state (the service
manager kills at 20 s): idle; tables playing to live feeds that read and
feeds that do not; the store locked by another process, so that every
commit waits and fails, with desk actions in flight; clients that trickle
their requests and never read.  Each time, the process is waited for until
it exits, and what the table was told is stored is in the store."""

from __future__ import annotations

import base64
import contextlib
import os
import signal
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from baulk.host.sim.matches import generate_match
from tests.chaos.host_crash import BILLING, DaemonProcess, desk_post, write_config
from tests.host.device_peer import DevicePeer
from tests.host.harness import stored_events, wait_for

pytestmark = pytest.mark.slow

STOP_WITHIN_S = 10.0


def _address(url: str) -> tuple[str, int]:
    host, port = url.split("//")[1].split(":")
    return host, int(port)


def live_feed(url: str, read: bool, n: int) -> socket.socket:
    """A WebSocket on /api/live from 127.0.3.n, read by a thread or never
    read at all."""
    s = socket.create_connection(_address(url), timeout=10, source_address=(f"127.0.3.{n}", 0))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(
        (
            "GET /api/live HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    assert b" 101 " in s.recv(1024)
    if read:

        def drain() -> None:
            with contextlib.suppress(OSError):
                while s.recv(65536):
                    pass

        threading.Thread(target=drain, daemon=True).start()
    else:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    return s


def trickle(url: str, stop: threading.Event, sent: threading.Semaphore) -> None:
    """A request whose body comes a byte a second, whose answer is never
    read; ``sent`` is released once its head and a first byte are sent."""
    with socket.create_connection(_address(url), timeout=10) as s:
        s.sendall(b"POST /api/tables/t1/match HTTP/1.1\r\nHost: x\r\nContent-Length: 9000\r\n\r\n")
        s.sendall(b"{")
        sent.release()
        while not stop.wait(1.0):
            try:
                s.sendall(b"{")
            except OSError:
                return


@contextlib.contextmanager
def locked(store: Path) -> Iterator[None]:
    """Another process's write lock on the store: every commit waits for it
    (SQLite's busy timeout), then fails with "database is locked"."""
    db = sqlite3.connect(store, timeout=10, isolation_level=None)
    db.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        db.execute("ROLLBACK")
        db.close()


@pytest.mark.parametrize("state", ["idle", "playing", "store locked", "slow clients"])
def test_sigterm_ends_the_daemon_within_10_s(tmp_path: Path, state: str) -> None:
    peer = DevicePeer("t1", link_path=tmp_path / "ttyT1").start()
    config = write_config(tmp_path, {"t1": str(tmp_path / "ttyT1")}, BILLING)
    daemon = DaemonProcess(config, tmp_path / "baulk.log").start()
    stop = threading.Event()
    held: list[socket.socket] = []
    events = generate_match(9, best_of=3)
    lock = contextlib.ExitStack()
    player: threading.Thread | None = None
    try:
        wait_for(lambda: daemon.board("t1")["status"]["link"] == "online", what="online")
        assert desk_post(daemon.url, "/api/tables/t1/session")[0] == 200
        if state != "idle":
            peer.play(events[:100])
            wait_for(lambda: peer.acked() == 100, what="the first events acked")
        if state == "playing":
            held += [live_feed(daemon.url, i % 2 == 0, i // 4 + 1) for i in range(20)]
            player = threading.Thread(target=peer.play, args=(events[100:300], 0.01))
            player.start()
        elif state == "store locked":
            lock.enter_context(locked(tmp_path / "store.sqlite"))
            peer.play(events[100:150])
            wait_for(
                lambda: not daemon.board("t1")["store"]["ok"], timeout=30, what="commits failing"
            )
            for _ in range(4):  # desk actions on their way
                threading.Thread(
                    target=desk_post, args=(daemon.url, "/api/sessions/1/close"), daemon=True
                ).start()
        elif state == "slow clients":
            held += [live_feed(daemon.url, False, 1) for _ in range(8)]
            sent = threading.Semaphore(0)
            for _ in range(8):
                threading.Thread(target=trickle, args=(daemon.url, stop, sent), daemon=True).start()
            for _ in range(8):  # the trickles are in their requests
                assert sent.acquire(timeout=30)
        acked = peer.acked()
        assert daemon.proc is not None
        start = time.monotonic()
        daemon.proc.send_signal(signal.SIGTERM)
        rc = daemon.proc.wait(timeout=30)
        took = time.monotonic() - start
        daemon.proc = None
        assert took < STOP_WITHIN_S, (state, took)
        assert rc in (0, 128 + signal.SIGTERM), rc
    finally:
        stop.set()
        lock.close()
        for s in held:
            s.close()
        daemon.stop()
        if player is not None:
            player.join(60)  # it plays into the peer's pipes, which stop() closes
        peer.stop()
    stored = [s for _, s, _ in stored_events(tmp_path / "store.sqlite")]
    assert stored == list(range(1, len(stored) + 1)) and len(stored) >= acked
    assert "Traceback" not in (tmp_path / "baulk.log").read_text()
