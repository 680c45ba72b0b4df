"""Helpers of the MQTT tests: a table's events written into a real store (as the
daemon writes them), bridges and mirrors wired to a test broker, and a bounded
wait for a condition."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from baulk.host.mqtt.bridge import MqttBridge, StoreEventSource
from baulk.host.mqtt.connection import BridgeSettings, parse_url
from baulk.host.mqtt.mirror import BrokerMirror
from baulk.host.mqtt.wire import Position
from baulk.host.store import Batch, EventRow, Store

VENUE = "club"

_CYCLE = (
    {"ev": "strike"},
    {"ev": "pot", "ball": "red", "pocket": "tl"},
    {"ev": "rest"},
)


class TableStream:
    """One device's events for one table, stored through the daemon's Store."""

    def __init__(self, store: Store, table: str, boot: int = 7, seq: int = 0) -> None:
        self.store = store
        self.table = table
        self.boot = boot
        self.seq = seq
        self.written: list[Position] = []

    def add(self, n: int, bridge: MqttBridge | None = None) -> list[Position]:
        rows = []
        for _ in range(n):
            self.seq += 1
            rows.append(
                EventRow(
                    self.table,
                    self.boot,
                    self.seq,
                    rx_ms=1_700_000_000_000 + self.seq,
                    ev=dict(_CYCLE[self.seq % len(_CYCLE)]),
                    scores=[self.seq, 0],
                )
            )
        self.store.write(Batch(events=rows))
        new = [Position(self.boot, r.seq) for r in rows]
        self.written += new
        if bridge is not None:
            bridge.events_stored(self.table)
        return new

    def add_match(self, bridge: MqttBridge | None = None) -> Position:
        """A new match starts on the table."""
        self.seq += 1
        ev = {"ev": "match", "players": ["A", "B"], "best_of": 3}
        self.store.write(Batch(events=[EventRow(self.table, self.boot, self.seq, 0, ev, [0, 0])]))
        pos = Position(self.boot, self.seq)
        self.written.append(pos)
        if bridge is not None:
            bridge.events_stored(self.table)
        return pos

    def reboot(self, boot: int) -> None:
        """The device restarts: a new boot id, the stream's seq goes on."""
        self.boot = boot


def wait_for(check: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Wait until ``check()`` holds; fail naming ``what`` when it never does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for: {what}")


def settings(url: str, host: str = "pc-a", venue: str = VENUE) -> BridgeSettings:
    return BridgeSettings(parse_url(url, env={}), venue, host)


def make_bridge(url: str, store_path: Path, host: str = "pc-a") -> MqttBridge:
    return MqttBridge(settings(url, host), StoreEventSource(store_path))


def make_mirror(url: str, client_id: str = "test-board", **kw: object) -> BrokerMirror:
    return BrokerMirror(parse_url(url, env={}), VENUE, client_id=client_id, **kw)  # type: ignore[arg-type]


def seen_positions(mirror: BrokerMirror, table: str) -> set[Position]:
    m = mirror.tables.get(table)
    if m is None:
        return set()
    out: set[Position] = set()
    for boot, s in m.seen.items():
        for lo, hi in s.ranges():
            out.update(Position(boot, q) for q in range(lo, hi + 1))
    return out


def received_all(mirror: BrokerMirror, table: str, expected: Iterable[Position]) -> bool:
    m = mirror.tables.get(table)
    want = set(expected)
    return m is not None and m.received == len(want) and seen_positions(mirror, table) == want


class RawClient:
    """A plain paho client, for publishing what a bridge never would.  It
    speaks MQTT 5, so the broker's answer to each publish has a reason: a
    publish its ACL refuses is answered "Not authorized"."""

    def __init__(self, url: str, client_id: str = "raw-test-client") -> None:
        o = parse_url(url, env={})
        self.client = paho.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id, protocol=MQTTProtocolVersion.MQTTv5
        )
        if o.username:
            self.client.username_pw_set(o.username, o.password)
        self.reasons: dict[int, str] = {}
        self._answered = threading.Condition()
        self.client.on_publish = self._published
        self.client.connect(o.host, o.port)
        self.client.loop_start()

    def _published(self, client: Any, userdata: Any, mid: int, reason: Any, props: Any) -> None:
        with self._answered:
            self.reasons[mid] = str(reason)
            self._answered.notify_all()

    def send(self, topic: str, payload: bytes | str, retain: bool = False) -> str:
        """Publish at QoS 1; the broker's reason in its PUBACK ("Success",
        "No matching subscribers", "Not authorized", ...)."""
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        with self._answered:
            got = self._answered.wait_for(lambda: info.mid in self.reasons, timeout=10)
        assert got, f"the broker did not answer the publish to {topic}"
        return self.reasons.pop(info.mid)

    def publish(self, topic: str, payload: bytes | str, retain: bool = False) -> None:
        reason = self.send(topic, payload, retain)
        assert reason in ("Success", "No matching subscribers"), f"{topic}: {reason}"

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class Process:
    """A ``baulk`` command run as its own process; the URL it prints is kept."""

    def __init__(
        self,
        args: list[str],
        env: dict[str, str] | None = None,
        module: str = "baulk.host.cli.main",
    ) -> None:
        self.args = args
        full_env = dict(os.environ)
        full_env.pop("BAULK_MQTT_PASSWORD", None)
        full_env.update(env or {})
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                module,
                *(args[1:] if module != "baulk.host.cli.main" else args),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=full_env,
            text=True,
        )
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        self._readers = [
            threading.Thread(target=self._read, args=(self.proc.stdout, self.stdout), daemon=True),
            threading.Thread(target=self._read, args=(self.proc.stderr, self.stderr), daemon=True),
        ]
        for t in self._readers:
            t.start()

    @staticmethod
    def _read(stream: IO[str] | None, into: list[str]) -> None:
        if stream is not None:
            for line in stream:
                into.append(line)

    def url(self, timeout: float = 30.0) -> str:
        found: list[str] = []

        def printed() -> bool:
            if self.proc.poll() is not None:
                raise AssertionError(f"baulk {self.args[0]} exited: {''.join(self.stderr)}")
            for line in self.stdout:
                m = re.search(r"(http://127\.0\.0\.1:\d+)", line)
                if m:
                    found.append(m.group(1))
                    return True
            return False

        wait_for(printed, f"baulk {self.args[0]} to print its URL", timeout)
        return found[0]

    def wait(self, timeout: float = 30.0) -> int:
        code = self.proc.wait(timeout)
        for t in self._readers:
            t.join(timeout=5)
        return code

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.wait(5)

    @property
    def err(self) -> str:
        return "".join(self.stderr)


def get_text(url: str) -> str:
    """GET a loopback URL."""
    with urllib.request.urlopen(url, timeout=10) as r:
        return str(r.read().decode())


def get_json(url: str) -> Any:
    return json.loads(get_text(url))
