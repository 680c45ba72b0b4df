"""File-descriptor exhaustion, shared by tests/chaos/test_fd_exhaustion.py
(short) and bench/chaos_fds.py (full).  ``baulk run`` runs as a real process
with systemd's kind of limit on open files, a table on a pseudo-terminal;
attackers from many loopback addresses open every connection they can and
keep them idle or trickle request heads into them, reconnecting whenever the
server closes one.  Meanwhile a viewer keeps asking for the board, the table
plays, and is unplugged and plugged back in.  What counts: the viewer is
served, the table reconnects and loses nothing, the log stays small."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from baulk.host.sim.matches import generate_match
from tests.chaos.host_crash import DaemonProcess, write_config
from tests.host.device_peer import DevicePeer
from tests.host.harness import stored_events, wait_for


class Attacker(threading.Thread):
    """Holds as many connections as it can from one address, idle or trickling."""

    def __init__(self, address: str, server: tuple[str, int], most: int, stop: threading.Event):
        super().__init__(daemon=True)
        self.address = address
        self.server = server
        self.most = most
        self.stop_at = stop
        self.opened = 0
        self.socks: list[socket.socket] = []

    def run(self) -> None:
        while not self.stop_at.is_set():
            alive = []
            for s in self.socks:  # drop what the server closed
                try:
                    s.setblocking(False)
                    if s.recv(1) == b"":
                        s.close()
                        continue
                except BlockingIOError:
                    pass
                except OSError:
                    s.close()
                    continue
                alive.append(s)
            self.socks = alive
            while len(self.socks) < self.most and not self.stop_at.is_set():
                try:
                    s = socket.socket()
                    s.bind((self.address, 0))
                    s.settimeout(2)
                    s.connect(self.server)
                    if self.opened % 2:  # every other one trickles a request head
                        s.sendall(b"GET /api HTTP/1.1\r\n")
                except OSError:
                    break
                self.opened += 1
                self.socks.append(s)
            for s in self.socks[1::2]:
                with contextlib.suppress(OSError):
                    s.sendall(b"X")  # a byte of header at a time
            self.stop_at.wait(0.2)
        for s in self.socks:
            s.close()


def _get(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            r.read()
            return bool(r.status == 200)
    except OSError:
        return False


def run(tmp: Path, seconds: float, addresses: int, open_files: int = 256) -> dict[str, Any]:
    peer = DevicePeer("t1", link_path=tmp / "ttyT1").start()
    config = write_config(tmp, {"t1": str(tmp / "ttyT1")})
    log = tmp / "baulk.log"
    daemon = DaemonProcess(config, log, verbose=False, open_files=open_files).start()
    stop = threading.Event()
    figures: dict[str, Any] = {"open_files": open_files, "addresses": addresses}
    try:
        wait_for(lambda: daemon.board("t1")["status"]["link"] == "online", what="online")
        host, port = daemon.url.split("//")[1].split(":")
        attackers = [
            Attacker(f"127.0.1.{i + 2}", (host, int(port)), 64, stop) for i in range(addresses)
        ]
        for a in attackers:
            a.start()
        events = generate_match(6, best_of=1)[:150]
        peer.play(events[:50])
        served = failed = 0
        latencies: list[float] = []
        end = time.monotonic() + seconds
        replugged = False
        while time.monotonic() < end:
            t0 = time.monotonic()
            if _get(daemon.url + "/api/tables/t1") and _get(daemon.url + "/table/t1"):
                served += 1
                latencies.append(time.monotonic() - t0)
            else:
                failed += 1
            if not replugged and time.monotonic() > end - seconds / 2:
                peer.replug()  # the table's cable, out and in, under the attack
                peer.play(events[50:])
                replugged = True
        figures["viewer_served"] = served
        figures["viewer_failed"] = failed
        latencies.sort()
        figures["viewer_p50_s"] = latencies[len(latencies) // 2] if latencies else None
        figures["viewer_max_s"] = latencies[-1] if latencies else None
        figures["attack_connections"] = sum(a.opened for a in attackers)
        wait_for(lambda: peer.acked() == len(events), timeout=60, what="the table's events acked")
        figures["events"] = len(events)
        stop.set()
        for a in attackers:
            a.join(10)
    finally:
        stop.set()
        figures["clean_exit"] = daemon.stop()
        peer.stop()
    rows = stored_events(tmp / "store.sqlite")
    figures["stored_once_in_order"] = [s for _, s, _ in rows] == list(range(1, len(events) + 1))
    figures["log_bytes"] = log.stat().st_size
    figures["log_tracebacks"] = log.read_text(errors="replace").count("Traceback")
    return figures
