"""The operator console on a phone (390x844) in a real headless Chromium with
its Content-Security-Policy enforced, against the real daemon and a
simulated table (the real firmware on the simulated board, on a pty).

End to end: sign in, start a match with two names, see it on the table
board, undo, award a frame, sign out.  Refusals: a wrong token, an action
from another origin (CSRF), a form with bad values; each with a clear
message, and nothing changes on the table.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from tests.e2e.chromium import expect, page_errors, shot
from tests.e2e.signing import fill_sign_in
from tests.e2e.sim_driver import TableDriver, simulated_venue
from tests.host.harness import TOKEN, DaemonThread, http, wait_for

pytestmark = pytest.mark.browser


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[tuple[DaemonThread, TableDriver]]:
    with simulated_venue(tmp_path, seed=3) as v:
        yield v


def sign_in(page: Any, url: str, token: str = TOKEN, lang: str = "en") -> None:
    page.goto(url + "/console" + ("?lang=fa" if lang == "fa" else ""))
    expect(page.locator("#signin")).to_be_visible()
    fill_sign_in(page, token)


def result(page: Any) -> Any:
    return page.locator("#result")


def click_and_wait(page: Any, selector: str) -> None:
    """Click an action and wait for the table's answer to be shown."""
    before = page.get_attribute("#result", "data-n") or "0"
    page.click(selector)
    expect(result(page)).not_to_have_attribute("data-n", before)
    expect(result(page)).not_to_have_attribute("data-kind", "busy")


def test_console_end_to_end_on_a_phone(phone: Any, venue: tuple[DaemonThread, TableDriver]) -> None:
    daemon, table = venue
    page = phone.new_page()
    errors = page_errors(page)
    sign_in(page, daemon.url)
    expect(page.locator("#work")).to_be_visible()
    expect(result(page)).to_have_text("Signed in.")
    # The token is nowhere in the page: not in the field, the markup, the
    # storage or a cookie a script could read; the session cookie is HttpOnly
    # and SameSite=Strict.
    assert page.input_value("#signin-secret") == ""
    assert TOKEN not in page.content()
    assert page.evaluate("document.cookie") == ""
    assert page.evaluate("localStorage.length + sessionStorage.length") == 0
    cookies = {c["name"]: c for c in phone.cookies()}
    assert cookies["baulk_session"]["httpOnly"] is True
    assert cookies["baulk_session"]["sameSite"] == "Strict"
    assert TOKEN not in cookies["baulk_session"]["value"]

    # Start a match with two names.
    expect(page.locator(".tablebtn.selected")).to_contain_text("Table t1")
    page.click("#match-box summary")
    names = page.locator("#singles-names input")
    names.nth(0).fill("Ali")
    names.nth(1).fill("Reza")
    page.fill("#best-of", "5")
    page.fill("#referee", "Sara Referee")
    shot(page, "console_phone_new_match")
    click_and_wait(page, "#match-form button[type=submit]")
    expect(result(page)).to_have_attribute("data-kind", "done")
    expect(page.locator("#summary")).to_contain_text("Ali")
    assert table.state()["players"] == ["Ali", "Reza"]
    assert table.state()["best_of"] == 5

    # It is on the table board.
    board = phone.new_page()
    board.goto(daemon.url + "/table/t1")
    expect(board.locator("#name0")).to_have_text("Ali")
    expect(board.locator("#name1")).to_have_text("Reza")
    expect(board.locator("#bestof")).to_have_text("Best of 5")

    # A pot on the table, then undo from the phone.
    table.stroke("red")
    expect(board.locator("#score0")).to_have_text("1")
    expect(page.locator("#summary .sscore").first).to_have_text("1")
    click_and_wait(page, "button[data-ev=undo]")
    expect(result(page)).to_have_attribute("data-kind", "done")
    expect(board.locator("#score0")).to_have_text("0")
    assert table.state()["scores"] == [0, 0]

    # Award the frame to Reza (the console asks first): the board counts it
    # and announces it.
    page.click(".sides[data-label=award_frame] button >> nth=1")
    click_and_wait(page, "#confirm button[value=yes]")
    expect(result(page)).to_have_text("Frame 1 awarded to Reza, 0–1")
    expect(board.locator("#frames1")).to_have_text("1")
    expect(board.locator("#notice")).to_have_attribute("data-kind", "frame_won")
    expect(board.locator("#notice")).to_contain_text("Reza wins frame 1")
    assert table.state()["frames"] == [0, 1]
    shot(page, "console_phone_after_award")
    shot(board, "table_board_phone_frame_won")

    # Sign out: the page's CSRF token is dead, and so is the cookie's session.
    csrf = page.evaluate("fetch('/console/session').then((r) => r.json()).then((s) => s.csrf)")
    page.click("#sign-out")
    expect(page.locator("#signin")).to_be_visible()
    expect(result(page)).to_have_text("Signed out.")
    assert errors == []
    after = table.journal_next()
    status = page.evaluate(
        """(csrf) => fetch('/api/tables/t1/command', {method: 'POST',
             headers: {'Content-Type': 'application/json', 'X-CSRF-Token': csrf},
             body: JSON.stringify({ev: 'undo'})}).then((r) => r.status)""",
        csrf,
    )
    assert status == 401
    assert table.journal_next() == after


