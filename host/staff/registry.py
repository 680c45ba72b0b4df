"""The staff the daemon holds in memory: accounts, API tokens, sign-ins and
the devices each account signed in from, loaded from the store at start
and written through the store's writer (host/store/staff_schema.py) at
every change.  A change is applied here only once the store has it, so
what the daemon believes is what a restart finds.

``baulk users`` changes the store file directly, the daemon running or not:
:meth:`Registry.reload_if_changed` (the web gate calls it for every request
that carries a credential, and at most once a second for the rest) sees the
file's ``staff_version`` move and reads accounts and tokens again, and
which sign-ins the file still holds live.

A sign-in ends with the credential it was made with (docs/VENUE.md,
"Staff"): each keeps the generation its account had when the password, PIN
or code was checked, and every change of the account (a new password or
PIN, a role, tables, a disable; "sign everyone out" moves every account's)
moves the generation on; a one-time code
keeps the generation it was made under the same way, so a reset ends the
codes given before it as it ends the sign-ins; a sign-in made
with the operator token keeps a keyed hash of that token, so once the
config has another token, or none, it holds no more.  Each is checked on
every request, whoever changed what, here, by ``baulk users`` or in the
config before a start: there is no list of sign-ins to forget to end.

Secrets are never kept: a session's cookie and an API token are 32 random
bytes, known here by their SHA-256 only; passwords and PINs by their argon2
hash (passwords.py).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from baulk.host.club.clock import VenueClock
from baulk.host.errors import ActionError, Refusal
from baulk.host.sentences import Message, say
from baulk.host.staff import accounts as rules
from baulk.host.staff.passwords import hash_secret
from baulk.host.staff.roles import OWNER, REFEREE, Actor
from baulk.host.store import StaffWrite, staff_queries

log = logging.getLogger("baulk.staff")

SESSIONS_MOST = 2000  # sign-ins held at once; the oldest gives way
DEVICE_BYTES = 200  # how much of a User-Agent is kept

Save = Callable[[StaffWrite], Awaitable[bool]]


ONLY_DESK_PIN = Message("only a desk account signs in with a PIN")
# Why a named token holds no more, by the kind Registry.token_ended gives.
TOKEN_ENDED = {
    "revoked": Message("revoked"),
    "maker_disabled": Message("the account that made it was disabled"),
    "maker_not_owner": Message("the account that made it is an owner no more"),
    "operator_changed": Message("it was made with an operator token the config no longer has"),
    "maker_token_ended": Message("the token that made it has ended"),
}


class StaffError(ActionError):
    """A change the registry refuses: its kind of refusal and its sentence,
    as every action's (host/errors.py); the web edge alone picks the status
    (host/web/http.py ``refusal_status``)."""


def digest(secret: str) -> str:
    """The SHA-256 a random secret (a cookie, a token) is known by."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def operator_credential(session_hash: str, token: str | None) -> str | None:
    """What a sign-in made with the operator token keeps of it: an HMAC of
    the token keyed by the sign-in's own hash (never the token itself, and
    no two sign-ins alike); None without a token."""
    if token is None:
        return None
    message = token.encode("utf-8", "surrogatepass")
    return hmac.new(session_hash.encode("ascii"), message, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Account:
    id: int
    name: str
    role: str
    tables: frozenset[str] | None
    password: str | None  # argon2 hashes
    pin: str | None
    disabled: bool
    changed_ms: int
    generation: int = 0  # moves on at every change: sign-ins of before end

    @property
    def key(self) -> str:
        return rules.key_of(self.name)

    def public(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "role": self.role,
            "tables": sorted(self.tables) if self.tables is not None else None,
            "has_password": self.password is not None,
            "has_pin": self.pin is not None,
            "disabled": self.disabled,
            "changed_ms": self.changed_ms,
        }


@dataclass(frozen=True)
class Token:
    id: int
    name: str
    role: str
    tables: frozenset[str] | None
    hash: str
    created_ms: int
    created_by: str | None
    revoked: bool
    # What made it (at most one is set; none: an older baulk's, bound to
    # nothing): an owner's account, another named token, or the operator
    # token, kept as a keyed hash as a sign-in keeps it (operator_credential).
    maker_account: int | None = None
    maker_token: int | None = None
    credential: str | None = None

    def public(self, ended: str | None = None) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "role": self.role,
            "tables": sorted(self.tables) if self.tables is not None else None,
            "created_ms": self.created_ms,
            "created_by": self.created_by,
            "revoked": self.revoked,
            "ended": ended,
        }


