"""What binds a sign-in to its credential, without a daemon: a store made by
an older baulk is migrated when opened (its sign-ins, which carry no
credential, end; its activity rows read a tried name as tried); a sign-in
is checked against its account's generation and the operator token itself,
not against a list of sign-ins someone remembered to end; and a change made
while a password is being checked ends the sign-in it was checked for."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from baulk.host.errors import ActionError, Refusal
from baulk.host.staff.registry import Registry, StaffError, digest, operator_credential
from baulk.host.staff.roles import Actor
from baulk.host.store import Batch, StaffWrite, Store, staff_queries
from baulk.host.web.http import refusal_status

# The staff's tables as a store made before sign-ins were bound to their
# credential (and tried names kept apart) has them.
OLD_TABLES = """
CREATE TABLE staff_accounts (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, name_key TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL, tables TEXT, password TEXT, pin TEXT,
    disabled INTEGER NOT NULL DEFAULT 0, created_ms INTEGER NOT NULL,
    changed_ms INTEGER NOT NULL, changed_by TEXT
);
CREATE TABLE staff_sessions (
    id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, account_id INTEGER,
    name TEXT NOT NULL, role TEXT NOT NULL, tables TEXT, csrf TEXT NOT NULL,
    created_ms INTEGER NOT NULL, expires_ms INTEGER NOT NULL, address TEXT,
    device TEXT, ended_ms INTEGER, ended_why TEXT
);
CREATE TABLE staff_activity (
    id INTEGER PRIMARY KEY, wall_ms INTEGER NOT NULL, mono_ms INTEGER NOT NULL,
    boot TEXT NOT NULL, who TEXT, role TEXT, address TEXT, device TEXT,
    action TEXT NOT NULL, what TEXT NOT NULL, table_id TEXT, session_id INTEGER,
    result TEXT NOT NULL, why TEXT
);
INSERT INTO staff_accounts VALUES (1, 'Dina', 'dina', 'desk', NULL, NULL, NULL, 0, 1, 1, NULL);
INSERT INTO staff_sessions (hash, account_id, name, role, csrf, created_ms, expires_ms)
    VALUES ('h1', 1, 'Dina', 'desk', 'c', 1, 9e15), ('h2', NULL, 'operator', 'owner', 'c', 1, 9e15);
INSERT INTO staff_activity (wall_ms, mono_ms, boot, who, role, action, what, result, why)
    VALUES (5, 5, 'b', 'Dina', NULL, 'sign-in', 'POST /console/signin', 'refused', 'wrong'),
           (6, 6, 'b', 'Dina', 'desk', 'sign-in', 'POST /console/signin', 'done', NULL),
           (7, 7, 'b', 'shell', NULL, 'user add', 'baulk users add Dina', 'done', NULL);
"""


def test_an_older_store_is_migrated_and_its_sign_ins_end(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(OLD_TABLES)
    db.close()
    store = Store(path)  # opened by this baulk: the columns are added
    try:
        have = {r[1] for r in store.db.execute("PRAGMA table_info(staff_sessions)")}
        assert {"generation", "credential"} <= have
        registry = Registry(None, operator="a token")
        registry.load(store.db)
        assert registry.sessions == {}  # neither carries the credential it was made with
        assert sorted(why for _, why in registry.stale) == [
            "the account's password, PIN, role or tables changed",
            "the operator token changed",
        ]
        assert registry.accounts[1].generation == 0
        rows = staff_queries.activity(store.db, 0, 10)
        assert [(r["who"], r["tried"]) for r in rows] == [
            (None, "Dina"),  # a stranger's attempt, never Dina's own action
            ("Dina", None),
            ("shell", None),
        ]
        assert staff_queries.activity_people(store.db, 0, 10) == ["Dina", "shell"]
        assert [r["id"] for r in staff_queries.activity(store.db, 0, 10, who="dina")] == [2]
    finally:
        store.close()


def _session(store: Store, hashed: str, account: int | None, generation: int | None,
             credential: str | None) -> None:  # fmt: skip
    store.db.execute(
        "INSERT INTO staff_sessions (hash, account_id, name, role, csrf, created_ms, expires_ms, "
        "generation, credential) VALUES (?, ?, 'x', 'owner', 'c', 1, 9e15, ?, ?)",
        (hashed, account, generation, credential),
    )


def test_a_sign_in_holds_only_with_its_credential(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    try:
        store.db.execute(
            "INSERT INTO staff_accounts (id, name, name_key, role, created_ms, changed_ms) "
            "VALUES (1, 'Omid', 'omid', 'owner', 1, 1)"
        )
        _session(store, "a", 1, 0, None)
        _session(store, "b", None, None, operator_credential("b", "the token"))

        def live(operator: str | None) -> set[str]:
            registry = Registry(None, operator=operator)
            registry.load(store.db)
            return set(registry.sessions)

        assert live("the token") == {"a", "b"}
        assert live("the new token") == {"a"}  # rotated
        assert live(None) == {"a"}  # taken out of the config
        # The account moved on (a restored store, or any writer that did not
        # end its sign-ins): the generation alone ends them.
        store.db.execute("UPDATE staff_accounts SET generation = 1 WHERE id = 1")
        assert live("the token") == {"b"}
        # the keyed hash is no copy of the token, and differs by sign-in
        assert "the token" not in (operator_credential("b", "the token") or "")
        assert operator_credential("b", "t") != operator_credential("c", "t")
    finally:
        store.close()


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
def test_a_change_while_the_password_is_checked_ends_that_sign_in() -> None:
    saved: list[StaffWrite] = []

    async def save(w: StaffWrite) -> bool:
        saved.append(w)
        w.generation = 1 if w.op == "account" else 0
        return True

    async def run() -> None:
        registry = Registry(save, operator="t")
        a = await registry.add("Dina", "desk", pin="2468", by="test")
        checked = Actor(a.name, a.role, a.tables, "session", a.id, a.generation)
        await registry.change("Dina", "test", pin="1357")  # while hers was being checked
        with pytest.raises(StaffError, match="changed while signing in"):
            await registry.sign_in(checked, 12, None, None)
        again = registry.account("Dina")
        assert again is not None and again.generation == 1
        secret, s = await registry.sign_in(
            Actor(again.name, again.role, again.tables, "session", again.id, again.generation),
            12, None, None,
        )  # fmt: skip
        assert registry.session(secret) is s and s.hash == digest(secret)

    asyncio.run(run())


def test_the_registrys_refusals_carry_a_kind_the_web_edge_maps() -> None:
    """A refusal says what happened, as every action's does (host/errors.py);
    the status comes from the web edge's one table, not from the registry."""
    registry = Registry(None)
    with pytest.raises(StaffError) as no_secret:
        asyncio.run(registry.add("Dina", "desk"))
    assert isinstance(no_secret.value, ActionError)
    assert no_secret.value.kind is Refusal.BAD_INPUT
    # past the request's model, bad input is a rule of the account: a 409
    assert (refusal_status(no_secret.value), refusal_status(no_secret.value, False)) == (409, 400)
    with pytest.raises(StaffError) as no_store:
        asyncio.run(registry.add("Dina", "desk", password="a long password"))
    assert no_store.value.kind is Refusal.UNAVAILABLE and refusal_status(no_store.value) == 503


