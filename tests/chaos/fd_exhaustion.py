"""File-descriptor exhaustion, shared by tests/chaos/test_fd_exhaustion.py
(short) and bench/chaos_fds.py (full).  ``baulk run`` runs as a real process
with systemd's kind of limit on open files, a table on a pseudo-terminal.
A swarm from many loopback addresses holds every connection it can and
reopens each one the server closes: idle ones (half silent, half trickling
a request head a byte at a time) and hostile live feeds (WebSockets on
/api/live that never read a byte).  Meanwhile a viewer from an address of
its own keeps loading the board and keeps a live feed open, the table plays
and is unplugged and plugged back in halfway.  What counts: the viewer is
served, its feed is not the one pushed out, the table reconnects and loses
nothing, the log stays small and holds no traceback."""

from __future__ import annotations

import base64
import contextlib
import http.client
import os
import select
import socket
import threading
import time
from pathlib import Path
from typing import Any

from baulk.host.sim.matches import generate_match
from baulk.host.web.guard import raise_fd_limit
from tests.chaos.host_crash import DaemonProcess, write_config
from tests.host.device_peer import DevicePeer
from tests.host.harness import stored_events, wait_for

VIEWER = "127.0.2.1"  # the venue's screen: an address of its own
_CLOSED = select.POLLHUP | select.POLLERR | getattr(select, "POLLRDHUP", 0x2000)
TRICKLE_EVERY_S = 0.2


def ws_handshake(path: str = "/api/live") -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        f"GET {path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


class Swarm(threading.Thread):
    """Hostile connections from many loopback addresses, held by one thread:
    each address keeps ``per_address`` open and reopens any the server
    closes.  ``kind`` "idle": half silent, half trickling a request head;
    "ws": WebSockets to /api/live that never read a byte (closes are seen
    with POLLRDHUP, without reading)."""

    def __init__(
        self,
        server: tuple[str, int],
        addresses: list[str],
        per_address: int,
        kind: str,
        stop: threading.Event,
    ) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.addresses = addresses
        self.per_address = per_address
        self.kind = kind
        self.stop_at = stop
        self.opened = 0
        self.closed_by_server = 0
        self.held_most = 0
        self.socks: dict[int, tuple[socket.socket, str, bool]] = {}  # fd: sock, address, trickles
        self.count = dict.fromkeys(addresses, 0)
        self.trickling: set[int] = set()  # connected, and trickling a head
        self.poller = select.poll()

    def _open(self, address: str) -> bool:
        s = socket.socket()
        s.setblocking(False)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a reader that never reads
        try:
            s.bind((address, 0))
            s.connect_ex(self.server)
        except OSError:
            s.close()
            return False
        trickles = self.kind == "idle" and self.opened % 2 == 1
        self.socks[s.fileno()] = (s, address, trickles)
        self.poller.register(s, select.POLLOUT | _CLOSED)
        self.count[address] += 1
        self.opened += 1
        return True

    def _close(self, fd: int) -> None:
        self.trickling.discard(fd)
        s, address, _ = self.socks.pop(fd)
        with contextlib.suppress(KeyError, ValueError):
            self.poller.unregister(fd)
        s.close()
        self.count[address] -= 1

    def run(self) -> None:
        trickled = time.monotonic()
        while not self.stop_at.is_set():
            for address in self.addresses:
                while self.count[address] < self.per_address and self._open(address):
                    pass
            self.held_most = max(self.held_most, len(self.socks))
            for fd, ev in self.poller.poll(50):
                if fd not in self.socks:
                    continue
                s, _, trickles = self.socks[fd]
                if ev & _CLOSED:
                    self.closed_by_server += 1
                    self._close(fd)
                    continue
                if ev & select.POLLOUT:  # connected: say what this kind says, then wait
                    try:
                        if self.kind == "ws":
                            s.send(ws_handshake())
                        elif trickles:
                            s.send(b"GET /api HTTP/1.1\r\n")
                            self.trickling.add(fd)
                    except OSError:
                        self._close(fd)
                        continue
                    self.poller.modify(fd, _CLOSED)
            if time.monotonic() - trickled >= TRICKLE_EVERY_S:
                trickled = time.monotonic()
                for fd in list(self.trickling):
                    try:
                        self.socks[fd][0].send(b"X")  # a byte of header at a time
                    except BlockingIOError:
                        pass
                    except OSError:
                        self._close(fd)
        for fd in list(self.socks):
            self._close(fd)


