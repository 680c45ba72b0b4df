"""The owner's two buttons no other browser test clicked, in a real headless
Chromium on a phone, in English and Persian:

* "Sign everyone out" on /staff asks first, then ends every sign-in on
  every phone, his own too: his page asks him to sign in again, and a
  referee's console on another phone is signed out at its next request;
* "Older rows" on the activity page adds the next page of the day's log
  below the newest rows, until none is left, and says how many it shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.chromium import PHONE, expect, shot
from tests.e2e.signing import signed_in_page
from tests.e2e.test_staff_browser import latin_outside_names, q
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, make_config, wait_for
from tests.web.client import Browser

pytestmark = pytest.mark.browser

PASSWORD = "owner's long password"
REFEREE_PASSWORD = "referee's own password"
LANGS = ["en", "fa"]
PAGE_ROWS = 200  # the activity page's rows at a time (host/web/request_models.py)
WORDS = {
    "en": {
        "signed_out_all": "Everyone is signed out: sign in again.",
        "older": "Older rows",
        "shown": "{shown} of {n} rows, the newest first",
    },
    "fa": {
        "signed_out_all": "همه خارج شدند: دوباره وارد شوید.",
        "older": "ردیف‌های قدیمی‌تر",
        "shown": "{shown} از {n} ردیف، تازه‌ترها نخست",
    },
}


def said(lang: str, key: str, **numbers: int) -> str:
    digits = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹") if lang == "fa" else None
    values = {k: str(v).translate(digits) if digits else str(v) for k, v in numbers.items()}
    return WORDS[lang][key].format(**values)


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[DaemonThread]:
    peer = DevicePeer("t1", link_path=tmp_path / "ttyT1").start()
    d = DaemonThread(make_config(tmp_path, {"t1": tmp_path / "ttyT1"})).start()
    try:
        wait_for(lambda: d.board("t1")["status"]["link"] == "online", what="online")
        for name, role, password in (
            ("Omid", "owner", PASSWORD),
            ("Reza", "referee", REFEREE_PASSWORD),
        ):
            status, body = http(
                d.url + "/api/staff/users", {"name": name, "role": role, "password": password},
                TOKEN,
            )  # fmt: skip
            assert status == 200, body
        yield d
    finally:
        d.stop()
        peer.stop()


def signed_in(page: Any) -> bool:
    state = page.evaluate("fetch('/console/session').then((r) => r.json())")
    return bool(state["signed_in"])


@pytest.mark.parametrize("lang", LANGS)
def test_the_owner_signs_everyone_out_on_every_phone(
    browser: Any, phone: Any, venue: DaemonThread, lang: str
) -> None:
    d = venue
    referee_phone = browser.new_context(viewport=PHONE)
    try:
        console, errors = signed_in_page(
            referee_phone, d.url + "/console" + q(lang), REFEREE_PASSWORD, name="Reza"
        )
        expect(console.locator("#work")).to_be_visible()
        owner, more = signed_in_page(phone, d.url + "/staff" + q(lang), PASSWORD, name="Omid")
        errors += more
        expect(owner.locator("#work")).to_be_visible()
        asked: list[str] = []

        def answer(dialog: Any) -> None:
            asked.append(dialog.message)
            if len(asked) == 1:
                dialog.dismiss()  # the first time he thinks better of it
            else:
                dialog.accept()

        owner.on("dialog", answer)
        owner.click("#sign-out-all")
        assert len(asked) == 1 and signed_in(owner) and signed_in(console)  # nothing ended
        owner.click("#sign-out-all")
        expect(owner.locator("#error")).to_have_text(said(lang, "signed_out_all"))
        expect(owner.locator("#signin-box")).to_be_visible()
        expect(owner.locator("#work")).to_be_hidden()
        if lang == "fa":
            assert asked[0].startswith("همه‌ی ورودها")
            assert owner.evaluate("document.documentElement.dir") == "rtl"
            assert latin_outside_names(owner, "main") == []
        shot(owner, f"staff_signed_out_all_phone_{lang}")
        assert not signed_in(owner)
        assert not signed_in(console)  # the referee's phone too, at its next request
        console.reload()
        expect(console.locator("#signin-box")).to_be_visible()
    finally:
        referee_phone.close()
    assert errors == []


def logged_actions(d: DaemonThread, n: int) -> None:
    """``n`` operator actions, each a row of the day's log (the handset's
    language set, as a script with the operator token sets it)."""
    for i in range(n):
        status, body = http(
            d.url + "/api/tables/t1/handset", {"lang": "fa" if i % 2 else "en"}, TOKEN
        )
        assert status == 200, body
    d.flush()


@pytest.mark.parametrize("lang", LANGS)
def test_older_rows_pages_through_the_days_log(phone: Any, venue: DaemonThread, lang: str) -> None:
    d = venue
    logged_actions(d, PAGE_ROWS + 20)
    page, errors = signed_in_page(phone, d.url + "/staff/activity" + q(lang), PASSWORD, name="Omid")
    expect(page.locator("#rows tr")).not_to_have_count(0)
    # his sign-in is a row too: stored before the page is read again, so the
    # day's count stays what the first page says while he pages
    d.flush()
    page.reload()
    rows = page.locator("#rows tr")
    expect(rows).to_have_count(PAGE_ROWS)
    shown = page.locator("#shown")
    text = shown.text_content() or ""
    total = int(text.split()[2].translate(str.maketrans("۰۱۲۳۴۵۶۷۸۹", "0123456789")))
    assert total > PAGE_ROWS + 20  # the accounts added and the sign-in are rows too
    assert text == said(lang, "shown", shown=PAGE_ROWS, n=total)
    older = page.locator("#older")
    expect(older).to_have_text(said(lang, "older"))
    # the newest first: Omid's sign-in is on top, the accounts' adding (the
    # oldest rows) not yet shown
    added = "user add" if lang == "en" else "افزودن حساب"
    assert added not in (page.text_content("#rows") or "")
    older.click()
    expect(rows).to_have_count(total)
    expect(shown).to_have_text(said(lang, "shown", shown=total, n=total))
    expect(older).to_be_hidden()  # nothing older is left
    assert added in (rows.last.text_content() or "")
    if lang == "fa":
        assert page.evaluate("document.documentElement.dir") == "rtl"
        assert latin_outside_names(page, "main") == []
    shot(page, f"activity_older_rows_phone_{lang}")
    assert errors == []


ENDED = {
    "en": "the account that made it was disabled",
    "fa": "حسابی که آن را ساخت غیرفعال شد",
}


@pytest.mark.parametrize("lang", LANGS)
def test_the_owners_page_says_which_tokens_ended_and_why(
    phone: Any, venue: DaemonThread, lang: str
) -> None:
    """A token made by an owner who has since been disabled is listed as
    ended, with why, in the page's language, and offers no Revoke; one
    that holds does."""
    d = venue
    status, body = http(
        d.url + "/api/staff/users", {"name": "Sara", "role": "owner", "password": PASSWORD}, TOKEN
    )
    assert status == 200, body
    sara = Browser(d.url)
    answer = sara.send("POST", "/console/signin", {"name": "Sara", "password": PASSWORD})
    assert answer.status == 200, answer.body
    made = sara.send("POST", "/api/staff/tokens", {"name": "Sara's board", "role": "referee"},
                     {"X-CSRF-Token": answer.body["csrf"]})  # fmt: skip
    assert made.status == 200, made.body
    status, body = http(d.url + "/api/staff/tokens", {"name": "hall", "role": "referee"}, TOKEN)
    assert status == 200, body
    status, body = http(d.url + "/api/staff/users/Sara", {"disabled": True}, TOKEN)
    assert status == 200, body
    page, errors = signed_in_page(phone, d.url + "/staff" + q(lang), PASSWORD, name="Omid")
    items = page.locator("#tokens li")
    expect(items).to_have_count(2)
    ended = items.filter(has_text="Sara's board")
    expect(ended).to_contain_text(ENDED[lang])
    expect(ended.locator("button")).to_have_count(0)
    expect(items.filter(has_text="hall").locator("button")).to_have_count(1)
    if lang == "fa":
        assert latin_outside_names(page, "main") == []
    shot(page, f"staff_tokens_ended_phone_{lang}")
    assert errors == []
