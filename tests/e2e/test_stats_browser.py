"""The player page and the match report's statistics and ball accounting in
a real headless Chromium, in English and in Persian, over the hand-worked
match (tests/host/hand_worked_match.py) played by a device peer into the
real daemon.

Screenshots go to tests/e2e/artifacts/ (git-ignored).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from tests.e2e.test_boards_browser import CHROMIUM, CHROMIUM_ARGS, PERSIAN_DIGITS, shot
from tests.host.device_peer import DevicePeer
from tests.host.hand_worked_match import ALI, EVENTS, REZA
from tests.host.harness import DaemonThread, http, make_config, wait_for

pytestmark = pytest.mark.browser

playwright_api = pytest.importorskip("playwright.sync_api")

# Text a Persian page shows outside a <bdi> (a name, an id) that has a Latin
# letter or digit: there must be none.
LATIN_OUTSIDE_BDI = """() => {
  const bad = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const node = walk.currentNode;
    if (!/[A-Za-z0-9]/.test(node.textContent)) continue;
    const el = node.parentElement;
    // names, and the link to the other language, which says "English"
    if (el.closest("bdi") || el.closest("svg title") || el.closest("a.lang")) continue;
    bad.push(node.textContent.trim());
  }
  return bad;
}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A daemon whose store holds the hand-worked match: (base URL, match id)."""
    tmp = tmp_path_factory.mktemp("stats")
    peer = DevicePeer("t1", link_path=tmp / "ttyTABLE1").start()
    daemon = DaemonThread(make_config(tmp, {"t1": tmp / "ttyTABLE1"})).start()
    try:
        wait_for(lambda: daemon.board("t1")["status"]["link"] == "online", what="online")
        for ev, src in EVENTS:
            peer.inject(ev, src)
        wait_for(lambda: peer.acked() == len(EVENTS), what="every event acked")
        daemon.flush()
        status, body = http(daemon.url + "/api/matches?table=t1")
        assert status == 200, body
        yield daemon.url, body["matches"][0]["match_id"]
    finally:
        daemon.stop()
        peer.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    profile = tempfile.mkdtemp(prefix="baulk-chromium-")
    with playwright_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1280, "height": 1000},
            bypass_csp=True,  # page.evaluate needs it; the pages themselves run no script
        )
        yield context
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


def figure(page: Any, label: str) -> str:
    """The cell of the figures table in the row headed ``label``."""
    row = page.locator("table.figures tr", has=page.locator(f"th:text-is('{label}')"))
    return str(row.locator("td").first.text_content())


def assert_persian(page: Any) -> None:
    assert page.evaluate("document.documentElement.dir") == "rtl"
    assert page.evaluate("getComputedStyle(document.body).direction") == "rtl"
    assert page.evaluate(LATIN_OUTSIDE_BDI) == []
    assert set(page.text_content("main") or "") & PERSIAN_DIGITS


def test_player_page_in_english(browser: Any, site: tuple[str, str]) -> None:
    url, _ = site
    page = browser.new_page()
    page.goto(url + "/player/" + quote("ALI  reza"))  # any spelling of the name
    assert page.text_content("h1 bdi") == ALI
    assert page.text_content("#matches") == "1"
    assert page.text_content("#matches-won") == "0"
    assert figure(page, "Shot time (median)") == "10 s"
    assert figure(page, "Visits") == "4"
    assert figure(page, "Points per visit") == "5.5"
    assert figure(page, "Breaks of 20 and over") == "1"
    assert figure(page, "Time per frame (average)") == "2:40"
    assert "push stroke × 1 (4)" in figure(page, "Fouls by kind")
    bars = page.locator("ul.histogram li .n").all_text_contents()
    assert bars == ["0", "2", "5", "0", "2", "0", "0", "0"]
    assert page.locator("#matches-list tbody tr").count() == 1
    shot(page, "player_page", full_page=True)
    page.close()


def test_player_page_in_persian(browser: Any, site: tuple[str, str]) -> None:
    url, _ = site
    page = browser.new_page()
    page.goto(url + "/player/" + quote(REZA) + "?lang=fa")
    assert_persian(page)
    assert page.text_content("h1 bdi") == REZA
    assert page.text_content("#matches-won") == "۱"
    assert figure(page, "زمان ضربه (میانه)") == "۸ ثانیه"
    assert figure(page, "امتیاز در هر نوبت") == "۶"
    assert "توپ سفید در جیب افتاد" in figure(page, "خطاها به تفکیک نوع")
    # The opponent's Latin name is isolated inside the Persian row.
    assert page.locator("#matches-list td bdi").first.text_content() == ALI
    shot(page, "player_page_persian", full_page=True)
    page.close()


def test_report_shows_statistics_and_ball_accounting(browser: Any, site: tuple[str, str]) -> None:
    url, match_id = site
    page = browser.new_page()
    page.goto(f"{url}/report/{match_id}")
    heads = page.locator("table.figures thead th bdi").all_text_contents()
    assert heads == [ALI, REZA]
    frame1 = page.locator("table.accounting tr[data-frame='1']")
    assert frame1.get_attribute("data-balanced") == "true"
    cells = frame1.locator("td").all_text_contents()
    assert cells[:9] == ["1", "5", "0", "4", "0", "9", "6", "3", "9"]
    keyed = page.locator("ul.keyed li").all_text_contents()
    assert keyed == [
        "Frame 1: red, pocket not given, keyed on the keypad (event 13)",
        "Frame 1: red, top left, keyed on the console (event 25)",
        "Frame 1: red, pocket not given, keyed on the keypad (event 40)",
    ]
    # Over the match: tl saw a red in frame 1 and both blacks of frame 2.
    tl = page.locator("table.pockets tr[data-pocket='tl'] td").all_text_contents()
    assert tl == ["3", "1", "0", "0"]
    shot(page, "report_statistics", full_page=True)
    page.locator("table.figures thead a", has_text=REZA).click()
    page.wait_for_url("**/player/**")
    assert page.text_content("h1 bdi") == REZA
    page.close()


def test_report_in_persian(browser: Any, site: tuple[str, str]) -> None:
    url, match_id = site
    page = browser.new_page()
    page.goto(f"{url}/report/{match_id}?lang=fa")
    assert_persian(page)
    frame1 = page.locator("table.accounting tr[data-frame='1'] td").all_text_contents()
    assert frame1[:9] == ["۱", "۵", "۰", "۴", "۰", "۹", "۶", "۳", "۹"]
    assert "همه‌ی توپ‌ها حساب شد" in frame1[9]
    assert page.locator("ul.keyed li").count() == 3
    shot(page, "report_statistics_persian", full_page=True)
    page.close()


def test_unknown_player_page_says_so_in_both_languages(browser: Any, site: tuple[str, str]) -> None:
    url, _ = site
    page = browser.new_page()
    response = page.goto(url + "/player/nobody")
    assert response is not None and response.status == 404
    assert page.text_content("main") == "There is no player with that name."
    response = page.goto(url + "/player/nobody?lang=fa")
    assert response is not None and response.status == 404
    assert page.evaluate(LATIN_OUTSIDE_BDI) == []
    assert page.text_content("main") == "بازیکنی با این نام نیست."
    page.close()
