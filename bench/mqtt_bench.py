"""The MQTT bridge end to end: host → broker → board process → live-feed client.

    .venv/bin/python bench/mqtt_bench.py [--tables 32] [--burst 300] [--rate 10] [--seconds 10]

Everything runs on loopback, on a Mosquitto this script starts on a free port:

* the **host**: the daemon's real SQLite store and the bridge (``MqttBridge``
  over ``StoreEventSource``), in this process; each event is committed to the
  store, then the bridge is told, as ``baulk run`` does after a commit;
* the **board**: a real ``baulk board --mqtt`` process;
* the **client**: a WebSocket client on the board's live feed, in this process,
  so one monotonic clock times both ends.

An event counts as delivered when the client receives a board of its table
whose ``mqtt.pos`` has reached it (the live feed sends whole boards, newest
only).  Two figures, each beside a baseline measured in the same run on the
same broker, a bare paho QoS 1 publish → subscribe between two clients of this
process with payloads of the same size:

* **events per second**, a burst of ``--burst`` events per table on every
  table at once, from the first commit to the client seeing the last;
* **latency p50 / p99**, with every table publishing ``--rate`` events per second
  for ``--seconds`` (target: p99 at most 100 ms with 32 tables).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.mqtt.broker: the tests' Mosquitto launcher

import aiohttp  # noqa: E402
import paho.mqtt.client as paho  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

from baulk.firmware.engine import Engine  # noqa: E402
from baulk.host.mqtt.bridge import MqttBridge, StoreEventSource  # noqa: E402
from baulk.host.mqtt.connection import BridgeSettings, parse_url  # noqa: E402
from baulk.host.mqtt.wire import BridgeEvent, Position, event_payload  # noqa: E402
from baulk.host.store import Batch, EventRow, Store  # noqa: E402
from baulk.host.venue.live import TableView  # noqa: E402
from tests.mqtt.broker import Broker, mosquitto_missing  # noqa: E402
from tests.mqtt.helpers import Process  # noqa: E402

TARGET_P99_MS = 100.0
VENUE = "bench"
BOOT = 99
EVENTS = (
    {"ev": "strike"},
    {"ev": "pot", "ball": "red", "pocket": "tl", "t": 1234},
    {"ev": "rest"},
)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def sample_board(table: str) -> dict[str, Any]:
    """A board of the daemon's shape, mid-frame."""
    engine = Engine()
    engine.apply({"ev": "match", "players": ["Ronnie", "Judd"], "best_of": 7})
    for ev in ({"ev": "strike"}, {"ev": "pot", "ball": "red", "pocket": "tl"}, {"ev": "rest"}):
        engine.apply(ev)
    view = TableView(table, f"Table {table}", status={"link": "online", "state": "online"})
    view.shadow_state = json.loads(json.dumps(engine.state()))
    return view.board()


class Host:
    """The publishing side: the real store and the bridge."""

    def __init__(self, url: str, folder: Path, tables: list[str]) -> None:
        self.store = Store(folder / "host.sqlite")
        self.tables = tables
        self.seq = dict.fromkeys(tables, 0)
        self.boards = {t: sample_board(t) for t in tables}
        settings = BridgeSettings(parse_url(url, env={}), VENUE, "bench-host")
        self.bridge = MqttBridge(settings, StoreEventSource(self.store.path))

    def write(self, table: str, n: int) -> Position:
        rows = []
        for _ in range(n):
            self.seq[table] += 1
            s = self.seq[table]
            rows.append(
                EventRow(table, BOOT, s, time.time_ns() // 1_000_000, dict(EVENTS[s % 3]), [s, 0])
            )
        self.store.write(Batch(events=rows))
        self.bridge.events_stored(table)
        self.bridge.board_changed(table, self.boards[table])
        return Position(BOOT, self.seq[table])


class FeedClient:
    """The live-feed client, on its own thread: when each table's board reached
    which seq."""

    def __init__(self, url: str) -> None:
        self.url = url.replace("http://", "ws://") + "/api/live"
        self.lock = threading.Lock()
        self.pending: dict[str, deque[tuple[int, float]]] = {}
        self.latencies: list[float] = []
        self.reached: dict[str, int] = {}
        self.messages = 0
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)
        self._thread.start()
        if not self._ready.wait(20):
            raise RuntimeError("the live feed did not open")

    def expect(self, table: str, seq: int, t0: float) -> None:
        with self.lock:
            self.pending.setdefault(table, deque()).append((seq, t0))

    async def _run(self) -> None:
        async with aiohttp.ClientSession() as session, session.ws_connect(self.url) as ws:
            self._ready.set()
            while not self._stop.is_set():
                try:
                    msg = await ws.receive(timeout=0.5)
                except TimeoutError:
                    continue
                now = time.monotonic()
                if msg.type != aiohttp.WSMsgType.TEXT:
                    return
                data = json.loads(msg.data)
                if data.get("type") != "board":
                    continue
                pos = (data["board"].get("mqtt") or {}).get("pos")
                if not pos:
                    continue
                table, seq = data["table"], int(pos[1])
                with self.lock:
                    self.messages += 1
                    self.reached[table] = max(self.reached.get(table, 0), seq)
                    waiting = self.pending.get(table)
                    while waiting and waiting[0][0] <= seq:
                        _, t0 = waiting.popleft()
                        self.latencies.append(now - t0)

    def waiting(self) -> int:
        with self.lock:
            return sum(len(q) for q in self.pending.values())

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