class Code(NamedTuple):
    """A one-time sign-in code, known by its hash: whose, until when, and the
    account's generation when it was made (None: an older baulk's, which
    holds nothing)."""

    account_id: int
    ends_ms: int
    generation: int | None


@dataclass(frozen=True)
class WebSession:
    hash: str
    account_id: int | None  # None: the configured operator token's owner
    name: str
    role: str
    tables: frozenset[str] | None
    csrf: str
    expires_ms: int
    generation: int | None = None  # the account's when it signed in
    credential: str | None = None  # the operator token's keyed hash (operator_credential)


def _tables(text: Any) -> frozenset[str] | None:
    if not text:
        return None
    try:
        found = json.loads(text)
    except ValueError:
        return frozenset()  # unreadable: limited to nothing, never to everything
    return frozenset(str(t) for t in found) if isinstance(found, list) else frozenset()


def _frozen(tables: list[str] | None) -> frozenset[str] | None:
    return frozenset(tables) if tables is not None else None


def _tables_text(tables: list[str] | None) -> str | None:
    return json.dumps(sorted(tables)) if tables is not None else None


def _account(r: dict[str, Any]) -> Account:
    return Account(
        int(r["id"]),
        str(r["name"]),
        str(r["role"]),
        _tables(r["tables"]),
        r["password"],
        r["pin"],
        bool(r["disabled"]),
        int(r["changed_ms"]),
        int(r["generation"] or 0),
    )


def _token(r: dict[str, Any]) -> Token:
    return Token(
        int(r["id"]),
        str(r["name"]),
        str(r["role"]),
        _tables(r["tables"]),
        str(r["hash"]),
        int(r["created_ms"]),
        r["created_by"],
        r["revoked_ms"] is not None,
        r["maker_account"],
        r["maker_token"],
        r["credential"],
    )


def end_sessions_write(account_id: int, at_ms: int, why: str) -> StaffWrite:
    """Every sign-in of an account, ended in the store."""
    return StaffWrite("session", {"account_id": account_id, "ended_ms": at_ms, "ended_why": why})


