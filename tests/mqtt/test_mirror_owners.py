"""Whose table it is, message by message in the orders a broker may deliver
retained messages to a board that joins late (no broker needed: the mirror is
fed the messages as paho would hand them over)."""

from __future__ import annotations

import itertools

import pytest
from paho.mqtt.client import MQTTMessage

from baulk.host.mqtt import wire
from baulk.host.mqtt.connection import parse_url
from baulk.host.mqtt.mirror import BrokerMirror

VENUE = "club"


def message(topic: str, payload: bytes) -> MQTTMessage:
    m = MQTTMessage(topic=topic.encode())
    m.payload = payload
    return m


def state(host: str, table: str, score: int) -> MQTTMessage:
    board = {"table": table, "status": {"link": "online"}, "state": {"scores": [score, 0]}}
    payload = wire.state_payload(VENUE, host, table, None, 0, board)
    return message(wire.table_topic(VENUE, host, table, wire.STATE), payload)


def status(host: str, online: bool, tables: list[str]) -> MQTTMessage:
    payload = wire.status_payload(VENUE, host, online, "online" if online else "gone", 0, tables)
    return message(wire.host_topic(VENUE, host), payload)


def mirror() -> BrokerMirror:
    return BrokerMirror(parse_url("mqtt://127.0.0.1:1", env={}), VENUE, client_id="unit")


def scores(m: BrokerMirror, table: str) -> list[int] | None:
    board = m.board(table)
    return board["state"]["scores"] if board else None


@pytest.mark.parametrize(
    "order",
    list(itertools.permutations(range(3))),
)
def test_the_host_whose_status_lists_the_table_has_it_in_any_order(order: tuple[int, ...]) -> None:
    """pc-a says it serves t1; a stray retained board of pc-b for t1 may come
    before or after pc-a's own: the board shows pc-a's and warns of pc-b."""
    msgs = [state("pc-b", "t1", 147), state("pc-a", "t1", 5), status("pc-a", True, ["t1"])]
    m = mirror()
    for i in order:
        m._on_message(msgs[i])
    assert scores(m, "t1") == [5, 0]
    board = m.board("t1")
    assert board is not None
    assert board["mqtt"]["host"] == "pc-a" and board["mqtt"]["refused_hosts"] == ["pc-b"]
    assert m.stats.malformed == 0


def test_a_host_offline_keeps_its_tables_and_no_other_host_takes_them() -> None:
    m = mirror()
    for msg in (status("pc-a", True, ["t1"]), state("pc-a", "t1", 5)):
        m._on_message(msg)
    # pc-a vanishes (its will, which names its tables); pc-b claims t1 in its
    # own status and publishes a board for it.
    m._on_message(status("pc-a", False, ["t1"]))
    m._on_message(status("pc-b", True, ["t1"]))
    m._on_message(state("pc-b", "t1", 147))
    assert scores(m, "t1") == [5, 0]
    board = m.board("t1")
    assert board is not None and board["status"]["link"] == "offline"
    assert "host pc-a is offline" in board["status"]["reason"]
    # An older host's will names no tables: pc-a's list stays as it was.
    m._on_message(status("pc-a", False, []))
    m._on_message(state("pc-b", "t1", 148))
    assert scores(m, "t1") == [5, 0]
    # pc-a is back with other tables: it gave t1 up, and pc-b, which lists
    # it, has it now, with its latest board.
    m._on_message(status("pc-a", True, ["t2"]))
    assert scores(m, "t1") == [148, 0]
    board = m.board("t1")
    assert board is not None and board["mqtt"]["host"] == "pc-b"
    assert board["mqtt"]["refused_hosts"] == []


def test_a_cleared_retained_state_gives_the_table_up() -> None:
    m = mirror()
    m._on_message(state("pc-old", "t1", 1))
    m._on_message(state("pc-new", "t1", 2))
    assert scores(m, "t1") == [1, 0]  # first heard, nobody's status says otherwise
    m._on_message(message(wire.table_topic(VENUE, "pc-old", "t1", wire.STATE), b""))
    assert scores(m, "t1") == [2, 0]
    board = m.board("t1")
    assert board is not None and board["mqtt"]["host"] == "pc-new"


def test_a_flood_of_table_ids_is_bounded() -> None:
    m = mirror()
    for i in range(1100):
        m._on_message(state("pc-x", f"t{i}", 0))
    assert len(m.tables) == 1000
    assert m.stats.malformed == 100