def test_console_start_over_a_running_match_asks_first(
    phone: Any, venue: tuple[DaemonThread, TableDriver]
) -> None:
    daemon, table = venue
    status, reply = http(
        daemon.url + "/api/tables/t1/match", {"players": ["Ali", "Reza"], "best_of": 3}, token=TOKEN
    )
    assert status == 200, reply
    table.stroke("red")
    page = phone.new_page()
    sign_in(page, daemon.url, lang="fa")
    expect(page.locator("#work")).to_be_visible()
    expect(page.locator("#summary .sscore").first).to_have_text("۱")
    page.click("#match-box summary")
    names = page.locator("#singles-names input")
    names.nth(0).fill("Mina")
    names.nth(1).fill("Sara")
    page.click("#match-form button[type=submit]")
    dialog = page.locator("#confirm")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("مسابقه‌ای در جریان است")
    shot(page, "console_phone_fa_confirm_replace")
    journal = table.journal_next()
    page.click("#confirm button[value=no]")
    expect(dialog).to_be_hidden()
    assert table.journal_next() == journal  # nothing was sent
    assert table.state()["players"] == ["Ali", "Reza"]
    page.click("#match-form button[type=submit]")
    expect(dialog).to_be_visible()
    click_and_wait(page, "#confirm button[value=yes]")
    expect(result(page)).to_have_attribute("data-kind", "done")
    expect(result(page)).to_have_text("انجام شد: Mina ۰–۰ Sara")
    assert table.state()["players"] == ["Mina", "Sara"]


def test_console_scores_a_stroke_by_hand_and_shows_refusals_in_persian(
    phone: Any, venue: tuple[DaemonThread, TableDriver]
) -> None:
    """R5.21's fallback: pot, balls at rest, a foul with its kind and ball, and
    what the table's engine refused, in Persian."""
    daemon, table = venue
    status, reply = http(
        daemon.url + "/api/tables/t1/match", {"players": ["Ali", "Reza"], "best_of": 3}, token=TOKEN
    )
    assert status == 200, reply
    page = phone.new_page()
    errors = page_errors(page)
    sign_in(page, daemon.url, lang="fa")
    expect(page.locator("#work")).to_be_visible()
    click_and_wait(page, "#pot-balls button[data-ball=red]")  # strike + pot: a stroke opens
    expect(page.locator("#stroke-state")).to_have_text("ضربه در جریان است")
    click_and_wait(page, "#rest")
    expect(page.locator("#summary .sscore").first).to_have_text("۱")
    # The ball on is a colour: nominating is fine, potting a red is a foul the
    # engine calls by itself.
    click_and_wait(page, "#nominate-balls button[data-ball=black]")
    expect(result(page)).to_have_attribute("data-kind", "done")
    click_and_wait(page, "#pot-balls button[data-ball=black]")
    click_and_wait(page, "#rest")
    assert table.state()["scores"] == [8, 0]
    # A foul with its kind and ball.
    click_and_wait(page, "#rest")  # a stroke with nothing potted: Reza is in
    page.select_option("#foul-kind", "wrong_ball_first")
    page.select_option("#foul-ball", "pink")
    click_and_wait(page, "#foul-form button[type=submit]")
    expect(result(page)).to_have_attribute("data-kind", "done")
    # called after the stroke, it is Ali's stroke's foul: six (the pink) to Reza
    wait_for(lambda: table.state()["scores"] == [8, 6], what="the foul's six points")
    # What the engine refuses, and why, in Persian: no miss was called.
    journal = table.journal_next()
    click_and_wait(page, "button[data-ev=replace]")
    expect(result(page)).to_have_attribute("data-kind", "error")
    expect(result(page)).to_have_text(
        "میز نپذیرفت: برگرداندن توپ‌ها فقط پس از خطا و میس در ضربه‌ی آخر ممکن است"
    )
    shot(page, "console_phone_fa_refused")
    wait_for(lambda: table.journal_next() == journal + 1, what="the refusal journaled")
    assert table.state()["scores"] == [8, 6]  # the refusal changed nothing
    assert errors == []


