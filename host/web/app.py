"""The web side: boards (static pages), the JSON API, the live feed
(WebSocket) and the operator's actions.  aiohttp; docs/API.md is the
contract.

Read-only routes are public.  Actions need ``Authorization: Bearer TOKEN``
(the config's ``operator_token`` or ``BAULK_TOKEN``), or the operator
console's sign-in (a session cookie and its CSRF token, console_session.py):
without either they answer 401 and change nothing.  Every error is JSON
``{"error": "sentence"}``; an action's error also carries ``message``, the
sentence in the language the request asks for (``?lang=fa``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import ssl
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from aiohttp import WSMsgType, web

from baulk.firmware import names
from baulk.host import reports
from baulk.host.actions import ActionError
from baulk.host.config import ConfigError, tls_context, valid_table_id
from baulk.host.live import SCHEMA_VERSION, SERVER
from baulk.host.web import console_session, files, sheet
from baulk.host.web.action_checks import (
    BEST_OF_MAX,
    NAME_BYTES,
    parse_command,
    parse_names,
    parse_setup,
)
from baulk.host.web.guard import (
    BACKLOG,
    RESERVED_FDS,
    AcceptErrors,
    ConnectionGuard,
    quiet_malformed_requests,
    raise_fd_limit,
)
from baulk.host.web.name_fixes import fixed_match, fixed_report
from baulk.host.web.refusals import localise
from baulk.host.web.throttle import PAUSE_S, AuthThrottle

if TYPE_CHECKING:
    from baulk.host.daemon import Daemon

log = logging.getLogger("baulk.web")
_Parsed = TypeVar("_Parsed")  # what an action's own check makes of its body

STATIC = Path(__file__).with_name("static")
MAX_BODY = 16 * 1024
LANGS = ("en", "fa")
DAEMON_KEY: web.AppKey[Daemon] = web.AppKey("daemon")
THROTTLE_KEY: web.AppKey[AuthThrottle] = web.AppKey("auth_throttle")
GUARD_KEY: web.AppKey[ConnectionGuard] = web.AppKey("connection_guard")
KEEPALIVE_S = 15.0


def error(status: int, text: str, lang: str | None = None) -> web.Response:
    body = {"error": text}
    if lang is not None:
        body["message"] = localise(text, lang)
    return _json(body, status=status)


def _lang(request: web.Request) -> str:
    lang = request.query.get("lang", "en")
    return lang if lang in LANGS else "en"


def _json(data: Any, status: int = 200) -> web.Response:
    return web.json_response(data, status=status, dumps=lambda v: json.dumps(v, ensure_ascii=False))


@web.middleware
async def errors_as_json(request: web.Request, handler: Any) -> web.StreamResponse:
    try:
        response: web.StreamResponse = await handler(request)
        return response
    except web.HTTPException as e:
        if e.status >= 400 and request.path.startswith("/api/"):
            response = error(e.status, e.reason or "error")
            if "Allow" in e.headers:  # a 405 says which methods the path takes
                response.headers["Allow"] = e.headers["Allow"]
            return response
        raise


# The pages draw names with textContent, load no third-party code and are
# never shown inside another site's frame (a frame could trick the operator
# into clicking).  Every answer carries these, errors included.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


@web.middleware
async def security_headers(request: web.Request, handler: Any) -> web.StreamResponse:
    try:
        response: web.StreamResponse = await handler(request)
    except web.HTTPException as e:  # a 404 or 405 of the router, among others
        for name, value in SECURITY_HEADERS.items():
            e.headers.setdefault(name, value)
        raise
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


# ---------------------------------------------------------------------- pages
FILES_KEY: web.AppKey[dict[str, files.StaticFile]] = web.AppKey("static_files")


def _page(request: web.Request, name: str) -> web.Response:
    return files.respond(request, request.app[FILES_KEY][name])


async def static_file(request: web.Request) -> web.StreamResponse:
    found = request.app[FILES_KEY].get(request.match_info["path"])
    if found is None:
        raise web.HTTPNotFound(text="no such file")
    return files.respond(request, found)


async def index(request: web.Request) -> web.StreamResponse:
    return _page(request, "index.html")


async def table_page(request: web.Request) -> web.StreamResponse:
    if request.match_info["table"] not in request.app[DAEMON_KEY].tables:
        raise web.HTTPNotFound(text="no such table")
    return _page(request, "board.html")


async def overlay_page(request: web.Request) -> web.StreamResponse:
    if request.match_info["table"] not in request.app[DAEMON_KEY].tables:
        raise web.HTTPNotFound(text="no such table")
    return _page(request, "overlay.html")


async def venue_page(request: web.Request) -> web.StreamResponse:
    return _page(request, "venue.html")


async def console_page(request: web.Request) -> web.StreamResponse:
    return _page(request, "console.html")


def _report(request: web.Request, ledger: bool = False) -> dict[str, Any] | None:
    reader = request.app[DAEMON_KEY].reader
    report = reports.build(reader, request.match_info["match"], ledger=ledger)
    if report is None:
        return None
    return fixed_report(report, reader.name_fix(report["match"]["match_id"]))


def _table_name(daemon: Daemon, table_id: str) -> str | None:
    board = daemon.board(table_id)
    return str(board["name"]) if board is not None else None


async def report_page(request: web.Request) -> web.StreamResponse:
    report = _report(request)
    if report is None:
        raise web.HTTPNotFound(text="no such match")
    name = _table_name(request.app[DAEMON_KEY], report["match"]["table_id"])
    return web.Response(
        text=reports.html_page(report, _lang(request), name), content_type="text/html"
    )


async def sheet_page(request: web.Request) -> web.StreamResponse:
    report = _report(request)
    if report is None:
        raise web.HTTPNotFound(text="no such match")
    daemon = request.app[DAEMON_KEY]
    referee = daemon.reader.referee_of(report["match"]["match_id"])
    name = _table_name(daemon, report["match"]["table_id"])
    return web.Response(
        text=sheet.html_page(report, _lang(request), name, referee),
        content_type="text/html",
    )


# ---------------------------------------------------------------------- API (read)
async def api_root(request: web.Request) -> web.Response:
    daemon = request.app[DAEMON_KEY]
    return _json(
        {
            "schema": SCHEMA_VERSION,
            "server": SERVER,
            "tables": daemon.table_ids(),
            "live": "/api/live",
            "actions_enabled": daemon.config.operator_token is not None,
            "store": daemon.store_status(),
        }
    )


async def api_vocabulary(request: web.Request) -> web.Response:
    """The names the console offers: balls, foul kinds by how their penalty
    is valued (a ``higher`` kind names the ball concerned), limits."""
    return _json(
        {
            "balls": list(names.BALLS),
            "colours": list(names.COLOURS),
            "foul_kinds": {
                valued: [
                    kind
                    for kind, cls in zip(names.FOUL_KINDS, names.FOUL_PENALTY, strict=True)
                    if cls == penalty
                ]
                for valued, penalty in (
                    ("ball_on", names.PENALTY_BALL_ON),
                    ("higher", names.PENALTY_HIGHER),
                    ("seven", names.PENALTY_SEVEN),
                )
            },
            "best_of_max": BEST_OF_MAX,
            "name_bytes": NAME_BYTES,
        }
    )


async def api_tables(request: web.Request) -> web.Response:
    daemon = request.app[DAEMON_KEY]
    boards = [daemon.board(t) for t in daemon.table_ids()]
    return _json({"schema": SCHEMA_VERSION, "tables": [b for b in boards if b is not None]})


async def api_table(request: web.Request) -> web.Response:
    daemon = request.app[DAEMON_KEY]
    board = daemon.board(request.match_info["table"])
    if board is None:
        return error(404, f"there is no table '{request.match_info['table']}'")
    return _json({"schema": SCHEMA_VERSION, "board": board})


async def api_matches(request: web.Request) -> web.Response:
    daemon = request.app[DAEMON_KEY]
    table = request.query.get("table")
    if table is not None and not valid_table_id(table):
        return error(400, "table must be a table id (letters, digits, '-' or '_')")
    try:
        limit = int(request.query.get("limit", "50"))
    except ValueError:
        return error(400, "limit must be an integer")
    if not 1 <= limit <= 1000:
        return error(400, "limit must be 1..1000")
    skip_empty = request.query.get("skip_empty", "0")
    if skip_empty not in ("0", "1"):
        return error(400, "skip_empty must be 0 or 1")
    reader = daemon.reader
    found = [
        fixed_match(m, reader.name_fix(m["match_id"]))
        for m in reader.matches(table, limit, skip_empty == "1")
    ]
    return _json({"schema": SCHEMA_VERSION, "matches": found})


async def api_match(request: web.Request) -> web.StreamResponse:
    fmt = request.match_info.get("fmt", "json")
    report = _report(request, ledger=fmt == "json")
    if report is None:
        return error(404, f"there is no match '{request.match_info['match'][:100]}'")
    if fmt == "csv":
        return web.Response(
            text=reports.to_csv(report),
            content_type="text/csv",
            headers={
                "Content-Disposition": f'attachment; filename="{report["match"]["match_id"]}.csv"'
            },
        )
    return _json({"schema": SCHEMA_VERSION, "report": report})


# ---------------------------------------------------------------------- live feed
async def api_live(request: web.Request) -> web.StreamResponse:
    daemon = request.app[DAEMON_KEY]
    tables: set[str] | None = None
    if "tables" in request.query:
        tables = {t for t in request.query["tables"].split(",") if t}
        bad = [t for t in tables if not valid_table_id(t)]
        if bad:
            return error(400, f"'{bad[0][:40]}' is not a table id")
    # compress=False: every client gets the same bytes; deflating them once
    # per connection would cost more than the loopback or LAN saves.
    ws = web.WebSocketResponse(heartbeat=20, max_msg_size=4096, compress=False)
    await ws.prepare(request)
    sub = daemon.hub.subscribe(tables)
    sender = asyncio.get_running_loop().create_task(_send_feed(ws, sub, daemon))
    try:
        async for msg in ws:  # clients send nothing we need; this notices closes
            if msg.type == WSMsgType.ERROR:
                break
    finally:
        daemon.hub.unsubscribe(sub)
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sender
    return ws


async def _send_feed(ws: web.WebSocketResponse, sub: Any, daemon: Daemon) -> None:
    try:
        await ws.send_str(daemon.hub.hello())
        while not ws.closed:
            for message in await sub.take():
                await ws.send_str(message)
    except (ConnectionError, RuntimeError):
        pass


# ---------------------------------------------------------------------- operator
async def _check_token(
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


async def _authorised(request: web.Request) -> web.Response | None:
    """The bearer token (curl, scripts), or else the console's sign-in."""
    lang = _lang(request)
    console = "Authorization" not in request.headers and console_session.has_cookie(request)
    if request.app[DAEMON_KEY].config.operator_token is None or not console:
        given = request.headers.get("Authorization", "")
        token = given[7:].strip() if given.startswith("Bearer ") else ""
        return await _check_token(
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
    response = _json({"signed_in": csrf is not None, "csrf": csrf, "actions_enabled": enabled})
    response.headers["Cache-Control"] = "no-store"
    return response


async def console_sign_in(request: web.Request) -> web.Response:
    lang = _lang(request)
    origin = console_session.foreign_origin(request)
    if origin is not None:
        return error(403, f"refused: this action came from another site ({origin})", lang)
    data = await _body(request, lang)
    if isinstance(data, web.Response):
        return data
    given = data.get("token")
    if not isinstance(given, str):
        return error(400, "token must be a string", lang)
    denied = await _check_token(request, given.strip(), lang, "the operator token is wrong")
    if denied is not None:
        return denied
    csrf = await console_session.sign_in(request)
    log.info("operator console: signed in (from %s)", request.remote or "?")
    response = _json({"signed_in": True, "csrf": csrf})
    response.headers["Cache-Control"] = "no-store"
    return response


async def console_sign_out(request: web.Request) -> web.Response:
    lang = _lang(request)
    why = await console_session.refusal(request)
    if why is not None and why[0] != 401:  # not signed in: nothing to end
        return error(*why, lang)
    await console_session.sign_out(request)
    return _json({"signed_in": False})


async def _body(request: web.Request, lang: str | None = None) -> dict[str, Any] | web.Response:
    if request.content_length is not None and request.content_length > MAX_BODY:
        return error(413, f"the request body is over {MAX_BODY} bytes", lang)
    try:
        raw = await request.content.read(MAX_BODY + 1)
    except (TimeoutError, ConnectionError):
        return error(400, "the request body could not be read", lang)
    if len(raw) > MAX_BODY:
        return error(413, f"the request body is over {MAX_BODY} bytes", lang)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:  # ValueError: also a number of 4300+ digits
        return error(400, f"the body must be a JSON object: {str(e)[:120]}", lang)
    except RecursionError:
        return error(400, "the body must be a JSON object: it is nested too deeply", lang)
    if not isinstance(data, dict):
        return error(400, "the body must be a JSON object", lang)
    return data


async def act_match(request: web.Request) -> web.Response:
    return await _action(
        request, parse_setup, lambda d, t, setup: d.actions.setup_match(t, **setup)
    )


async def act_command(request: web.Request) -> web.Response:
    return await _action(request, parse_command, lambda d, t, parsed: d.actions.command(t, *parsed))


async def act_names(request: web.Request) -> web.Response:
    return await _action(
        request, parse_names, lambda d, t, parsed: d.actions.correct_names(t, *parsed)
    )


async def _action(
    request: web.Request,
    parse: Callable[[dict[str, Any]], _Parsed],
    run: Callable[[Daemon, str, _Parsed], Awaitable[dict[str, Any]]],
) -> web.Response:
    """An operator action: sign-in, body, its own check, then the daemon,
    which forwards it to the table.  Each refusal is a JSON error, nothing
    sent."""
    lang = _lang(request)
    denied = await _authorised(request)
    if denied is not None:
        return denied
    data = await _body(request, lang)
    if isinstance(data, web.Response):
        return data
    try:
        parsed = parse(data)
    except ValueError as e:
        return error(400, str(e), lang)
    daemon = request.app[DAEMON_KEY]
    table = request.match_info["table"]
    if table not in daemon.tables:
        return error(404, f"there is no table '{table}'", lang)
    try:
        result = await run(daemon, table, parsed)
    except ActionError as e:
        return error(e.status, e.text, lang)
    if "message" in result:
        result = {**result, "message": localise(str(result["message"]), lang)}
    return _json(result, status=200 if result["status"] == "done" else 202)


# ---------------------------------------------------------------------- the app
def build_app(daemon: Daemon) -> web.Application:
    from baulk.host.web import billing, handset_api, players  # they build on this module

    # Most connections the web side may hold: the process's descriptor limit
    # (raised to its hard limit where allowed) less what the tables and the
    # store need.
    guard = ConnectionGuard(max(raise_fd_limit() - RESERVED_FDS - BACKLOG, 32))
    app = web.Application(
        middlewares=[guard.middleware(), security_headers, errors_as_json],
        client_max_size=MAX_BODY,
    )
    app[GUARD_KEY] = guard
    app[FILES_KEY] = files.load(STATIC)
    app[DAEMON_KEY] = daemon
    app[THROTTLE_KEY] = AuthThrottle()
    console_session.setup(app, daemon.config.session_hours, daemon.config.tls)
    r = app.router
    r.add_get("/", index)
    r.add_get("/table/{table}", table_page)
    r.add_get("/overlay/{table}", overlay_page)
    r.add_get("/venue", venue_page)
    r.add_get("/console", console_page)
    r.add_get("/report/{match}", report_page)
    r.add_get("/report/{match}/sheet", sheet_page)
    r.add_get("/api", api_root)
    r.add_get("/api/vocabulary", api_vocabulary)
    r.add_get("/api/tables", api_tables)
    r.add_get("/api/tables/{table}", api_table)
    r.add_get("/api/matches", api_matches)
    r.add_get("/api/matches/{match}", api_match)
    r.add_get(r"/api/matches/{match}/report.{fmt:(json|csv)}", api_match)
    r.add_get("/api/live", api_live)
    r.add_post("/api/tables/{table}/match", act_match)
    r.add_post("/api/tables/{table}/command", act_command)
    r.add_post("/api/tables/{table}/names", act_names)
    r.add_get("/console/session", console_state)
    r.add_post("/console/signin", console_sign_in)
    r.add_post("/console/signout", console_sign_out)
    billing.add_routes(app)  # the desk: table sessions, bills, the daily report
    handset_api.add_routes(app)  # GET/POST /api/tables/{table}/handset: its language
    players.add_routes(app, daemon.config.store_path)  # player pages and the registry
    r.add_get("/static/{path:.+}", static_file)
    return app


async def serve(daemon: Daemon, host: str, port: int) -> tuple[WebServer, str]:
    """Start serving (HTTPS when the config names a certificate); returns the
    runner (``await runner.cleanup()`` stops it) and the base URL (with the
    real port when ``port`` was 0)."""
    try:
        context = tls_context(daemon.config)
    except ConfigError as e:  # the files changed since the config was read
        raise OSError(str(e)) from None
    return await serve_app(build_app(daemon), host, port, context)


class WebServer:
    """A running web app: its listening socket, the guard at its door and
    aiohttp's runner.  ``cleanup()`` stops all three."""

    def __init__(
        self, runner: web.AppRunner, server: asyncio.Server, guard: ConnectionGuard
    ) -> None:
        self.runner = runner
        self.server = server
        self.guard = guard

    async def cleanup(self) -> None:
        self.server.close()
        await self.guard.stop()
        await self.runner.cleanup()


async def serve_app(
    app: web.Application, host: str, port: int, ssl_context: ssl.SSLContext | None = None
) -> tuple[WebServer, str]:
    """Serve an already built app (``baulk board`` adds its own routes first)
    behind a ConnectionGuard (host/web/guard.py); returns the server and the
    base URL (with the real port when ``port`` was 0)."""
    guard: ConnectionGuard = app[GUARD_KEY]
    loop = asyncio.get_running_loop()
    if not isinstance(loop.get_exception_handler(), AcceptErrors):
        loop.set_exception_handler(AcceptErrors())
    quiet_malformed_requests()
    # An idle keep-alive connection goes after KEEPALIVE_S (aiohttp keeps
    # one an hour by default); the guard closes one that trickles a request.
    runner = web.AppRunner(app, access_log=None, keepalive_timeout=KEEPALIVE_S)
    await runner.setup()
    assert runner.server is not None
    try:
        server = await loop.create_server(
            guard.factory(runner.server), host, port, ssl=ssl_context, backlog=BACKLOG
        )
    except OSError:
        await runner.cleanup()
        raise
    guard.start()
    real = int(server.sockets[0].getsockname()[1]) if server.sockets else port
    scheme = "https" if ssl_context is not None else "http"
    return WebServer(runner, server, guard), f"{scheme}://{host}:{real}"
