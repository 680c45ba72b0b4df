"""The bridge and the mirror against a real Mosquitto: events exactly once
through broker restarts and host restarts, the last will, catch-up from the
store."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest

from baulk.host.mqtt.wire import Position
from baulk.host.store import Store
from tests.mqtt.broker import Broker
from tests.mqtt.helpers import (
    TableStream,
    make_bridge,
    make_mirror,
    received_all,
    seen_positions,
    wait_for,
)

pytestmark = pytest.mark.broker


def test_every_event_and_the_board_reach_the_mirror(broker: Broker, tmp_path: Path) -> None:
    store = Store(tmp_path / "a.sqlite")
    t1, t2 = TableStream(store, "t1", boot=11), TableStream(store, "t2", boot=22)
    mirror = make_mirror(broker.url)
    assert mirror.start()
    bridge = make_bridge(broker.url, store.path)
    assert bridge.start()
    try:
        t1.add(30, bridge)
        t2.add(20, bridge)
        bridge.board_changed("t1", {"table": "t1", "status": {"link": "online"}, "score": 1})
        wait_for(lambda: received_all(mirror, "t1", t1.written), "t1's 30 events")
        wait_for(lambda: received_all(mirror, "t2", t2.written), "t2's 20 events")
        wait_for(lambda: mirror.board("t1") is not None, "t1's board")
        board = mirror.board("t1")
        assert board is not None
        assert board["score"] == 1
        assert board["status"]["link"] == "online"
        assert board["mqtt"]["host"] == "pc-a"
        m1 = mirror.tables["t1"]
        assert m1.duplicates == 0 and not m1.gaps and m1.gaps_noticed == 0
        wait_for(lambda: mirror.hosts.get("pc-a") is not None, "pc-a's status")
        assert mirror.hosts["pc-a"].online
    finally:
        bridge.stop()
        mirror.stop()
        store.close()


def test_broker_restart_mid_stream_every_event_exactly_once(broker: Broker, tmp_path: Path) -> None:
    """A graceful broker restart while a table keeps scoring: both sides
    reconnect, the host catches up from its store, the mirror ends with every
    event once."""
    store = Store(tmp_path / "a.sqlite")
    t1 = TableStream(store, "t1")
    mirror = make_mirror(broker.url)
    assert mirror.start()
    bridge = make_bridge(broker.url, store.path)
    assert bridge.start()
    try:
        bridge.board_changed("t1", {"table": "t1"})
        t1.add(40, bridge)
        wait_for(lambda: len(seen_positions(mirror, "t1")) >= 20, "the first events")
        broker.stop()
        # The table goes on scoring while the broker is away.
        t1.add(25, bridge)
        t1.reboot(8)
        t1.add(15, bridge)
        wait_for(lambda: not bridge.session.connected, "the bridge to notice")
        broker.start()
        t1.add(20, bridge)
        wait_for(lambda: received_all(mirror, "t1", t1.written), "all 100 events once")
        m = mirror.tables["t1"]
        assert m.received == 100
        assert not m.gaps
        # The board never changed after the first events, yet the retained
        # state's position follows the events that went out after it.
        wait_for(lambda: m.pos == t1.written[-1], "the state's pos at the last event")
        assert bridge.session.losses >= 1 and mirror.session.losses >= 1
        assert bridge.session.connected and mirror.session.connected
    finally:
        bridge.stop()
        mirror.stop()
        store.close()


def test_broker_crash_without_persistence_replay_fills_the_gap(
    make_broker: Callable[..., Broker], tmp_path: Path
) -> None:
    """A broker that forgets everything (killed, no persistence): events
    published while the board was not yet back are lost to it; the board
    notices the gap and asks the host to replay from its store."""
    broker = make_broker(persistence=False)
    store = Store(tmp_path / "a.sqlite")
    t1 = TableStream(store, "t1")
    mirror = make_mirror(broker.url, gap_grace=0.3, replay_every=0.5)
    assert mirror.start()
    bridge = make_bridge(broker.url, store.path)
    assert bridge.start()
    try:
        t1.add(10, bridge)
        wait_for(lambda: received_all(mirror, "t1", t1.written), "the first 10 events")
        # The board will come back after the host, whose catch-up then goes
        # to nobody: the broker has no session to keep it in.
        mirror.session.client.reconnect_delay_set(min_delay=3, max_delay=3)
        broker.kill()
        wait_for(lambda: not bridge.session.connected and not mirror.session.connected, "loss")
        t1.add(10, bridge)
        broker.start()
        wait_for(bridge.drained, "the host to catch up")
        assert not mirror.session.connected
        wait_for(lambda: mirror.session.connected, "the board to reconnect")
        t1.add(5, bridge)
        wait_for(lambda: received_all(mirror, "t1", t1.written), "all 25 events once", 40)
        m = mirror.tables["t1"]
        assert not m.gaps
        assert m.received == 25
        assert m.gaps_noticed >= 1 and m.gaps_filled == m.gaps_noticed
        assert m.replays_asked >= 1 and bridge.stats.replays >= 1
    finally:
        bridge.stop()
        mirror.stop()
        store.close()


def test_host_restart_catches_up_from_the_retained_position(broker: Broker, tmp_path: Path) -> None:
    """Events stored while the host could not publish, then a host restart:
    the new bridge reads how far the broker got and publishes the rest."""
    store = Store(tmp_path / "a.sqlite")
    t1 = TableStream(store, "t1")
    mirror = make_mirror(broker.url)
    assert mirror.start()
    first = make_bridge(broker.url, store.path)
    assert first.start()
    try:
        t1.add(10, first)
        first.board_changed("t1", {"table": "t1"})
        wait_for(lambda: received_all(mirror, "t1", t1.written), "10 events")
        wait_for(first.drained, "the retained state")
    finally:
        first.stop()
    t1.add(7)  # stored, never published: the host was cut off, then restarted
    second = make_bridge(broker.url, store.path)
    assert second.start()
    try:
        t1.add(3, second)
        wait_for(lambda: received_all(mirror, "t1", t1.written), "all 20 events once")
        assert not mirror.tables["t1"].gaps
    finally:
        second.stop()
        mirror.stop()
        store.close()


def test_a_table_new_to_the_broker_goes_out_from_its_current_match(
    broker: Broker, tmp_path: Path
) -> None:
    store = Store(tmp_path / "a.sqlite")
    t1 = TableStream(store, "t1")
    t1.add(5)  # an old match, before the bridge was switched on
    start = t1.add_match()
    rest = t1.add(4)
    mirror = make_mirror(broker.url)
    assert mirror.start()
    bridge = make_bridge(broker.url, store.path)
    assert bridge.start()
    try:
        wait_for(lambda: received_all(mirror, "t1", [start, *rest]), "the current match's events")
        assert not mirror.tables["t1"].gaps
    finally:
        bridge.stop()
        mirror.stop()
        store.close()


def test_a_board_that_joins_late_starts_from_the_retained_state(
    broker: Broker, tmp_path: Path
) -> None:
    store = Store(tmp_path / "a.sqlite")
    t1 = TableStream(store, "t1")
    bridge = make_bridge(broker.url, store.path)
    assert bridge.start()
    mirror = make_mirror(broker.url, client_id="late-board")
    try:
        t1.add(12, bridge)
        bridge.board_changed("t1", {"table": "t1", "frame": 3})
        wait_for(bridge.drained, "the host's state")
        assert mirror.start()
        wait_for(lambda: mirror.board("t1") is not None, "the retained board")
        board = mirror.board("t1")
        assert board is not None and board["frame"] == 3
        assert mirror.tables["t1"].pos == Position(7, 12)
        new = t1.add(4, bridge)
        wait_for(lambda: seen_positions(mirror, "t1") == set(new), "the 4 new events")
        assert not mirror.tables["t1"].gaps  # joining late is not a gap
    finally:
        bridge.stop()
        mirror.stop()
        store.close()


def test_the_last_will_marks_a_vanished_host_offline(broker: Broker, tmp_path: Path) -> None:
    """The host's connection dies without a goodbye: the broker publishes its
    last will, and the mirror shows that host's tables offline."""
    store = Store(tmp_path / "a.sqlite")
    TableStream(store, "t1").add(1)
    mirror = make_mirror(broker.url)
    assert mirror.start()
    bridge = make_bridge(broker.url, store.path)
    assert bridge.start()
    try:
        bridge.board_changed("t1", {"table": "t1", "status": {"link": "online"}})
        wait_for(lambda: (mirror.board("t1") or {}).get("status", {}).get("link") == "online", "on")
        # Cut the TCP connection under paho's feet: no DISCONNECT is sent.
        sock = bridge.session.client.socket()
        assert sock is not None
        bridge.session.client.reconnect_delay_set(30, 60)  # stay away while we look
        cast(socket.socket, sock).shutdown(socket.SHUT_RDWR)
        wait_for(
            lambda: mirror.hosts.get("pc-a") is not None and not mirror.hosts["pc-a"].online, "will"
        )
        board = mirror.board("t1")
        assert board is not None
        assert board["status"]["link"] == "offline"
        assert "pc-a" in board["status"]["reason"]
        assert mirror.hosts["pc-a"].reason == "connection lost"
    finally:
        threading.Thread(target=bridge.stop, daemon=True).start()
        mirror.stop()
        store.close()
