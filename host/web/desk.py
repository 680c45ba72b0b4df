"""The desk: table sessions, bills, receipts and the daily report on the web
(docs/API.md, "Table sessions and bills").

Everything here is the desk's, reads included (bills are the club's
takings): every API route needs a sign-in whose role the role table allows
(host/staff/roles.py, checked by host/web/auth.py's gate), and who acted is
the signed-in account (auth.who), never a name in the body (``who`` is
still accepted there, and ignored).  The pages are static shells that sign
in through the console's form; no password or token is kept.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from baulk.host.club import views
from baulk.host.errors import ActionError
from baulk.host.web.auth import authorised, who
from baulk.host.web.http import (
    DAEMON_KEY,
    error,
    json_response,
    page_handler,
    query_day,
    read_body,
)

PAGES = {"/desk": "desk.html", "/desk/receipt/{session}": "receipt.html", "/desk/day": "day.html"}


def _session_id(request: web.Request) -> int | web.Response:
    text = request.match_info["session"]
    if not text.isdigit() or len(text) > 12:
        return error(404, f"there is no session '{text[:20]}'")
    return int(text)


def _lang(request: web.Request) -> str:
    lang = request.query.get("lang", "en")
    return lang if lang in views.LANGS else "en"


async def _desk_body(request: web.Request, allowed: set[str]) -> dict[str, Any] | web.Response:
    """Token, then the JSON body with only the allowed keys."""
    denied = await authorised(request)
    if denied is not None:
        return denied
    data = await read_body(request)
    if isinstance(data, web.Response):
        return data
    extra = sorted(set(data) - allowed)
    if extra:
        return error(400, f"unknown key '{extra[0]}' (allowed: {', '.join(sorted(allowed))})")
    return data


def _bill_reply(request: web.Request, bill: dict[str, Any]) -> web.Response:
    daemon = request.app[DAEMON_KEY]
    rt = daemon.tables.get(bill["table_id"])
    name = rt.view.name if rt else bill["table_id"]
    return json_response(
        {
            "schema": 1,
            "bill": bill,
            "receipt": views.receipt(bill, name, daemon.config.billing.venue),
        }
    )


# ---------------------------------------------------------------------- actions
async def open_session(request: web.Request) -> web.Response:
    data = await _desk_body(request, {"who"})
    if isinstance(data, web.Response):
        return data
    daemon = request.app[DAEMON_KEY]
    try:
        bill = await daemon.sessions.open(request.match_info["table"], who(request))
    except ValueError as e:
        return error(400, str(e))
    except ActionError as e:
        return error(e.status, e.text)
    return _bill_reply(request, bill)


async def _session_action(request: web.Request, what: str) -> web.Response:
    allowed = {"who", "amount", "reason", "payer"} if what == "correct" else {"who"}
    data = await _desk_body(request, allowed)
    if isinstance(data, web.Response):
        return data
    sid = _session_id(request)
    if isinstance(sid, web.Response):
        return sid
    sessions = request.app[DAEMON_KEY].sessions
    try:
        actor = who(request)
        if what == "close":
            bill = await sessions.close(sid, actor)
        elif what == "confirm":
            bill = await sessions.confirm(sid, actor)
        else:
            if "amount" not in data:
                return error(400, "amount is missing: the sum to add (or, negative, to take off)")
            bill = await sessions.correct(
                sid, data["amount"], data.get("reason"), data.get("payer"), actor
            )
    except ValueError as e:
        return error(400, str(e))
    except ActionError as e:
        return error(e.status, e.text)
    return _bill_reply(request, bill)


async def close_session(request: web.Request) -> web.Response:
    return await _session_action(request, "close")


async def confirm_session(request: web.Request) -> web.Response:
    return await _session_action(request, "confirm")


async def correct_bill(request: web.Request) -> web.Response:
    return await _session_action(request, "correct")


# ---------------------------------------------------------------------- reads
async def desk(request: web.Request) -> web.Response:
    denied = await authorised(request)
    if denied is not None:
        return denied
    daemon = request.app[DAEMON_KEY]
    sessions = daemon.sessions
    tables = sessions.tables()
    for t in tables:
        bill = t["bill"]
        if bill is not None:
            t["receipt"] = views.receipt(bill, t["name"], daemon.config.billing.venue)
    return json_response(
        {
            "schema": 1,
            "venue": daemon.config.billing.venue,
            "auto_open": daemon.config.billing.auto_open,
            "tables": tables,
            "alerts": sessions.alerts(),
        }
    )


async def session_bill(request: web.Request) -> web.StreamResponse:
    denied = await authorised(request)
    if denied is not None:
        return denied
    sid = _session_id(request)
    if isinstance(sid, web.Response):
        return sid
    try:
        bill = request.app[DAEMON_KEY].sessions.bill(sid)
    except ActionError as e:
        return error(e.status, e.text)
    if request.match_info.get("fmt") == "csv":
        return _csv(views.bill_csv(bill, _lang(request)), f"session-{sid}.csv")
    return _bill_reply(request, bill)


def _csv(text: str, filename: str) -> web.Response:
    return web.Response(
        text=text,
        content_type="text/csv",
        charset="utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


async def day_report(request: web.Request) -> web.StreamResponse:
    denied = await authorised(request)
    if denied is not None:
        return denied
    daemon = request.app[DAEMON_KEY]
    billing = daemon.config.billing
    now = daemon.sessions.clock.now()
    day = query_day(request, views.business_day(now.wall_ms, billing))
    if isinstance(day, web.Response):
        return day
    table = request.query.get("table")
    if table is not None and table not in daemon.tables:
        return error(404, f"there is no table '{table[:40]}'")
    names = {t: rt.view.name for t, rt in daemon.tables.items()}
    report = views.day_report(daemon.reader, billing, day, now, names, table)
    if request.match_info.get("fmt") == "csv":
        return _csv(views.day_csv(report, _lang(request)), f"day-{day.isoformat()}.csv")
    report["formatted"] = views.formatted_report(report, _lang(request))
    return json_response({"schema": 1, "report": report})


# ---------------------------------------------------------------------- routes
def add_routes(app: web.Application) -> None:
    """The desk's pages and API on the daemon's web app (one line in build_app)."""
    r = app.router
    for path, page in PAGES.items():
        r.add_get(path, page_handler(page))
    r.add_get("/api/desk", desk)
    r.add_post("/api/tables/{table}/session", open_session)
    r.add_post("/api/sessions/{session}/close", close_session)
    r.add_post("/api/sessions/{session}/confirm", confirm_session)
    r.add_post("/api/sessions/{session}/corrections", correct_bill)
    r.add_get("/api/sessions/{session}", session_bill)
    r.add_get(r"/api/sessions/{session}/bill.{fmt:(json|csv)}", session_bill)
    r.add_get("/api/reports/day", day_report)
    r.add_get(r"/api/reports/day.{fmt:(json|csv)}", day_report)