def wait_until(check: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.005)
    raise SystemExit(f"mqtt_bench: timed out waiting for {what}")


def bridge_burst(host: Host, client: FeedClient, burst: int) -> tuple[float, int]:
    """Every table writes ``burst`` events at once (50 per commit); the time
    until the client saw every table's last one."""
    goal = {t: host.seq[t] + burst for t in host.tables}
    start = time.monotonic()
    for _ in range(0, burst, 50):
        for t in host.tables:
            host.write(t, min(50, goal[t] - host.seq[t]))

    def done() -> bool:
        with client.lock:
            return all(client.reached.get(t, 0) >= goal[t] for t in host.tables)

    try:
        wait_until(done, 120, "the burst to reach the live feed")
    except SystemExit:
        with client.lock:
            behind = {
                t: (client.reached.get(t), goal[t])
                for t in host.tables
                if client.reached.get(t, 0) < goal[t]
            }
        print(f"behind: {behind}", file=sys.stderr)
        print(f"bridge: {host.bridge.stats}", file=sys.stderr)
        raise
    return time.monotonic() - start, burst * len(host.tables)


def bridge_latency(host: Host, client: FeedClient, rate: float, seconds: float) -> list[float]:
    """Each table writes one event every 1/rate s (staggered); latency from the
    commit to the live-feed client."""
    with client.lock:
        client.latencies.clear()
    tables = host.tables
    step = 1.0 / (rate * len(tables))
    count = int(rate * seconds * len(tables))
    start = time.monotonic()
    for i in range(count):
        due = start + i * step
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        t = tables[i % len(tables)]
        seq = host.seq[t] + 1
        # the clock starts once the event is durable, where the daemon tells the bridge
        rows = [
            EventRow(t, BOOT, seq, time.time_ns() // 1_000_000, dict(EVENTS[seq % 3]), [seq, 0])
        ]
        host.store.write(Batch(events=rows))
        host.seq[t] = seq
        t0 = time.monotonic()
        client.expect(t, seq, t0)
        host.bridge.events_stored(t)
        host.bridge.board_changed(t, host.boards[t])
    wait_until(lambda: client.waiting() == 0, 60, "the paced events to reach the live feed")
    with client.lock:
        return list(client.latencies)


class RawPair:
    """Baseline: a bare paho publisher and subscriber on the same broker, QoS 1."""

    def __init__(self, port: int) -> None:
        self.lock = threading.Lock()
        self.sent: dict[int, float] = {}
        self.latencies: list[float] = []
        self.received = 0
        self.sub = paho.Client(CallbackAPIVersion.VERSION2, client_id="bench-raw-sub")
        self.sub.on_message = self._on_message
        self.sub.connect("127.0.0.1", port)
        self.sub.subscribe("rawbench/#", qos=1)
        self.sub.loop_start()
        self.pub = paho.Client(CallbackAPIVersion.VERSION2, client_id="bench-raw-pub")
        self.pub.max_inflight_messages_set(100)
        self.pub.connect("127.0.0.1", port)
        self.pub.loop_start()
        time.sleep(0.5)

    def _on_message(self, client: Any, userdata: Any, msg: paho.MQTTMessage) -> None:
        now = time.monotonic()
        n = int.from_bytes(msg.payload[:4], "big")
        with self.lock:
            self.received += 1
            t0 = self.sent.pop(n, None)
            if t0 is not None:
                self.latencies.append(now - t0)

    def payload(self, n: int, size: int) -> bytes:
        return n.to_bytes(4, "big") + b"x" * max(0, size - 4)

    def burst(self, tables: int, per_table: int, size: int) -> float:
        total = tables * per_table
        with self.lock:
            self.received = 0
        start = time.monotonic()
        for n in range(total):
            self.pub.publish(f"rawbench/t{n % tables}/events", self.payload(n, size), qos=1)
        wait_until(lambda: self.received >= total, 120, "the raw burst")
        return time.monotonic() - start

    def paced(self, tables: int, rate: float, seconds: float, size: int) -> list[float]:
        with self.lock:
            self.latencies.clear()
        step = 1.0 / (rate * tables)
        count = int(rate * seconds * tables)
        start = time.monotonic()
        for i in range(count):
            delay = start + i * step - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            n = 10_000_000 + i
            with self.lock:
                self.sent[n] = time.monotonic()
            self.pub.publish(f"rawbench/t{i % tables}/events", self.payload(n, size), qos=1)
        wait_until(lambda: not self.sent, 60, "the raw paced messages")
        return list(self.latencies)

    def close(self) -> None:
        for c in (self.pub, self.sub):
            c.disconnect()
            c.loop_stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=32)
    ap.add_argument("--burst", type=int, default=300, help="events per table in the burst")
    ap.add_argument("--rate", type=float, default=10.0, help="events/s per table, paced run")
    ap.add_argument("--seconds", type=float, default=10.0, help="length of the paced run")
    args = ap.parse_args()
    if not (1 <= args.tables <= 256 and 50 <= args.burst <= 5000 and 0 < args.rate <= 100):
        print("mqtt_bench: --tables 1..256, --burst 50..5000, --rate up to 100", file=sys.stderr)
        return 2
    why = mosquitto_missing()
    if why:
        print(f"mqtt_bench: {why}", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="baulk-mqtt-bench-"))
    (folder / "broker").mkdir()
    broker = Broker(folder / "broker", persistence=False)
    broker.start()
    board: Process | None = None
    host: Host | None = None
    client: FeedClient | None = None
    try:
        tables = [f"t{i + 1}" for i in range(args.tables)]
        board = Process(
            ["board", "--mqtt", broker.url, "--venue", VENUE, "--port", "0", "--client-id", "bb"]
        )
        url = board.url()
        host = Host(broker.url, folder, tables)
        if not host.bridge.start():
            raise SystemExit("mqtt_bench: the bridge could not connect")
        client = FeedClient(url)
        for t in tables:  # every table on the board before the clock starts
            host.write(t, 1)
        wait_until(lambda: len(client.reached) == len(tables), 60, "every table on the feed")

        size = len(
            event_payload(
                VENUE,
                "bench-host",
                BridgeEvent("t32", Position(BOOT, 1000), 0, EVENTS[1], [1, 0]),
                Position(BOOT, 999),
            )
        )
        raw = RawPair(broker.port)
        raw_time = raw.burst(args.tables, args.burst, size)
        raw_lat = raw.paced(args.tables, args.rate, args.seconds, size)
        raw.close()

        burst_time, burst_events = bridge_burst(host, client, args.burst)
        lat = bridge_latency(host, client, args.rate, args.seconds)
    finally:
        if client is not None:
            client.stop()
        if host is not None:
            host.bridge.stop()
            host.store.close()
        if board is not None:
            board.stop()
        broker.kill()

    total = args.tables * args.burst
    ms = [x * 1000 for x in lat]
    raw_ms = [x * 1000 for x in raw_lat]
    p50, p99 = percentile(ms, 0.50), percentile(ms, 0.99)
    r50, r99 = percentile(raw_ms, 0.50), percentile(raw_ms, 0.99)
    eps = burst_events / burst_time
    raw_eps = total / raw_time
    paced = f"{args.tables} tables × {args.rate:g} events/s for {args.seconds:g} s"
    print(f"MQTT bridge: host → Mosquitto → baulk board → live-feed client, {args.tables} tables")
    print(f"(event payload {size} B; burst {args.tables} × {args.burst}; paced {paced})\n")
    print("| figure | measured | same-run baseline: bare paho QoS 1 publish → subscribe |")
    print("| --- | --- | --- |")
    print(
        f"| events/s, end to end (burst) | {eps:,.0f} | "
        f"{raw_eps:,.0f} msg/s (bridge at {eps / raw_eps:.0%}) |"
    )
    print(f"| latency p50 ({paced}) | {p50:.1f} ms | {r50:.2f} ms |")
    print(
        f"| latency p99 ({paced}) | {p99:.1f} ms (target ≤ {TARGET_P99_MS:.0f} ms: "
        f"{'met' if p99 <= TARGET_P99_MS else 'NOT met'}) | {r99:.2f} ms |"
    )
    print(
        f"\n{len(ms)} paced events timed; mean {statistics.fmean(ms):.1f} ms, max {max(ms):.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
