"""Who may act: the operator token (scripts, ``Authorization: Bearer``), or
the operator console's sign-in (a session cookie and its CSRF token,
console_session.py).  Without either an action answers 401 and changes
nothing.
"""

from __future__ import annotations

import asyncio
import hmac
import logging

from aiohttp import web

from baulk.host.web import console_session
from baulk.host.web.http import (
    DAEMON_KEY,
    THROTTLE_KEY,
    error,
    json_response,
    lang_of,
    read_body,
)
from baulk.host.web.throttle import PAUSE_S

log = logging.getLogger("baulk.web")


async def check_token(
    request: web.Request, given: str, lang: str, wrong: str
) -> web.Response | None:
    """The operator token, compared in constant time.  The right one is
    always taken; wrong ones are counted (host/web/throttle.py) and, past the
    budget, answered 429 after a pause.  ``wrong`` says what a wrong one gets."""
    token = request.app[DAEMON_KEY].config.operator_token
    if token is None:
        return error(
            403,
            "operator actions are switched off: set operator_token in the config or BAULK_TOKEN",
            lang,
        )
    # compare_digest: the time taken does not tell how much of the token was right.
    if hmac.compare_digest(given.encode(), token.encode()):
        return None
    client = request.remote or "?"
    log.warning("operator refused: wrong or missing token (from %s)", client)
    wait = request.app[THROTTLE_KEY].failed(client)
    if wait <= 0:
        return error(401, wrong, lang)
    await asyncio.sleep(PAUSE_S)
    response = error(
        429, f"too many attempts with a wrong operator token; try again in {int(wait) + 1} s", lang
    )
    response.headers["Retry-After"] = str(int(wait) + 1)
    return response


async def authorised(request: web.Request) -> web.Response | None:
    """The bearer token (curl, scripts), or else the console's sign-in."""
    lang = lang_of(request)
    console = "Authorization" not in request.headers and console_session.has_cookie(request)
    if request.app[DAEMON_KEY].config.operator_token is None or not console:
        given = request.headers.get("Authorization", "")
        token = given[7:].strip() if given.startswith("Bearer ") else ""
        return await check_token(
            request,
            token,
            lang,
            "this action needs the operator token (Authorization: Bearer TOKEN) "
            "or a console sign-in",
        )
    why = await console_session.refusal(request)
    return error(*why, lang) if why is not None else None


async def console_state(request: web.Request) -> web.Response:
    """Whether this browser is signed in, and the CSRF token its page keeps."""
    csrf = await console_session.csrf_token(request)
    enabled = request.app[DAEMON_KEY].config.operator_token is not None
    response = json_response(
        {"signed_in": csrf is not None, "csrf": csrf, "actions_enabled": enabled}
    )
    response.headers["Cache-Control"] = "no-store"
    return response


async def console_sign_in(request: web.Request) -> web.Response:
    lang = lang_of(request)
    origin = console_session.foreign_origin(request)
    if origin is not None:
        return error(403, f"refused: this action came from another site ({origin})", lang)
    data = await read_body(request, lang)
    if isinstance(data, web.Response):
        return data
    given = data.get("token")
    if not isinstance(given, str):
        return error(400, "token must be a string", lang)
    denied = await check_token(request, given.strip(), lang, "the operator token is wrong")
    if denied is not None:
        return denied
    csrf = await console_session.sign_in(request)
    log.info("operator console: signed in (from %s)", request.remote or "?")
    response = json_response({"signed_in": True, "csrf": csrf})
    response.headers["Cache-Control"] = "no-store"
    return response


async def console_sign_out(request: web.Request) -> web.Response:
    lang = lang_of(request)
    why = await console_session.refusal(request)
    if why is not None and why[0] != 401:  # not signed in: nothing to end
        return error(*why, lang)
    await console_session.sign_out(request)
    return json_response({"signed_in": False})


def add_routes(app: web.Application) -> None:
    r = app.router
    r.add_get("/console/session", console_state)
    r.add_post("/console/signin", console_sign_in)
    r.add_post("/console/signout", console_sign_out)
