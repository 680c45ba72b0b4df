"""Who may act, and the record of what each did: the gate every request
passes, and the sign-in.

Credentials, in the order they are looked for:

* ``Authorization: Bearer TOKEN``: the configured ``operator_token`` (the
  bootstrap owner, ``operator``, for scripts) or a named API token an owner
  made (host/staff/registry.py), each with its role;
* the sign-in cookie (console_session.py) of a person who signed in with his
  name and password (or a desk clerk with his PIN), or with the operator
  token, and the sign-in's CSRF token with every request of his page.

The gate (:func:`gate`, a middleware) looks the route up in the one role
table (host/staff/roles.py): a public read goes on; anything else needs a
credential whose role the table allows, else 401 or 403 and nothing runs; a
state-changing route the table does not list is refused to everyone.  Every
state-changing request then gets its row in the activity log
(host/staff/activity.py), done or refused.  :func:`who` is the one place a
handler learns who acted; :func:`signed_in` tells the connection guard a
signed-in member of staff from a stranger, cheaply.

A sign-in holds only while the credential it was made with does
(host/staff/registry.py): each request that carries a credential first
reads what ``baulk users`` changed in the file, so a reset, a disable, a
revoked token or "sign everyone out" holds for the very next request.

Nothing a client sends can make the check raise: a header or a body in any
encoding, of any type or size, is a wrong credential or a 400.  Guessing is
capped before anything is checked (throttle.py); argon2 runs on one thread
of its own, off the event loop.  What strangers do is logged under one cap
(host/staff/activity.py ``QuietRefusals``), whatever the route or the name.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

from baulk.host.errors import ActionError
from baulk.host.logsafe import Tally, printable
from baulk.host.name_rules import OPERATOR
from baulk.host.sentences import Message
from baulk.host.staff import activity
from baulk.host.staff import roles as role_table
from baulk.host.staff.accounts import check_pin
from baulk.host.staff.passwords import verify_secret
from baulk.host.staff.registry import Registry, StaffError, WebSession, digest
from baulk.host.staff.roles import OWNER, Actor
from baulk.host.store import StaffWrite
from baulk.host.web import console_session as cookies
from baulk.host.web.doors import BOARDS_KEY
from baulk.host.web.http import (
    BODY_KEY,
    DAEMON_KEY,
    SAID,
    THROTTLE_KEY,
    error,
    json_response,
    lang_of,
    path_id,
    refused,
)
from baulk.host.web.request_models import (
    CodeSignIn,
    PinSignIn,
    SignIn,
    TokenSignIn,
    body_of,
)
from baulk.host.web.throttle import LOCKED, PASSWORD, PIN, TRUSTED, Guessing, Schedule

log = logging.getLogger("baulk.web")
# Refused credentials are told once a kind, then counted: a stranger's
# thousand guesses make one line a minute, never a line each.
_REFUSED = Tally(log, 60.0)

STAFF_KEY: web.AppKey[Registry] = web.AppKey("staff")
QUIET_KEY: web.AppKey[activity.QuietRefusals] = web.AppKey("quiet_refusals")
ACTOR: web.RequestKey[Actor | None] = web.RequestKey("actor")  # once the gate knows him
TRIED: web.RequestKey[str | None] = web.RequestKey("tried")  # the name a sign-in tried
PAUSE_S = 0.5  # a 429 of the guessing cap waits this long before it is sent
SAVE_WAIT_S = 5.0  # how long a change waits for the store before it is refused
SUM_EVERY_S = 5.0  # how often the strangers' minutes over are summed up in the log
SIGN_IN_PATH = "/console/signin"  # every way of signing in: a token, a password, a PIN, a code
OPERATOR_KEY = "operator-token"  # the guessing cap's key for the operator token
SWITCHED_OFF = Message(
    "operator actions are switched off: set operator_token in the config or BAULK_TOKEN"
)

# argon2 on one thread of its own: one sign-in is checked at a time, on one
# core, and never on the event loop.
_HASHING = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="baulk-argon2")


# ---------------------------------------------------------------------- the registry
def registry_for(app: web.Application) -> Registry:
    """The staff registry of the app's daemon, loaded from its store (a
    server without a store, ``baulk board``, keeps none)."""
    daemon = app.get(DAEMON_KEY)
    if daemon is None:  # a server of the boards alone (baulk board): no store, no staff
        return Registry(None)
    committer = daemon.committer

    async def save(w: StaffWrite) -> bool:
        """Stored (True), or refused or not written in time (False): the
        committer's receipt for the row (host/store/writer.py)."""
        receipt = committer.submit(w)
        try:
            await asyncio.wait_for(asyncio.shield(receipt), SAVE_WAIT_S)
        except (TimeoutError, ActionError):
            return False
        return True

    async def offload(work: Callable[[], str]) -> str:
        return await asyncio.get_running_loop().run_in_executor(_HASHING, work)

    registry = Registry(save, daemon.sessions.clock, offload, daemon.config.operator_token)
    registry.load(daemon.reader.db)
    return registry


