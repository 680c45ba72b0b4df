"""The web side: boards (static pages), the JSON API, the live feed
(WebSocket) and the operator's actions.  aiohttp; docs/API.md is the
contract.

Read-only routes are public.  Actions need ``Authorization: Bearer TOKEN``
(the config's ``operator_token`` or ``BAULK_TOKEN``): without it they answer
401 and change nothing.  Every error is JSON ``{"error": "sentence"}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from aiohttp import WSMsgType, web

from baulk.firmware import names
from baulk.firmware.engine import Rejected, parse_event
from baulk.host import reports
from baulk.host.actions import ActionError
from baulk.host.config import valid_table_id
from baulk.host.live import SCHEMA_VERSION, SERVER

if TYPE_CHECKING:
    from baulk.host.daemon import Daemon

log = logging.getLogger("baulk.web")
_Parsed = TypeVar("_Parsed")  # what an action's own check makes of its body

STATIC = Path(__file__).with_name("static")
MAX_BODY = 16 * 1024
NAME_BYTES = 48
LANGS = ("en", "fa")
DAEMON_KEY: web.AppKey[Daemon] = web.AppKey("daemon")
# Authentication failures: a client (by address) that fails AUTH_FAILURES
# times within AUTH_WINDOW_S is refused (429) without the token being looked
# at, until its oldest failure leaves the window.  AUTH_CLIENTS bounds memory.
AUTH_FAILURES = 10
AUTH_WINDOW_S = 60.0
AUTH_CLIENTS = 4096


class AuthThrottle:
    """Recent authentication failures per client address."""

    def __init__(
        self,
        most: int = AUTH_FAILURES,
        window_s: float = AUTH_WINDOW_S,
        clients: int = AUTH_CLIENTS,
    ) -> None:
        self.most = most
        self.window_s = window_s
        self.clients = clients
        self.failures: dict[str, deque[float]] = {}
        self.refused = 0

    def _recent(self, client: str, now: float) -> deque[float] | None:
        times = self.failures.get(client)
        if times is None:
            return None
        while times and now - times[0] >= self.window_s:
            times.popleft()
        if not times:
            del self.failures[client]
            return None
        return times

    def retry_after(self, client: str, now: float | None = None) -> float:
        """Seconds until this client may try again (0: it may now)."""
        now = time.monotonic() if now is None else now
        times = self._recent(client, now)
        if times is None or len(times) < self.most:
            return 0.0
        return times[0] + self.window_s - now

    def failed(self, client: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        times = self._recent(client, now)
        if times is None:
            if len(self.failures) >= self.clients:  # forget the oldest client
                del self.failures[next(iter(self.failures))]
            times = self.failures[client] = deque(maxlen=self.most)
        times.append(now)


THROTTLE_KEY: web.AppKey[AuthThrottle] = web.AppKey("auth_throttle")


def error(status: int, text: str) -> web.Response:
    return web.json_response({"error": text}, status=status)


def _json(data: Any, status: int = 200) -> web.Response:
    return web.json_response(data, status=status, dumps=lambda v: json.dumps(v, ensure_ascii=False))


@web.middleware
async def errors_as_json(request: web.Request, handler: Any) -> web.StreamResponse:
    try:
        response: web.StreamResponse = await handler(request)
        return response
    except web.HTTPException as e:
        if e.status >= 400 and request.path.startswith("/api/"):
            return error(e.status, e.reason or "error")
        raise


@web.middleware
async def security_headers(request: web.Request, handler: Any) -> web.StreamResponse:
    response: web.StreamResponse = await handler(request)
    # The pages draw names with textContent and load no third-party code.
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'",
    )
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    return response


# ---------------------------------------------------------------------- pages
def _page(name: str) -> web.FileResponse:
    return web.FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})


async def index(request: web.Request) -> web.StreamResponse:
    return _page("index.html")


async def table_page(request: web.Request) -> web.StreamResponse:
    if request.match_info["table"] not in request.app[DAEMON_KEY].tables:
        raise web.HTTPNotFound(text="no such table")
    return _page("board.html")


async def overlay_page(request: web.Request) -> web.StreamResponse:
    if request.match_info["table"] not in request.app[DAEMON_KEY].tables:
        raise web.HTTPNotFound(text="no such table")
    return _page("overlay.html")


async def venue_page(request: web.Request) -> web.StreamResponse:
    return _page("venue.html")


async def report_page(request: web.Request) -> web.StreamResponse:
    daemon = request.app[DAEMON_KEY]
    lang = request.query.get("lang", "en")
    if lang not in LANGS:
        lang = "en"
    report = reports.build(daemon.reader, request.match_info["match"])
    if report is None:
        raise web.HTTPNotFound(text="no such match")
    return web.Response(text=reports.html_page(report, lang), content_type="text/html")


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
    return _json({"schema": SCHEMA_VERSION, "matches": daemon.reader.matches(table, limit)})


async def api_match(request: web.Request) -> web.StreamResponse:
    daemon = request.app[DAEMON_KEY]
    fmt = request.match_info.get("fmt", "json")
    report = reports.build(daemon.reader, request.match_info["match"], ledger=fmt == "json")
    if report is None:
        return error(404, f"there is no match '{request.match_info['match']}'")
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


# ---------------------------------------------------------------------- actions
def _authorised(request: web.Request) -> web.Response | None:
    token = request.app[DAEMON_KEY].config.operator_token
    if token is None:
        return error(
            403,
            "operator actions are switched off: set operator_token in the config or BAULK_TOKEN",
        )
    throttle = request.app[THROTTLE_KEY]
    client = request.remote or "?"
    wait = throttle.retry_after(client)
    if wait > 0:
        throttle.refused += 1
        response = error(
            429, f"too many attempts with a wrong operator token; try again in {int(wait) + 1} s"
        )
        response.headers["Retry-After"] = str(int(wait) + 1)
        return response
    given = request.headers.get("Authorization", "")
    # compare_digest: the time taken does not tell how much of the token was right.
    if not given.startswith("Bearer ") or not hmac.compare_digest(
        given[7:].strip().encode(), token.encode()
    ):
        throttle.failed(client)
        log.warning("operator action refused: wrong or missing token (from %s)", client)
        return error(401, "this action needs the operator token (Authorization: Bearer TOKEN)")
    return None


async def _body(request: web.Request) -> dict[str, Any] | web.Response:
    if request.content_length is not None and request.content_length > MAX_BODY:
        return error(413, f"the request body is over {MAX_BODY} bytes")
    try:
        raw = await request.content.read(MAX_BODY + 1)
    except (TimeoutError, ConnectionError):
        return error(400, "the request body could not be read")
    if len(raw) > MAX_BODY:
        return error(413, f"the request body is over {MAX_BODY} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        return error(400, f"the body must be a JSON object: {e}")
    if not isinstance(data, dict):
        return error(400, "the body must be a JSON object")
    return data


def _name(v: Any, what: str) -> str:
    if not isinstance(v, str) or not v.strip():
        raise ValueError(f"{what} must be a non-empty name")
    text: str = v.strip()
    if len(text.encode()) > NAME_BYTES:
        raise ValueError(f"{what} is longer than {NAME_BYTES} bytes")
    if any(ord(c) < 32 for c in text):
        raise ValueError(f"{what} must not hold control characters")
    return text


def parse_setup(data: dict[str, Any]) -> dict[str, Any]:
    """Check a new-match request; raise ValueError with the reason."""
    allowed = {"players", "best_of", "reds", "breaker", "who"}
    extra = sorted(set(data) - allowed)
    if extra:
        raise ValueError(f"unknown key '{extra[0]}' (allowed: {', '.join(sorted(allowed))})")
    players = data.get("players")
    if not isinstance(players, list) or len(players) != 2:
        raise ValueError("players must be a list of two names (or two teams of two names)")
    clean: list[Any] = []
    for i, p in enumerate(players):
        if isinstance(p, list):
            if not 1 <= len(p) <= 2:
                raise ValueError(f"team {i + 1} must have one or two players")
            clean.append([_name(x, f"player {i + 1}.{j + 1}") for j, x in enumerate(p)])
        else:
            clean.append(_name(p, f"player {i + 1}"))
    best_of = data.get("best_of")
    if isinstance(best_of, bool) or not isinstance(best_of, int):
        raise ValueError("best_of must be an odd integer from 1 to 35")
    if not (1 <= best_of <= 35 and best_of % 2 == 1):
        raise ValueError("best_of must be an odd integer from 1 to 35")
    reds = data.get("reds", 15)
    if reds not in (6, 10, 15) or isinstance(reds, bool):
        raise ValueError("reds must be 15, 10 or 6")
    breaker = data.get("breaker", 0)
    if breaker not in (0, 1) or isinstance(breaker, bool):
        raise ValueError("breaker must be 0 or 1")
    who = data.get("who")
    if who is not None:
        who = _name(who, "who")
    ev = {"ev": "match", "players": clean, "best_of": best_of, "reds": reds, "breaker": breaker}
    try:
        parse_event(ev)
    except Rejected as why:
        raise ValueError(str(why)) from None
    return {"players": clean, "best_of": best_of, "reds": reds, "breaker": breaker, "who": who}


def parse_command(data: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """Check a correction (any engine input event but ``match``)."""
    data = dict(data)
    who = data.pop("who", None)
    if who is not None:
        who = _name(who, "who")
    name = data.get("ev")
    if not isinstance(name, str) or name not in names.EVENTS:
        raise ValueError(f"ev must be one of: {', '.join(n for n in names.EVENTS if n != 'match')}")
    if name == "match":
        raise ValueError("a new match goes to POST /api/tables/{table}/match")
    try:
        parse_event(data)
    except Rejected as why:
        raise ValueError(str(why)) from None
    return data, who


async def act_match(request: web.Request) -> web.Response:
    return await _action(
        request, parse_setup, lambda d, t, setup: d.actions.setup_match(t, **setup)
    )


async def act_command(request: web.Request) -> web.Response:
    return await _action(request, parse_command, lambda d, t, parsed: d.actions.command(t, *parsed))


async def _action(
    request: web.Request,
    parse: Callable[[dict[str, Any]], _Parsed],
    run: Callable[[Daemon, str, _Parsed], Awaitable[dict[str, Any]]],
) -> web.Response:
    """An operator action: token, body, its own check, then the daemon, which
    forwards it to the table.  Each refusal is a JSON error, nothing sent."""
    denied = _authorised(request)
    if denied is not None:
        return denied
    data = await _body(request)
    if isinstance(data, web.Response):
        return data
    try:
        parsed = parse(data)
    except ValueError as e:
        return error(400, str(e))
    daemon = request.app[DAEMON_KEY]
    table = request.match_info["table"]
    if table not in daemon.tables:
        return error(404, f"there is no table '{table}'")
    try:
        result = await run(daemon, table, parsed)
    except ActionError as e:
        return error(e.status, e.text)
    return _json(result, status=200 if result["status"] == "done" else 202)


# ---------------------------------------------------------------------- the app
def build_app(daemon: Daemon) -> web.Application:
    app = web.Application(middlewares=[errors_as_json, security_headers], client_max_size=MAX_BODY)
    app[DAEMON_KEY] = daemon
    app[THROTTLE_KEY] = AuthThrottle()
    r = app.router
    r.add_get("/", index)
    r.add_get("/table/{table}", table_page)
    r.add_get("/overlay/{table}", overlay_page)
    r.add_get("/venue", venue_page)
    r.add_get("/report/{match}", report_page)
    r.add_get("/api", api_root)
    r.add_get("/api/tables", api_tables)
    r.add_get("/api/tables/{table}", api_table)
    r.add_get("/api/matches", api_matches)
    r.add_get("/api/matches/{match}", api_match)
    r.add_get(r"/api/matches/{match}/report.{fmt:(json|csv)}", api_match)
    r.add_get("/api/live", api_live)
    r.add_post("/api/tables/{table}/match", act_match)
    r.add_post("/api/tables/{table}/command", act_command)
    r.add_static("/static/", STATIC, append_version=False)
    return app


async def serve(daemon: Daemon, host: str, port: int) -> tuple[web.AppRunner, str]:
    """Start serving; returns the runner (``await runner.cleanup()`` stops it)
    and the base URL (with the real port when ``port`` was 0)."""
    return await serve_app(build_app(daemon), host, port)


async def serve_app(app: web.Application, host: str, port: int) -> tuple[web.AppRunner, str]:
    """Serve an already built app (``baulk board`` adds its own routes first)."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except OSError:
        await runner.cleanup()
        raise
    real = port
    server: Any = site._server
    sockets = getattr(server, "sockets", None)
    if sockets:
        real = int(sockets[0].getsockname()[1])
    return runner, f"http://{host}:{real}"
