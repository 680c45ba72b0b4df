"""``baulk board --mqtt URL`` as its own process: the boards from the broker
alone, a clear refusal of wrong credentials, malformed input survived."""

from __future__ import annotations

import pytest

from baulk.host.mqtt import wire
from baulk.host.mqtt.wire import BridgeEvent, Position
from tests.mqtt.broker import Broker
from tests.mqtt.helpers import VENUE, Process, RawClient, get_json, get_text, wait_for

pytestmark = pytest.mark.broker


def _board(table: str, score: int) -> dict[str, object]:
    return {
        "table": table,
        "name": f"Table {table}",
        "status": {"link": "online"},
        "state": {"scores": [score, 0]},
    }


def test_board_serves_tables_from_the_broker_and_survives_bad_input(broker: Broker) -> None:
    raw = RawClient(broker.url)
    board = Process(
        [
            "board",
            "--mqtt",
            broker.url,
            "--venue",
            VENUE,
            "--port",
            "0",
            "--client-id",
            "board-under-test",
        ]
    )
    try:
        url = board.url()
        raw.publish(
            f"baulk/{VENUE}/pc-a/t1/state",
            wire.state_payload(VENUE, "pc-a", "t1", Position(3, 1), 0, _board("t1", 4)),
            retain=True,
        )
        raw.publish(
            f"baulk/{VENUE}/pc-a/t1/events",
            wire.event_payload(
                VENUE, "pc-a", BridgeEvent("t1", Position(3, 2), 0, {"ev": "rest"}), Position(3, 1)
            ),
        )
        raw.publish(f"baulk/{VENUE}/pc-a/t1/events", b"{broken")
        raw.publish(f"baulk/{VENUE}/pc-a/t2/state", b'{"v": 1}')
        raw.publish(
            f"baulk/{VENUE}/pc-b/t3/state",
            wire.state_payload(VENUE, "pc-b", "t3", None, 0, _board("t3", 9)),
            retain=True,
        )

        def both() -> bool:
            return bool(get_json(f"{url}/api")["tables"] == ["t1", "t3"])

        wait_for(both, "t1 and t3 on the board")
        b1 = get_json(f"{url}/api/tables/t1")["board"]
        assert b1["state"]["scores"] == [4, 0]
        assert b1["mqtt"]["host"] == "pc-a"
        wait_for(lambda: get_json(f"{url}/api/mqtt")["stats"]["malformed"] == 2, "2 malformed")
        info = get_json(f"{url}/api/mqtt")
        assert info["tables"]["t1"]["received"] == 1
        assert board.proc.poll() is None  # still serving
        assert "skipped a malformed message on baulk/club/pc-a/t1/events" in board.err
        assert "skipped a malformed message on baulk/club/pc-a/t2/state" in board.err
        assert "<html" in get_text(f"{url}/venue").lower()
    finally:
        assert board.stop() == 0
        raw.close()


def test_board_with_wrong_credentials_exits_with_a_clear_error(secured_broker: Broker) -> None:
    board = Process(["board", "--mqtt", secured_broker.url_for("scorer", "nope"), "--port", "0"])
    code = board.wait(30)
    assert code == 2
    assert "baulk board:" in board.err
    assert "refused the user name or password" in board.err
    assert "nope" not in board.err  # the password is never printed


def test_board_needs_a_broker() -> None:
    board = Process(["board", "--port", "0"])
    assert board.wait(30) == 2
    assert "--mqtt URL" in board.err
    bad = Process(["board", "--mqtt", "http://x", "--port", "0"])
    assert bad.wait(30) == 2
    assert "must start with mqtt://" in bad.err
