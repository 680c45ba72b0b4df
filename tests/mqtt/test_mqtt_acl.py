"""Whose table it is: the venue's ACL (docs/MQTT.md, run as it is in a real
Mosquitto) lets each host publish only under its own id, and a board takes a
table from one host only, whatever a broker without that ACL lets through."""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from baulk.host.mqtt import wire
from baulk.host.mqtt.bridge import MqttBridge
from baulk.host.mqtt.mirror import BrokerMirror
from baulk.host.mqtt.wire import BridgeEvent, Position
from baulk.host.store import Store
from tests.mqtt.broker import Broker, mosquitto_missing
from tests.mqtt.helpers import (
    VENUE,
    RawClient,
    TableStream,
    make_bridge,
    make_mirror,
    received_all,
    wait_for,
)

pytestmark = pytest.mark.broker

ROOT = Path(__file__).resolve().parents[2]
USERS = {"pc-a": "pw-a", "pc-b": "pw-b", "board": "pw-board"}
HACKED = {
    "table": "t1",
    "name": "Table 1",
    "status": {"link": "online"},
    "match": {"names": ["HACKED", "HACKED"]},
    "state": {"scores": [147, 0]},
}


def acl_lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]


def documented_acl() -> str:
    """The ACL of docs/MQTT.md, for this test's venue."""
    doc = (ROOT / "docs" / "MQTT.md").read_text()
    found = re.search(r"<!-- acl:start -->\s*```\n(.*?)```\s*<!-- acl:end -->", doc, re.S)
    assert found, "docs/MQTT.md has no ACL between <!-- acl:start --> and <!-- acl:end -->"
    return "\n".join(ln.strip() for ln in found.group(1).splitlines()).replace("north-club", VENUE)


def test_the_readme_shows_the_same_acl() -> None:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("pattern write baulk/north-club/%u/#", 1)[1].split("```", 1)[0]
    shown = acl_lines("pattern write baulk/north-club/%u/#" + block)
    assert shown == acl_lines(documented_acl().replace(VENUE, "north-club"))


@pytest.fixture
def acl_broker(tmp_path: Path) -> Iterator[Broker]:
    """A broker with the documented ACL and a user per host and board."""
    why = mosquitto_missing()
    if why is not None:
        pytest.fail(why)
    folder = tmp_path / "acl-broker"
    folder.mkdir()
    b = Broker(folder, users=USERS, acl=documented_acl())
    b.start()
    yield b
    b.kill()


def url(broker: Broker, user: str) -> str:
    return broker.url_for(user, USERS[user])


def board_of(table: str, score: int) -> dict[str, Any]:
    return {
        "table": table,
        "name": f"Table {table}",
        "status": {"link": "online"},
        "match": {"names": ["Ali", "Reza"]},
        "state": {"scores": [score, 0]},
    }


def shown(mirror: BrokerMirror, table: str) -> dict[str, Any]:
    return mirror.board(table) or {}


@dataclass
class Venue:
    """pc-a's table t1 playing, on a board, and a client that may publish
    anything its broker user may."""

    store: Store
    t1: TableStream
    mirror: BrokerMirror
    bridge: MqttBridge
    raw: RawClient


@contextlib.contextmanager
def pc_a_playing(
    tmp: Path, host_url: str, board_url: str, raw_url: str, events: int
) -> Iterator[Venue]:
    store = Store(tmp / "a.sqlite")
    v = Venue(
        store,
        TableStream(store, "t1"),
        make_mirror(board_url),
        make_bridge(host_url, store.path, host="pc-a"),
        RawClient(raw_url, "raw-client"),
    )
    try:
        assert v.mirror.start() and v.bridge.start()
        v.t1.add(events, v.bridge)
        v.bridge.board_changed("t1", board_of("t1", events))
        wait_for(lambda: received_all(v.mirror, "t1", v.t1.written), "t1's events on the board")
        wait_for(
            lambda: shown(v.mirror, "t1").get("state") == {"scores": [events, 0]}, "t1's board"
        )
        wait_for(lambda: v.mirror.hosts.get("pc-a") is not None, "pc-a's status")
        assert v.mirror.hosts["pc-a"].online
        yield v
    finally:
        v.raw.close()
        v.bridge.stop()
        v.mirror.stop()
        store.close()


