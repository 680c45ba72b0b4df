"""A person always gets in on a phone he never used, even while a stranger
guesses at his account: the owner (on the staff page, or `baulk users code`
on the venue PC) gives him a one-time code, which the guessing cap never
holds back.  A code is used once, lives 15 minutes, dies with a disabled
account, never reaches a log, and makes the phone one the account has
signed in from."""

from __future__ import annotations

import asyncio
import io
import re
import sqlite3
from pathlib import Path

import pytest

from baulk.host.cli import main as cli
from baulk.host.staff import accounts
from baulk.host.staff.registry import Registry, digest
from baulk.host.store import Batch, StaffWrite, Store
from baulk.host.web import throttle
from baulk.host.web.http import THROTTLE_KEY
from tests.host.harness import TOKEN, DaemonThread, StillClock, http, wait_for
from tests.web.client import Browser
from tests.web.test_signin import PASSWORD, add, signed

# Each test starts a daemon and hashes passwords with argon2 (about 0.2 s a
# password): make test runs them, make check (the quick loop) leaves them out.
pytestmark = pytest.mark.slow

CODE = re.compile(r"^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$")


def code_for(d: DaemonThread, name: str) -> str:
    status, made = http(d.url + f"/api/staff/users/{name}/code", {}, TOKEN)
    assert status == 200, made
    assert CODE.match(made["code"]) and made["name"] == name
    return str(made["code"])


def held(d: DaemonThread, name: str) -> None:
    """A stranger guesses at the account until the cap holds it, and the
    cap's clock stands still: the hold (2 s) outlasts the test, however long
    a busy machine takes over the argon2 checks that follow."""
    guessing = d.web.runner.app[THROTTLE_KEY]
    still = guessing.clock()
    guessing.clock = lambda: still
    stranger = Browser(d.url)
    for i in range(throttle.PASSWORD.free + 1):
        stranger.send("POST", "/console/signin", {"name": name, "password": f"guess {i}"})
    new_phone = Browser(d.url)
    right = new_phone.send("POST", "/console/signin", {"name": name, "password": PASSWORD})
    assert right.status == 429  # the right password from a new phone waits, as a guess would


def test_a_code_gets_a_new_phone_in_while_the_password_is_held(daemon: DaemonThread) -> None:
    d = daemon
    add(d, "Dina", "desk")
    held(d, "Dina")
    code = code_for(d, "Dina")
    phone = Browser(d.url)
    typed = code.lower().replace("-", " ")  # as a thumb types it
    answer = phone.send("POST", "/console/signin", {"code": typed})
    assert answer.status == 200, answer.body
    assert (answer.body["name"], answer.body["role"]) == ("Dina", "desk")
    assert phone.send("GET", "/api/desk", None, {"X-CSRF-Token": answer.body["csrf"]}).status == 200
    # once only, and the phone is now one Dina signed in from: her password
    # works there while the stranger's guesses still hold it elsewhere
    again = Browser(d.url).send("POST", "/console/signin", {"code": code})
    assert again.status == 401
    assert again.body["error"] == "that sign-in code is wrong, used already or out of date"
    persian = Browser(d.url).send("POST", "/console/signin?lang=fa", {"code": code})
    assert persian.body["message"].startswith("این کد ورود نادرست است")
    signed(phone, {"name": "Dina", "password": PASSWORD})
    assert Browser(d.url).send(
        "POST", "/console/signin", {"name": "Dina", "password": PASSWORD}
    ).status == 429  # fmt: skip
    # the log has who made it and who used it, never the code
    d.flush()
    db = sqlite3.connect(f"file:{d.cfg.store_path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT who, action, what, result FROM staff_activity").fetchall()
    finally:
        db.close()
    made = [r for r in rows if r[1] == "sign-in code"]
    assert [(r[0], r[3]) for r in made] == [("operator", "done")], made
    assert any(r[1] == "sign-in" and r[0] == "Dina" and r[3] == "done" for r in rows)
    raw = code.replace("-", "")
    assert not any(raw in " ".join(str(x) for x in r) for r in rows)


