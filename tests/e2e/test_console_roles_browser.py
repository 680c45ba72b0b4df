"""The console offers only what the signed-in role may do on the table
chosen (issue 31), in a real headless Chromium on a phone with the real
firmware on a simulated table: the owner every part of the panel, a desk
clerk only the players' names, a referee his own tables and not another's
(host/staff/roles.py, through the sign-in state's ``may`` and ``limited_to``)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e import test_desk_browser
from tests.e2e.chromium import PHONE, page_errors
from tests.e2e.signing import fill_sign_in
from tests.e2e.sim_driver import TableDriver
from tests.e2e.test_boards_browser import setup_match
from tests.host.harness import TOKEN, DaemonThread, http

desk = test_desk_browser.desk  # a venue with a simulated table t1

pytestmark = pytest.mark.browser
PASSWORD = "a long enough password"
PARTS = ["#match-box", "#actions-box", "#keypad-box", "#names-box", "#pockets-box", "#handset-box"]
PEOPLE = {
    "Omid": ({"role": "owner"}, PARTS),
    "Dina": ({"role": "desk"}, ["#names-box"]),
    "Reza": ({"role": "referee", "tables": ["t1"]}, PARTS),
    "Rana": ({"role": "referee", "tables": ["t9"]}, []),  # another table's referee
}


@pytest.mark.parametrize("person", list(PEOPLE))
def test_the_console_offers_what_the_role_may_do_on_this_table(
    browser: Any, desk: tuple[DaemonThread, TableDriver], person: str
) -> None:
    d, _ = desk
    what, offered = PEOPLE[person]
    status, body = http(
        d.url + "/api/staff/users", {"name": person, "password": PASSWORD, **what}, TOKEN
    )
    assert status == 200, body
    setup_match(d, ["Ali", "Reza"], best_of=3)
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors = page_errors(page)
    page.set_default_timeout(60_000)
    page.goto(d.url + "/console?table=t1")
    fill_sign_in(page, PASSWORD, name=person)
    expect(page.locator("#panel")).to_be_visible()
    expect(page.locator("#summary")).not_to_be_empty()
    for part in PARTS:
        if part in offered:
            expect(page.locator(part)).to_be_visible()
        else:
            expect(page.locator(part)).to_be_hidden()
    context.close()
    assert errors == []
