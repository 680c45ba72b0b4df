"""The desk's whole flow in a real headless Chromium, with the real firmware on
a simulated table (its light relay included) talking to the real daemon:
open a session at the desk, play frames on the table, close it, print the
receipt; and the receipt and the daily report in Persian."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from baulk.host.club import tariffs
from tests.e2e.signing import fill_sign_in
from tests.e2e.sim_driver import TableDriver, simulated_venue
from tests.e2e.test_boards_browser import PERSIAN_DIGITS, browser, setup_match, shot  # noqa: F401
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
}


@pytest.fixture
def desk(tmp_path: Path) -> Iterator[tuple[DaemonThread, TableDriver]]:
    billed = tariffs.parse(BILLING, {"t1"})
    with simulated_venue(
        tmp_path, seed=5, edit=lambda cfg: dataclasses.replace(cfg, billing=billed)
    ) as v:
        yield v


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


def test_open_play_close_and_print_a_receipt(
    browser: Any,  # noqa: F811
    desk: tuple[DaemonThread, TableDriver],
) -> None:
    daemon, table = desk
    page = browser.new_page()
    page.goto(daemon.url + "/desk")
    sign_in(page)
    page.wait_for_selector("#table-t1 button.open")
    assert not relay_lit(table)
    page.click("#table-t1 button.open")
    page.wait_for_function("document.getElementById('table-t1').dataset.session === '1'")
    wait_for(lambda: relay_lit(table), what="the table's relay on")  # through the real firmware
    page.wait_for_function("document.getElementById('table-t1').dataset.light === 'true'")
    shot(page, "desk_session_open")
    # Two frames on the table: Ali pots a red and misses, Reza concedes;
    # then Reza pots a red and misses, and Ali concedes.
    setup_match(daemon, ["Ali", "Reza"], best_of=5)
    table.stroke("red")
    table.stroke()
    table.referee({"ev": "concede"})
    table.stroke("red")
    table.stroke()
    table.referee({"ev": "concede"})
    page.wait_for_function(
        "document.querySelector('#table-t1 dd:nth-of-type(4)').textContent === '2'"
    )
    page.click("#table-t1 button.close")
    page.wait_for_url(re.compile(r"/desk/receipt/1$"))
    wait_for(lambda: not relay_lit(table), what="the table's relay off")
    page.wait_for_selector("#receipt .total")
    receipt = page.text_content("#receipt") or ""
    # 30 min minimum at 120,000 an hour = 60,000, plus 2 frames at 10,000
    assert "80,000 Toman" in receipt and "Baulk Club" in receipt
    losers = page.eval_on_selector_all(
        "#receipt tr.frame bdi.name", "es => es.map(e => e.textContent)"
    )
    assert losers == ["Reza", "Ali"]
    # Print: the button calls the browser's print; the printed page is the
    # receipt alone, 80 mm wide.
    page.evaluate(
        "() => { window.__printed = 0; window.print = () => { window.__printed += 1; }; }"
    )
    page.click("#print")
    assert page.evaluate("window.__printed") == 1
    page.emulate_media(media="print")
    assert not page.is_visible("#print") and not page.is_visible("#correct")
    assert page.is_visible("#receipt .total")
    assert "80mm" in (page.text_content("#page-size") or "")
    pdf = page.pdf(width="80mm", prefer_css_page_size=True)
    assert pdf[:5] == b"%PDF-" and len(pdf) > 1000
    shot(page, "receipt_80mm_print")
    (Path(__file__).with_name("artifacts") / "receipt_80mm.pdf").write_bytes(pdf)
    page.emulate_media(media="screen")
    page.select_option("#paper", "a6")
    assert "A6" in (page.text_content("#page-size") or "")
    # a correction needs a reason; with one it is added under the original
    page.fill("#amount", "-5000")
    page.click("#correct-save")
    page.wait_for_function("document.getElementById('error').textContent.includes('reason')")
    page.fill("#reason", "regular customer")
    page.click("#correct-save")
    page.wait_for_selector("#receipt tr.correction")
    assert "75,000 Toman" in (page.text_content("#receipt .total") or "")
    shot(page, "receipt_a6_corrected")
    page.close()


def test_the_receipt_and_the_daily_report_in_persian(
    browser: Any,  # noqa: F811
    desk: tuple[DaemonThread, TableDriver],
) -> None:
    daemon, table = desk
    page = browser.new_page()
    page.goto(daemon.url + "/desk?lang=fa")
    sign_in(page)
    page.wait_for_selector("#table-t1 button.open")
    assert page.evaluate("document.documentElement.dir") == "rtl"
    page.click("#table-t1 button.open")
    page.wait_for_function("document.getElementById('table-t1').dataset.session === '1'")
    assert latin_outside_names(page, "main") == []
    setup_match(daemon, ["Ali", "رضا"], best_of=3)
    table.stroke("red")
    table.stroke()
    table.referee({"ev": "concede"})
    page.click("#table-t1 button.close")
    page.wait_for_url(re.compile(r"/desk/receipt/1\?lang=fa$"))
    page.wait_for_selector("#receipt .total")
    total = page.text_content("#receipt .total td") or ""
    assert total == "۷۰٬۰۰۰ تومان"  # 60,000 minimum time + one frame, Persian digits
    assert latin_outside_names(page, "#receipt") == []
    opened = page.text_content("#receipt table.info tr:nth-of-type(3) td") or ""
    assert set(opened) & PERSIAN_DIGITS and "۱۴" in opened  # a Solar Hijri year, 14xx
    shot(page, "receipt_persian")
    page.goto(daemon.url + "/desk/day?lang=fa")
    page.wait_for_selector("#day-rows tr.venue-row")
    label = page.text_content("#day-label") or ""
    assert "۱۴" in label and not re.search(r"[A-Za-z0-9]", label)
    venue_row = page.text_content("#day-rows tr.venue-row") or ""
    assert "۷۰٬۰۰۰ تومان" in venue_row
    assert latin_outside_names(page, "main") == []
    shot(page, "day_report_persian")
    page.close()