def _seen(receipt: asyncio.Future[None]) -> None:
    if not receipt.cancelled():
        receipt.exception()  # the committer has logged it; nobody else waits on it


def _log_row(app: web.Application, row: StaffWrite) -> None:
    """Hand an activity row to the store's writer; never waits, never raises."""
    daemon = app.get(DAEMON_KEY)
    if daemon is not None:
        committer = daemon.committer
        # Not awaited: a refused row is logged once by the committer, and the
        # request's answer never waits on the log.
        try:
            committer.submit(row).add_done_callback(_seen)
        except ActionError as e:  # refused at the store's edge: said once, no traceback
            log.warning("the activity log could not take a row: %s", e.text)


# ---------------------------------------------------------------------- credentials
def _bearer(request: web.Request) -> str | None:
    given = request.headers.get("Authorization")
    if given is None:
        return None
    return given[7:].strip() if given.startswith("Bearer ") else ""


def _device(request: web.Request) -> str | None:
    return cookies.cookie_secret(request, cookies.DEVICE_COOKIE)


def _web_session(request: web.Request) -> WebSession | None:
    secret = cookies.cookie_secret(request, cookies.SESSION_COOKIE)
    return request.app[STAFF_KEY].session(secret) if secret is not None else None


def _operator_token(request: web.Request) -> str | None:
    token: str | None = request.app[BOARDS_KEY].config.operator_token
    return token


def _operator(trusted_via: str = "operator") -> Actor:
    return Actor(OPERATOR, OWNER, None, trusted_via, None)


async def _held(wait: float, secret_word: str) -> tuple[int, Message]:
    """The guessing cap's answer: a short pause, then 429 with the wait."""
    await asyncio.sleep(PAUSE_S)
    if wait == LOCKED:
        return 429, Message(
            "too many wrong {field}s: sign in with the password, or ask the owner",
            field=secret_word,
        )
    return 429, Message(
        "too many attempts with a wrong {field}; try again in {n} s",
        field=secret_word,
        n=int(wait) + 1,
    )


async def _token_actor(request: web.Request, token: str) -> Actor | tuple[int, Message]:
    """The actor of a bearer token, or why not.  Named API tokens are 32
    random bytes: no guess finds one, so they are never held back.  Wrong
    tokens count against the operator token's guessing cap, and a right
    operator token is refused while that cap holds, like a wrong one: the
    cap is no oracle (scripts that must always get in use a named token)."""
    staff = request.app[STAFF_KEY]
    guessing = request.app[THROTTLE_KEY]
    operator = _operator_token(request)
    if operator is not None and cookies.same_secret(token, operator):
        wait = guessing.waiting(OPERATOR_KEY, PASSWORD)
        return await _held(wait, "operator token") if wait > 0 else _operator()
    found = staff.token(token) if token else None
    if found is not None:  # looked up at each request: a revoked one is refused at once
        return Actor(found.name, found.role, found.tables, "token", None, token_id=found.id)
    if operator is None and not staff.tokens:
        return 403, SWITCHED_OFF
    _REFUSED.tell(
        "token", logging.WARNING, f"refused a wrong or missing token (from {request.remote or '?'})"
    )
    wait = guessing.begin(OPERATOR_KEY, PASSWORD, trusted=True)
    if wait > 0:
        return await _held(wait, "operator token")
    guessing.end(OPERATOR_KEY, False)
    return 401, Message(
        "this action needs the operator token (Authorization: Bearer TOKEN) or a console sign-in"
    )


