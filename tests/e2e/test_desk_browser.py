"""The desk's whole flow in a real headless Chromium, with the real firmware on
a simulated table (its light relay included) talking to the real daemon:
open a session at the desk, play frames on the table, close it (the desk
asks first, naming the players and the amount), print the receipt on both
papers (the PDF's page size as Chromium prints it, read back with pypdf);
a press held while the cards update; two phones on one table; the receipt
and the daily report in Persian on a phone."""

from __future__ import annotations

import dataclasses
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from baulk.host.club import tariffs
from tests.e2e.chromium import PHONE
from tests.e2e.layout import problems
from tests.e2e.signing import fill_sign_in
from tests.e2e.sim_driver import TableDriver, simulated_venue
from tests.e2e.test_boards_browser import PERSIAN_DIGITS, setup_match, shot
from tests.host.harness import TOKEN, DaemonThread, wait_for

pytestmark = pytest.mark.browser

BILLING = {
    "billing": {"timezone": "Asia/Tehran", "venue": "Baulk Club"},
    "tariff": [
        {
            "name": "standard",
            "currency": "IRT",
            "per_hour": 120_000,
            "per_frame": 10_000,
            "minimum_min": 30,
            "round_min": 5,
            "loser_pays": True,
        }
    ],
    "item": [{"name": "Tea", "name_fa": "چای", "price": 20_000}],
}
MM = 72 / 25.4  # PDF points in a millimetre
# Where the browser draws an amount's minus sign: left or right of its digits.
MINUS_SIDE = """(sel) => {
  const t = document.querySelector(sel).firstChild, at = (i) => {
    const r = document.createRange(); r.setStart(t, i); r.setEnd(t, i + 1);
    return r.getBoundingClientRect().left; };
  const minus = [...t.data].findIndex((c) => c === "\u2212" || c === "-");
  const digit = [...t.data].findIndex((c) => /[۰-۹0-9]/.test(c));
  return at(minus) < at(digit) ? "left" : "right";
}"""


@pytest.fixture
def desk(tmp_path: Path) -> Iterator[tuple[DaemonThread, TableDriver]]:
    billed = tariffs.parse(BILLING, {"t1"})
    with simulated_venue(
        tmp_path, seed=5, edit=lambda cfg: dataclasses.replace(cfg, billing=billed)
    ) as v:
        yield v


def new_page(browser: Any, **kw: Any) -> Any:
    """A page of its own context (these tests wait with wait_for_function,
    which the pages' Content-Security-Policy would refuse)."""
    return browser.new_context(bypass_csp=True, **kw).new_page()


def sign_in(page: Any) -> None:
    page.set_default_timeout(60_000)  # the table is real firmware on a shared machine
    fill_sign_in(page, TOKEN)


def relay_lit(table: TableDriver) -> bool:
    return bool(table._read(lambda: table.sim.board.light()))


def latin_outside_names(page: Any, root: str) -> list[str]:
    """Latin words on a Persian page that are not inside a name (<bdi>)."""
    text = page.evaluate(
        """(root) => {
            const copy = document.querySelector(root).cloneNode(true);
            copy.querySelectorAll('bdi.name, .no-print, option, #lang').forEach((e) => e.remove());
            return copy.textContent;
        }""",
        root,
    )
    return re.findall(r"[A-Za-z]{2,}", text)


def page_size_mm(pdf: bytes) -> tuple[float, float]:
    """The first page's size as the PDF says it, in millimetres."""
    box = PdfReader(io.BytesIO(pdf)).pages[0].mediabox
    return float(box.width) / MM, float(box.height) / MM


def two_frames(daemon: DaemonThread, table: TableDriver) -> None:
    """Two frames on the table: Ali pots a red and misses, Reza concedes;
    then Reza pots a red and misses, and Ali concedes."""
    setup_match(daemon, ["Ali", "Reza"], best_of=5)
    for _ in range(2):
        table.stroke("red")
        table.stroke()
        table.referee({"ev": "concede"})


