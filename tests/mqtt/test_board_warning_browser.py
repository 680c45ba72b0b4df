"""What the room sees when a second host sends a table's id: ``baulk board``
(its own process) fed by a real Mosquitto, the table board in a real headless
Chromium, in English and in Persian.  The owner's board stays up, the
stranger's "147–0 HACKED" never shows, and a warning names the stranger."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from baulk.firmware.engine import Engine
from baulk.host.mqtt import wire
from tests.e2e.chromium import chromium, expect, page_errors, shot
from tests.mqtt.broker import Broker
from tests.mqtt.helpers import VENUE, Process, RawClient, get_json, wait_for

pytestmark = [pytest.mark.broker, pytest.mark.browser]


def board_of(names: list[str], pots: int) -> dict[str, Any]:
    """A table's board as its host draws it: the rules engine's state after
    ``pots`` reds, each followed by the black."""
    e = Engine()
    e.apply({"ev": "match", "players": names, "best_of": 3})
    for _ in range(pots):
        for ball in ("red", "black"):
            for ev in (
                {"ev": "strike"},
                {"ev": "pot", "ball": ball, "pocket": "tl"},
                {"ev": "rest"},
            ):
                e.apply(ev)
            if ball == "red":
                e.apply({"ev": "nominate", "ball": "black"})
    return {
        "table": "t1",
        "name": "Table 1",
        "status": {"link": "online"},
        "match": {"names": names, "best_of": 3},
        "state": e.state(),
    }


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def test_a_second_hosts_table_is_refused_and_the_room_is_told(broker: Broker, browser: Any) -> None:
    raw = RawClient(broker.url)
    board = Process(["board", "--mqtt", broker.url, "--venue", VENUE, "--port", "0"])
    try:
        url = board.url()
        raw.publish(
            wire.host_topic(VENUE, "pc-a"),
            wire.status_payload(VENUE, "pc-a", True, "online", 0, ["t1"]),
            retain=True,
        )
        raw.publish(
            wire.table_topic(VENUE, "pc-a", "t1", wire.STATE),
            wire.state_payload(VENUE, "pc-a", "t1", None, 0, board_of(["Ali", "Reza"], 2)),
            retain=True,
        )
        raw.publish(
            wire.table_topic(VENUE, "pc-x", "t1", wire.STATE),
            wire.state_payload(VENUE, "pc-x", "t1", None, 0, board_of(["HACKED", "HACKED"], 15)),
            retain=True,
        )
        wait_for(lambda: get_json(f"{url}/api/mqtt")["stats"]["refused"] == 1, "pc-x's t1 refused")
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        try:
            page = context.new_page()
            errors = page_errors(page)
            page.goto(f"{url}/table/t1")
            expect(page.locator("#name0")).to_have_text("Ali")
            expect(page.locator("#score0")).to_have_text("16")  # pc-a's, not pc-x's 120
            expect(page.locator("#mqtt-refused")).to_have_text(
                "Host pc-x also sends this table's id: what it sends is not shown."
            )
            assert "HACKED" not in page.locator("body").inner_text()
            shot(page, "mqtt-refused-en")
            page.goto(f"{url}/table/t1?lang=fa")
            warning = page.locator("#mqtt-refused")
            expect(warning).to_contain_text("هم شناسهٔ این میز را می‌فرستد")
            expect(warning.locator("bdi")).to_have_text("pc-x")  # the Latin id isolated
            assert "HACKED" not in page.locator("body").inner_text()
            shot(page, "mqtt-refused-fa")
            assert errors == []
        finally:
            context.close()
    finally:
        assert board.stop() == 0
        raw.close()