async def identify(request: web.Request, checks_csrf: bool) -> Actor | tuple[int, Message] | None:
    """Who the request comes from: an Actor, a refusal (status, sentence)
    when it carries a credential that does not hold, or None without any."""
    token = _bearer(request)
    if token is not None:
        return await _token_actor(request, token)
    s = _web_session(request)
    if s is None:
        return None
    if checks_csrf:
        why = cookies.refusal(request, s.csrf)
        if why is not None:
            return why
    return request.app[STAFF_KEY].actor_of(s)


def signed_in(request: web.Request) -> bool:
    """Does the request come from signed-in staff (a live sign-in cookie, or
    a right bearer token)?  A dictionary lookup and a hash: the connection
    guard asks it of every request."""
    token = _bearer(request)
    if token:
        operator = _operator_token(request)
        if operator is not None and cookies.same_secret(token, operator):
            return True
        return request.app[STAFF_KEY].token(token) is not None
    return _web_session(request) is not None


def actor(request: web.Request) -> Actor | None:
    return request.get(ACTOR)


def who(request: web.Request) -> str | None:
    """The name of whoever made this request, as the gate checked it: the
    one place a handler takes the ``who`` it stores with a change."""
    a = actor(request)
    return a.name if a is not None else None


async def authorised(request: web.Request) -> web.Response | None:
    """For handlers written before the gate: None once the gate let the
    request through with a credential (it always has, for a listed route)."""
    if actor(request) is not None:
        return None
    return error(401, cookies.SIGN_IN_FIRST, lang_of(request))


# ---------------------------------------------------------------------- the gate
def _pattern(request: web.Request) -> str | None:
    route = request.match_info.route
    resource = route.resource
    return resource.canonical if resource is not None else None


@web.middleware
async def gate(request: web.Request, handler: Any) -> web.StreamResponse:
    method = request.method
    pattern = _pattern(request)
    rule = role_table.rule_for(method, pattern)
    changing = method not in role_table.SAFE_METHODS
    staff = request.app[STAFF_KEY]
    daemon = request.app.get(DAEMON_KEY)
    if daemon is not None:
        db = daemon.reader.db
        # What baulk users changed in the file: at once for a request with a
        # credential (a disabled account's next request is refused; a sign-in
        # carries one in its body: a code made before a reset is refused),
        # once a second at most for the rest.
        credential = (
            "Authorization" in request.headers
            or cookies.SESSION_COOKIE in request.cookies
            or pattern == SIGN_IN_PATH
        )
        staff.reload_if_changed(db, time.monotonic(), force=credential)
    if pattern is None or (rule is None and not changing):
        response: web.StreamResponse = await handler(request)
        return response
    lang = lang_of(request)
    refused: tuple[int, Message] | None
    who_is: Actor | None = None
    if rule is None:
        refused = (403, role_table.UNLISTED)
    else:
        found = await identify(request, checks_csrf=rule != role_table.PUBLIC)
        if isinstance(found, tuple):
            refused = found if rule != role_table.PUBLIC else None
        else:
            who_is = found
            refused = role_table.refusal(rule, found, request.match_info.get(role_table.TABLE_KEY))
    request[ACTOR] = who_is
    if refused is not None:
        response = _refusal(refused, lang)
    else:
        try:
            response = await handler(request)
        except web.HTTPException as e:
            if changing:
                _audit(request, pattern, e.status, e.reason)
            raise
        except Exception:
            if changing:
                _audit(request, pattern, 500, Message("the server failed (see its log)"))
            raise
    if changing:
        _audit(request, pattern, response.status, _why(response))
    return response


