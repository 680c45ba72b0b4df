"""The owner's pages and their API (docs/API.md, "Staff"): the users and
the API tokens, "sign everyone out", the activity log (by day, table and
person, the newest rows first a page at a time, and every row as CSV), and
the check of a day's takings against the tables' signed record.  Every API
route here is the owner's (host/staff/roles.py); the pages are static
shells that sign in through the console's form.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

from aiohttp import web

from baulk.host.club import daily, money, views
from baulk.host.sentences import Message, message_of
from baulk.host.staff import activity, takings
from baulk.host.staff.registry import StaffError
from baulk.host.store import staff_queries
from baulk.host.web import console_session as cookies
from baulk.host.web.auth import STAFF_KEY, actor, who
from baulk.host.web.http import (
    DAEMON_KEY,
    error,
    json_response,
    lang_of,
    page_handler,
    path_id,
    refused,
)
from baulk.host.web.request_models import (
    ActivityQuery,
    ChangeAccount,
    NewAccount,
    NewToken,
    SignOutAll,
    body_of,
    day_of,
    query_of,
)
from baulk.host.web.words import digits, isolate, words

PAGES = {"/staff": "staff.html", "/staff/activity": "activity.html"}
CSV_PART = 2000  # rows read and sent at a time: a long day's CSV never holds the loop


def _refused(e: StaffError | ValueError, lang: str) -> web.Response:
    """What the registry refuses of a body that passed its model is a rule
    of the state (the account as it is, a name already taken): a 409."""
    if isinstance(e, StaffError):
        return refused(e, lang)
    return error(409, message_of(e), lang)


async def me(request: web.Request) -> web.Response:
    a = actor(request)
    assert a is not None  # the gate let a signed-in request through
    tables = sorted(a.tables) if a.tables is not None else None
    return json_response({"name": a.name, "role": a.role, "tables": tables, "via": a.via})


# ---------------------------------------------------------------------- users
async def users(request: web.Request) -> web.Response:
    staff = request.app[STAFF_KEY]
    return json_response({"users": [a.public() for a in staff.accounts.values()]})


async def add_user(request: web.Request) -> web.Response:
    body = await body_of(request, NewAccount)
    if isinstance(body, web.Response):
        return body
    data = body.root
    try:
        a = await request.app[STAFF_KEY].add(
            data.name,
            data.role,
            getattr(data, "password", None),
            getattr(data, "pin", None),
            data.tables,
            who(request),
        )
    except (StaffError, ValueError) as e:
        return _refused(e, lang_of(request))
    return json_response({"user": a.public()})


async def change_user(request: web.Request) -> web.Response:
    data = await body_of(request, ChangeAccount)
    if isinstance(data, web.Response):
        return data
    try:
        a = await request.app[STAFF_KEY].change(
            request.match_info["name"],
            who(request),
            disabled=data.disabled,
            password=data.password,
            pin=data.pin,
            role=data.role,
            tables=data.tables if "tables" in data.model_fields_set else ...,
        )
    except (StaffError, ValueError) as e:
        return _refused(e, lang_of(request))
    return json_response({"user": a.public()})


async def new_code(request: web.Request) -> web.Response:
    """A one-time sign-in code for the account's new phone (15 minutes)."""
    try:
        code, a, ends = await request.app[STAFF_KEY].new_code(
            request.match_info["name"], who(request)
        )
    except StaffError as e:
        return refused(e, lang_of(request), checked=False)
    response = json_response({"code": code, "name": a.name, "expires_ms": ends})
    response.headers["Cache-Control"] = "no-store"
    return response


# ---------------------------------------------------------------------- tokens
async def tokens(request: web.Request) -> web.Response:
    staff = request.app[STAFF_KEY]
    lang = lang_of(request)
    return json_response({"tokens": [staff.public_token(t, lang) for t in staff.tokens.values()]})


async def add_token(request: web.Request) -> web.Response:
    body = await body_of(request, NewToken)
    if isinstance(body, web.Response):
        return body
    data = body.root
    try:
        secret, t = await request.app[STAFF_KEY].new_token(
            data.name, data.role, data.tables, who(request), actor(request)
        )
    except (StaffError, ValueError) as e:
        return _refused(e, lang_of(request))
    response = json_response({"token": secret, **t.public()})
    response.headers["Cache-Control"] = "no-store"
    return response