def test_a_host_can_publish_only_under_its_own_id(acl_broker: Broker, tmp_path: Path) -> None:
    b = acl_broker
    with (
        contextlib.ExitStack() as stack,
        pc_a_playing(tmp_path, url(b, "pc-a"), url(b, "board"), url(b, "pc-b"), 5) as v,
    ):
        mirror, t1, forger = v.mirror, v.t1, v.raw  # the raw client logs in as pc-b

        # pc-b posts a board, an event, a link and an offline for pc-a: the
        # broker refuses each one.
        forged = [
            (wire.table_topic(VENUE, "pc-a", "t1", wire.STATE), True,
             wire.state_payload(VENUE, "pc-a", "t1", None, 0, HACKED)),
            (wire.table_topic(VENUE, "pc-a", "t1", wire.EVENTS), False,
             wire.event_payload(VENUE, "pc-a", BridgeEvent("t1", Position(7, 6), 0,
                                                           {"ev": "rest"}), Position(7, 5))),
            (wire.table_topic(VENUE, "pc-a", "t1", wire.LINK), True,
             wire.link_payload(VENUE, "pc-a", "t1", False, None, 0)),
            (wire.host_topic(VENUE, "pc-a"), True,
             wire.status_payload(VENUE, "pc-a", False, "forged", 0, [])),
        ]  # fmt: skip
        for topic, retain, payload in forged:
            assert forger.send(topic, payload, retain=retain) == "Not authorized", topic
        # What pc-b may publish, under its own id, for a table pc-a serves,
        # comes through the broker and is refused by the board.
        own = wire.table_topic(VENUE, "pc-b", "t1", wire.STATE)
        forger.publish(own, wire.state_payload(VENUE, "pc-b", "t1", None, 0, HACKED), retain=True)
        wait_for(lambda: mirror.stats.refused == 1, "pc-b's t1 refused")
        board = shown(mirror, "t1")
        assert board["state"] == {"scores": [5, 0]} and board["mqtt"]["host"] == "pc-a"
        assert board["status"]["link"] == "online" and mirror.hosts["pc-a"].online
        assert board["mqtt"]["refused_hosts"] == ["pc-b"]
        assert mirror.tables["t1"].received == 5  # the forged event never came

        # A board that joins now reads the retained messages: pc-a's only.
        late = make_mirror(url(b, "board"), client_id="late-board")
        stack.callback(late.stop)
        assert late.start()
        # Whichever retained message comes first, pc-a's status lists t1.
        wait_for(
            lambda: (shown(late, "t1").get("mqtt") or {}).get("refused_hosts") == ["pc-b"],
            "the late board refusing pc-b's t1",
        )
        assert shown(late, "t1")["state"] == {"scores": [5, 0]}
        assert shown(late, "t1")["mqtt"]["host"] == "pc-a" and late.hosts["pc-a"].online

        # A board cannot pose as a host, nor a host ask another host's tables
        # for replays; a board can ask a replay of any host.
        board_client = RawClient(url(b, "board"), "board-raw")
        try:
            posed = wire.table_topic(VENUE, "board", "t9", wire.STATE)
            payload = wire.state_payload(VENUE, "board", "t9", None, 0, HACKED)
            assert board_client.send(posed, payload, retain=True) == "Not authorized"
            replay = wire.table_topic(VENUE, "pc-a", "t1", wire.REPLAY)
            ask = wire.replay_payload(Position(7, 1), "board-raw")
            assert board_client.send(replay, ask) in ("Success", "No matching subscribers")
            assert forger.send(replay, ask) == "Not authorized"
        finally:
            board_client.close()
        wait_for(lambda: v.bridge.stats.replays == 1, "pc-a serving the board's replay")
        wait_for(lambda: mirror.tables["t1"].duplicates == 4, "events 2-5 again, dropped")

        # The host itself goes on under the ACL: new events, and after a
        # restart it finds its position in its own retained state.
        t1.add(3, v.bridge)
        wait_for(lambda: received_all(mirror, "t1", t1.written), "the next events")
        wait_for(v.bridge.drained, "pc-a drained")
        v.bridge.stop()
        t1.add(2)
        v.bridge = make_bridge(url(b, "pc-a"), v.store.path, host="pc-a")
        assert v.bridge.start()
        v.bridge.events_stored("t1")
        wait_for(lambda: received_all(mirror, "t1", t1.written), "the events stored meanwhile")
        assert mirror.tables["t1"].duplicates == 4  # none from the restart