def _refusal(refused: tuple[int, Message], lang: str) -> web.Response:
    """A refused credential's answer; the guessing cap's says when to come back."""
    response = error(*refused, lang)
    if refused[0] == 429:
        wait = refused[1].params.get("n")  # the seconds it names (_held)
        response.headers["Retry-After"] = str(wait) if isinstance(wait, int) else "60"
    return response


def _why(response: web.StreamResponse) -> Message | str | None:
    if response.status < 300 or not isinstance(response, web.Response):
        return None
    if SAID in response:  # an answer of http.error: its sentence itself
        return response[SAID]
    try:
        body = json.loads(response.body) if isinstance(response.body, bytes) else None
    except ValueError:
        return None
    return str(body.get("error"))[:300] if isinstance(body, dict) and "error" in body else None


def _audit(
    request: web.Request, pattern: str | None, status: int, why: Message | str | None
) -> None:
    """The activity log's row for a state-changing request: never raises,
    never waits (the score path comes first)."""
    try:
        clock = request.app[STAFF_KEY].clock
        at = clock.now()
        a = actor(request)
        tried = request.get(TRIED)
        strangers = request.app[QUIET_KEY]
        for row in strangers.due(at.mono_ms):  # the minutes over, summed up
            _log_row(request.app, row)
        # A stranger: no credential held, whatever the route and the name
        # tried; one cap for all of them (host/staff/activity.py).
        if a is None and not strangers.admit(at, tried, request.remote, status == 429):
            return
        body = request.get(BODY_KEY)
        session = request.match_info.get("session")
        entry = activity.Entry(
            at,
            a,
            tried,
            request.remote,
            request.headers.get("User-Agent"),
            activity.action_of(request.method, pattern, body),
            activity.summary(request.method, request.path, body),
            request.match_info.get(role_table.TABLE_KEY),
            path_id(session),
            activity.result_of(status),
            why,
        )
        _log_row(request.app, entry.write())
    except Exception:  # the log must never stop the request it records
        log.exception("the activity log could not take a row")


def _sum_up(app: web.Application, everything: bool = False) -> None:
    """Write the strangers' minutes over, summed up (``everything``: the
    minute not over too, at shutdown)."""
    strangers = app[QUIET_KEY]
    rows = strangers.drain() if everything else strangers.due(app[STAFF_KEY].clock.mono_ms())
    for row in rows:
        _log_row(app, row)


async def _summing(app: web.Application) -> None:
    while True:
        await asyncio.sleep(SUM_EVERY_S)
        try:
            _sum_up(app)
        except Exception:  # the log must never stop the daemon
            log.exception("the activity log could not sum up the strangers' minute")


_SUMMING: web.AppKey[asyncio.Task[None]] = web.AppKey("activity_summing")


async def _on_start(app: web.Application) -> None:
    # Sign-ins the config or the file ended while the daemon was stopped
    # (the operator token changed or taken out, an account changed).
    await app[STAFF_KEY].end_stale()
    app[_SUMMING] = asyncio.get_running_loop().create_task(_summing(app), name="activity-sums")


async def _on_stop(app: web.Application) -> None:
    task = app.get(_SUMMING)
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    with contextlib.suppress(Exception):
        _sum_up(app, everything=True)


# ---------------------------------------------------------------------- the sign-in
async def _check(hashed: str | None, secret: str) -> bool:
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_HASHING, verify_secret, hashed, secret)