def answer(page: Any, yes: bool = True, reason: str | None = None) -> str:
    """The question the desk asks before a destructive tap: its words, answered."""
    page.wait_for_selector("#ask[open]")
    text = page.text_content("#ask-text") or ""
    if reason is not None:
        page.fill("#ask-reason", reason)
    page.click("#ask-yes" if yes else "#ask-no")
    return text


def test_open_play_close_and_print_a_receipt(
    browser: Any,
    desk: tuple[DaemonThread, TableDriver],
) -> None:
    daemon, table = desk
    page = new_page(browser)
    page.goto(daemon.url + "/desk")
    sign_in(page)
    page.wait_for_selector("#table-t1 button.open")
    assert not relay_lit(table)
    page.click("#table-t1 button.open")
    page.wait_for_function("document.getElementById('table-t1').dataset.session === '1'")
    wait_for(lambda: relay_lit(table), what="the table's relay on")  # through the real firmware
    page.wait_for_function("document.getElementById('table-t1').dataset.light === 'true'")
    assert "Session 1 opened on Table t1" in (page.text_content("#done") or "")
    shot(page, "desk_session_open")
    two_frames(daemon, table)
    page.wait_for_function("document.querySelector('#table-t1 dd.frames').textContent === '2'")
    # Close asks first, with the names and the amount; "no" changes nothing.
    page.click("#table-t1 button.close")
    asked = answer(page, yes=False)
    assert "Close session 1 on Table t1 (Ali, Reza)" in asked and "80,000 Toman" in asked
    assert page.get_attribute("#table-t1", "data-session") == "1"
    page.click("#table-t1 button.close")
    answer(page)
    page.wait_for_url(re.compile(r"/desk/receipt/1\?done=close$"))
    wait_for(lambda: not relay_lit(table), what="the table's relay off")
    page.wait_for_selector("#receipt .total")
    assert "Session 1 on Table t1 closed: 80,000 Toman to pay" in (page.text_content("#done") or "")
    receipt = page.text_content("#receipt") or ""
    # 30 min minimum at 120,000 an hour = 60,000, plus 2 frames at 10,000
    assert "80,000 Toman" in receipt and "Baulk Club" in receipt
    assert "30 min at 120,000 Toman an hour" in receipt and "2 × 10,000 Toman" in receipt
    losers = page.eval_on_selector_all(
        "#receipt tr.frame bdi.name", "es => es.map(e => e.textContent)"
    )
    assert losers == ["Reza", "Ali"]
    # Print: the button calls the browser's print; the printed page is the
    # receipt alone, on a page as wide as the roll and as long as the receipt.
    page.evaluate(
        "() => { window.__printed = 0; window.print = () => { window.__printed += 1; }; }"
    )
    page.click("#print")
    assert page.evaluate("window.__printed") == 1
    page.emulate_media(media="print")
    assert not page.is_visible("#print") and not page.is_visible("#correct")
    assert page.is_visible("#receipt .total")
    pdf = page.pdf(prefer_css_page_size=True)  # the size is the page's own, not the test's
    (Path(__file__).with_name("artifacts") / "receipt_80mm.pdf").write_bytes(pdf)
    width, height = page_size_mm(pdf)
    assert abs(width - 80) < 0.5, (width, height)
    assert len(PdfReader(io.BytesIO(pdf)).pages) == 1  # one length of roll
    shot(page, "receipt_80mm_print")
    page.emulate_media(media="screen")
    page.select_option("#paper", "a6")
    page.emulate_media(media="print")
    pdf = page.pdf(prefer_css_page_size=True)
    (Path(__file__).with_name("artifacts") / "receipt_a6.pdf").write_bytes(pdf)
    width, height = page_size_mm(pdf)
    assert abs(width - 105) < 0.5 and abs(height - 148) < 0.5, (width, height)
    page.emulate_media(media="screen")
    # A correction needs a reason; with one it is added under the original,
    # and the receipt's lines still add up to its total.
    page.fill("#amount", "-5000")
    page.click("#correct-save")
    page.wait_for_function("document.getElementById('error').textContent.includes('reason')")
    page.fill("#reason", "regular customer")
    page.click("#correct-save")  # charged to the table, which pays nothing here (loser pays)
    page.wait_for_function(
        "document.getElementById('error').textContent.includes(\"table's share below zero\")"
    )
    page.select_option("#payer", "Ali")
    page.click("#correct-save")
    page.wait_for_selector("#receipt tr.correction")
    assert "75,000 Toman" in (page.text_content("#receipt .total") or "")
    assert "Correction added: the total is 75,000 Toman" in (page.text_content("#done") or "")
    # A correction that would take the bill below zero is refused.
    page.fill("#amount", "-100000000")
    page.fill("#reason", "a clerk's extra zeros")
    page.click("#correct-save")
    page.wait_for_function("document.getElementById('error').textContent.includes('below zero')")
    assert "75,000 Toman" in (page.text_content("#receipt .total") or "")
    shot(page, "receipt_a6_corrected")
    page.context.close()