async def revoke_token(request: web.Request) -> web.Response:
    text = request.match_info["token"]
    token_id = path_id(text)
    if token_id is None:
        return error(404, Message("there is no token {id} in use", id=text[:20]), lang_of(request))
    try:
        t = await request.app[STAFF_KEY].revoke_token(token_id, who(request))
    except StaffError as e:
        return refused(e, lang_of(request), checked=False)
    return json_response(request.app[STAFF_KEY].public_token(t, lang_of(request)))


async def sign_out_all(request: web.Request) -> web.Response:
    """End every sign-in there is, the caller's too (the owner's "sign
    everyone out", after a phone is lost or a secret leaked); named API
    tokens stay.  The body must say ``{"confirm": true}``: an empty POST
    changes nothing."""
    data = await body_of(request, SignOutAll)  # confirm: true, or nothing changes
    if isinstance(data, web.Response):
        return data
    lang = lang_of(request)
    try:
        ended = await request.app[STAFF_KEY].sign_out_all(f"{who(request)} signed everyone out")
    except StaffError as e:
        return refused(e, lang, checked=False)
    response = json_response({"signed_out": ended})
    config = request.app[DAEMON_KEY].config
    cookies.clear_cookie(response, cookies.SESSION_COOKIE, config.tls)
    return response


# ---------------------------------------------------------------------- the day
def _day(request: web.Request) -> date:
    daemon = request.app[DAEMON_KEY]
    today = daily.business_day(daemon.sessions.clock.wall_ms(), daemon.config.billing)
    return day_of(request, today)


_PLACE = re.compile(r"(\{[a-z]+\})")
Part = str | dict[str, str]


def sentence(
    row: dict[str, Any], lang: str, session_money: activity.SessionMoney | None = None
) -> list[Part]:
    """What a row of the log says, in ``lang`` (host/staff/activity.py
    ``described``, its words in static/words.json; a money action's amount
    from ``session_money``): text, and names as ``{"name": ...}`` for the
    page to draw isolated."""
    key, values = activity.described(row, session_money)
    table = words()
    text = table[lang].get(key) or table["en"].get(key) or key
    out: list[Part] = []
    for piece in _PLACE.split(text):
        name = piece[1:-1] if _PLACE.fullmatch(piece) else None
        if name is None or name not in values:
            if piece:
                out.append(piece)
            continue
        v = values[name]
        if isinstance(v, activity.Word):
            said = table[lang].get(v.key) or table["en"].get(v.key)
            out.append(said if said else {"name": v.key.partition("_")[2]})
        elif isinstance(v, activity.Money):
            out.append(money.fmt(v.minor, v.currency, lang))
        elif isinstance(v, int):
            out.append(digits(v, lang))
        else:
            out.append({"name": v})
    return out


def sentence_text(
    row: dict[str, Any], lang: str, session_money: activity.SessionMoney | None = None
) -> str:
    """The sentence as one line (the CSV), names isolated in Persian."""
    return "".join(
        p if isinstance(p, str) else (isolate(p["name"]) if lang == "fa" else p["name"])
        for p in sentence(row, lang, session_money)
    )


def _said(
    moneys: dict[int, activity.SessionMoney],
) -> Callable[[dict[str, Any], str], str]:
    """A row's sentence as one line, with its session's amounts."""

    def said(row: dict[str, Any], lang: str) -> str:
        return sentence_text(row, lang, moneys.get(row["session_id"]))

    return said


def _money_of(request: web.Request, rows: list[dict[str, Any]]) -> dict[int, activity.SessionMoney]:
    """The money rows of the sessions these rows of the log are about."""
    sids = {r["session_id"] for r in rows if r.get("session_id") is not None}
    return activity.session_money(request.app[DAEMON_KEY].reader, sids)


