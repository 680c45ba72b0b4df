"""A sign-in ends with the credential it was made with (docs/VENUE.md,
"Staff"): the operator token rotated or taken out of the config before a
start; an account's password, PIN, role or tables changed, or the account
disabled, on /staff or with ``baulk users``; a named API token revoked;
and the owner's "sign everyone out".  Each ends every sign-in made with the
old credential, on every phone, by the very next request (no waiting:
what ``baulk users`` wrote holds at once), and leaves everyone else's alone."""

from __future__ import annotations

import asyncio
import io
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from baulk.host.cli import main as cli
from baulk.host.staff.registry import Registry, StaffError
from baulk.host.staff.roles import Actor
from baulk.host.store import Batch, StaffWrite, Store
from baulk.host.web.http import THROTTLE_KEY
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, StillClock, http, make_config, wait_for
from tests.web.client import Browser
from tests.web.test_sign_in_codes import code_for
from tests.web.test_signin import PASSWORD, add, signed

# Daemons of their own and argon2 for every sign-in: make test runs them.
pytestmark = pytest.mark.slow

NEW_PASSWORD = "a brand new password"
OWNER_ACTION = {"name": "Mallory", "role": "owner", "password": PASSWORD}


def users(monkeypatch: pytest.MonkeyPatch, store: Path, *args: str, secret: str = "") -> int:
    """``baulk users ...`` on the store file, the secret on stdin."""
    monkeypatch.setattr("sys.stdin", io.StringIO(secret + "\n"))
    return cli.main(["users", args[0], "--store", str(store), *args[1:]])


def is_signed_in(b: Browser) -> bool:
    state = b.send("GET", "/console/session").body
    return bool(state["signed_in"])


def acts(b: Browser, headers: dict[str, str]) -> int:
    """The status of a signed-in request any role may make."""
    return b.send("GET", "/api/staff/me", None, headers).status