@pytest.mark.parametrize(
    "typed",
    ["", "ABCD-EFGH-JKMN", "0000-0000-0000", "\ud800" * 12, "x" * 65, 12, None, ["K7QM"]],
)
def test_a_wrong_code_is_refused_plainly(daemon: DaemonThread, typed: object) -> None:
    add(daemon, "Dina", "desk")
    code_for(daemon, "Dina")
    answer = Browser(daemon.url).send("POST", "/console/signin", {"code": typed})
    # a code that is text of the sign-in's length is looked up (wrong: 401);
    # anything else breaks the body's model (host/web/request_models.py): 400
    looked_up = typed in ("", "ABCD-EFGH-JKMN", "0000-0000-0000")  # not broken UTF-16 either
    assert answer.status == (401 if looked_up else 400), answer.body
    assert "sign-in code" in answer.body["error"]


def test_only_the_owner_makes_codes_and_never_for_a_disabled_account(
    daemon: DaemonThread,
) -> None:
    d = daemon
    add(d, "Dina", "desk")
    add(d, "Omid", "owner")
    dina = Browser(d.url)
    headers = signed(dina, {"name": "Dina", "password": PASSWORD})
    refused = dina.send("POST", "/api/staff/users/Dina/code", {}, headers)
    assert refused.status == 403 and "owner" in refused.body["error"]
    omid = Browser(d.url)
    owner = signed(omid, {"name": "Omid", "password": PASSWORD})
    made = omid.send("POST", "/api/staff/users/Dina/code", {}, owner)
    assert made.status == 200 and ("Cache-Control", "no-store") in made.headers
    assert omid.send("POST", "/api/staff/users/Nobody/code", {}, owner).status == 404
    omid.send("POST", "/api/staff/users/Dina", {"disabled": True}, owner)
    # her code dies with the account, and no new one is made
    late = Browser(d.url).send("POST", "/console/signin", {"code": made.body["code"]})
    assert late.status == 401
    again = omid.send("POST", "/api/staff/users/Dina/code?lang=fa", {}, owner)
    assert again.status == 409
    assert again.body["message"] == "\u2068Dina\u2069 غیرفعال است: نخست حساب را فعال کنید"
    # enabled again, she is a new generation: the code of before stays dead
    assert omid.send("POST", "/api/staff/users/Dina", {"disabled": False}, owner).status == 200
    assert Browser(d.url).send("POST", "/console/signin", {"code": made.body["code"]}).status == 401


def test_a_code_lives_fifteen_minutes() -> None:
    asyncio.run(_a_code_lives_fifteen_minutes())


async def _a_code_lives_fifteen_minutes() -> None:
    saved: list[StaffWrite] = []

    async def save(w: StaffWrite) -> bool:
        saved.append(w)
        return True

    clock = StillClock()  # read twice below: the same moment both times
    staff = Registry(save, clock)
    await staff.add("Dina", "desk", PASSWORD, None, None, "owner")
    code, _, ends = await staff.new_code("dina", "owner")
    assert ends == clock.wall_ms() + accounts.CODE_MINUTES * 60_000
    clock.advance(accounts.CODE_MINUTES * 60_000)
    assert await staff.use_code(code) is None
    fresh, _, _ = await staff.new_code("Dina", "owner")
    clock.advance(accounts.CODE_MINUTES * 60_000 - 1)
    found = await staff.use_code(fresh.replace("-", "").translate(str.maketrans("23", "۲۳")))
    assert found is not None and found.name == "Dina"  # Persian digits are digits
    assert [w.op for w in saved][-3:] == ["code", "code", "code"]  # made, made, used
    assert saved[-1].values.get("used_ms") is not None


