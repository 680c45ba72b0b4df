"""The owner's pages in Persian pick their day in the Solar Hijri calendar,
and the owner's Check speaks Persian there (issue 31: /staff and
/staff/activity had Gregorian date pickers, and the Check's findings were in
English).  Real headless Chromium on a phone, a real daemon with the real
firmware on a simulated table."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from baulk.host.club import tariffs
from tests.e2e.chromium import PHONE, expect, page_errors
from tests.e2e.signing import fill_sign_in
from tests.e2e.sim_driver import TableDriver, simulated_venue
from tests.e2e.test_staff_browser import BILLING, PASSWORD, add
from tests.host.harness import TOKEN, DaemonThread, http

pytestmark = pytest.mark.browser
MONTHS = ["فروردین", "اردیبهشت", "خرداد", "تیر", "مرداد", "شهریور", "مهر", "آبان", "آذر", "دی"]
MONTHS += ["بهمن", "اسفند"]
# What the page shows, the <bdi> (names) and the controls left out, and each
# id or name inside Unicode isolates too.
SHOWN = """(root) => {
    const copy = document.querySelector(root).cloneNode(true);
    const left = 'bdi, option, select, input, [data-lang-switch]';
    copy.querySelectorAll(left).forEach((e) => e.remove());
    return copy.textContent.replace(/\\u2068[^\\u2069]*\\u2069/g, '');
}"""


@pytest.fixture
def club(tmp_path: Path) -> Iterator[tuple[DaemonThread, TableDriver]]:
    """A venue whose table has no key in the owner's folder of device keys:
    its bills cannot be checked, and the Check says why."""
    billed = tariffs.parse(BILLING, {"t1"})
    (tmp_path / "keys").mkdir()
    edit = lambda cfg: dataclasses.replace(cfg, billing=billed, verify_keys=tmp_path / "keys")  # noqa: E731
    with simulated_venue(tmp_path, seed=7, edit=edit) as v:
        yield v


@pytest.fixture
def owner_page(browser: Any, club: tuple[DaemonThread, TableDriver]) -> Iterator[Any]:
    d, _ = club
    add(d, name="Omid", role="owner", password=PASSWORD)
    status, body = http(d.url + "/api/tables/t1/session", {}, TOKEN)
    assert status == 200, body
    status, body = http(d.url + f"/api/sessions/{body['bill']['session_id']}/close", {}, TOKEN)
    assert status == 200, body
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(d.url + "/staff?lang=fa")
    fill_sign_in(page, PASSWORD, name="Omid")
    expect(page.locator("#work")).to_be_visible()
    yield page
    context.close()


def solar_hijri(page: Any, input_id: str) -> None:
    """The day is picked by Solar Hijri day, month and year, in Persian."""
    expect(page.locator(f"#{input_id}")).to_be_hidden()
    assert page.input_value(f"#{input_id}-year").startswith("14")
    months = page.eval_on_selector_all(f"#{input_id}-month option", "os => os.map(o => o.text)")
    assert months == MONTHS
    days = page.eval_on_selector_all(f"#{input_id}-day option", "os => os.map(o => o.text)")
    assert days[:3] == ["۱", "۲", "۳"] and 29 <= len(days) <= 31


def test_the_owners_check_picks_a_solar_hijri_day_and_speaks_persian(
    owner_page: Any, club: tuple[DaemonThread, TableDriver]
) -> None:
    page = owner_page
    errors = page_errors(page)
    solar_hijri(page, "verify-date")
    page.click("#verify button[type=submit]")
    row = page.locator("#verify-rows li.verdict")
    expect(row).to_have_attribute("data-status", "uncovered")
    expect(row.locator("li.finding")).to_have_text("کلید دستگاه میز \u2068t1\u2069 در دست نیست")
    shown = page.evaluate(SHOWN, "#verify-rows")
    assert re.findall(r"[A-Za-z0-9]", shown) == [], shown
    assert "·" not in shown  # the middle dot reads as the Persian zero
    # A month back, picked in the Solar Hijri calendar: the input holds the
    # Gregorian day the API reads, and nothing was played then.
    month = page.input_value("#verify-date-month")
    page.select_option("#verify-date-month", str(int(month) - 1 or 12))
    picked = date.fromisoformat(page.input_value("#verify-date"))
    assert 27 <= (date.today() - picked).days <= 62, picked
    page.click("#verify button[type=submit]")
    expect(page.locator("#verify-rows li.quiet")).to_have_text("آن روز صورت‌حسابی نیست.")
    assert errors == []


def test_the_activity_log_picks_a_solar_hijri_day(
    owner_page: Any, club: tuple[DaemonThread, TableDriver]
) -> None:
    d, _ = club
    page = owner_page
    errors = page_errors(page)
    page.goto(d.url + "/staff/activity?lang=fa")
    expect(page.locator("#rows tr")).not_to_have_count(0)
    solar_hijri(page, "day")
    today = page.evaluate("document.body.dataset.day")
    year = page.input_value("#day-year")
    page.select_option("#day-year", str(int(year) - 1))
    # the log of that day, a year back: the server was asked for it
    expect(page.locator("body")).not_to_have_attribute("data-day", today)
    picked = page.input_value("#day")
    expect(page.locator("body")).to_have_attribute("data-day", picked)
    expect(page.locator("#none")).to_be_visible()
    assert page.input_value("#day-year") == str(int(year) - 1)
    assert errors == []


def test_in_english_the_pickers_are_the_browsers_own(
    browser: Any, club: tuple[DaemonThread, TableDriver]
) -> None:
    d, _ = club
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    for path, input_id in (("/staff", "verify-date"), ("/staff/activity", "day")):
        page.goto(d.url + path)
        assert page.get_attribute(f"#{input_id}", "type") == "date"
        assert page.locator(f"#{input_id}-year").count() == 0
    context.close()
