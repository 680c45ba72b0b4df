"""The sign-in's cookies and the checks of a request that comes with one:
its origin and its CSRF token.

* ``baulk_session``: a random secret (32 bytes) naming one sign-in; the
  server knows it by its SHA-256 only, in the store (host/staff/registry.py),
  so a restarted daemon keeps everyone signed in and sign-out ends the
  sign-in on the server (a kept copy of the cookie is then no sign-in).
* ``baulk_device``: a random secret naming the browser, kept a year; an
  account that signed in from it before is never shut out by the guessing
  cap that a stranger fills (host/web/throttle.py).

Both are HttpOnly (no script reads them), SameSite=Strict (another site's
page never sends them) and, over HTTPS, Secure.

CSRF: every sign-in has a random token that the page receives at sign-in or
on load and keeps in memory; every request of a signed-in page carries it in
``X-CSRF-Token``, which a form or a page of another origin cannot set.  The
``Origin`` header, which browsers send with every POST, must be this
server's own as well.
"""

from __future__ import annotations

import hmac

from aiohttp import web

from baulk.host.sentences import Message

SESSION_COOKIE = "baulk_session"
DEVICE_COOKIE = "baulk_device"
CSRF_HEADER = "X-CSRF-Token"
DEVICE_DAYS = 365
SECRET_CHARS = 100  # a cookie's secret is 43 characters; anything longer is none

SIGN_IN_FIRST = Message("sign in first: there is no console sign-in, or it has ended")
NOT_FROM_CONSOLE = Message(
    "refused: this action did not come from the console page (CSRF token missing or wrong)"
)


def cookie_secret(request: web.Request, name: str) -> str | None:
    value = request.cookies.get(name)
    if not value or len(value) > SECRET_CHARS:
        return None
    return value


def set_cookie(
    response: web.StreamResponse, name: str, value: str, max_age_s: int, tls: bool
) -> None:
    response.set_cookie(
        name,
        value,
        max_age=max_age_s,
        path="/",
        httponly=True,
        samesite="Strict",
        secure=tls,
    )


def clear_cookie(response: web.StreamResponse, name: str, tls: bool) -> None:
    response.del_cookie(name, path="/", secure=tls, httponly=True, samesite="Strict")


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


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def same_secret(given: str, expected: str) -> bool:
    """Constant-time comparison of two secrets, whatever ``given`` holds
    (a header decoded with surrogates, a lone surrogate in JSON ...)."""
    return hmac.compare_digest(_bytes(given), _bytes(expected))


def from_another_site(origin: str) -> Message:
    return Message("refused: this action came from another site ({text})", text=origin)


def refusal(request: web.Request, csrf: str) -> tuple[int, Message] | None:
    """Why a request of a signed-in page may not go on (status, sentence),
    or None: it must come from this server's own page with its CSRF token."""
    origin = foreign_origin(request)
    if origin is not None:
        return 403, from_another_site(origin)
    if not same_secret(request.headers.get(CSRF_HEADER, ""), csrf):
        return 403, NOT_FROM_CONSOLE
    return None
