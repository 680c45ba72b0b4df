"""The desk: table sessions, bills, receipts and the daily report on the web
(docs/API.md, "The desk"; docs/BILLING.md).

Everything here is the desk's, reads included (bills are the club's
takings): every API route needs a staff sign-in or an API token.  The pages
are static shells that sign in through the shared sign-in form; no password
or token is kept.

Each route's role is in the role table (host/staff/roles.py), which the
web side's gate holds every request to.  Who acted comes from one place,
:func:`actor`: the signed-in account.  A state-changing body may carry ``version``, the bill's
version the desk was showing: a tap made on an older view is refused with
"the table changed: look again" and changes nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from aiohttp import web

from baulk.host.club import daily, money, receipts, views
from baulk.host.club.sessions import TableSessions
from baulk.host.errors import ActionError
from baulk.host.sentences import Message
from baulk.host.web import desk_printer
from baulk.host.web.auth import authorised, who
from baulk.host.web.http import (
    DAEMON_KEY,
    error,
    json_response,
    lang_of,
    page_handler,
    path_id,
    refused,
)
from baulk.host.web.http import page as static_page
from baulk.host.web.request_models import (
    AddItem,
    CloseSession,
    ConfirmSession,
    Correction,
    DeskBody,
    OpenSession,
    PrintReceipt,
    Refund,
    ReopenSession,
    ReportQuery,
    Reverse,
    TakeBack,
    VoidSession,
    body_of,
    day_of,
    query_of,
)

PAGES = {"/desk": "desk.html", "/desk/day": "day.html"}
RECEIPT_PAGE = "receipt.html"
_Body = TypeVar("_Body", bound=DeskBody)
Run = Callable[[TableSessions, int, _Body, str], Awaitable[dict[str, Any]]]


def _id(request: web.Request, key: str) -> int | web.Response:
    """A session's, a correction's or an item's id from the path."""
    text = request.match_info[key]
    found = path_id(text)
    if found is not None:
        return found
    lang, shown = lang_of(request), text[:20]
    if key == "correction":
        return error(404, Message("there is no correction '{id}'", id=shown), lang)
    if key == "item":
        return error(404, Message("there is no item '{id}'", id=shown), lang)
    return error(404, Message("there is no session '{id}'", id=shown), lang)


def actor(request: web.Request) -> str:
    """Who acted, as every row the desk appends records it: the signed-in
    account (host/web/auth.py ``who``), never a name in the body (``who``
    is still accepted there, and ignored)."""
    return who(request) or "operator"


async def _desk_body(request: web.Request, model: type[_Body]) -> _Body | web.Response:
    """Sign-in (the gate held it to the route's role: host/staff/roles.py),
    then the JSON body held to its model (host/web/request_models.py)."""
    denied = await authorised(request)
    if denied is not None:
        return denied
    return await body_of(request, model)


def _bill_reply(request: web.Request, bill: dict[str, Any]) -> web.Response:
    daemon = request.app[DAEMON_KEY]
    rt = daemon.tables.get(bill["table_id"])
    name = rt.view.name if rt else bill["table_id"]
    return json_response(
        {
            "schema": 1,
            "bill": bill,
            "receipt": receipts.receipt(bill, name, daemon.config.billing.venue),
            "printer": daemon.config.billing.printer is not None,
        }
    )


# ---------------------------------------------------------------------- actions
async def _act(request: web.Request, model: type[_Body], run: Run[_Body]) -> web.Response:
    """A desk action on a session: its body, who acted, the change, the bill.
    What the club refuses of a body that passed its model is a rule of the
    state (the session as it is, the bill's currency): a 409."""
    lang = lang_of(request)
    data = await _desk_body(request, model)
    if isinstance(data, web.Response):
        return data
    sid = _id(request, "session")
    if isinstance(sid, web.Response):
        return sid
    try:
        bill = await run(request.app[DAEMON_KEY].sessions, sid, data, actor(request))
    except ActionError as e:
        return refused(e, lang)
    return _bill_reply(request, bill)


