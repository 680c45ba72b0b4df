"""The owner updates two tables' firmware from /staff on her phone, in
English and in Persian, while both are in a match: each waits for its own
match to end, then goes over its link, restarts into the new version and
confirms it, one after the other; the boards keep each table's score.  Real
Chromium, the real daemon, the real firmware on two simulated boards over
ptys, and the real release `baulk firmware bundle` makes."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from baulk.firmware.update import record
from baulk.host.release import bundle
from tests.e2e.chromium import PHONE, page_errors
from tests.e2e.signing import fill_sign_in
from tests.e2e.sim_driver import TableDriver, simulated_tables
from tests.host.harness import TOKEN, DaemonThread, http, stored_events, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PASSWORD = "owner's long password"
WORDS = {
    "en": {"waiting": "waiting for the match to end", "updated": "updated to {v}"},
    "fa": {"waiting": "در انتظار پایان مسابقه", "updated": "به {v} به‌روز شد"},
}


@pytest.fixture
def club(
    tmp_path: Path, release: bundle.Bundle
) -> Iterator[tuple[DaemonThread, dict[str, TableDriver]]]:
    releases = tmp_path / "releases"
    releases.mkdir()
    (releases / release.name).write_bytes(release.to_bytes())

    def edit(cfg: Any) -> Any:
        return dataclasses.replace(cfg, verify_sim_key=True, firmware_releases=releases)

    with simulated_tables(tmp_path, ("t1", "t2"), 31, edit, mpy_abi=release.mpy) as v:
        yield v


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE)
    yield context
    context.close()


def row(page: Any, table: str) -> Any:
    return page.locator(f"#firmware-rows tr[data-table='{table}']")


def match_on(d: DaemonThread, table: TableDriver, tid: str) -> None:
    status, _ = http(
        d.url + f"/api/tables/{tid}/match", {"players": ["Ali", "Reza"], "best_of": 1}, token=TOKEN
    )
    assert status == 200
    wait_for(
        lambda: [e for _, _, e in stored_events(d.cfg.store_path, tid) if e and e["ev"] == "match"],
        what=f"the match on {tid}",
    )
    table.stroke("red")


def match_over(d: DaemonThread, table: TableDriver, tid: str) -> None:
    table.stroke()
    table.referee({"ev": "concede"})
    wait_for(
        lambda: (e := stored_events(d.cfg.store_path, tid)) and e[-1][2]["ev"] == "concede",
        what=f"{tid}'s match over",
    )


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_owner_updates_two_tables_each_at_its_matchs_end(
    phone: Any,
    club: tuple[DaemonThread, dict[str, TableDriver]],
    release: bundle.Bundle,
    lang: str,
) -> None:
    d, tables = club
    status, body = http(
        d.url + "/api/staff/users", {"name": "Omid", "role": "owner", "password": PASSWORD}, TOKEN
    )
    assert status == 200, body
    for tid, table in tables.items():
        match_on(d, table, tid)
    page = phone.new_page()
    errors = page_errors(page)
    page.set_default_timeout(60_000)
    page.goto(d.url + "/staff" + ("?lang=fa" if lang == "fa" else ""))
    fill_sign_in(page, PASSWORD, name="Omid")
    version = ".".join(map(str, release.version))
    for tid in tables:  # each with the release it would get, and a button
        expect(row(page, tid).locator("td").nth(2)).to_have_text(version)
        expect(row(page, tid).locator("button")).to_be_enabled()
    page.click("#update-all")
    words = WORDS[lang]
    for tid in tables:
        expect(row(page, tid)).to_have_attribute("data-phase", "waiting")
        expect(row(page, tid).locator(".phase")).to_have_text(words["waiting"])
        expect(row(page, tid).locator("button")).to_be_disabled()  # one under way
    # t1's match ends: t1 is updated; t2, still in its match, waits on
    match_over(d, tables["t1"], "t1")
    ended = {"t1": d.board("t1")["state"]}
    expect(row(page, "t1")).to_have_attribute("data-phase", "confirmed", timeout=120_000)
    expect(row(page, "t1").locator(".phase")).to_have_text(words["updated"].format(v=version))
    expect(row(page, "t1").locator(".phase bdi")).to_have_text(version)  # isolated
    expect(row(page, "t2")).to_have_attribute("data-phase", "waiting")
    match_over(d, tables["t2"], "t2")
    ended["t2"] = d.board("t2")["state"]
    expect(row(page, "t2")).to_have_attribute("data-phase", "confirmed", timeout=120_000)
    for tid, table in tables.items():
        rec = record.load(str(table.sim.flash_dir))
        assert [rec[record.ACTIVE_V], rec[record.LAST]] == [version, "confirmed"]
        wait_for(lambda tid=tid: d.board(tid)["status"]["link"] == "online", what="online")
        now = d.board(tid)["state"]
        assert [now["scores"], now["frames"]] == [ended[tid]["scores"], ended[tid]["frames"]]
    if lang == "fa":  # nothing Latin in Persian but the isolated ids and versions
        text = page.evaluate(
            """() => { const c = document.querySelector('#firmware').cloneNode(true);
                c.querySelectorAll('bdi').forEach((e) => e.remove()); return c.textContent; }"""
        )
        assert not re.findall(r"[A-Za-z]{2,}", text), text
    # the activity log names the owner's update, in the page's language
    page.goto(d.url + "/staff/activity" + ("?lang=fa" if lang == "fa" else ""))
    action = "به‌روزرسانی نرم‌افزار" if lang == "fa" else "firmware update"
    expect(page.locator("#rows")).to_contain_text(action)
    # and each table's end of it, the table's own row
    done = "اکنون نرم‌افزار نو را دارد" if lang == "fa" else "runs its new firmware now"
    expect(page.locator("#rows tr", has_text=done)).to_have_count(2)
    assert errors == []


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_version_that_cannot_start_rolls_back_and_the_page_says_so(
    tmp_path: Path, phone: Any, release: bundle.Bundle, lang: str
) -> None:
    releases = tmp_path / "releases"
    releases.mkdir()
    (releases / release.name).write_bytes(release.to_bytes())

    def edit(cfg: Any) -> Any:
        return dataclasses.replace(cfg, verify_sim_key=True, firmware_releases=releases)

    with simulated_tables(tmp_path, ("t1",), 41, edit, mpy_abi=release.mpy, trial_fails=True) as (
        d,
        tables,
    ):
        status, body = http(
            d.url + "/api/staff/users",
            {"name": "Omid", "role": "owner", "password": PASSWORD},
            TOKEN,
        )
        assert status == 200, body
        page = phone.new_page()
        errors = page_errors(page)
        page.set_default_timeout(60_000)
        page.goto(d.url + "/staff" + ("?lang=fa" if lang == "fa" else ""))
        fill_sign_in(page, PASSWORD, name="Omid")
        row(page, "t1").locator("button").click()
        expect(row(page, "t1")).to_have_attribute("data-phase", "rolledback", timeout=120_000)
        version = ".".join(map(str, release.version))
        said = {"en": "rolled back: {v} did not come up", "fa": "برگشت داده شد: {v} راه نیفتاد"}
        expect(row(page, "t1").locator(".phase")).to_have_text(said[lang].format(v=version))
        rec = record.load(str(tables["t1"].sim.flash_dir))
        assert [rec[record.ACTIVE], rec[record.TRIAL], rec[record.LAST]] == [
            "legacy",
            "-",
            "rolledback",
        ]
        assert rec[record.LAST_V] == version
        # the table plays on, on the version it had
        wait_for(lambda: d.board("t1")["status"]["link"] == "online", what="online")
        page.goto(d.url + "/staff/activity" + ("?lang=fa" if lang == "fa" else ""))
        back = "به نرم‌افزار پیشین برگشت" if lang == "fa" else "went back to its firmware before"
        expect(page.locator("#rows")).to_contain_text(back)
        assert errors == []
