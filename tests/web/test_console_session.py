"""The console's sign-in over plain HTTP: the cookie's flags, the CSRF token
and the Origin check, sign-out, a forged cookie, the rate limit, and that
the bearer token still works for scripts."""

from __future__ import annotations

from pathlib import Path

import pytest

from baulk.host.staff import roles
from baulk.host.web import throttle
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, make_config
from tests.web.client import Browser

MATCH = {"players": ["Ali", "Reza"], "best_of": 3}


def test_sign_in_sets_an_httponly_strict_cookie_and_gives_a_csrf_token(
    daemon: DaemonThread,
) -> None:
    b = Browser(daemon.url)
    answer = b.sign_in(TOKEN)
    assert answer.status == 200 and answer.body["signed_in"] is True
    csrf = answer.body["csrf"]
    assert len(csrf) >= 32 and TOKEN not in csrf
    (cookie,) = [c for c in answer.header("Set-Cookie") if c.startswith("baulk_session=")]
    flags = {f.strip().split("=")[0].lower() for f in cookie.split(";")[1:]}
    assert {"httponly", "samesite", "path", "max-age"} <= flags
    assert "SameSite=Strict" in cookie
    assert "secure" not in flags  # plain HTTP: a Secure cookie would never come back
    assert TOKEN not in cookie
    assert answer.header("Cache-Control") == ["no-store"]
    (device,) = [c for c in answer.header("Set-Cookie") if c.startswith("baulk_device=")]
    assert "HttpOnly" in device and "SameSite=Strict" in device
    session = b.send("GET", "/console/session")
    assert session.body == {
        "signed_in": True,
        "csrf": csrf,
        "name": "operator",
        "role": "owner",
        "tables": None,
        "may": roles.may("owner"),  # the routes the owner's pages offer
        "limited_to": None,
        "actions_enabled": True,
    }


def test_an_action_needs_the_session_and_its_csrf_token_and_this_origin(
    daemon: DaemonThread, peer: DevicePeer
) -> None:
    b = Browser(daemon.url)
    path = "/api/tables/t1/match"
    assert b.send("POST", path, MATCH).status == 401  # not signed in
    csrf = b.sign_in(TOKEN).body["csrf"]
    no_token = b.send("POST", path, MATCH)
    assert no_token.status == 403 and "CSRF" in no_token.body["error"]
    wrong = b.send("POST", path, MATCH, {"X-CSRF-Token": csrf[:-1] + "x"})
    assert wrong.status == 403
    foreign = b.send("POST", path, MATCH, {"X-CSRF-Token": csrf, "Origin": "http://127.0.0.1:1"})
    assert foreign.status == 403
    assert (
        foreign.body["error"] == "refused: this action came from another site (http://127.0.0.1:1)"
    )
    site = b.send("POST", path, MATCH, {"X-CSRF-Token": csrf, "Sec-Fetch-Site": "cross-site"})
    assert site.status == 403
    assert peer.last_seq() == 0  # nothing reached the table
    own = b.send("POST", path, MATCH, {"X-CSRF-Token": csrf, "Origin": daemon.url})
    assert own.status == 200, own.body
    assert peer.engine.state()["players"] == ["Ali", "Reza"]


def test_errors_come_in_the_language_asked_for(daemon: DaemonThread) -> None:
    b = Browser(daemon.url)
    wrong = b.send("POST", "/console/signin?lang=fa", {"token": "not-the-token"})
    assert wrong.status == 401
    assert wrong.body == {
        "error": "the operator token is wrong",
        "message": "رمز اپراتور نادرست است",
        "id": "the operator token is wrong",
    }
    csrf = b.sign_in(TOKEN).body["csrf"]
    bad = b.send(
        "POST", "/api/tables/t1/command?lang=fa", {"ev": "pot", "ball": "purple"},
        {"X-CSRF-Token": csrf},
    )  # fmt: skip
    assert bad.status == 400  # the correction's model (host/web/request_models.py) refuses it
    assert bad.body == {  # its message id beside the English (host/sentences.py)
        "error": "ball must be a ball name",
        "message": "توپ باید نام یک توپ باشد",
        "id": "ball must be a ball name",
    }