async def _sign_in_account(
    request: web.Request, name: object, secret: object, with_pin: bool
) -> Actor | tuple[int, Message]:
    staff = request.app[STAFF_KEY]
    guessing: Guessing = request.app[THROTTLE_KEY]
    secret_word = "PIN" if with_pin else "password"
    if not isinstance(name, str) or not isinstance(secret, str) or len(name) > 200:
        return 400, Message("name and {field} must be text", field=secret_word.lower())
    request[TRIED] = name.strip()[:40] or None
    account = staff.account(name)
    device = _device(request)
    trusted = account is not None and staff.trusted(device, account.id)
    plan: Schedule
    if with_pin:
        key, plan = f"pin:{account.id if account else '?'}", PIN
    elif trusted:
        key, plan = f"device:{digest(device or '')}:{account.id if account else 0}", TRUSTED
    else:
        key, plan = f"account:{account.id if account else '?'}", PASSWORD
    wait = guessing.begin(key, plan, trusted and not with_pin)
    if wait > 0:
        return await _held(wait, secret_word)
    if with_pin:
        # the digits as the PIN was hashed (Persian ones are digits); no PIN
        # at all is checked all the same, and wrong
        with contextlib.suppress(ValueError):
            secret = check_pin(secret)
    ok = False
    try:
        hashed = None
        if account is not None and not account.disabled:
            hashed = account.pin if with_pin else account.password
        ok = await _check(hashed, secret)
    finally:
        guessing.end(key, ok)
    if not ok or account is None:
        _REFUSED.tell(
            "sign-in",
            logging.WARNING,
            f"sign-in refused for {printable(name, 40)!r} (from {request.remote or '?'})",
        )
        return 401, Message("the name or {field} is wrong", field=secret_word.lower())
    if not with_pin:
        guessing.clear(f"pin:{account.id}")  # the password unlocks a locked PIN
    # The account as its secret was checked: a change meanwhile ends this sign-in.
    return Actor(
        account.name, account.role, account.tables, "session", account.id, account.generation
    )


async def _sign_in_token(request: web.Request, given: object) -> Actor | tuple[int, Message]:
    if not isinstance(given, str):
        return 400, Message("token must be a string")
    operator = _operator_token(request)
    if operator is None:
        return 403, SWITCHED_OFF
    request[TRIED] = OPERATOR
    guessing: Guessing = request.app[THROTTLE_KEY]
    trusted = request.app[STAFF_KEY].trusted(_device(request), None)
    key = f"device:{digest(_device(request) or '')}:0" if trusted else OPERATOR_KEY
    wait = guessing.begin(key, TRUSTED if trusted else PASSWORD, trusted)
    if wait > 0:
        return await _held(wait, "operator token")
    ok = cookies.same_secret(given.strip(), operator)
    guessing.end(key, ok)
    if not ok:
        _REFUSED.tell(
            "operator",
            logging.WARNING,
            f"operator refused: wrong token (from {request.remote or '?'})",
        )
        return 401, Message("the operator token is wrong")
    return _operator("session")


async def _sign_in_code(request: web.Request, given: object) -> Actor | tuple[int, Message]:
    """A one-time code from the owner, for a phone the account never signed
    in from: 59 random bits live for 15 minutes, so no guess finds one and
    the guessing cap never holds it back (host/staff/accounts.py).  The
    right password from a new phone can be held while a stranger guesses at
    the account; this always gets the person in."""
    account = await request.app[STAFF_KEY].use_code(given)
    if account is None:
        _REFUSED.tell(
            "code", logging.WARNING, f"sign-in code refused (from {request.remote or '?'})"
        )
        return 401, Message("that sign-in code is wrong, used already or out of date")
    request[TRIED] = account.name
    request.app[THROTTLE_KEY].clear(f"pin:{account.id}")  # as the password does
    return Actor(
        account.name, account.role, account.tables, "session", account.id, account.generation
    )


