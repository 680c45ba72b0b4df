"""The desk always says what happened, in a real headless Chromium on a
phone, in English and in Persian: a refusal stays through the cards'
refreshes until the clerk dismisses it or taps again; of two phones that
tap on the same view, the one that lost is told, and no older success of
its own stays on screen; an offline phone shows a banner at once, and a tap
made offline says no answer came (host/web/static/js/answer.js, which the
console shares)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e import test_desk_browser
from tests.e2e.chromium import PHONE
from tests.e2e.sim_driver import TableDriver
from tests.e2e.test_desk_browser import new_page, sign_in
from tests.host.harness import DaemonThread

desk = test_desk_browser.desk  # the desk page's venue, a fixture of its own there

pytestmark = pytest.mark.browser

WORDS = {
    "en": {
        "changed": "the table changed: look again",
        "tea_1": "Tea added to session 1",
        "no_answer": "No answer from the server",
        "offline": "Offline: this phone cannot reach the server",
        "items_20": "20,000 Toman",
        "items_40": "40,000 Toman",
        "items_60": "60,000 Toman",
    },
    "fa": {
        "changed": "میز تغییر کرده است: دوباره نگاه کنید",
        "tea_1": "چای به جلسهٔ ۱ افزوده شد",
        "no_answer": "پاسخی از سرور نیامد",
        "offline": "قطع: این گوشی به سرور نمی‌رسد",
        "items_20": "۲۰٬۰۰۰ تومان",
        "items_40": "۴۰٬۰۰۰ تومان",
        "items_60": "۶۰٬۰۰۰ تومان",
    },
}


@pytest.fixture(params=["en", "fa"])
def lang(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def desk_page(browser: Any, daemon: DaemonThread, lang: str) -> Any:
    page = new_page(browser, viewport=PHONE, has_touch=True)
    page.goto(daemon.url + "/desk" + ("?lang=fa" if lang == "fa" else ""))
    sign_in(page)
    return page


def refreshed(page: Any, times: int = 2) -> None:
    """Wait until the cards were drawn ``times`` more times."""
    version = int(page.evaluate("Number(document.body.dataset.version || 0)"))
    page.wait_for_function(f"Number(document.body.dataset.version) >= {version + times}")


def hold_view(page: Any) -> None:
    """The phone's refreshes answer the view as it is now, as a phone whose
    look at the desk is older than another phone's tap (its refresh slow)."""
    held: dict[str, Any] = {}

    def answer(route: Any) -> None:
        if "body" not in held:
            r = route.fetch()
            held["body"], held["headers"] = r.body(), r.headers
        route.fulfill(status=200, body=held["body"], headers=held["headers"])

    page.route("**/api/desk?*", answer)
    refreshed(page, 1)


def items(page: Any, text: str) -> None:
    expect(page.locator("#table-t1 dd.items")).to_have_text(text)


def add_tea(page: Any) -> None:
    page.click("#table-t1 button.add-item")
    page.click("#table-t1 .menu button.item")


def test_a_refusal_stays_and_the_phone_that_lost_is_told(
    browser: Any,
    desk: tuple[DaemonThread, TableDriver],
    lang: str,
) -> None:
    daemon, _ = desk
    w = WORDS[lang]
    a, b = desk_page(browser, daemon, lang), desk_page(browser, daemon, lang)
    a.click("#table-t1 button.open")
    b.wait_for_selector("#table-t1 button.close")
    # Phone B sells a tea: it says so.
    add_tea(b)
    expect(b.locator("#done")).to_contain_text(w["tea_1"])
    items(b, w["items_20"])
    items(a, w["items_20"])
    # Both phones look at the same bill, and tap at the same moment: one
    # tea goes on it, the other phone is told the table changed.
    hold_view(a)
    hold_view(b)
    add_tea(a)
    add_tea(b)
    for page in (a, b):  # each tap said "Sending…" and then its answer
        page.wait_for_function("document.getElementById('done').dataset.kind !== 'busy'")
    told = [p for p in (a, b) if w["changed"] in (p.text_content("#error") or "")]
    won = [p for p in (a, b) if w["tea_1"] in (p.text_content("#done") or "")]
    assert len(told) == 1 and len(won) == 1 and told != won, "one tea, one phone told"
    loser = told[0]
    # The loser's refusal stays through its refreshes, the real ones too.
    a.unroute("**/api/desk?*")
    b.unroute("**/api/desk?*")
    items(a, w["items_40"])
    items(b, w["items_40"])
    refreshed(loser, 2)
    expect(loser.locator("#error")).to_contain_text(w["changed"])
    assert w["tea_1"] not in (loser.text_content("#done") or "")
    # Dismissed, it goes.
    loser.click("#error-dismiss")
    expect(loser.locator("#error")).to_have_text("")
    # Phone B's Close loses to phone A's tea: B is told, and its own older
    # "Tea added" is not left on screen.
    add_tea(b)
    expect(b.locator("#done")).to_contain_text(w["tea_1"])
    items(b, w["items_60"])
    hold_view(b)
    items(a, w["items_60"])
    add_tea(a)
    expect(a.locator("#done")).to_contain_text(w["tea_1"])
    b.click("#table-t1 button.close")
    b.wait_for_selector("#ask[open]")
    b.click("#ask-yes")
    expect(b.locator("#error")).to_contain_text(w["changed"])
    assert (b.text_content("#done") or "") == ""
    b.unroute("**/api/desk?*")
    refreshed(b, 2)
    expect(b.locator("#error")).to_contain_text(w["changed"])
    assert b.get_attribute("#table-t1", "data-session") == "1"  # not closed
    # Acting again takes the refusal away.
    add_tea(b)
    expect(b.locator("#done")).to_contain_text(w["tea_1"])
    expect(b.locator("#error")).to_have_text("")
    a.context.close()
    b.context.close()


def test_an_offline_phone_shows_it_and_a_tap_made_offline_says_so(
    browser: Any,
    desk: tuple[DaemonThread, TableDriver],
    lang: str,
) -> None:
    daemon, _ = desk
    w = WORDS[lang]
    page = desk_page(browser, daemon, lang)
    context = page.context
    page.click("#table-t1 button.open")
    add_tea(page)
    expect(page.locator("#done")).to_contain_text(w["tea_1"])
    expect(page.locator("#offline")).to_be_hidden()
    context.set_offline(True)
    expect(page.locator("#offline")).to_be_visible()
    expect(page.locator("#offline")).to_contain_text(w["offline"])
    add_tea(page)
    expect(page.locator("#error")).to_contain_text(w["no_answer"])
    assert w["tea_1"] not in (page.text_content("#done") or "")  # no older success left
    # The refreshes that fail leave the answer as it is.
    page.wait_for_function("document.body.classList.contains('offline')")
    expect(page.locator("#error")).to_contain_text(w["no_answer"])
    context.set_offline(False)
    expect(page.locator("#offline")).to_be_hidden()
    add_tea(page)
    expect(page.locator("#done")).to_contain_text(w["tea_1"])
    expect(page.locator("#error")).to_have_text("")
    items(page, w["items_40"])
    context.close()
