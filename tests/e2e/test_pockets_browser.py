"""The pockets box of the operator console in a real headless Chromium, on a
phone, against the real daemon and the real firmware on the simulated board
(``SimulatedTable``, on a pty): a pocket check started from the console with
the sign-in and its CSRF token, the referee's balls dropped on the table, the
result and the counts per pocket, the log of a sensor/referee disagreement,
and a check refused mid-frame, in English and in Persian."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.chromium import expect, page_errors, shot
from tests.e2e.sim_driver import TableDriver, simulated_venue
from tests.e2e.test_console_browser import click_and_wait, result, sign_in
from tests.host.harness import TOKEN, DaemonThread, http, wait_for

pytestmark = pytest.mark.browser

POCKETS = ["tl", "tr", "ml", "mr", "bl", "br"]


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[tuple[DaemonThread, TableDriver]]:
    with simulated_venue(tmp_path, seed=6) as v:
        yield v


def drop_all(table: TableDriver, dead: str = "bl") -> None:
    for pocket in POCKETS:
        table.drop_white(pocket, beam=pocket != dead)
    table.press("ok")  # the handset's result, closed
    wait_for(lambda: table.check_pocket() is None, what="the check closed")


def new_match(daemon: DaemonThread) -> None:
    status, reply = http(
        daemon.url + "/api/tables/t1/match", {"players": ["Ali", "Reza"], "best_of": 3}, token=TOKEN
    )
    assert status == 200, reply


def test_a_pocket_check_from_the_console_and_the_disagreement_log(
    phone: Any, venue: tuple[DaemonThread, TableDriver]
) -> None:
    daemon, table = venue
    page = phone.new_page()
    errors = page_errors(page)
    sign_in(page, daemon.url)
    expect(page.locator("#work")).to_be_visible()
    page.click("#pockets-box summary")
    box = page.locator("#pockets")
    expect(box).to_contain_text("No pocket check yet.")
    click_and_wait(page, "#pocket-check")
    expect(result(page)).to_have_attribute("data-kind", "done")
    expect(result(page)).to_contain_text("the pocket check runs on the handset")
    expect(page.locator("#check-running")).to_be_visible()
    expect(page.locator("#pocket-check")).to_be_disabled()
    assert table.check_pocket() == 0
    drop_all(table)
    expect(page.locator("#check-running")).to_be_hidden()
    check = box.locator("table.check")
    expect(check.locator("tr[data-pocket=bl]")).to_have_attribute("data-verdict", "faulty")
    expect(check.locator("tr[data-pocket=bl]")).to_contain_text("the beam saw no ball")
    expect(check.locator("tr[data-verdict=ok]")).to_have_count(5)
    expect(box).to_contain_text("from the console")
    health = box.locator("table.health")
    expect(health.locator("tr[data-pocket=tl] td").nth(1)).to_have_text("1")
    expect(health.locator("tr[data-pocket=bl] td").nth(1)).to_have_text("0")
    expect(box.locator(".warn")).to_contain_text("Faulty pockets")
    expect(box).to_contain_text("No disagreement logged.")
    # Play: the sensor's red in tl, taken back from the console and scored
    # as a yellow there: a disagreement, in the log at once.
    new_match(daemon)
    table.stroke("red")
    click_and_wait(page, "button[data-ev=undo]")
    expect(result(page)).to_have_attribute("data-kind", "done")
    click_and_wait(page, "#pot-balls button[data-ball=yellow]")
    click_and_wait(page, "#rest")
    log = box.locator("table.log")
    expect(log.locator("tr[data-kind=changed]")).to_have_count(1)
    row = log.locator("tr[data-kind=changed] td")
    expect(row.nth(1)).to_have_text("top left")
    expect(row.nth(3)).to_contain_text("red")
    expect(row.nth(4)).to_contain_text("yellow")
    shot(page, "console_phone_pockets", full_page=True)
    assert errors == []


def test_a_check_mid_frame_is_refused_in_persian_and_nothing_changes(
    phone: Any, venue: tuple[DaemonThread, TableDriver]
) -> None:
    daemon, table = venue
    status, reply = http(daemon.url + "/api/tables/t1/pocket-check", {}, token=TOKEN)
    assert status == 200, reply
    drop_all(table)
    new_match(daemon)
    table.strike()
    page = phone.new_page()
    errors = page_errors(page)
    sign_in(page, daemon.url, lang="fa")
    expect(page.locator("#work")).to_be_visible()
    page.click("#pockets-box summary")
    box = page.locator("#pockets")
    bl = box.locator("table.check tr[data-pocket=bl]")
    expect(bl).to_contain_text("پایین چپ")
    expect(bl).to_contain_text("خراب")
    expect(box.locator("table.health tr[data-pocket=tl] td").nth(1)).to_have_text("۱")
    journal = table.journal_next()
    click_and_wait(page, "#pocket-check")
    expect(result(page)).to_have_attribute("data-kind", "error")
    expect(result(page)).to_have_text(
        "میز نپذیرفت: بررسی جیب‌ها در میانه‌ی فریم نمی‌شود: پیش از مسابقه یا میان دو فریم"
    )
    assert table.check_pocket() is None and table.journal_next() == journal
    assert table.state()["stroke_open"]
    shot(page, "console_phone_fa_pockets_refused", full_page=True)
    assert errors == []