def test_a_press_held_while_the_cards_update_counts(
    browser: Any,
    desk: tuple[DaemonThread, TableDriver],
) -> None:
    """The desk redraws once a second; a finger held 1.5 s on a button (on a
    phone, where people hold their taps) must still be a tap when it lifts:
    the card is updated in place, never replaced under it."""
    daemon, _ = desk
    page = new_page(browser, viewport=PHONE, has_touch=True)
    context = page.context
    page.goto(daemon.url + "/desk")
    sign_in(page)
    page.click("#table-t1 button.open")
    page.wait_for_selector("#table-t1 button.add-item")
    for _ in range(3):
        box = page.locator("#table-t1 button.add-item").bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        version = int(page.evaluate("document.body.dataset.version"))
        page.mouse.down()
        # held for at least 1.5 s, through at least one redraw of the cards
        page.wait_for_timeout(1500)
        page.wait_for_function(f"Number(document.body.dataset.version) > {version}")
        page.mouse.up()
        page.wait_for_selector("#table-t1 .menu:not([hidden])")
        page.click("#table-t1 .menu button.item")  # the second tap: the item goes on the bill
        page.wait_for_selector("#table-t1 .menu[hidden]", state="attached")
    page.wait_for_function(
        "document.querySelector('#table-t1 dd.items').textContent === '60,000 Toman'"
    )
    assert "Tea added to session 1: 20,000 Toman" in (page.text_content("#done") or "")
    context.close()


def test_two_phones_on_one_table_the_second_is_told_to_look_again(
    browser: Any,
    desk: tuple[DaemonThread, TableDriver],
) -> None:
    daemon, _ = desk
    a, b = new_page(browser, viewport=PHONE), new_page(browser, viewport=PHONE)
    first, second = a.context, b.context
    for page in (a, b):
        page.goto(daemon.url + "/desk")
        sign_in(page)
    a.click("#table-t1 button.open")
    b.wait_for_selector("#table-t1 button.close")
    # Phone B stops hearing from the desk (a lost connection): it still shows
    # the bill as it was when phone A adds an item to it.
    b.route("**/api/desk*", lambda route: route.abort())
    a.click("#table-t1 button.add-item")
    a.click("#table-t1 .menu button.item")
    a.wait_for_function(
        "document.querySelector('#table-t1 dd.items').textContent === '20,000 Toman'"
    )
    b.click("#table-t1 button.close")
    answer(b)
    b.wait_for_function(
        "document.getElementById('error').textContent.includes('the table changed: look again')"
    )
    assert b.url.endswith("/desk")  # not closed: no receipt to go to
    a.wait_for_timeout(1200)  # phone A's next refresh still shows the session open
    assert a.get_attribute("#table-t1", "data-session") == "1"
    first.close()
    second.close()


