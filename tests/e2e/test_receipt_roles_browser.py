"""The receipt page and the desk offer only what the signed-in role may do,
and the owner undoes a void there (issue 31), in a real headless Chromium on
a phone, in English and Persian, with the real firmware on a simulated table
and the real daemon: the owner takes a void back with a reason, is asked
first and told what was done; a desk clerk is offered no void, no undoing of
one and no correction (the server would refuse her each: host/staff/roles.py),
and not the owner's page."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e import test_desk_browser
from tests.e2e.chromium import PHONE, page_errors
from tests.e2e.signing import fill_sign_in
from tests.e2e.sim_driver import TableDriver
from tests.e2e.test_desk_browser import latin_outside_names, new_page
from tests.host.harness import TOKEN, DaemonThread, http

desk = test_desk_browser.desk  # the desk page's venue, a fixture of its own there

pytestmark = pytest.mark.browser
PASSWORD = "the owner's long password"
WORDS = {
    "en": {
        "unvoid": "Undo the void",
        "ask": "Undo the void of session 1 on Table t1?",
        "done": "The void of session 1 on Table t1 is undone: {total} to pay.",
        "undone": "void undone: ",
        "not_yours": "This page is the owner's, and Dina is desk.",
        "voided": "Session 1 on Table t1 is void: nothing to pay. Undo the void",
    },
    "fa": {
        "unvoid": "برگرداندن ابطال",
        "ask": "ابطال جلسهٔ ۱ روی Table t1 برگردانده شود؟",
        "done": "ابطال جلسهٔ ۱ روی Table t1 برگردانده شد: {total} پرداختنی است.",
        "undone": "ابطال پس گرفته شد: ",
        "not_yours": "این صفحه از آنِ مالک است و Dina پیشخوان است.",
        "voided": "جلسهٔ ۱ روی Table t1 باطل شد: پرداختی ندارد. برگرداندن ابطال",
    },
}


def q(lang: str) -> str:
    return "?lang=fa" if lang == "fa" else ""


def closed_session(d: DaemonThread) -> dict[str, Any]:
    """Session 1 opened and closed by the operator (the owner): its answer."""
    status, body = http(d.url + "/api/tables/t1/session", {}, TOKEN)
    assert status == 200, body
    status, body = http(d.url + "/api/sessions/1/close", {}, TOKEN)
    assert status == 200, body
    return dict(body)


def void(d: DaemonThread) -> None:
    status, body = http(d.url + "/api/sessions/1/void", {"reason": "wrong table"}, TOKEN)
    assert status == 200 and body["bill"]["state"] == "void", body


def staff(d: DaemonThread) -> None:
    for person in (
        {"name": "Omid", "role": "owner", "password": PASSWORD},
        {"name": "Dina", "role": "desk", "password": PASSWORD, "pin": "2468"},
    ):
        status, body = http(d.url + "/api/staff/users", person, TOKEN)
        assert status == 200, body


def receipt_page(browser: Any, d: DaemonThread, lang: str, name: str) -> Any:
    page = new_page(browser, viewport=PHONE, has_touch=True)
    page.set_default_timeout(60_000)
    page.goto(d.url + "/desk/receipt/1" + q(lang))
    if name == "Dina":
        fill_sign_in(page, "2468", name=name, kind="pin")
    else:
        fill_sign_in(page, PASSWORD, name=name)
    page.wait_for_selector("#receipt .total")
    return page


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_owner_undoes_a_void_with_a_reason(
    browser: Any, desk: tuple[DaemonThread, TableDriver], lang: str
) -> None:
    d, _ = desk
    w = WORDS[lang]
    staff(d)
    total = closed_session(d)["receipt"][lang]["total"]
    void(d)
    page = receipt_page(browser, d, lang, "Omid")
    errors = page_errors(page)
    expect(page.locator("#receipt")).to_have_attribute("data-state", "void")
    expect(page.locator("#void")).to_be_hidden()
    expect(page.locator("#unvoid")).to_have_text(w["unvoid"])
    # Asked first, with a reason; cancelled, nothing changes.
    page.click("#unvoid")
    expect(page.locator("#ask-text")).to_contain_text(w["ask"])
    expect(page.locator("#ask-reason")).to_be_visible()
    page.click("#ask-no")
    expect(page.locator("#receipt")).to_have_attribute("data-state", "void")
    page.click("#unvoid")
    page.fill("#ask-reason", "the right table after all")
    page.click("#ask-yes")
    expect(page.locator("#done")).to_have_text(w["done"].format(total=total))
    expect(page.locator("#receipt")).to_have_attribute("data-state", "closed")
    expect(page.locator("#receipt .total td")).to_have_text(total)
    expect(page.locator("#unvoid")).to_be_hidden()
    expect(page.locator("#void")).to_be_visible()
    history = page.locator("#history li.done").all_text_contents()
    assert any(w["undone"] + "the right table after all" in h and "Omid" in h for h in history)
    if lang == "fa":
        assert latin_outside_names(page, "main") == []
    assert errors == []


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_desk_clerk_is_offered_only_the_desks_work(
    browser: Any, desk: tuple[DaemonThread, TableDriver], lang: str
) -> None:
    d, _ = desk
    staff(d)
    closed_session(d)
    page = receipt_page(browser, d, lang, "Dina")
    errors = page_errors(page)
    # a closed bill: reopen is hers; a void, a correction or a refund is not
    expect(page.locator("#reopen")).to_be_visible()
    expect(page.locator("#void")).to_be_hidden()
    expect(page.locator("#correct")).to_be_hidden()
    void(d)
    page.reload()
    expect(page.locator("#receipt")).to_have_attribute("data-state", "void")
    expect(page.locator("#unvoid")).to_be_hidden()
    # the desk: a session she may close, sell to, but not void
    status, body = http(d.url + "/api/tables/t1/session", {}, TOKEN)
    assert status == 200, body
    page.goto(d.url + "/desk" + q(lang))
    expect(page.locator("#table-t1 button.close")).to_be_visible()
    expect(page.locator("#table-t1 button.add-item")).to_be_visible()
    expect(page.locator("#table-t1 button.void")).to_have_count(0)
    # the owner, on the same desk, is offered the void
    owner = new_page(browser, viewport=PHONE)
    owner.set_default_timeout(60_000)
    owner.goto(d.url + "/desk" + q(lang))
    fill_sign_in(owner, PASSWORD, name="Omid")
    expect(owner.locator("#table-t1 button.void")).to_be_visible()
    # the owner's page: not offered to her, and told why in her language
    page.goto(d.url + "/staff" + q(lang))
    expect(page.locator("#error")).to_have_text(WORDS[lang]["not_yours"])
    expect(page.locator("#work")).to_be_hidden()
    assert errors == []


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_owner_undoes_a_void_from_the_desk_card_at_once(
    browser: Any, desk: tuple[DaemonThread, TableDriver], lang: str
) -> None:
    """A void tapped on the desk by mistake is taken back in the same
    answer: "Undo the void", asked with a reason; the bill stands again as
    it stood at the void, and the answer says what it comes to."""
    d, _ = desk
    w = WORDS[lang]
    staff(d)
    status, body = http(d.url + "/api/tables/t1/session", {}, TOKEN)
    assert status == 200, body
    page = new_page(browser, viewport=PHONE, has_touch=True)
    page.set_default_timeout(60_000)
    errors = page_errors(page)
    page.goto(d.url + "/desk" + q(lang))
    fill_sign_in(page, PASSWORD, name="Omid")
    card = page.locator("#table-t1")
    card.locator("button.void").click()
    page.fill("#ask-reason", "wrong table")
    page.click("#ask-yes")
    expect(page.locator("#done")).to_have_text(w["voided"])
    expect(card.locator("button.open")).to_be_visible()  # the table is free
    page.locator("#done button.unvoid").click()
    expect(page.locator("#ask-text")).to_contain_text(w["ask"])
    page.fill("#ask-reason", "the right table after all")
    page.click("#ask-yes")
    # the answer first (the tap's round trip), then the bill it answered for
    expect(page.locator("#done")).to_contain_text(w["done"].split("{total}")[0])
    status, body = http(d.url + "/api/sessions/1", None, TOKEN)
    # The bill stands as the void left it, closed at the void (BILLING.md):
    # the table stays free, and Reopen on the receipt runs it on.
    assert status == 200 and body["bill"]["state"] == "closed", body
    expect(page.locator("#done")).to_have_text(
        w["done"].format(total=body["receipt"][lang]["total"])
    )
    expect(card.locator("button.open")).to_be_visible()
    expect(page.locator("#done button.unvoid")).to_have_count(0)
    if lang == "fa":
        assert latin_outside_names(page, "main") == []
    assert errors == []
