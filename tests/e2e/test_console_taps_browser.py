"""The console never misdirects a tap (issue 23), on a phone in a real
headless Chromium against the real daemon: ``/console?table=t3`` is table 3
whatever board arrives first; two phones starting a match at once, the
second is told the table changed; award and concede ask with the names and
the score and say what was done; "Breaks off" offers the names just typed;
the handset language in use is shown."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.chromium import PHONE, expect
from tests.e2e.signing import fill_sign_in
from tests.e2e.sim_driver import TableDriver, simulated_venue
from tests.e2e.test_console_browser import click_and_wait, result, sign_in
from tests.host.harness import TOKEN, DaemonThread, http, make_config

pytestmark = pytest.mark.browser


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[tuple[DaemonThread, TableDriver]]:
    with simulated_venue(tmp_path, seed=11) as v:
        yield v


def start_match(page: Any, names: list[str], best_of: int = 3) -> None:
    page.click("#match-box summary")
    inputs = page.locator("#singles-names input")
    inputs.nth(0).fill(names[0])
    inputs.nth(1).fill(names[1])
    page.fill("#best-of", str(best_of))
    page.click("#match-form button[type=submit]")


def test_the_console_opens_the_table_its_address_names(browser: Any, tmp_path: Path) -> None:
    # Three tables with no controller yet: their boards arrive t1 first.
    cfg = make_config(tmp_path, {t: tmp_path / f"tty-{t}" for t in ("t1", "t2", "t3")})
    daemon = DaemonThread(cfg).start()
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        page.goto(daemon.url + "/console?table=t3")
        expect(page.locator("#signin")).to_be_visible()
        fill_sign_in(page, TOKEN)
        expect(page.locator(".tablebtn")).to_have_count(3)
        expect(page.locator(".tablebtn.selected")).to_contain_text("Table t3")
        expect(page.locator("#summary")).to_contain_text("Table t3")
    finally:
        context.close()
        daemon.stop()


def test_two_phones_start_a_match_at_once_the_second_looks_again(
    browser: Any, phone: Any, venue: tuple[DaemonThread, TableDriver]
) -> None:
    daemon, table = venue
    other_phone = browser.new_context(viewport=PHONE)  # signed in on its own
    a, b = phone.new_page(), other_phone.new_page()
    for page in (a, b):
        sign_in(page, daemon.url)
        expect(page.locator("#summary")).to_contain_text("No match")
    # Phone B's live feed falls silent (it still shows the empty table).
    frozen = {"on": False}

    def feed(ws: Any) -> None:
        server = ws.connect_to_server()
        server.on_message(lambda m: None if frozen["on"] else ws.send(m))

    b.route_web_socket("**/api/live*", feed)
    b.reload()
    expect(b.locator("#work")).to_be_visible()
    expect(b.locator("#summary")).to_contain_text("No match")
    frozen["on"] = True
    start_match(a, ["Ali", "Reza"])
    expect(result(a)).to_have_attribute("data-kind", "done")
    start_match(b, ["Mina", "Sara"])  # B saw no match: no question, and no silent replace
    expect(result(b)).to_have_attribute("data-kind", "error")
    expect(result(b)).to_have_text("the table changed: look again")
    assert table.state()["players"] == ["Ali", "Reza"]
    other_phone.close()


def test_award_and_concede_ask_first_and_say_what_was_done(
    phone: Any, venue: tuple[DaemonThread, TableDriver]
) -> None:
    daemon, table = venue
    status, reply = http(
        daemon.url + "/api/tables/t1/match", {"players": ["Ali", "Reza"], "best_of": 3}, token=TOKEN
    )
    assert status == 200, reply
    table.stroke("red")
    page = phone.new_page()
    sign_in(page, daemon.url)
    expect(page.locator("#summary .sscore").first).to_have_text("1")
    dialog = page.locator("#confirm")
    # Award frame 1 to Reza: the question names him and the score; "no" sends nothing.
    journal = table.journal_next()
    page.click(".sides[data-label=award_frame] button >> nth=1")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Award frame 1 to Reza? It stands Ali 1–0 Reza.")
    page.click("#confirm button[value=no]")
    expect(dialog).to_be_hidden()
    assert table.journal_next() == journal
    page.click(".sides[data-label=award_frame] button >> nth=1")
    click_and_wait(page, "#confirm button[value=yes]")
    expect(result(page)).to_have_text("Frame 1 awarded to Reza, 0–1")
    assert table.state()["frames"] == [0, 1]
    # Concede frame 2: the player at the table concedes, the other wins it.
    expect(page.locator("#summary .facts")).to_contain_text("Frame 2")
    st = table.state()
    at_table = ["Ali", "Reza"][st["striker"]]
    other = ["Ali", "Reza"][1 - st["striker"]]
    page.click("button[data-ev=concede]:not([data-match])")
    expect(dialog).to_contain_text(f"{at_table} concedes frame 2? It stands Ali 0–0 Reza.")
    click_and_wait(page, "#confirm button[value=yes]")
    frames = [0, 1]
    frames[["Ali", "Reza"].index(other)] += 1
    if other == "Reza":
        expect(result(page)).to_have_text("Frame 2 conceded: Reza wins the match 0–2")
    else:
        expect(result(page)).to_have_text(f"Frame 2 conceded: Ali wins it, {frames[0]}–{frames[1]}")
    assert table.state()["frames"] == frames


def test_breaks_off_offers_the_names_typed_and_the_handset_language_is_shown(
    phone: Any, venue: tuple[DaemonThread, TableDriver]
) -> None:
    daemon, _ = venue
    page = phone.new_page()
    sign_in(page, daemon.url, lang="fa")
    expect(page.locator("#work")).to_be_visible()
    page.click("#match-box summary")
    labels = page.locator(".side-label")
    expect(labels.nth(0)).to_have_text("طرف ۱")
    inputs = page.locator("#singles-names input")
    inputs.nth(0).fill("Ali")
    inputs.nth(1).fill("رضا")
    expect(labels.nth(0)).to_have_text("Ali")
    expect(labels.nth(1)).to_have_text("رضا")
    # The handset: the device's own language until one is set, then that one.
    expect(page.locator("#handset-now")).to_have_text("در کار: زبانِ خودِ دستگاه")
    page.click("#handset-box button[data-handset=fa]")
    expect(page.locator("#handset-box button[data-handset=fa]")).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(page.locator("#handset-now")).to_have_text("در کار: فارسی")