async def open_session(request: web.Request) -> web.Response:
    lang = lang_of(request)
    data = await _desk_body(request, OpenSession)
    if isinstance(data, web.Response):
        return data
    daemon = request.app[DAEMON_KEY]
    try:
        bill = await daemon.sessions.open(request.match_info["table"], actor(request))
    except ActionError as e:
        return refused(e, lang)
    return _bill_reply(request, bill)


async def close_session(request: web.Request) -> web.Response:
    return await _act(request, CloseSession, lambda s, sid, d, who: s.close(sid, who, d.version))


async def confirm_session(request: web.Request) -> web.Response:
    return await _act(
        request, ConfirmSession, lambda s, sid, d, who: s.confirm(sid, who, d.version)
    )


async def void_session(request: web.Request) -> web.Response:
    """A void, or (``"undo": true``) a void taken back: both the owner's,
    both with a reason."""

    async def run(s: TableSessions, sid: int, d: VoidSession, who: str) -> dict[str, Any]:
        if d.undo:
            return await s.unvoid(sid, d.reason, who, d.version)
        return await s.void(sid, d.reason, who, d.version)

    return await _act(request, VoidSession, run)


async def reopen_session(request: web.Request) -> web.Response:
    async def run(s: TableSessions, sid: int, d: ReopenSession, who: str) -> dict[str, Any]:
        return await s.reopen(sid, d.reason, who, d.version)

    return await _act(request, ReopenSession, run)


async def correct_bill(request: web.Request) -> web.Response:
    async def run(s: TableSessions, sid: int, d: Correction, who: str) -> dict[str, Any]:
        return await s.correct(sid, d.amount, d.reason, d.payer, who, d.version)

    return await _act(request, Correction, run)


async def refund_bill(request: web.Request) -> web.Response:
    async def run(s: TableSessions, sid: int, d: Refund, who: str) -> dict[str, Any]:
        return await s.refund(sid, d.amount, d.reason, d.payer, who, d.version)

    return await _act(request, Refund, run)


async def reverse_correction(request: web.Request) -> web.Response:
    cid = _id(request, "correction")
    if isinstance(cid, web.Response):
        return cid

    async def run(s: TableSessions, sid: int, d: Reverse, who: str) -> dict[str, Any]:
        return await s.reverse(sid, cid, d.reason, who, d.version)

    return await _act(request, Reverse, run)


async def add_item(request: web.Request) -> web.Response:
    async def run(s: TableSessions, sid: int, d: AddItem, who: str) -> dict[str, Any]:
        return await s.add_item(sid, d.item, d.quantity, who, d.version)

    return await _act(request, AddItem, run)


async def take_back_item(request: web.Request) -> web.Response:
    iid = _id(request, "item")
    if isinstance(iid, web.Response):
        return iid

    async def run(s: TableSessions, sid: int, d: TakeBack, who: str) -> dict[str, Any]:
        return await s.take_back_item(sid, iid, who, d.version)

    return await _act(request, TakeBack, run)


async def print_receipt(request: web.Request) -> web.Response:
    """The receipt on the desk's thermal printer ([printer] in the config)."""
    lang = lang_of(request)
    data = await _desk_body(request, PrintReceipt)
    if isinstance(data, web.Response):
        return data
    sid = _id(request, "session")
    if isinstance(sid, web.Response):
        return sid
    daemon = request.app[DAEMON_KEY]
    printer = daemon.config.billing.printer
    if printer is None:
        return error(
            409, Message("no receipt printer is set up: add [printer] to the config"), lang
        )
    paper_lang = data.lang or printer.lang
    try:
        bill = daemon.sessions.bill(sid)
    except ActionError as e:
        return refused(e, lang, checked=False)
    rt = daemon.tables.get(bill["table_id"])
    name = rt.view.name if rt else bill["table_id"]
    paper = receipts.receipt(bill, name, daemon.config.billing.venue)[paper_lang]
    try:
        await asyncio.get_running_loop().run_in_executor(
            None, desk_printer.print_receipt, printer, paper
        )
    except desk_printer.PrintError as e:
        return error(503, e.message, lang)
    return json_response({"status": "done", "printed": sid})