class ViewerFeed(threading.Thread):
    """A venue screen's live feed, as a browser keeps one: reads every
    message, answers the server's pings, reopens when dropped."""

    def __init__(self, server: tuple[str, int], address: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.address = address
        self.stop_at = stop
        self.messages = 0
        self.drops = 0
        self.opened = 0

    def run(self) -> None:
        while not self.stop_at.is_set():
            try:
                s = socket.create_connection(
                    self.server, timeout=1, source_address=(self.address, 0)
                )
            except OSError:
                self.stop_at.wait(0.2)
                continue
            self.opened += 1
            try:
                s.sendall(ws_handshake("/api/live?tables=t1"))
                self._follow(s)
            except OSError:
                pass
            finally:
                s.close()
            if not self.stop_at.is_set():
                self.drops += 1

    def _follow(self, s: socket.socket) -> None:
        buf = b""
        while b"\r\n\r\n" not in buf:
            chunk = s.recv(4096)
            if not chunk:
                return
            buf += chunk
        head, buf = buf.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            return
        while not self.stop_at.is_set():
            frame = _frame(buf)
            if frame is None:
                try:
                    chunk = s.recv(65536)
                except TimeoutError:
                    continue
                if not chunk:
                    return
                buf += chunk
                continue
            opcode, payload, buf = frame
            if opcode == 0x9:  # ping: a pong back, masked as a client's must be
                mask = os.urandom(4)
                body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
                s.sendall(bytes((0x8A, 0x80 | len(payload))) + mask + body)
            elif opcode == 0x1:
                self.messages += 1
            elif opcode == 0x8:
                return


def _frame(buf: bytes) -> tuple[int, bytes, bytes] | None:
    """One server frame off the front of ``buf``: (opcode, payload, rest)."""
    if len(buf) < 2:
        return None
    n, at = buf[1] & 0x7F, 2
    if n == 126:
        if len(buf) < 4:
            return None
        n, at = int.from_bytes(buf[2:4], "big"), 4
    elif n == 127:
        if len(buf) < 10:
            return None
        n, at = int.from_bytes(buf[2:10], "big"), 10
    if len(buf) < at + n:
        return None
    return buf[0] & 0x0F, buf[at : at + n], buf[at + n :]


def page_load(server: tuple[str, int], path: str, address: str) -> bool:
    """One page load from ``address``, on a connection of its own."""
    conn = http.client.HTTPConnection(*server, timeout=5, source_address=(address, 0))
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        r.read()
        return bool(r.status == 200)
    except (OSError, http.client.HTTPException):
        return False
    finally:
        conn.close()


def run(
    tmp: Path,
    seconds: float,
    idle: int,
    ws: int,
    open_files: int = 256,
    idle_per_address: int = 32,
    ws_per_address: int = 8,
) -> dict[str, Any]:
    """``idle`` idle connections and ``ws`` hostile live feeds, spread over
    loopback addresses (``*_per_address`` each), against ``open_files``."""
    raise_fd_limit()  # this process holds the swarm's sockets
    peer = DevicePeer("t1", link_path=tmp / "ttyT1").start()
    config = write_config(tmp, {"t1": str(tmp / "ttyT1")})
    log = tmp / "baulk.log"
    daemon = DaemonProcess(config, log, verbose=False, open_files=open_files).start()
    stop = threading.Event()
    n_idle = -(-idle // idle_per_address)
    n_ws = -(-ws // ws_per_address)
    figures: dict[str, Any] = {"open_files": open_files, "idle": idle, "ws": ws}
    figures["addresses"] = n_idle + n_ws
    swarms: list[Swarm] = []
    try:
        wait_for(lambda: daemon.board("t1")["status"]["link"] == "online", what="online")
        host, port = daemon.url.split("//")[1].split(":")
        server = (host, int(port))
        # The venue's screen was showing the board before the swarm came.
        feed = ViewerFeed(server, VIEWER, stop)
        feed.start()
        wait_for(lambda: feed.messages > 0, what="the viewer's feed")
        assert page_load(server, "/table/t1", VIEWER)
        swarms = [
            Swarm(
                server,
                [f"127.1.{i // 200}.{i % 200 + 2}" for i in range(n_idle)],
                idle_per_address,
                "idle",
                stop,
            ),
            Swarm(
                server,
                [f"127.2.{i // 200}.{i % 200 + 2}" for i in range(n_ws)],
                ws_per_address,
                "ws",
                stop,
            ),
        ]
        for s in swarms:
            s.start()
        events = generate_match(6, best_of=1)[:150]
        peer.play(events[:50])
        served = failed = 0
        latencies: list[float] = []
        end = time.monotonic() + seconds
        replugged = False
        while time.monotonic() < end:
            t0 = time.monotonic()
            if page_load(server, "/api/tables/t1", VIEWER) and page_load(
                server, "/table/t1", VIEWER
            ):
                served += 1
                latencies.append(time.monotonic() - t0)
            else:
                failed += 1
            if not replugged and time.monotonic() > end - seconds / 2:
                peer.unplug()  # the table's cable, out and in, under the attack
                peer.replug()
                peer.play(events[50:])
                replugged = True
        figures["viewer_served"] = served
        figures["viewer_failed"] = failed
        latencies.sort()
        figures["viewer_p50_s"] = latencies[len(latencies) // 2] if latencies else None
        figures["viewer_p99_s"] = latencies[int(len(latencies) * 0.99)] if latencies else None
        figures["viewer_max_s"] = latencies[-1] if latencies else None
        figures["viewer_feed_messages"] = feed.messages
        figures["viewer_feed_drops"] = feed.drops
        figures["attack_connections"] = sum(s.opened for s in swarms)
        figures["attack_idle_opened"] = swarms[0].opened
        figures["attack_ws_opened"] = swarms[1].opened
        figures["attack_held_most"] = sum(s.held_most for s in swarms)
        wait_for(lambda: peer.acked() == len(events), timeout=60, what="the table's events acked")
        figures["events"] = len(events)
        stop.set()
        for s in swarms:
            s.join(10)
        feed.join(10)
    finally:
        stop.set()
        figures["clean_exit"] = daemon.stop()
        peer.stop()
    rows = stored_events(tmp / "store.sqlite")
    figures["stored_once_in_order"] = [s for _, s, _ in rows] == list(range(1, len(events) + 1))
    text = log.read_text(errors="replace")
    figures["log_bytes"] = len(text.encode())
    figures["log_tracebacks"] = text.count("Traceback")
    figures["log_lines"] = text.count("\n")
    return figures