# ---------------------------------------------------------------------- refusals
def test_console_refuses_a_wrong_token(phone: Any, venue: tuple[DaemonThread, TableDriver]) -> None:
    daemon, table = venue
    journal = table.journal_next()
    page = phone.new_page()
    sign_in(page, daemon.url, token="not-the-operator-token")
    expect(page.locator("#signin-error")).to_have_text("the operator token is wrong")
    expect(page.locator("#signin")).to_be_visible()
    expect(page.locator("#work")).to_be_hidden()
    assert phone.cookies() == []  # no session was opened
    sign_in(page, daemon.url, token="not-the-operator-token", lang="fa")
    expect(page.locator("#signin-error")).to_have_text("رمز اپراتور نادرست است")
    shot(page, "console_phone_fa_wrong_token")
    state = page.evaluate(
        "fetch('/console/session').then((r) => r.json()).then((s) => s.signed_in)"
    )
    assert state is False
    assert table.journal_next() == journal


ATTACK = """<!doctype html><html><body>
<form id="f" method="POST" action="{victim}/api/tables/t1/command" enctype="text/plain">
<input name='{{"ev":"award","side":1,"x":"' value='"}}'></form>
<script>
window.fetchStatus = fetch("{victim}/api/tables/t1/command", {{method: "POST", mode: "no-cors",
  credentials: "include", body: JSON.stringify({{ev: "award", side: 1}})}}).then(() => "sent");
</script></body></html>"""


@pytest.fixture
def attacker(venue: tuple[DaemonThread, TableDriver]) -> Iterator[str]:
    """Another origin on this machine (another port, on the daemon's event
    loop) serving a page that posts actions to the console's server."""
    daemon, _ = venue

    async def page(request: web.Request) -> web.Response:
        return web.Response(text=ATTACK.format(victim=daemon.url), content_type="text/html")

    async def start() -> tuple[web.AppRunner, int]:
        app = web.Application()
        app.router.add_get("/", page)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        server: Any = site._server
        return runner, int(server.sockets[0].getsockname()[1])

    runner, port = daemon.call(start())
    yield f"http://127.0.0.1:{port}"
    daemon.call(runner.cleanup())


def test_console_refuses_actions_from_another_origin(
    phone: Any, venue: tuple[DaemonThread, TableDriver], attacker: str
) -> None:
    daemon, table = venue
    evil = attacker
    status, reply = http(
        daemon.url + "/api/tables/t1/match", {"players": ["Ali", "Reza"], "best_of": 3}, token=TOKEN
    )
    assert status == 200, reply
    page = phone.new_page()
    sign_in(page, daemon.url)
    expect(page.locator("#work")).to_be_visible()
    journal = table.journal_next()
    # The operator, signed in, opens another site's page in the same browser:
    # it posts a form and a fetch to the console's server, with the cookie
    # (same site, another port: SameSite alone does not stop it).
    other = phone.new_page()
    other.goto(evil + "/")
    assert other.evaluate("window.fetchStatus") == "sent"
    other.evaluate("document.getElementById('f').submit()")
    other.wait_for_url(daemon.url + "/api/tables/t1/command")
    answer = json.loads(other.locator("body").inner_text())
    assert answer["error"] == f"refused: this action came from another site ({evil})"
    # From the console's own origin but without the page's CSRF token: refused too.
    status = page.evaluate(
        """() => fetch('/api/tables/t1/command', {method: 'POST',
             headers: {'Content-Type': 'application/json'},
             body: JSON.stringify({ev: 'award', side: 1})})
           .then(async (r) => [r.status, (await r.json()).error])"""
    )
    assert status == [
        403,
        "refused: this action did not come from the console page (CSRF token missing or wrong)",
    ]
    assert table.journal_next() == journal  # nothing reached the table
    assert table.state()["frames"] == [0, 0]
    # The console itself still works.
    page.click(".sides[data-label=award_frame] button >> nth=0")
    click_and_wait(page, "#confirm button[value=yes]")
    expect(result(page)).to_have_attribute("data-kind", "done")
    assert table.state()["frames"] == [1, 0]