# ---------------------------------------------------------------------- reads
async def receipt_page(request: web.Request) -> web.StreamResponse:
    """A session's receipt: the page, for a path that names a session's id."""
    if path_id(request.match_info["session"]) is None:
        raise web.HTTPNotFound(text="no such session")
    return static_page(request, RECEIPT_PAGE)


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
            t["receipt"] = receipts.receipt(bill, t["name"], daemon.config.billing.venue)
        for item in t["items"]:
            item["price_text"] = {
                lang: money.fmt(item["price"], item["currency"], lang) for lang in views.LANGS
            }
    return json_response(
        {
            "schema": 1,
            "venue": daemon.config.billing.venue,
            "auto_open": daemon.config.billing.auto_open,
            "printer": daemon.config.billing.printer is not None,
            "tables": tables,
            "alerts": sessions.alerts(),
        }
    )


async def session_bill(request: web.Request) -> web.StreamResponse:
    denied = await authorised(request)
    if denied is not None:
        return denied
    lang = lang_of(request)
    sid = _id(request, "session")
    if isinstance(sid, web.Response):
        return sid
    try:
        bill = request.app[DAEMON_KEY].sessions.bill(sid)
    except ActionError as e:
        return refused(e, lang, checked=False)
    if request.match_info.get("fmt") == "csv":
        return _csv(receipts.bill_csv(bill, lang), f"session-{sid}.csv")
    reply = _bill_reply(request, bill)
    return reply


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
    lang = lang_of(request)
    daemon = request.app[DAEMON_KEY]
    billing = daemon.config.billing
    now = daemon.sessions.clock.now()
    day = day_of(request, daily.business_day(now.wall_ms, billing))
    table = query_of(request, ReportQuery).table
    if table is not None and table not in daemon.tables:
        return error(404, Message("there is no table '{id}'", id=table[:40]), lang)
    names = {t: rt.view.name for t, rt in daemon.tables.items()}
    report = daily.day_report(daemon.reader, billing, day, now, names, table)
    if request.match_info.get("fmt") == "csv":
        return _csv(daily.day_csv(report, lang), f"day-{day.isoformat()}.csv")
    report["formatted"] = daily.formatted_report(report, lang)
    report["months"] = views.persian_months()
    return json_response({"schema": 1, "report": report})


# ---------------------------------------------------------------------- routes
def add_routes(app: web.Application) -> None:
    """The desk's pages and API on the daemon's web app (one line in build_app)."""
    r = app.router
    for path, page in PAGES.items():
        r.add_get(path, page_handler(page))
    r.add_get("/desk/receipt/{session}", receipt_page)
    r.add_get("/api/desk", desk)
    r.add_post("/api/tables/{table}/session", open_session)
    r.add_post("/api/sessions/{session}/close", close_session)
    r.add_post("/api/sessions/{session}/confirm", confirm_session)
    r.add_post("/api/sessions/{session}/void", void_session)
    r.add_post("/api/sessions/{session}/reopen", reopen_session)
    r.add_post("/api/sessions/{session}/corrections", correct_bill)
    r.add_post("/api/sessions/{session}/corrections/{correction}/reverse", reverse_correction)
    r.add_post("/api/sessions/{session}/refunds", refund_bill)
    r.add_post("/api/sessions/{session}/items", add_item)
    r.add_post("/api/sessions/{session}/items/{item}/take-back", take_back_item)
    r.add_post("/api/sessions/{session}/print", print_receipt)
    r.add_get("/api/sessions/{session}", session_bill)
    r.add_get(r"/api/sessions/{session}/bill.{fmt:(json|csv)}", session_bill)
    r.add_get("/api/reports/day", day_report)
    r.add_get(r"/api/reports/day.{fmt:(json|csv)}", day_report)
