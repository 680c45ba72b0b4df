"""The operator console's sign-in: the operator token once, then a session
cookie, and a CSRF check on every action.

The cookie is aiohttp-session's ``EncryptedCookieStorage`` (Fernet: AES with
an HMAC, from ``cryptography``): the session cannot be read or forged without
the key, which is made at random when the server starts, so a restart signs
everyone out and no key is ever written down.  The cookie is HttpOnly (no
script reads it), SameSite=Strict (another site's page never sends it) and,
over HTTPS, Secure.

CSRF: the session holds a random token that the console page receives once,
at sign-in or on load, and keeps in memory; every action carries it in the
``X-CSRF-Token`` header, which a form or a page of another origin cannot
set.  The ``Origin`` header, which browsers send with every POST, must be
this server's own as well.  The operator token itself is never in the page.

Sign-out must end a session even where a copy of its cookie survives, so
the server also keeps the ids of the sessions signed in (in memory, at most
SESSIONS of them): a cookie whose id is not among them is no sign-in.
"""

from __future__ import annotations

import hmac
import os
import secrets
import time
from typing import Any

from aiohttp import web
from aiohttp_session import get_session, new_session
from aiohttp_session import setup as setup_sessions
from aiohttp_session.cookie_storage import EncryptedCookieStorage

COOKIE = "baulk_console"
CSRF_HEADER = "X-CSRF-Token"
SESSIONS = 1000

SIGN_IN_FIRST = "sign in first: there is no console sign-in, or it has ended"
NOT_FROM_CONSOLE = (
    "refused: this action did not come from the console page (CSRF token missing or wrong)"
)


class SignedIn:
    """The ids of the sessions signed in, each until it expires."""

    def __init__(self, lifetime_s: float, most: int = SESSIONS) -> None:
        self.lifetime_s = lifetime_s
        self.most = most
        self.until: dict[str, float] = {}

    def add(self) -> str:
        now = time.monotonic()
        self.until = {k: t for k, t in self.until.items() if t > now}
        while len(self.until) >= self.most:  # the oldest sign-in gives way
            del self.until[next(iter(self.until))]
        sid = secrets.token_urlsafe(16)
        self.until[sid] = now + self.lifetime_s
        return sid

    def live(self, sid: Any) -> bool:
        return isinstance(sid, str) and self.until.get(sid, 0.0) > time.monotonic()

    def end(self, sid: Any) -> None:
        if isinstance(sid, str):
            self.until.pop(sid, None)


SIGNED_IN_KEY: web.AppKey[SignedIn] = web.AppKey("console_signed_in")


def setup(app: web.Application, session_hours: int, tls: bool) -> None:
    app[SIGNED_IN_KEY] = SignedIn(session_hours * 3600)
    storage = EncryptedCookieStorage(
        os.urandom(32),
        cookie_name=COOKIE,
        max_age=session_hours * 3600,
        httponly=True,
        samesite="Strict",
        secure=tls,
        path="/",
    )
    setup_sessions(app, storage)


def has_cookie(request: web.Request) -> bool:
    return COOKIE in request.cookies


def foreign_origin(request: web.Request) -> str | None:
    """The other origin this request came from, or None when it came from
    this server's own pages (or from no page at all: curl sends no Origin)."""
    origin = request.headers.get("Origin")
    if origin is not None:
        own = f"{request.scheme}://{request.host}"
        return None if origin == own else origin[:100]
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        return f"a {site[:20]} page"
    return None


async def sign_in(request: web.Request) -> str:
    """Open a new session (the token was checked); returns its CSRF token.
    A new session, not the one the browser came with: nobody can plant a
    session id and wait for the operator to sign into it."""
    session = await new_session(request)
    csrf = secrets.token_urlsafe(32)
    session["sid"] = request.app[SIGNED_IN_KEY].add()
    session["csrf"] = csrf
    return csrf


async def sign_out(request: web.Request) -> None:
    session = await get_session(request)
    request.app[SIGNED_IN_KEY].end(session.get("sid"))
    session.invalidate()


async def csrf_token(request: web.Request) -> str | None:
    """The signed-in session's CSRF token, or None."""
    session = await get_session(request)
    if not request.app[SIGNED_IN_KEY].live(session.get("sid")):
        return None
    token: Any = session.get("csrf")
    return token if isinstance(token, str) else None


async def refusal(request: web.Request) -> tuple[int, str] | None:
    """Why this console action may not run (status, sentence), or None."""
    origin = foreign_origin(request)
    if origin is not None:
        return 403, f"refused: this action came from another site ({origin})"
    expected = await csrf_token(request)
    if expected is None:
        return 401, SIGN_IN_FIRST
    given = request.headers.get(CSRF_HEADER, "")
    if not hmac.compare_digest(given.encode(), expected.encode()):
        return 403, NOT_FROM_CONSOLE
    return None