def test_a_code_from_the_shell_reaches_the_running_daemon(
    daemon: DaemonThread, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    d = daemon
    add(d, "Omid", "owner")
    held(d, "Omid")  # the owner himself, under attack, on a new phone
    d.flush()
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert cli.main(["users", "code", "--store", str(d.cfg.store_path), "Omid"]) == 0
    said = capsys.readouterr().out
    code = re.search(r"[2-9A-Z]{4}-[2-9A-Z]{4}-[2-9A-Z]{4}", said)
    assert code is not None and said.startswith("sign-in code for Omid: ")
    phone = Browser(d.url)
    answer = wait_for(
        lambda: (
            (a := phone.send("POST", "/console/signin", {"code": code.group(0)})).status == 200
            and a
        ),
        what="the daemon to see the shell's code",
    )
    me = phone.send("GET", "/api/staff/me", None, {"X-CSRF-Token": answer.body["csrf"]})
    assert me.body.get("name") == "Omid", me.body
    db = sqlite3.connect(f"file:{Path(d.cfg.store_path)}?mode=ro", uri=True)
    try:
        logged = db.execute(
            "SELECT why FROM staff_activity WHERE who = 'shell' AND action = 'sign-in code'"
        ).fetchall()
    finally:
        db.close()
    assert logged == [("sign-in code for Omid",)]


# A code is a credential like a password (docs/VENUE.md, "Staff"): it holds
# only while the account is as it was when the code was made.
CHANGES = {
    "password": {"password": "a brand new password"},
    "pin": {"pin": "1357"},
    "role": {"role": "referee"},
    "tables": {"role": "referee", "tables": ["t1"]},
}


@pytest.mark.parametrize("change", list(CHANGES), ids=list(CHANGES))
def test_a_code_made_before_a_change_on_staff_ends_with_it(
    daemon: DaemonThread, change: str
) -> None:
    d = daemon
    add(d, "Dina", "desk", pin="2468")
    if change == "tables":  # a referee already: only his tables change
        status, body = http(d.url + "/api/staff/users/Dina", {"role": "referee"}, TOKEN)
        assert status == 200, body
    before = code_for(d, "Dina")
    status, body = http(d.url + "/api/staff/users/Dina", CHANGES[change], TOKEN)
    assert status == 200, body
    answer = Browser(d.url).send("POST", "/console/signin", {"code": before})
    assert answer.status == 401, answer.body
    assert answer.body["error"] == "that sign-in code is wrong, used already or out of date"
    # a code made after the change signs her in as she is now
    after = Browser(d.url).send("POST", "/console/signin", {"code": code_for(d, "Dina")})
    assert after.status == 200, after.body
    assert after.body["role"] == ("desk" if change in ("password", "pin") else "referee")


@pytest.mark.parametrize(
    "command", [["reset", "--password-stdin"], ["reset", "--pin", "--password-stdin"],
                ["set", "--role", "referee"], ["disable"]],
    ids=["reset", "reset-pin", "set", "disable"],
)  # fmt: skip
def test_a_code_made_before_a_change_in_the_shell_ends_at_once(
    daemon: DaemonThread,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
) -> None:
    d = daemon
    add(d, "Dina", "desk", pin="2468")
    phone = Browser(d.url)
    signed(phone, {"name": "Dina", "pin": "2468"})  # the daemon has read the file just now
    before = code_for(d, "Dina")
    d.flush()
    secret = "1357" if "--pin" in command else "a brand new password"
    monkeypatch.setattr("sys.stdin", io.StringIO(secret + "\n"))
    store = str(d.cfg.store_path)
    assert cli.main(["users", command[0], "--store", store, "Dina", *command[1:]]) == 0
    capsys.readouterr()
    # no waiting: the very next sign-in reads what the shell wrote
    answer = Browser(d.url).send("POST", "/console/signin", {"code": before})
    assert answer.status == 401, answer.body
    persian = Browser(d.url).send("POST", "/console/signin?lang=fa", {"code": before})
    assert persian.status == 401 and persian.body["message"].startswith("این کد ورود نادرست است")


def test_a_code_keeps_its_generation_in_the_store_and_an_older_baulks_holds_nothing(
    tmp_path: Path,
) -> None:
    asyncio.run(_a_code_keeps_its_generation(tmp_path))


async def _a_code_keeps_its_generation(tmp_path: Path) -> None:
    store = Store(tmp_path / "venue.sqlite")
    try:

        async def save(w: StaffWrite) -> bool:
            return not store.write(Batch(writes=[w])).refused

        clock = StillClock()
        staff = Registry(save, clock)
        await staff.add("Dina", "desk", PASSWORD, None, None, "owner")
        await staff.change("Dina", "owner", role="referee")  # generation 1
        kept, _, _ = await staff.new_code("Dina", "owner")
        older, _, _ = await staff.new_code("Dina", "owner")
        # as a code of a baulk before this rule was stored: no generation
        key = accounts.code_key(older)
        assert key is not None
        store.db.execute("UPDATE staff_codes SET generation = NULL WHERE hash = ?", (digest(key),))
        store.db.commit()
        again = Registry(save, clock)  # a restarted daemon, or baulk users
        again.load(store.db)
        assert await again.use_code(older) is None
        found = await again.use_code(kept)
        assert found is not None and found.generation == 1
    finally:
        store.close()