def test_the_receipt_and_the_daily_report_in_persian_on_a_phone(
    browser: Any,
    desk: tuple[DaemonThread, TableDriver],
) -> None:
    daemon, table = desk
    page = new_page(browser, viewport=PHONE)
    context = page.context
    page.goto(daemon.url + "/desk?lang=fa")
    sign_in(page)
    page.wait_for_selector("#table-t1 button.open")
    assert page.evaluate("document.documentElement.dir") == "rtl"
    page.click("#table-t1 button.open")
    page.wait_for_function("document.getElementById('table-t1').dataset.session === '1'")
    assert latin_outside_names(page, "main") == []
    assert problems(page, fit=False) == []
    setup_match(daemon, ["Ali", "رضا"], best_of=3)
    table.stroke("red")
    table.stroke()
    table.referee({"ev": "concede"})
    page.click("#table-t1 button.close")
    answer(page)
    page.wait_for_url(re.compile(r"/desk/receipt/1\?done=close&lang=fa$"))
    page.wait_for_selector("#receipt .total")
    total = page.text_content("#receipt .total td") or ""
    assert total == "۷۰٬۰۰۰ تومان"  # 60,000 minimum time + one frame, Persian digits
    assert latin_outside_names(page, "#receipt") == []
    opened = page.text_content("#receipt table.info tr:nth-of-type(3) td") or ""
    assert set(opened) & PERSIAN_DIGITS and "۱۴" in opened  # a Solar Hijri year, 14xx
    # No separator that reads as a digit: the middle dot looks like the Persian zero.
    assert "·" not in (page.text_content("#receipt") or "")
    # A refund takes money off with the minus where CLDR puts it: U+200E U+2212.
    page.select_option("#kind", "refund")
    page.fill("#amount", "۵٬۰۰۰")  # typed on a Persian keyboard
    page.fill("#reason", "مشتری همیشگی")
    page.select_option("#payer", "رضا")
    page.click("#correct-save")
    page.wait_for_selector("#receipt tr.refund")
    refund = page.text_content("#receipt tr.refund td") or ""
    assert refund == "\u200e−۵٬۰۰۰ تومان", refund
    # and it is drawn there: left of the digits (a hyphen lands on their right)
    assert page.evaluate(MINUS_SIDE, "#receipt tr.refund td") == "left"
    assert problems(page, fit=False) == []
    shot(page, "receipt_persian")
    page.goto(daemon.url + "/desk/day?lang=fa")
    page.wait_for_selector("#day-rows tr.venue-row")
    label = page.text_content("#day-label") or ""
    assert "۱۴" in label and not re.search(r"[A-Za-z0-9]", label)
    venue_row = page.text_content("#day-rows tr.venue-row") or ""
    assert "۶۵٬۰۰۰ تومان" in venue_row and "IRT" not in venue_row
    assert "تومان" in (page.text_content("#day-rows tr.venue-row td:nth-of-type(7)") or "")
    # The day picker is Solar Hijri: its year is 14xx, its months Persian.
    assert page.input_value("#j-year").startswith("14")
    months = page.eval_on_selector_all("#j-month option", "os => os.map(o => o.textContent)")
    assert months[0] == "فروردین" and months[11] == "اسفند"
    assert latin_outside_names(page, "main") == []
    assert problems(page, fit=False) == []
    shot(page, "day_report_persian_phone")
    # Another day, picked in the Solar Hijri calendar: nothing was played then.
    page.select_option("#j-year", str(int(page.input_value("#j-year")) - 1))
    page.wait_for_function("!document.querySelector('#day-rows').textContent.includes('۶۵٬۰۰۰')")
    context.close()


def test_the_venue_board_shows_the_free_tables_in_both_languages(
    browser: Any,
    desk: tuple[DaemonThread, TableDriver],
) -> None:
    """From the door: a table with no session and no match in play is free."""
    daemon, _ = desk
    board = new_page(browser, viewport={"width": 1280, "height": 720})
    board.goto(daemon.url + "/venue")
    board.wait_for_selector(".card[data-free='1']")
    assert board.text_content(".card .free-word") == "Free"
    persian = new_page(browser, viewport={"width": 1280, "height": 720})
    persian.goto(daemon.url + "/venue?lang=fa")
    persian.wait_for_selector(".card[data-free='1']")
    assert persian.text_content(".card .free-word") == "آزاد"
    shot(board, "venue_free_table")
    desk_page = new_page(browser)
    desk_page.goto(daemon.url + "/desk")
    sign_in(desk_page)
    desk_page.click("#table-t1 button.open")
    board.wait_for_selector(".card[data-free='0']")  # a session open: not free
    persian.wait_for_selector(".card[data-free='0']")
    assert board.locator(".free-word").count() == 0
    for page in (board, persian, desk_page):
        page.context.close()