def stored(store: Path, sql: str) -> list[tuple[Any, ...]]:
    """The rows of a query on the store file, read beside the running daemon."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def ended_why(store: Path) -> list[str]:
    return [
        str(r[0])
        for r in stored(store, "SELECT ended_why FROM staff_sessions WHERE ended_ms IS NOT NULL")
    ]


# ---------------------------------------------------------------------- at a restart
@pytest.mark.parametrize("new_token", ["a-rotated-token", None], ids=["rotated", "removed"])
def test_an_operator_token_sign_in_ends_when_the_config_changes_the_token(
    tmp_path: Path, peer: DevicePeer, monkeypatch: pytest.MonkeyPatch, new_token: str | None
) -> None:
    cfg = make_config(tmp_path, {"t1": tmp_path / "ttyT1"})
    d = DaemonThread(cfg).start()
    try:
        add(d, "Dina", "desk", pin="2468")
        add(d, "Reza", "referee")
        thief, phone = Browser(d.url), Browser(d.url)  # a leaked token, and the owner's own phone
        thief_headers = signed(thief, {"token": TOKEN})
        signed(phone, {"token": TOKEN})
        dina, reza = Browser(d.url), Browser(d.url)
        dina_headers = signed(dina, {"name": "Dina", "pin": "2468"})
        reza_headers = signed(reza, {"name": "Reza", "password": PASSWORD})
    finally:
        d.stop()
    # While the daemon is stopped: the token rotated (or taken out), and
    # Dina's PIN reset on the venue PC.
    assert users(monkeypatch, cfg.store_path, "reset", "Dina", "--pin", "--password-stdin",
                 secret="1357") == 0  # fmt: skip
    d = DaemonThread(replace(cfg, operator_token=new_token)).start()
    try:
        for b in (thief, phone, dina, reza):
            b.base = d.url  # a new port: the browsers keep their cookies
        assert not is_signed_in(thief) and not is_signed_in(phone)
        made = thief.send("POST", "/api/staff/users", OWNER_ACTION, thief_headers)
        assert made.status == 401, made.body  # no owner account made with the old token
        assert not is_signed_in(dina) and acts(dina, dina_headers) == 401
        # a sign-in whose credential did not change lives on across the restart
        assert is_signed_in(reza) and acts(reza, reza_headers) == 200
        why = ended_why(cfg.store_path)
        expected = "the operator token changed" if new_token else "the operator token was taken"
        assert sum(w.startswith(expected) for w in why) == 2, why
        if new_token is not None:
            old = Browser(d.url).send("POST", "/console/signin", {"token": TOKEN})
            assert old.status == 401
            signed(Browser(d.url), {"token": new_token})  # the new one signs in
    finally:
        d.stop()


def test_a_token_made_with_a_leaked_operator_token_ends_when_it_is_rotated(
    tmp_path: Path, peer: DevicePeer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """The thief's way to outlive a rotation: a named owner token made while
    the leaked one worked.  It ends with it; the owner's own tokens stay, and
    his page says which ended and why."""
    cfg = make_config(tmp_path, {"t1": tmp_path / "ttyT1"})
    tokens = "/api/staff/tokens"
    d = DaemonThread(cfg).start()
    try:
        add(d, "Omid", "owner")
        thief = Browser(d.url)
        thief_headers = signed(thief, {"token": TOKEN})
        made = thief.send("POST", tokens, {"name": "backdoor", "role": "owner"}, thief_headers)
        assert made.status == 200, made.body
        omid = Browser(d.url)
        omid_headers = signed(omid, {"name": "Omid", "password": PASSWORD})
        board = omid.send("POST", tokens, {"name": "board", "role": "referee"}, omid_headers)
        assert board.status == 200, board.body
    finally:
        d.stop()
    d = DaemonThread(replace(cfg, operator_token="a-rotated-token")).start()
    try:
        backdoor = {"Authorization": f"Bearer {made.body['token']}"}
        script = Browser(d.url)
        tried = script.send("POST", "/api/staff/users", OWNER_ACTION, backdoor)
        assert tried.status == 401, tried.body
        kept = {"Authorization": f"Bearer {board.body['token']}"}
        assert script.send("GET", "/api/staff/me", None, kept).status == 200
        status, listed = http(d.url + tokens + "?lang=fa", None, "a-rotated-token")
        assert status == 200
        state = {t["name"]: (t["ended"], t["ended_why"]) for t in listed["tokens"]}
        assert state == {
            "backdoor": ("operator_changed", "با توکن اپراتوری ساخته شد که دیگر در پیکربندی نیست"),
            "board": (None, None),
        }
        # Omid leaves: disabled on the venue PC, the daemon running; his token ends at once.
        assert users(monkeypatch, cfg.store_path, "disable", "Omid") == 0
        assert script.send("GET", "/api/staff/me", None, kept).status == 401
        capsys.readouterr()
        assert cli.main(["users", "tokens", "--store", str(cfg.store_path)]) == 0
        out = capsys.readouterr().out
        assert "board\treferee (ended: the account that made it was disabled)" in out
        assert "backdoor\towner (made with the operator token: give --config" in out
    finally:
        d.stop()


# ---------------------------------------------------------------------- on /staff and by the CLI
@pytest.fixture(scope="module")
def venue(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaemonThread]:
    """One daemon for the changes: each case has accounts of its own."""
    tmp = tmp_path_factory.mktemp("ends")
    peer = DevicePeer("t1", link_path=tmp / "ttyT1").start()
    d = DaemonThread(make_config(tmp, {"t1": tmp / "ttyT1"})).start()
    try:
        wait_for(lambda: d.board("t1")["status"]["link"] == "online", what="online")
        yield d
    finally:
        d.stop()
        peer.stop()


def _phones(d: DaemonThread, name: str, pin: str | None) -> list[tuple[Browser, dict[str, str]]]:
    """Two phones signed in to the account (one with the PIN, if it has one)."""
    out = []
    for body in (
        {"name": name, "password": PASSWORD},
        {"name": name, "pin": pin} if pin else {"name": name, "password": PASSWORD},
    ):
        b = Browser(d.url)
        out.append((b, signed(b, body)))
    return out


# change: (role, what the account has, the change on /staff, the same by baulk users, its secret)
CHANGES: dict[str, tuple[str, dict[str, Any], dict[str, Any], tuple[str, ...], str]] = {
    "password": ("desk", {}, {"password": NEW_PASSWORD}, ("reset", "--password-stdin"),
                 NEW_PASSWORD),
    "pin": ("desk", {"pin": "2468"}, {"pin": "1357"}, ("reset", "--pin", "--password-stdin"),
            "1357"),
    "role": ("referee", {}, {"role": "desk"}, ("set", "--role", "desk"), ""),
    "tables": ("referee", {"tables": ["t1"]}, {"tables": ["t1", "t2"]},
               ("set", "--tables", "t1,t2"), ""),
    "disabled": ("referee", {}, {"disabled": True}, ("disable",), ""),
}  # fmt: skip


def roomy(d: DaemonThread) -> None:
    """The guessing cap's bucket for the whole server made deep: these tests
    sign in from many new browsers on purpose, and the cap is not what they
    test (tests/web/test_console_session.py does)."""
    assert d.web is not None
    guessing = d.web.runner.app[THROTTLE_KEY]
    guessing.bucket = guessing.tokens = 10_000


def _again(d: DaemonThread, name: str, change: str) -> None:
    """After the change the account signs in with what it has now (disabled: not at all)."""
    b = Browser(d.url)
    body = {"name": name, "password": NEW_PASSWORD if change == "password" else PASSWORD}
    answer = b.send("POST", "/console/signin", body)
    assert answer.status == (401 if change == "disabled" else 200), answer.body
    if change == "pin":
        signed(Browser(d.url), {"name": name, "pin": "1357"})
        old = Browser(d.url).send("POST", "/console/signin", {"name": name, "pin": "2468"})
        assert old.status == 401


@pytest.mark.parametrize("by", ["web", "cli"])
@pytest.mark.parametrize("change", list(CHANGES))
def test_a_change_of_the_account_ends_its_sign_ins_on_every_phone(
    venue: DaemonThread, monkeypatch: pytest.MonkeyPatch, change: str, by: str
) -> None:
    d = venue
    name = f"{change.title()}-{by}"
    role, has, on_staff, command, secret = CHANGES[change]
    roomy(d)
    add(d, name, role, **has)
    phones = _phones(d, name, has.get("pin"))
    bystander = Browser(d.url)
    bystander_headers = signed(bystander, {"token": TOKEN})
    for b, headers in phones:
        assert is_signed_in(b) and acts(b, headers) == 200
    if by == "web":
        status, body = http(d.url + f"/api/staff/users/{name}", on_staff, TOKEN)
        assert status == 200, body
    else:
        store = d.cfg.store_path
        assert users(monkeypatch, store, command[0], name, *command[1:], secret=secret) == 0
    # at once, on every phone: the very next request, no waiting
    for b, headers in phones:
        assert acts(b, headers) == 401
        assert not is_signed_in(b)
    assert is_signed_in(bystander) and acts(bystander, bystander_headers) == 200
    _again(d, name, change)


@pytest.mark.parametrize("by", ["web", "cli"])
def test_a_revoked_token_is_refused_at_once(
    venue: DaemonThread,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    by: str,
) -> None:
    d = venue
    tokens = d.url + "/api/staff/tokens"
    status, made = http(tokens, {"name": f"scoreboard {by}", "role": "referee"}, TOKEN)
    assert status == 200, made
    status, kept = http(tokens, {"name": f"kept {by}", "role": "referee"}, TOKEN)
    assert status == 200, kept
    bearer = {"Authorization": f"Bearer {made['token']}"}
    script = Browser(d.url)
    assert script.send("GET", "/api/staff/me", None, bearer).status == 200
    if by == "web":
        status, body = http(d.url + f"/api/staff/tokens/{made['id']}/revoke", {}, TOKEN)
        assert status == 200 and body["revoked"] is True
    else:
        capsys.readouterr()
        assert users(monkeypatch, d.cfg.store_path, "revoke", str(made["id"])) == 0
        assert f"token {made['id']} (scoreboard cli) is revoked" in capsys.readouterr().out
    assert script.send("GET", "/api/staff/me", None, bearer).status == 401
    match = {"players": ["Ali", "Reza"], "best_of": 1}
    assert script.send("POST", "/api/tables/t1/match", match, bearer).status == 401
    other = {"Authorization": f"Bearer {kept['token']}"}
    assert script.send("GET", "/api/staff/me", None, other).status == 200  # the other one holds
    assert users(monkeypatch, d.cfg.store_path, "tokens") == 0
    listed = capsys.readouterr().out
    assert f"{made['id']}\tscoreboard {by}\treferee (revoked)" in listed
    # made with the operator token, which --store alone cannot judge
    assert f"{kept['id']}\tkept {by}\treferee (made with the operator token" in listed


def test_a_named_token_signs_no_browser_in(daemon: DaemonThread) -> None:
    """Only the operator token signs a browser in: a named token's sign-in
    cannot outlive its revoke, for there is none (its own daemon: the wrong
    token counts against the operator token's guessing cap)."""
    d = daemon
    status, made = http(d.url + "/api/staff/tokens", {"name": "board", "role": "owner"}, TOKEN)
    assert status == 200, made
    script = Browser(d.url)
    tried = script.send("POST", "/console/signin", {"token": made["token"]})
    assert tried.status == 401 and tried.body["error"] == "the operator token is wrong"
    assert not is_signed_in(script)


# ---------------------------------------------------------------------- sign everyone out
def test_the_owner_signs_everyone_out_on_the_page_and_from_the_shell(
    daemon: DaemonThread, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    d = daemon
    add(d, "Omid", "owner")
    add(d, "Dina", "desk", pin="2468")
    status, made = http(d.url + "/api/staff/tokens", {"name": "board", "role": "referee"}, TOKEN)
    assert status == 200
    bearer = {"Authorization": f"Bearer {made['token']}"}

    def everyone() -> list[tuple[Browser, dict[str, str]]]:
        out = []
        for body in (
            {"name": "Omid", "password": PASSWORD},
            {"name": "Dina", "pin": "2468"},
            {"token": TOKEN},
        ):
            b = Browser(d.url)
            out.append((b, signed(b, body)))
        return out

    phones = everyone()
    owner, owner_headers = phones[0]
    # an empty POST changes nothing
    answer = owner.send("POST", "/api/staff/sign-out-all", {}, owner_headers)
    assert answer.status == 400, answer.body
    persian = owner.send("POST", "/api/staff/sign-out-all?lang=fa", {}, owner_headers)
    assert persian.body["message"] == "برای بیرون بردن همه از ورودشان، تأیید لازم است"
    assert all(is_signed_in(b) for b, _ in phones)
    # only the owner may
    dina, dina_headers = phones[1]
    yes = {"confirm": True}
    assert dina.send("POST", "/api/staff/sign-out-all", yes, dina_headers).status == 403
    answer = owner.send("POST", "/api/staff/sign-out-all", yes, owner_headers)
    assert answer.status == 200 and answer.body["signed_out"] == 3, answer.body
    for b, headers in phones:  # his own too
        assert not is_signed_in(b) and acts(b, headers) == 401
    assert Browser(d.url).send("GET", "/api/staff/me", None, bearer).status == 200  # tokens stay
    # ... and from the venue PC's shell, the daemon running
    phones = everyone()
    capsys.readouterr()
    assert users(monkeypatch, d.cfg.store_path, "sign-out-all") == 0
    assert "signed everyone out: 3 sign-ins ended" in capsys.readouterr().out
    for b, headers in phones:
        assert acts(b, headers) == 401 and not is_signed_in(b)
    everyone()  # and each signs in again
    d.flush()
    logged = stored(
        d.cfg.store_path,
        "SELECT who, result FROM staff_activity WHERE action = 'sign everyone out' ORDER BY id",
    )
    assert logged == [("Omid", "refused"), ("Omid", "refused"), ("Dina", "refused"),
                      ("Omid", "done"), ("shell", "done")]  # fmt: skip


@pytest.mark.parametrize("by", ["web", "cli"])
def test_sign_everyone_out_ends_the_unused_codes_too(
    daemon: DaemonThread,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    by: str,
) -> None:
    """A code is a credential like a sign-in: one given before "sign
    everyone out" (a phone lost, a code read out to the wrong person) signs
    no one in after it; one made after it does."""
    d = daemon
    add(d, "Dina", "desk")
    before = code_for(d, "Dina")
    if by == "web":
        status, body = http(d.url + "/api/staff/sign-out-all", {"confirm": True}, TOKEN)
        assert status == 200, body
    else:
        d.flush()
        assert users(monkeypatch, d.cfg.store_path, "sign-out-all") == 0
        capsys.readouterr()
    # the very next sign-in, no waiting, on the daemon and in the file
    answer = Browser(d.url).send("POST", "/console/signin", {"code": before})
    assert answer.status == 401, answer.body
    assert answer.body["error"] == "that sign-in code is wrong, used already or out of date"
    persian = Browser(d.url).send("POST", "/console/signin?lang=fa", {"code": before})
    assert persian.status == 401 and persian.body["message"].startswith("این کد ورود نادرست است")
    d.flush()
    unused = stored(d.cfg.store_path, "SELECT count(*) FROM staff_codes WHERE used_ms IS NULL")
    assert unused == [(0,)]  # a restarted daemon finds none either
    after = Browser(d.url).send("POST", "/console/signin", {"code": code_for(d, "Dina")})
    assert after.status == 200, after.body


def test_a_sign_in_checked_before_sign_everyone_out_and_stored_after_it_ends(
    tmp_path: Path,
) -> None:
    asyncio.run(_checked_before_stored_after(tmp_path))


async def _checked_before_stored_after(tmp_path: Path) -> None:
    """Dina's password was checked and her sign-in is on its way to the
    store when the owner signs everyone out: it must not come out the
    other side alive (nor one whose check began before it: its actor keeps
    the generation of before, and sign_in refuses that)."""
    store = Store(tmp_path / "venue.sqlite")
    storing = asyncio.Event()  # her sign-in's row is being written
    go_on = asyncio.Event()
    try:

        async def save(w: StaffWrite) -> bool:
            if w.op == "session" and "csrf" in w.values:
                storing.set()
                await go_on.wait()
            return not store.write(Batch(writes=[w])).refused

        staff = Registry(save, StillClock())
        dina = await staff.add("Dina", "desk", PASSWORD, None, None, "owner")
        actor = Actor(dina.name, dina.role, None, "session", dina.id, dina.generation)
        signing = asyncio.create_task(staff.sign_in(actor, 8, None, None))
        await storing.wait()
        await staff.sign_out_all("Omid signed everyone out")
        go_on.set()
        secret, _ = await signing
        assert staff.session(secret) is None  # this daemon holds it no more
        again = Registry(save, StillClock())  # nor a restarted one
        again.load(store.db)
        assert again.session(secret) is None
        with pytest.raises(StaffError):  # checked before, stored after: refused
            await staff.sign_in(actor, 8, None, None)
    finally:
        store.close()