def test_a_board_refuses_a_table_from_a_second_host(
    broker: Broker, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A broker without the ACL lets anything through: the board still never
    shows another host's message as pc-a's table."""
    caplog.set_level(logging.INFO, logger="baulk.mqtt.mirror")
    with pc_a_playing(tmp_path, broker.url, broker.url, broker.url, 4) as v:
        mirror, bridge, t1, raw = v.mirror, v.bridge, v.t1, v.raw

        on = lambda leaf: wire.table_topic(VENUE, "pc-x", "t1", leaf)  # noqa: E731
        raw.publish(on(wire.STATE), wire.state_payload(VENUE, "pc-x", "t1", None, 0, HACKED), True)
        stray = BridgeEvent("t1", Position(7, 5), 0, {"ev": "rest"})
        raw.publish(on(wire.EVENTS), wire.event_payload(VENUE, "pc-x", stray, Position(7, 4)))
        raw.publish(on(wire.LINK), wire.link_payload(VENUE, "pc-x", "t1", False, None, 0), True)
        # pc-x going offline says nothing of pc-a's tables.
        offline = wire.status_payload(VENUE, "pc-x", False, "gone", 0, ["t1"])
        raw.publish(wire.host_topic(VENUE, "pc-x"), offline, True)
        wait_for(lambda: mirror.stats.refused == 3, "pc-x's three t1 messages refused")
        wait_for(lambda: "pc-x" in mirror.hosts, "pc-x's status")

        board = shown(mirror, "t1")
        assert board["state"] == {"scores": [4, 0]}
        assert board["match"]["names"] == ["Ali", "Reza"]
        assert board["status"]["link"] == "online"
        assert board["mqtt"]["host"] == "pc-a" and board["mqtt"]["host_online"] is True
        assert "pc-x also publishes table t1" in board["mqtt"]["warning"]
        assert mirror.tables["t1"].received == 4 and Position(7, 5) not in t1.written
        snap = mirror.snapshot()
        assert snap["stats"]["refused"] == 3
        assert [(c["table"], c["owner"], c["refused_host"], c["messages"])
                for c in snap["conflicts"]] == [("t1", "pc-a", "pc-x", 3)]  # fmt: skip
        warnings = [r.getMessage() for r in caplog.records if "publishes it too" in r.getMessage()]
        assert len(warnings) == 1 and "pc-a" in warnings[0] and "pc-x" in warnings[0]

        # The owner's own events and board go on as before.
        t1.add(2, bridge)
        bridge.board_changed("t1", board_of("t1", 6))
        wait_for(lambda: shown(mirror, "t1").get("state") == {"scores": [6, 0]}, "pc-a's board")
        wait_for(lambda: received_all(mirror, "t1", t1.written), "pc-a's events")

        # Only pc-a lets t1 go: its own status, online, without t1 (the table
        # was moved to pc-x).  pc-x's latest board is then the table's.
        moved = wire.status_payload(VENUE, "pc-a", True, "online", 0, ["t2"])
        raw.publish(wire.host_topic(VENUE, "pc-a"), moved)
        wait_for(lambda: shown(mirror, "t1").get("state") == {"scores": [147, 0]}, "handed over")
        assert shown(mirror, "t1")["mqtt"]["host"] == "pc-x"
        assert mirror.snapshot()["conflicts"] == []


def test_deep_and_huge_payloads_cost_a_count_never_a_traceback(
    broker: Broker, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """On the board and on the host: bounded before they are parsed."""
    caplog.set_level(logging.WARNING, logger="baulk.mqtt")
    with pc_a_playing(tmp_path, broker.url, broker.url, broker.url, 2) as v:
        mirror, bridge, t1, raw = v.mirror, v.bridge, v.t1, v.raw
        deep = [b"[" * 200_000, b"{" * 200_000, b'{"v": 1, "a": ' * 5_000 + b"1" + b"}" * 5_000]
        for payload in deep:
            for leaf in (wire.STATE, wire.EVENTS, wire.LINK, wire.REPLAY):
                raw.publish(wire.table_topic(VENUE, "pc-a", "t1", leaf), payload)
            raw.publish(wire.host_topic(VENUE, "pc-a"), payload)
        raw.publish(wire.table_topic(VENUE, "pc-a", "t5", wire.STATE), b" " * (300 << 10))
        expected = len(deep) * 4 + 1  # every one but the replays reaches the board
        wait_for(lambda: mirror.stats.malformed == expected, f"{expected} malformed on the board")
        # The host, too, reads each replay request and refuses it.
        wait_for(
            lambda: sum("skipped a message" in r.getMessage() for r in caplog.records) >= 1,
            "the host's refusal of a deep replay request",
        )
        t1.add(3, bridge)
        wait_for(lambda: received_all(mirror, "t1", t1.written), "the stream goes on")
        assert bridge.session.connected and mirror.session.connected
        assert [r.getMessage() for r in caplog.records if r.exc_info] == []
        assert any("nests deeper than 32" in r.getMessage() for r in caplog.records)
        assert any("over the 262144-byte limit" in r.getMessage() for r in caplog.records)