def test_a_named_token_ends_with_what_made_it(tmp_path: Path) -> None:
    """A token is as strong as its maker (docs/VENUE.md, "Staff"): a leaked
    operator token, or an owner who has left, leaves no token behind that
    outlives it.  Made by an account: it ends when the account is disabled
    or is an owner no more, not when his password changes; made with the
    operator token: when the config has another or none; made by another
    token: when that one ends.  An older baulk's, bound to nothing, holds."""
    store = Store(tmp_path / "s.sqlite")

    async def save(w: StaffWrite) -> bool:
        written = store.write(Batch(writes=[w]))
        return not written.refused

    def holds(registry: Registry, secret: str) -> bool:
        return registry.token(secret) is not None

    async def run() -> None:
        registry = Registry(save, operator="the token")
        omid = await registry.add("Omid", "owner", password="a long password", by="test")
        as_omid = Actor(omid.name, omid.role, None, "session", omid.id, omid.generation)
        by_omid, t1 = await registry.new_token("board", "referee", None, "Omid", as_omid)
        by_operator, t2 = await registry.new_token(
            "thief", "owner", None, "operator", Actor("operator", "owner", None, "operator")
        )
        as_t2 = Actor(t2.name, t2.role, None, "token", None, token_id=t2.id)
        by_token, t3 = await registry.new_token("child", "desk", None, "thief", as_t2)
        older, _ = await registry.new_token("older", "desk", None, "shell")  # no maker
        secrets_ = (by_omid, by_operator, by_token, older)
        assert all(holds(registry, s) for s in secrets_)
        assert t2.credential is not None and "the token" not in t2.credential

        # Read again from the file: the binding is stored, not only held.
        again = Registry(save, operator="the token")
        again.load(store.db)
        assert all(holds(again, s) for s in secrets_)

        await registry.change("Omid", "test", password="another long password")
        assert holds(registry, by_omid)  # a new password: his tokens stay
        await registry.change("Omid", "test", role="desk")
        assert not holds(registry, by_omid)
        assert registry.token_ended(registry.tokens[t1.hash]) == "maker_not_owner"
        await registry.change("Omid", "test", role="owner")
        assert holds(registry, by_omid)  # an owner again
        await registry.change("Omid", "test", disabled=True)
        assert not holds(registry, by_omid)
        listed = registry.public_token(registry.tokens[t1.hash], "fa")
        assert listed["ended"] == "maker_disabled" and listed["revoked"] is False
        assert listed["ended_why"] == "حسابی که آن را ساخت غیرفعال شد"

        rotated = Registry(save, operator="a rotated token")
        rotated.load(store.db)
        assert not holds(rotated, by_operator) and not holds(rotated, by_token)
        assert rotated.token_ended(rotated.tokens[t3.hash]) == "maker_token_ended"
        assert holds(rotated, older)
        removed = Registry(save, operator=None)
        removed.load(store.db)
        assert removed.token_ended(removed.tokens[t2.hash]) == "operator_changed"

        await registry.revoke_token(t2.id, "Omid")
        assert not holds(registry, by_token) and not holds(registry, by_operator)
        assert registry.public_token(registry.tokens[t2.hash])["ended_why"] == "revoked"

    try:
        asyncio.run(run())
    finally:
        store.close()
