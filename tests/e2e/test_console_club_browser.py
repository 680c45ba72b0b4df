"""The console's club side in a real headless Chromium: names offered from
the player registry as the operator types, the referee's handset language
set per table, and what needs the desk (a table in play with no session);
and the table board saying so when the venue PC cannot save.  Against the
real daemon and a device peer running the real rules engine."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from baulk.host.club import tariffs
from baulk.host.sim.matches import generate_match
from baulk.protocol import messages
from tests.e2e.chromium import expect, page_errors
from tests.e2e.test_console_browser import result, sign_in
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, make_config, wait_for
from tests.host.store.test_store_failures import fill_the_disk

pytestmark = pytest.mark.browser

BILLING = {
    "billing": {"timezone": "UTC", "venue": "Club"},
    "tariff": [{"name": "standard", "currency": "GBP", "per_hour": 600}],
}


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[tuple[DaemonThread, DevicePeer]]:
    peer = DevicePeer("t1", link_path=tmp_path / "ttyT1").start()
    cfg = make_config(tmp_path, {"t1": tmp_path / "ttyT1"})
    cfg = dataclasses.replace(cfg, billing=tariffs.parse(BILLING, {"t1"}))
    daemon = DaemonThread(cfg).start()
    wait_for(lambda: daemon.board("t1")["status"]["link"] == "online", what="table online")
    yield daemon, peer
    daemon.stop()
    peer.stop()


def play_a_match(daemon: DaemonThread, peer: DevicePeer, players: list[str]) -> None:
    status, reply = http(
        daemon.url + "/api/tables/t1/match", {"players": players, "best_of": 1}, token=TOKEN
    )
    assert status == 200, reply
    peer.play([{"ev": "strike"}, {"ev": "pot", "ball": "red"}, {"ev": "rest"}])
    wait_for(lambda: daemon.board("t1")["state"]["scores"] == [1, 0], what="the pot")


def test_names_come_from_the_registry_as_the_operator_types(
    phone: Any, venue: tuple[DaemonThread, DevicePeer]
) -> None:
    daemon, peer = venue
    play_a_match(daemon, peer, ["Mohammad Rezaei", "Sara"])
    wait_for(lambda: http(daemon.url + "/api/players?q=moh")[1]["players"], what="the registry")
    page = phone.new_page()
    errors = page_errors(page)
    sign_in(page, daemon.url)
    expect(page.locator("#work")).to_be_visible()
    page.click("#match-box summary")
    first = page.locator("#singles-names input").first
    assert first.get_attribute("list") == "known-players"
    first.fill("moh")
    expect(page.locator("#known-players option")).to_have_count(1)
    assert page.get_attribute("#known-players option", "value") == "Mohammad Rezaei"
    assert errors == []


def test_the_handset_language_is_set_from_the_console(
    phone: Any, venue: tuple[DaemonThread, DevicePeer]
) -> None:
    daemon, peer = venue
    page = phone.new_page()
    sign_in(page, daemon.url, lang="fa")
    expect(page.locator("#panel")).to_be_visible()
    page.click("#handset-box button[data-handset=fa]")
    expect(result(page)).to_have_attribute("data-kind", "done")
    expect(page.locator("#handset-box button[data-handset=fa]")).to_have_attribute(
        "aria-pressed", "true"
    )
    wait_for(
        lambda: [b for t, _, b in list(peer.commands) if t == messages.SETTINGS],
        what="the settings at the device",
    )
    assert http(daemon.url + "/api/tables/t1/handset")[1]["lang"] == "fa"


def test_a_table_in_play_with_no_session_is_shown_to_the_operator(
    phone: Any, venue: tuple[DaemonThread, DevicePeer]
) -> None:
    daemon, peer = venue
    play_a_match(daemon, peer, ["Ali", "Reza"])
    page = phone.new_page()
    sign_in(page, daemon.url)
    expect(page.locator("#alerts")).to_be_visible(timeout=30_000)
    expect(page.locator("#alert-list li.no_session")).to_contain_text("no session open")


def test_the_table_board_says_when_the_venue_pc_cannot_save(
    browser: Any, venue: tuple[DaemonThread, DevicePeer]
) -> None:
    daemon, peer = venue
    page = browser.new_page()
    page.goto(daemon.url + "/table/t1?lang=fa")
    expect(page.locator("#store-failing")).to_be_hidden()
    daemon.flush()
    fill_the_disk(daemon, None)
    events = generate_match(3, best_of=3)[:300]  # more than the file's free room
    peer.play(events)
    try:
        expect(page.locator("#store-failing")).to_contain_text("ذخیره", timeout=30_000)
    finally:
        fill_the_disk(daemon, 1 << 30)
    expect(page.locator("#store-failing")).to_be_hidden(timeout=30_000)
    wait_for(lambda: peer.acked() == len(events), what="every event stored after all")
    page.close()