def test_console_refuses_bad_form_values_and_nothing_changes(
    phone: Any, venue: tuple[DaemonThread, TableDriver]
) -> None:
    daemon, table = venue
    page = phone.new_page()
    sign_in(page, daemon.url)
    expect(page.locator("#work")).to_be_visible()
    journal = table.journal_next()
    page.click("#match-box summary")
    names = page.locator("#singles-names input")
    submit = "#match-form button[type=submit]"
    error = page.locator("#match-error")
    # An empty name.
    names.nth(0).fill("Ali")
    page.click(submit)
    expect(error).to_have_text("Player 2: a name is needed.")
    # A name over the device's 48 bytes (30 Persian letters are 60 bytes).
    names.nth(1).fill("ر" * 30)
    page.click(submit)
    expect(error).to_contain_text("Player 2: the name is too long")
    # An even best-of.
    names.nth(1).fill("Reza")
    page.fill("#best-of", "4")
    page.click(submit)
    expect(error).to_have_text("Best of must be an odd number from 1 to 35.")
    shot(page, "console_phone_bad_form")
    # The server checks the same when a page skips its own checks.
    answer = page.evaluate(
        """() => fetch('/console/session').then((r) => r.json()).then((s) =>
             fetch('/api/tables/t1/match?lang=fa', {method: 'POST',
               headers: {'Content-Type': 'application/json', 'X-CSRF-Token': s.csrf},
               body: JSON.stringify({players: ['Ali', 'Reza'], best_of: 4})}))
           .then(async (r) => [r.status, await r.json()])"""
    )
    assert answer[0] == 400
    assert answer[1]["error"] == "best_of must be an odd integer from 1 to 35"
    assert answer[1]["message"] == "تعداد فریم‌ها باید عددی فرد از ۱ تا ۳۵ باشد"
    assert table.journal_next() == journal  # nothing was sent to the table
    assert table.state()["players"] in (None, [])
    assert daemon.board("t1")["match"] is None


def test_console_starts_a_doubles_match_and_corrects_a_name(
    phone: Any, venue: tuple[DaemonThread, TableDriver]
) -> None:
    daemon, table = venue
    page = phone.new_page()
    errors = page_errors(page)
    sign_in(page, daemon.url)
    expect(page.locator("#work")).to_be_visible()
    page.click("#match-box summary")
    page.check("input[name=mode][value=doubles]")
    expect(page.locator("#doubles-names")).to_be_visible()
    names = page.locator("#doubles-names input")
    for i, name in enumerate(["Ali", "Mina", "Reza", "Sara"]):
        names.nth(i).fill(name)
    page.check("input[name=reds][value='6']")
    page.check("input[name=breaker][value='1']")
    click_and_wait(page, "#match-form button[type=submit]")
    expect(result(page)).to_have_attribute("data-kind", "done")
    state = table.state()
    assert state["players"] == [["Ali", "Mina"], ["Reza", "Sara"]]
    assert state["reds"] == 6 and state["striker"] == 1
    board = phone.new_page()
    board.goto(daemon.url + "/table/t1")
    expect(board.locator("#name0")).to_have_text("Ali & Mina")
    # The desk typed "Mina" for "Minoo": corrected from the phone.
    page.click("#names-box summary")
    fix = page.locator("#fix-names input")
    expect(fix.nth(1)).to_have_value("Mina")
    fix.nth(1).fill("Minoo")
    click_and_wait(page, "#names-form button[type=submit]")
    expect(result(page)).to_have_attribute("data-kind", "done")
    expect(board.locator("#name0")).to_have_text("Ali & Minoo")
    expect(page.locator("#summary")).to_contain_text("Ali & Minoo")
    assert errors == []