async def console_sign_in(request: web.Request) -> web.Response:
    lang = lang_of(request)
    origin = cookies.foreign_origin(request)
    if origin is not None:
        return error(403, cookies.from_another_site(origin), lang)
    body = await body_of(request, SignIn)  # one of the four ways (request_models.py)
    if isinstance(body, web.Response):
        return body
    data = body.root
    if isinstance(data, TokenSignIn):
        found = await _sign_in_token(request, data.token)
    elif isinstance(data, CodeSignIn):
        try:
            found = await _sign_in_code(request, data.code)
        except StaffError as e:
            return refused(e, lang, checked=False)
    elif isinstance(data, PinSignIn):
        found = await _sign_in_account(request, data.name, data.pin, True)
    else:
        found = await _sign_in_account(request, data.name, data.password, False)
    if isinstance(found, tuple):
        return _refusal(found, lang)
    config = request.app[BOARDS_KEY].config
    staff = request.app[STAFF_KEY]
    old = _web_session(request)
    try:
        secret, s = await staff.sign_in(
            found, config.session_hours, request.remote, request.headers.get("User-Agent")
        )
        if old is not None:  # a new sign-in, never the one the browser came with
            await staff.sign_out(old.hash, "signed in again")
    except StaffError as e:
        return refused(e, lang, checked=False)
    request[ACTOR] = found
    device = _device(request)
    response = json_response(_state(s, True))
    response.headers["Cache-Control"] = "no-store"
    cookies.set_cookie(
        response, cookies.SESSION_COOKIE, secret, config.session_hours * 3600, config.tls
    )
    if device is None:
        device = secrets.token_urlsafe(32)
        cookies.set_cookie(
            response, cookies.DEVICE_COOKIE, device, cookies.DEVICE_DAYS * 86400, config.tls
        )
    await staff.trust(device, found.account_id)
    log.info("signed in: %s (%s, from %s)", found.name, found.role, request.remote or "?")
    return response


def _state(s: WebSession | None, enabled: bool) -> dict[str, Any]:
    return {
        "signed_in": s is not None,
        "csrf": s.csrf if s is not None else None,
        "name": s.name if s is not None else None,
        "role": s.role if s is not None else None,
        "tables": sorted(s.tables) if s is not None and s.tables is not None else None,
        # what the pages offer this role: the routes the gate lets it use
        "may": role_table.may(s.role) if s is not None else [],
        # the only tables its {table} routes may name (a referee's list), or null
        "limited_to": role_table.limited_to(s.role, s.tables) if s is not None else None,
        "actions_enabled": enabled,
    }


async def console_state(request: web.Request) -> web.Response:
    """Whether this browser is signed in, as whom, and the CSRF token its
    page keeps."""
    staff = request.app[STAFF_KEY]
    enabled = _operator_token(request) is not None or bool(staff.accounts)
    response = json_response(_state(_web_session(request), enabled))
    response.headers["Cache-Control"] = "no-store"
    return response


async def console_sign_out(request: web.Request) -> web.Response:
    lang = lang_of(request)
    s = _web_session(request)
    config = request.app[BOARDS_KEY].config
    if s is not None:
        why = cookies.refusal(request, s.csrf)
        if why is not None:
            return error(*why, lang)
        request[ACTOR] = request.app[STAFF_KEY].actor_of(s)
        await request.app[STAFF_KEY].sign_out(s.hash, "signed out")
    response = json_response({"signed_in": False})
    cookies.clear_cookie(response, cookies.SESSION_COOKIE, config.tls)
    return response


def add_routes(app: web.Application) -> None:
    app[STAFF_KEY] = registry_for(app)
    app[QUIET_KEY] = activity.QuietRefusals()
    app.on_startup.append(_on_start)
    app.on_cleanup.append(_on_stop)
    r = app.router
    r.add_get("/console/session", console_state)
    r.add_post(SIGN_IN_PATH, console_sign_in)
    r.add_post("/console/signout", console_sign_out)