class Registry:
    """Accounts, tokens, sign-ins and trusted devices, as the store has them."""

    def __init__(
        self,
        save: Save | None,
        clock: VenueClock | None = None,
        offload: Callable[[Callable[[], str]], Awaitable[str]] | None = None,
        operator: str | None = None,
    ) -> None:
        self.save = save  # None: a server without a store (baulk board) keeps no staff
        self.offload = offload  # where argon2 runs (the daemon: not on its event loop)
        self.operator = operator  # the configured operator token, if any
        self.clock = clock or VenueClock()
        self.accounts: dict[int, Account] = {}
        self.by_key: dict[str, Account] = {}
        self.tokens: dict[str, Token] = {}
        self.sessions: dict[str, WebSession] = {}
        self.devices: set[tuple[str, int]] = set()
        self.codes: dict[str, Code] = {}  # by the code's hash
        self.version = -1
        self._checked_at = 0.0
        # Sign-ins found ended when loaded, not yet ended in the file: (hash, why).
        self.stale: list[tuple[str, str]] = []

    # ------------------------------------------------------------------ loading
    def load(self, db: sqlite3.Connection, sessions: bool = True) -> None:
        """Accounts, tokens and codes from the store; with ``sessions`` (at
        start) the live sign-ins too, else only which of those held here the
        file still has live (``baulk users sign-out-all`` ends them there)."""
        self.version = staff_queries.staff_version(db)
        self.accounts = {a.id: a for a in map(_account, staff_queries.accounts(db))}
        self.by_key = {a.key: a for a in self.accounts.values()}
        self.tokens = {t.hash: t for t in map(_token, staff_queries.tokens(db))}
        now = self.clock.wall_ms()
        self.codes = {
            r["hash"]: Code(int(r["account_id"]), int(r["expires_ms"]), r["generation"])
            for r in staff_queries.live_codes(db, now)
        }
        if sessions:
            self.sessions = {
                r["hash"]: WebSession(
                    r["hash"],
                    r["account_id"],
                    r["name"],
                    r["role"],
                    _tables(r["tables"]),
                    r["csrf"],
                    r["expires_ms"],
                    r["generation"],
                    r["credential"],
                )
                for r in staff_queries.live_sessions(db, now)
            }
            self.devices = staff_queries.devices(db)
        else:
            live = staff_queries.live_session_hashes(db, now)
            self.sessions = {h: s for h, s in self.sessions.items() if h in live}
        # Those whose credential changed while no request asked: gone from
        # memory now, and (at start) ended in the file by end_stale.
        for s in list(self.sessions.values()):
            why = self.ended_why(s)
            if why is not None:
                del self.sessions[s.hash]
                if sessions:
                    self.stale.append((s.hash, why))

    def reload_if_changed(self, db: sqlite3.Connection, now_s: float, force: bool = False) -> None:
        """Read accounts and tokens again when the file's staff_version
        moved; looked at once a second at most, or now when ``force``d (a
        request with a credential: what ``baulk users`` just changed holds
        for it at once)."""
        if not force and now_s - self._checked_at < 1.0:
            return
        self._checked_at = now_s
        try:
            if staff_queries.staff_version(db) != self.version:
                self.load(db, sessions=False)
        except sqlite3.Error as e:
            log.warning("staff: the store could not be read (%s); accounts stay as they were", e)

    async def end_stale(self) -> None:
        """End in the file the sign-ins found ended when loaded (at start: the
        operator token changed in the config, an account changed meanwhile)."""
        while self.stale and self.save is not None:
            session_hash, why = self.stale.pop()
            await self.save(
                StaffWrite(
                    "session",
                    {"hash": session_hash, "ended_ms": self.clock.wall_ms(), "ended_why": why},
                )
            )

    # ------------------------------------------------------------------ looking up
    def account(self, name: str) -> Account | None:
        return self.by_key.get(rules.key_of(name))

    def session(self, secret: str) -> WebSession | None:
        """The live sign-in of a cookie's secret, or None: out of date, or
        its credential changed since it was made (:meth:`ended_why`)."""
        s = self.sessions.get(digest(secret))
        if s is None:
            return None
        if s.expires_ms <= self.clock.wall_ms() or self.ended_why(s) is not None:
            self.sessions.pop(s.hash, None)
            return None
        return s

    def ended_why(self, s: WebSession) -> str | None:
        """Why a sign-in holds no more (None: it holds): the credential it
        was made with is not the one there is now."""
        if s.account_id is None:  # the operator token's
            if self.operator is None:
                return "the operator token was taken out of the config"
            expected = operator_credential(s.hash, self.operator)
            if s.credential is None or not hmac.compare_digest(s.credential, expected or ""):
                return "the operator token changed"
            return None
        a = self.accounts.get(s.account_id)
        if a is None or a.disabled:
            return "the account was disabled"
        if s.generation != a.generation:
            return "the account's password, PIN, role or tables changed"
        return None

    def actor_of(self, s: WebSession) -> Actor:
        return Actor(s.name, s.role, s.tables, "session", s.account_id, s.generation)

    def token(self, secret: str) -> Token | None:
        """The named token of a secret, if it holds (:meth:`token_ended`)."""
        t = self.tokens.get(digest(secret))
        return t if t is not None and self.token_ended(t) is None else None

    def token_ended(self, t: Token) -> str | None:
        """Why a named token holds no more (None: it holds): revoked, or the
        credential that made it has ended.  A token is as strong as what
        made it, so a leaked operator token or an owner who has left cannot
        leave a token behind that outlives them: one made by an account
        ends when the account is disabled or is an owner no more, one made
        with the operator token when the config has another token or none,
        one made by another token when that one ends.  Checked at every
        request, as a sign-in is; the kinds are the page's words
        (:data:`TOKEN_ENDED`)."""
        if t.revoked:
            return "revoked"
        # Up the chain of makers: each is an older token, so it ends; the
        # bound is for a file edited by hand.
        for depth in range(64):
            why = self._maker_ended(t)
            if why is not None:
                return why if depth == 0 else "maker_token_ended"
            if t.maker_token is None:
                return None
            maker = self._token_by_id(t.maker_token)
            if maker is None or maker.revoked:
                return "maker_token_ended"
            t = maker
        return "maker_token_ended"

    def _maker_ended(self, t: Token) -> str | None:
        if t.maker_account is not None:
            a = self.accounts.get(t.maker_account)
            if a is None or a.disabled:
                return "maker_disabled"
            return None if a.role == OWNER else "maker_not_owner"
        if t.credential is not None:
            expected = operator_credential(t.hash, self.operator)
            if expected is None or not hmac.compare_digest(t.credential, expected):
                return "operator_changed"
        return None

    def _token_by_id(self, token_id: int) -> Token | None:
        return next((t for t in self.tokens.values() if t.id == token_id), None)

    def public_token(self, t: Token, lang: str = "en") -> dict[str, Any]:
        """A token as the owner's page lists it: whether it ended, and why in ``lang``."""
        ended = self.token_ended(t)
        return {**t.public(ended), "ended_why": say(TOKEN_ENDED[ended], lang) if ended else None}

    def trusted(self, device: str | None, account_id: int | None) -> bool:
        """Has this account signed in from this device before?"""
        if not device:
            return False
        return (digest(device), account_id if account_id is not None else 0) in self.devices

    # ------------------------------------------------------------------ changes
    async def _hash(self, secret: str) -> str:
        if self.offload is None:
            return hash_secret(secret)
        return await self.offload(lambda: hash_secret(secret))

    async def _save(self, w: StaffWrite) -> None:
        if self.save is None:
            raise StaffError(
                Refusal.UNAVAILABLE,
                Message("this server keeps no staff accounts (it has no store)"),
            )
        if not await self.save(w):
            raise StaffError(
                Refusal.UNAVAILABLE, Message("the store could not save this now; nothing changed")
            )

    async def add(
        self,
        name: object,
        role: object,
        password: object = None,
        pin: object = None,
        tables: object = None,
        by: str | None = None,
    ) -> Account:
        clean = rules.check_person(name)
        if self.account(clean) is not None:
            raise StaffError(
                Refusal.CONFLICT, Message("there is already an account '{id}'", id=clean)
            )
        kind = rules.check_role(role)
        limited = rules.tables_for(kind, tables)
        if password is None and pin is None:
            raise StaffError(
                Refusal.BAD_INPUT,
                Message("an account needs a password (and a desk clerk may have a PIN)"),
            )
        if pin is not None and kind != "desk":
            raise StaffError(Refusal.BAD_INPUT, ONLY_DESK_PIN)
        hashed = await self._hash(rules.check_password(password)) if password is not None else None
        pin_hash = await self._hash(rules.check_pin(pin)) if pin is not None else None
        now = self.clock.wall_ms()
        w = StaffWrite(
            "account",
            {
                "name": clean,
                "name_key": rules.key_of(clean),
                "role": kind,
                "tables": _tables_text(limited),
                "password": hashed,
                "pin": pin_hash,
                "disabled": 0,
                "created_ms": now,
                "changed_ms": now,
                "changed_by": by,
            },
        )
        await self._save(w)
        a = Account(
            w.row_id,
            clean,
            kind,
            _frozen(limited),
            hashed,
            pin_hash,
            False,
            now,
        )
        self.accounts[a.id] = a
        self.by_key[a.key] = a
        return a

    async def change(
        self,
        name: object,
        by: str | None,
        disabled: object = None,
        password: object = None,
        pin: object = None,
        role: object = None,
        tables: object = ...,
    ) -> Account:
        """Disable or enable an account, give it a new password or PIN, a
        role or tables.  Any of them ends its sign-ins: each is a new
        generation of the account."""
        if not isinstance(name, str) or (a := self.account(name)) is None:
            raise StaffError(
                Refusal.NOT_FOUND, Message("there is no account '{id}'", id=str(name)[:40])
            )
        new = a
        if disabled is not None:
            if not isinstance(disabled, bool):
                raise StaffError(Refusal.BAD_INPUT, Message("disabled must be true or false"))
            new = replace(new, disabled=disabled)
        if role is not None:
            new = replace(new, role=rules.check_role(role))
        if tables is not ... or role is not None:
            kept = sorted(a.tables) if a.tables is not None and new.role == REFEREE else None
            limited = rules.tables_for(new.role, kept if tables is ... else tables)
            new = replace(new, tables=_frozen(limited))
        if password is not None:
            new = replace(new, password=await self._hash(rules.check_password(password)))
        if pin is not None:
            if new.role != "desk":
                raise StaffError(Refusal.BAD_INPUT, ONLY_DESK_PIN)
            new = replace(new, pin=await self._hash(rules.check_pin(pin)))
        if new == a:
            raise StaffError(
                Refusal.BAD_INPUT,
                Message("nothing to change: give disabled, password, pin, role or tables"),
            )
        now = self.clock.wall_ms()
        w = StaffWrite(
            "account",
            {
                "id": a.id,
                "role": new.role,
                "tables": _tables_text(sorted(new.tables) if new.tables is not None else None),
                "password": new.password,
                "pin": new.pin,
                "disabled": int(new.disabled),
                "changed_ms": now,
                "changed_by": by,
            },
        )
        await self._save(w)
        # The store moved the generation on: every sign-in made before holds no more.
        new = replace(new, changed_ms=now, generation=w.generation)
        self.accounts[a.id] = new
        self.by_key[new.key] = new
        await self.end_sessions_of(a.id, "the account was changed")
        return new

    async def new_token(
        self,
        name: object,
        role: object,
        tables: object = None,
        by: str | None = None,
        maker: Actor | None = None,
    ) -> tuple[str, Token]:
        """A named API token; the secret is shown once, here, and never kept.
        It is bound to ``maker``, whoever made it (:meth:`token_ended`)."""
        clean = rules.check_token_name(name)
        kind = rules.check_role(role)
        limited = rules.tables_for(kind, tables)
        secret = secrets.token_urlsafe(32)
        now = self.clock.wall_ms()
        made: dict[str, Any] = {}
        if maker is not None and maker.token_id is not None:
            made["maker_token"] = maker.token_id
        elif maker is not None and maker.account_id is not None:
            made["maker_account"] = maker.account_id
        elif maker is not None:  # the operator token, by bearer or its sign-in
            made["credential"] = operator_credential(digest(secret), self.operator)
        w = StaffWrite(
            "token",
            {
                "name": clean,
                "role": kind,
                "tables": _tables_text(limited),
                "hash": digest(secret),
                "created_ms": now,
                "created_by": by,
                **made,
            },
        )
        await self._save(w)
        t = Token(
            w.row_id,
            clean,
            kind,
            _frozen(limited),
            digest(secret),
            now,
            by,
            False,
            made.get("maker_account"),
            made.get("maker_token"),
            made.get("credential"),
        )
        self.tokens[t.hash] = t
        return secret, t

    async def new_code(self, name: object, by: str | None) -> tuple[str, Account, int]:
        """A one-time sign-in code for an account's new phone: the code (shown
        once, here), the account, and when it ends (wall ms)."""
        a = self.account(name) if isinstance(name, str) else None
        if a is None:
            raise StaffError(Refusal.NOT_FOUND, Message("there is no such account"))
        if a.disabled:
            raise StaffError(
                Refusal.CONFLICT, Message("{id} is disabled: enable the account first", id=a.name)
            )
        code = rules.new_code()
        key = rules.code_key(code)
        assert key is not None
        now = self.clock.wall_ms()
        ends = now + rules.CODE_MINUTES * 60_000
        # the codes in memory stay few: those out of date go as one is made
        self.codes = {h: c for h, c in self.codes.items() if c.ends_ms > now}
        await self._save(
            StaffWrite(
                "code",
                {
                    "hash": digest(key),
                    "account_id": a.id,
                    "created_ms": now,
                    "created_by": by,
                    "expires_ms": ends,
                    "generation": a.generation,
                },
            )
        )
        self.codes[digest(key)] = Code(a.id, ends, a.generation)
        return code, a, ends

    async def use_code(self, typed: object) -> Account | None:
        """The account a one-time code signs in, the code then spent; None
        for a code that is wrong, used, out of date, of a disabled account,
        or made before the account last changed (its generation moved on)."""
        key = rules.code_key(typed)
        if key is None:
            return None
        hashed = digest(key)
        found = self.codes.get(hashed)
        if found is None:
            return None
        a = self.accounts.get(found.account_id)
        if found.ends_ms <= self.clock.wall_ms() or a is None or a.disabled:
            return None
        if found.generation != a.generation:  # made under a credential that has ended
            return None
        del self.codes[hashed]  # spent before the write: never used twice
        await self._save(StaffWrite("code", {"hash": hashed, "used_ms": self.clock.wall_ms()}))
        return a

    async def revoke_token(self, token_id: int, by: str | None) -> Token:
        t = self._token_by_id(token_id)
        if t is None or t.revoked:
            raise StaffError(
                Refusal.NOT_FOUND, Message("there is no token {id} in use", id=token_id)
            )
        await self._save(
            StaffWrite("token", {"id": t.id, "revoked_ms": self.clock.wall_ms(), "revoked_by": by})
        )
        t = replace(t, revoked=True)
        self.tokens[t.hash] = t
        return t

    async def sign_in(
        self, actor: Actor, hours: int, address: str | None, device: str | None
    ) -> tuple[str, WebSession]:
        """A new sign-in: its cookie secret (given to the browser once) and
        the session, stored before it is answered, so a restart keeps it."""
        secret = secrets.token_urlsafe(32)
        now = self.clock.wall_ms()
        hashed = digest(secret)
        operator = actor.account_id is None
        s = WebSession(
            hashed,
            actor.account_id,
            actor.name,
            actor.role,
            actor.tables,
            secrets.token_urlsafe(32),
            now + hours * 3_600_000,
            None if operator else actor.generation,
            operator_credential(hashed, self.operator) if operator else None,
        )
        why = self.ended_why(s)
        if why is not None:  # changed while the secret was being checked
            raise StaffError(
                Refusal.CONFLICT, Message("the account changed while signing in: sign in again")
            )
        await self._save(
            StaffWrite(
                "session",
                {
                    "hash": s.hash,
                    "account_id": s.account_id,
                    "name": s.name,
                    "role": s.role,
                    "tables": _tables_text(sorted(s.tables) if s.tables is not None else None),
                    "csrf": s.csrf,
                    "created_ms": now,
                    "expires_ms": s.expires_ms,
                    "address": address,
                    "device": (device or "")[:DEVICE_BYTES] or None,
                    "generation": s.generation,
                    "credential": s.credential,
                },
            )
        )
        while len(self.sessions) >= SESSIONS_MOST:
            oldest = next(iter(self.sessions))
            await self.sign_out(oldest, "too many sign-ins: the oldest gave way")
        self.sessions[s.hash] = s
        return secret, s

    async def sign_out(self, session_hash: str, why: str) -> None:
        """End a sign-in on the server: a kept copy of its cookie is then none."""
        if self.sessions.pop(session_hash, None) is None:
            return
        if self.save is not None:
            await self.save(
                StaffWrite(
                    "session",
                    {"hash": session_hash, "ended_ms": self.clock.wall_ms(), "ended_why": why},
                )
            )

    def _end_sessions_of(self, account_id: int, why: str) -> int:
        """Forget an account's sign-ins here (the store's rows are ended by
        whoever changed the account: end_sessions_of, or baulk users)."""
        ended = [h for h, s in self.sessions.items() if s.account_id == account_id]
        for h in ended:
            del self.sessions[h]
        return len(ended)

    async def end_sessions_of(self, account_id: int, why: str) -> None:
        self._end_sessions_of(account_id, why)
        await self._save(end_sessions_write(account_id, self.clock.wall_ms(), why))

    async def sign_out_all(self, why: str) -> int:
        """End every sign-in there is, on every phone (the owner's "sign
        everyone out"), and every one-time code not used yet (each is a
        sign-in still to be made); named API tokens are not sign-ins and
        stay.  Returns how many sign-ins this daemon held."""
        held = len(self.sessions)
        self.sessions = {}
        self.codes = {}
        await self._save(
            StaffWrite(
                "session", {"everyone": True, "ended_ms": self.clock.wall_ms(), "ended_why": why}
            )
        )
        # The store moved every account's generation on: a sign-in whose
        # secret was being checked meanwhile is refused when it is stored,
        # or, stored already, at its first request (ended_why).
        moved = [replace(a, generation=a.generation + 1) for a in self.accounts.values()]
        self.accounts = {a.id: a for a in moved}
        self.by_key = {a.key: a for a in moved}
        return held

    async def trust(self, device: str, account_id: int | None) -> None:
        """Remember that an account signed in from this device."""
        key = (digest(device), account_id if account_id is not None else 0)
        if key in self.devices or self.save is None:
            return
        self.devices.add(key)
        await self.save(
            StaffWrite(
                "device", {"hash": key[0], "account_id": key[1], "first_ms": self.clock.wall_ms()}
            )
        )

    def owners(self) -> list[Account]:
        return [a for a in self.accounts.values() if a.role == OWNER and not a.disabled]
