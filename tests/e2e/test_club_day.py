"""A whole club day in a real headless Chromium on a phone, in both languages,
against the real daemon and two simulated tables (the real firmware):

open two tables and let them play; correct a player's name at the console;
two phones tap a tea at the same moment (one is told the table changed) and
a phone taps while offline (it says no answer came);
void a session opened by mistake; reopen one closed by mistake; correct a
bill with a reason and reverse it; close; print the receipt on the 80 mm
roll and on A6 to PDF (the page sizes read back with pypdf); print one with
a tap on the ESC/POS printer (a device file here, and the same receipt
through python-escpos' Dummy); close the day with the daily report, its
totals worked by hand from what the receipts print."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from baulk.host.club import money, printing, receipts, tariffs
from baulk.host.club.clock import VenueClock
from baulk.host.web import desk_printer
from tests.e2e.chromium import PHONE
from tests.e2e.signing import fill_sign_in
from tests.e2e.sim_driver import TableDriver, simulated_tables
from tests.e2e.test_desk_answers_browser import WORDS, add_tea, desk_page, hold_view, refreshed
from tests.e2e.test_desk_browser import answer, page_size_mm
from tests.host.harness import TOKEN, DaemonThread, http, morning

pytestmark = pytest.mark.browser
MIN = 60_000
HALF_STEP = 150_000  # half a 5-minute billing step: the test's own real seconds fit in it


def minutes_on(clock: VenueClock, since_ms: int, minutes: int) -> None:
    """Advance the venue clock so that `minutes` (less half a step) have passed
    since `since_ms`, however long the test itself took on a busy machine: the
    bill then rounds up to exactly `minutes`, with half a step either side."""
    clock.advance(minutes * MIN - HALF_STEP - (clock.mono_ms() - since_ms))


OWNER_PASSWORD = "a long evening"
CLUB = {
    "billing": {"timezone": "Asia/Tehran", "venue": "Baulk Club"},
    "tariff": [
        {
            "name": "standard",
            "currency": "IRT",
            "per_hour": 60_000,  # 1,000 a minute
            "per_frame": 10_000,
            "minimum_min": 30,
            "round_min": 5,
            "loser_pays": True,
        }
    ],
    "item": [{"name": "Tea", "name_fa": "چای", "price": 20_000}],
}


@pytest.fixture
def day(tmp_path: Path) -> Iterator[tuple[DaemonThread, dict[str, TableDriver], Path]]:
    printer_file = tmp_path / "lp0"
    printer_file.write_bytes(b"")
    billing = dataclasses.replace(
        tariffs.parse(CLUB, {"t1", "t2"}),
        printer=printing.Printer("file", device=str(printer_file), lang="fa"),
    )
    with simulated_tables(
        tmp_path, ("t1", "t2"), seed=21, edit=lambda c: dataclasses.replace(c, billing=billing)
    ) as (daemon, tables):
        yield daemon, tables, printer_file


def frame_conceded(table: TableDriver) -> None:
    """A red potted, a miss, and the player then at the table concedes."""
    table.stroke("red")
    table.stroke()
    table.referee({"ev": "concede"})


def desk_card(page: Any, table: str, session: int | str) -> None:
    page.wait_for_function(
        f"document.getElementById('table-{table}').dataset.session === '{session}'"
    )


def stored_bill(daemon: DaemonThread, sid: int) -> dict[str, Any]:
    status, reply = http(daemon.url + f"/api/sessions/{sid}", token=TOKEN)
    assert status == 200, reply
    bill: dict[str, Any] = reply["bill"]
    return bill


def test_a_club_day(browser: Any, day: tuple[DaemonThread, dict[str, TableDriver], Path]) -> None:
    daemon, tables, printer_file = day
    assert daemon.daemon is not None
    clock = daemon.daemon.sessions.clock
    morning(clock, daemon.cfg.billing.timezone)
    page = browser.new_context(viewport=PHONE, bypass_csp=True).new_page()

    # The owner runs her desk herself today, signed in as herself.
    status, made = http(
        daemon.url + "/api/staff/users",
        {"name": "Parisa", "role": "owner", "password": OWNER_PASSWORD},
        TOKEN,
    )
    assert status == 200, made

    # Morning, in English: Table 1 opens; Table 2 is opened by mistake and voided.
    page.goto(daemon.url + "/desk")
    page.set_default_timeout(60_000)  # the tables are real firmware on a shared machine
    fill_sign_in(page, OWNER_PASSWORD, name="Parisa")
    opened_t1 = clock.mono_ms()  # just before its session opens
    page.click("#table-t1 button.open")
    desk_card(page, "t1", 1)
    page.click("#table-t2 button.open")
    desk_card(page, "t2", 2)
    page.click("#table-t2 button.void")
    asked = answer(page, reason="opened on the wrong table")
    assert "Void session 2 on Table t2" in asked
    page.wait_for_function("document.getElementById('done').textContent.includes('is void')")
    desk_card(page, "t2", "")
    page.click("#table-t2 button.open")
    desk_card(page, "t2", 3)

    # The tables play.
    for tid, players in (("t1", ["Ali Ahmadi", "Reza"]), ("t2", ["Mina", "Sara K"])):
        status, reply = http(
            daemon.url + f"/api/tables/{tid}/match",
            {"players": players, "best_of": 5},
            token=TOKEN,
        )
        assert status == 200, reply
    frame_conceded(tables["t1"])
    frame_conceded(tables["t2"])

    # At the console, in Persian: the desk typed Ali's name wrong.
    console = browser.new_context(viewport=PHONE).new_page()
    console.goto(daemon.url + "/console?table=t1&lang=fa")
    fill_sign_in(console, TOKEN)
    console.click("#names-box summary")
    console.locator("#fix-names input").nth(0).fill("Ali Ahmadi-Zand")
    console.click("#names-form button[type=submit]")
    console.wait_for_selector("#result[data-kind=done]")
    console.context.close()

    # A tea on Table 1, two taps.
    page.click("#table-t1 button.add-item")
    page.click("#table-t1 .menu button.item")
    page.wait_for_function("document.querySelector('#table-t1 dd.items').textContent !== '0 Toman'")

    # A second phone at the desk.  Both tap a tea on the same look at Table 1
    # at the same moment: one tea goes on, the other phone is told the table
    # changed.  Then the second phone loses the Wi-Fi and taps: it says so.
    second = desk_page(browser, daemon, "en")
    said = WORDS["en"]
    hold_view(page)
    hold_view(second)
    add_tea(page)
    add_tea(second)
    for p in (page, second):
        p.wait_for_function("document.getElementById('done').dataset.kind !== 'busy'")
    told = [p for p in (page, second) if said["changed"] in (p.text_content("#error") or "")]
    assert len(told) == 1, "one tea, and one phone told"
    page.unroute("**/api/desk?*")
    second.unroute("**/api/desk?*")
    # the phone that lost looked again through the held view: it sees the
    # table as it is once a refresh has come since (a Close tapped on the old
    # view is "the table changed: look again", as it should be; a fresh
    # clone beside a busy loop tapped before the refresh came)
    refreshed(page, 2)
    second.context.set_offline(True)
    expect(second.locator("#offline")).to_be_visible()
    add_tea(second)
    expect(second.locator("#error")).to_contain_text(said["no_answer"])
    second.context.set_offline(False)
    expect(second.locator("#offline")).to_be_hidden()
    second.context.close()

    # Table 1 closes after 40 minutes ... by mistake: it is reopened.
    minutes_on(clock, opened_t1, 40)
    page.click("#table-t1 button.close")
    answer(page)
    page.wait_for_url(re.compile(r"/desk/receipt/1\?done=close$"))
    page.wait_for_selector("#receipt .total")
    page.click("#reopen")
    answer(page)
    page.wait_for_function("document.getElementById('done').textContent.includes('open again')")
    frame_conceded(tables["t1"])
    minutes_on(clock, opened_t1, 50)  # 50 minutes since it opened: one session, one minimum
    page.goto(daemon.url + "/desk")
    page.click("#table-t1 button.close")
    answer(page)
    page.wait_for_url(re.compile(r"/desk/receipt/1\?done=close$"))
    page.wait_for_selector("#receipt .total")
    one = stored_bill(daemon, 1)
    assert one["billed_minutes"] == 50 and one["frames_played"] == 2
    # who did it: the signed-in account, on every mark
    assert one["opened_by"] == "Parisa" and one["closed_by"] == "Parisa"
    assert [m["who"] for m in one["marks"]] == ["Parisa", "Parisa", "Parisa"]
    # the name as corrected reaches the bill
    losers = {f["loser"] for f in one["frames"]}
    assert losers <= {"Ali Ahmadi-Zand", "Reza"} and "Ali Ahmadi" not in losers
    receipt = page.text_content("#receipt") or ""
    assert "Ali Ahmadi-Zand" in receipt or "Reza" in receipt
    # 80 mm and A6, as Chromium prints them
    page.emulate_media(media="print")
    width, _ = page_size_mm(page.pdf(prefer_css_page_size=True))
    assert abs(width - 80) < 0.5
    page.emulate_media(media="screen")
    page.select_option("#paper", "a6")
    page.emulate_media(media="print")
    width, height = page_size_mm(page.pdf(prefer_css_page_size=True))
    assert abs(width - 105) < 0.5 and abs(height - 148) < 0.5
    page.emulate_media(media="screen")

    # Evening, in Persian: Table 2 closes; its bill is corrected, then the
    # correction taken back; its receipt goes to the thermal printer.
    clock.advance(5 * MIN)
    page.goto(daemon.url + "/desk?lang=fa")
    page.click("#table-t2 button.close")
    answer(page)
    page.wait_for_url(re.compile(r"/desk/receipt/3\?done=close&lang=fa$"))
    page.wait_for_selector("#receipt .total")
    before = page.text_content("#receipt .total td")
    page.fill("#amount", "-۵۰۰۰")
    page.fill("#reason", "مشتری همیشگی")
    loser = stored_bill(daemon, 3)["frames"][0]["loser"]  # who pays the frame (loser pays)
    page.select_option("#payer", loser)
    page.click("#correct-save")
    page.wait_for_selector("#receipt tr.correction")
    assert page.text_content("#receipt .total td") != before
    page.click("#history li.correction button.reverse")
    answer(page, reason="اشتباه بود")
    page.wait_for_selector("#receipt tr.correction", state="detached")
    assert page.text_content("#receipt .total td") == before
    three = stored_bill(daemon, 3)
    assert [c["kind"] for c in three["corrections"]] == ["correction", "reversal"]
    assert three["corrections"][1]["reverses"] == three["corrections"][0]["id"]
    page.click("#print-escpos")
    page.wait_for_function("document.getElementById('done').textContent.includes('چاپگر')")
    printed = printer_file.read_bytes()
    assert b"\x1dv0" in printed and printed.rindex(b"\x1dV") > printed.rindex(b"\x1dv0")
    # the same receipt through python-escpos' Dummy: the very same bytes
    status, reply = http(daemon.url + "/api/sessions/3", token=TOKEN)
    from escpos.printer import (
        Dummy,
    )  # read here: its capability table costs every worker 1.5 s at collection

    dummy = Dummy()
    desk_printer.send(dummy, reply["receipt"]["fa"], daemon.cfg.billing.printer)
    assert dummy.output == printed

    # The day's close: the daily report, worked by hand from the receipts.
    void = stored_bill(daemon, 2)
    assert void["state"] == "void" and void["total"] == 0
    by_hand = 0
    for bill in (one, three):
        paper = receipts.receipt(bill, "", "")["en"]
        billed = bill["billed_minutes"]  # as the receipt prints it: "Charged as 50 min"
        assert paper["info"][5]["value"] == [f"{billed} min"]
        items = 20_000 * sum(i["quantity"] for i in bill["items"] if i["live"])
        by_hand += billed * 1_000 + 10_000 * bill["frames_played"] + items
    status, reply = http(daemon.url + "/api/reports/day", token=TOKEN)
    venue = reply["report"]["venue"]
    assert venue["sessions"] == 3 and venue["voided"] == 1
    assert venue["money"]["IRT"]["total"] == by_hand
    frames = [b["frames_played"] for b in reply["report"]["bills"]]
    assert venue["frames"] == one["frames_played"] + three["frames_played"], frames
    page.goto(daemon.url + "/desk/day?lang=fa")
    page.wait_for_selector("#day-rows tr.venue-row")
    row = page.text_content("#day-rows tr.venue-row") or ""
    assert money.fmt(by_hand, "IRT", "fa") in row
    page.goto(daemon.url + "/desk/day")
    page.wait_for_selector("#day-rows tr.venue-row")
    assert money.fmt(by_hand, "IRT", "en") in (page.text_content("#day-rows tr.venue-row") or "")
    page.context.close()