async def activity_log(request: web.Request) -> web.StreamResponse:
    """A day's log as JSON, the newest rows first, ``limit`` at a time
    (``before``: the id the last page ended at, ``next`` in the answer); or
    as CSV, every row of the day, oldest first."""
    lang = lang_of(request)
    day = _day(request)
    daemon = request.app[DAEMON_KEY]
    billing = daemon.config.billing
    q = query_of(request, ActivityQuery)  # checked against its model (request_models.py)
    table, person, limit, before = q.table, q.who or None, q.limit, q.before
    db = daemon.reader.db
    lo, hi = daily.day_bounds(day, billing)
    if request.match_info.get("fmt") == "csv":
        return await _csv(request, day, lo, hi, table, person)
    # the page, the day's count and the money rows at one moment: a row
    # committed between them would be counted and never shown
    with daemon.reader.snapshot():
        rows = staff_queries.activity(
            db, lo, hi, table, person, most=limit + 1, before=before, newest_first=True
        )
        more = len(rows) > limit
        rows = rows[:limit]
        moneys = _money_of(request, rows)
        count = staff_queries.activity_count(db, lo, hi, table, person)
        people = staff_queries.activity_people(db, lo, hi)
    for r in rows:
        r["when"] = views.when(r["wall_ms"], billing.timezone, lang)
        r["why_text"] = activity.why_in(r, lang)
        del r["why_said"]  # said in why_text
        r["sentence"] = sentence(r, lang, moneys.get(r["session_id"]))
        key = activity.described(r)[0]  # an old row's route pattern read as its action
        r["action_name"] = r["action"] if key in ("did_command", "did_other") else key[4:]
    return json_response(
        {
            "day": day.isoformat(),
            "label": views.day_label(day, lang),
            "rows": rows,
            "count": count,
            "next": rows[-1]["id"] if more else None,
            "people": people,
            "tables": daemon.table_ids(),
        }
    )


async def _csv(
    request: web.Request, day: date, lo: int, hi: int, table: str | None, person: str | None
) -> web.StreamResponse:
    """Every row of the day, read and sent CSV_PART at a time."""
    from baulk.host.web.app import SECURITY_HEADERS  # the app imports this module

    daemon = request.app[DAEMON_KEY]
    tz, lang = daemon.config.billing.timezone, lang_of(request)
    response = web.StreamResponse(
        headers={
            **SECURITY_HEADERS,  # sent with the head, before the app's middleware sees it
            "Content-Type": "text/csv; charset=utf-8",
            "Content-Disposition": f'attachment; filename="activity-{day}.csv"',
        }
    )
    await response.prepare(request)
    after: int | None = None
    head = True
    while True:
        rows = staff_queries.activity(
            daemon.reader.db, lo, hi, table, person, most=CSV_PART, after=after
        )
        if rows or head:
            part = activity.to_csv(rows, tz, lang, head, _said(_money_of(request, rows)))
            await response.write(part.encode("utf-8"))
        head = False
        if len(rows) < CSV_PART:
            break
        after = rows[-1]["id"]
    await response.write_eof()
    return response


async def verify_day(request: web.Request) -> web.Response:
    day = _day(request)
    daemon = request.app[DAEMON_KEY]
    try:
        keys = takings.keys_from(daemon.config.verify_keys, daemon.config.verify_sim_key)
    except ValueError as e:
        return error(409, message_of(e), lang_of(request))
    result = takings.check_day(
        daemon.reader, daemon.config.billing, day, keys, daemon.sessions.clock.now()
    )
    return json_response(result)


def add_routes(app: web.Application) -> None:
    r = app.router
    for path, name in PAGES.items():
        r.add_get(path, page_handler(name))
    r.add_get("/api/staff/me", me)
    r.add_get("/api/staff/users", users)
    r.add_post("/api/staff/users", add_user)
    r.add_post("/api/staff/users/{name}", change_user)
    r.add_post("/api/staff/users/{name}/code", new_code)
    r.add_get("/api/staff/tokens", tokens)
    r.add_post("/api/staff/tokens", add_token)
    r.add_post("/api/staff/tokens/{token}/revoke", revoke_token)
    r.add_post("/api/staff/sign-out-all", sign_out_all)
    r.add_get("/api/staff/activity", activity_log)
    r.add_get(r"/api/staff/activity.{fmt:(json|csv)}", activity_log)
    r.add_get("/api/staff/verify", verify_day)