def test_sign_out_ends_the_session(daemon: DaemonThread, peer: DevicePeer) -> None:
    b = Browser(daemon.url)
    csrf = b.sign_in(TOKEN).body["csrf"]
    kept = dict(b.cookies)
    out = b.send("POST", "/console/signout", {}, {"X-CSRF-Token": csrf})
    assert out.status == 200 and out.body == {"signed_in": False}
    assert "baulk_session" not in b.cookies  # the cookie was cleared
    assert b.send("GET", "/console/session").body["signed_in"] is False
    # A copy of the cookie kept from before is no sign-in either: the server
    # ended the session, not just this browser's cookie.
    b2 = Browser(daemon.url, cookies=kept)
    assert b2.send("GET", "/console/session").body["signed_in"] is False
    answer = b2.send("POST", "/api/tables/t1/match", MATCH, {"X-CSRF-Token": csrf})
    assert answer.status == 401
    assert peer.last_seq() == 0


def test_a_forged_or_altered_cookie_is_not_a_sign_in(
    daemon: DaemonThread, peer: DevicePeer
) -> None:
    b = Browser(daemon.url)
    b.sign_in(TOKEN)
    name, value = "baulk_session", b.cookies["baulk_session"]
    altered = value[:-6] + ("AAAAAA" if not value.endswith("AAAAAA") else "BBBBBB")
    for forged in (altered, "gAAAAABfake", '{"session": {"operator": true, "csrf": "x"}}'):
        other = Browser(daemon.url, cookies={name: forged})
        assert other.send("GET", "/console/session").body["signed_in"] is False
        answer = other.send("POST", "/api/tables/t1/match", MATCH, {"X-CSRF-Token": "x"})
        assert answer.status == 401
    assert peer.last_seq() == 0


@pytest.mark.slow  # waits out the cap's first delay: make test
def test_guessing_is_capped_and_no_oracle_but_a_known_browser_gets_in(
    daemon: DaemonThread,
) -> None:
    phone = Browser(daemon.url)  # the operator's own phone, signed in before
    assert phone.sign_in(TOKEN).status == 200
    csrf = phone.send("GET", "/console/session").body["csrf"]
    phone.send("POST", "/console/signout", {}, {"X-CSRF-Token": csrf})
    stranger = Browser(daemon.url)
    free = throttle.PASSWORD.free
    codes = [stranger.sign_in(f"guess-{i:08d}").status for i in range(free + 2)]
    assert codes[:free] == [401] * free
    assert set(codes[free:]) == {429}
    # the cap holds before anything is checked: the right token from a
    # stranger's browser gets the same 429 (a guesser learns nothing) ...
    assert stranger.sign_in(TOKEN).status == 429 and "baulk_session" not in stranger.cookies
    # ... and the same address's known browser is never shut out
    assert phone.sign_in(TOKEN).status == 200 and "baulk_session" in phone.cookies


def test_the_bearer_token_still_works_for_scripts(daemon: DaemonThread, peer: DevicePeer) -> None:
    b = Browser(daemon.url)
    answer = b.send("POST", "/api/tables/t1/match", MATCH, {"Authorization": f"Bearer {TOKEN}"})
    assert answer.status == 200, answer.body
    assert peer.engine.state()["players"] == ["Ali", "Reza"]


def test_without_an_operator_token_the_console_cannot_sign_in(tmp_path: Path) -> None:
    d = DaemonThread(make_config(tmp_path, {}, token=None)).start()
    try:
        b = Browser(d.url)
        answer = b.sign_in("anything-at-all")
        assert answer.status == 403
        assert b.send("GET", "/console/session").body["actions_enabled"] is False
        assert "baulk_session" not in b.cookies
    finally:
        d.stop()


def test_the_console_page_may_not_be_framed(daemon: DaemonThread) -> None:
    page = Browser(daemon.url).send("GET", "/console")
    assert page.status == 200
    assert page.header("X-Frame-Options") == ["DENY"]
    assert "default-src 'self'" in page.header("Content-Security-Policy")[0]
