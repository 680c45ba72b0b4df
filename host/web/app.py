"""The web side's server: the app with its doors (the connection guard,
security headers, errors as JSON) and every area's routes, served over
HTTP or HTTPS.  aiohttp; docs/API.md is the contract.

Each area registers its own routes: the boards and the live feed
(boards.py), the API's reads and the report pages (api.py), the sign-in
(auth.py), the console's actions (console.py), the desk (desk.py), the
players (players.py), the handset (handset.py) and the pockets' sensors
(sensors.py), and the owner's pages: staff, activity, verify
(staff_pages.py).  Read-only routes are public; everything else needs a
staff sign-in whose role the one role table allows (host/staff/roles.py,
checked by auth.py's gate, which also writes the activity log).
"""

from __future__ import annotations

import asyncio
import ssl
from typing import TYPE_CHECKING, Any

from aiohttp import web

from baulk.host.config import ConfigError, tls_context
from baulk.host.store import StoreFailing
from baulk.host.web import (
    api,
    auth,
    boards,
    console,
    desk,
    files,
    firmware,
    handset,
    openapi,
    players,
    public_reads,
    request_models,
    sensors,
    staff_pages,
)
from baulk.host.web.doors import BOARDS_KEY, Boards
from baulk.host.web.guard import (
    BACKLOG,
    RESERVED_FDS,
    ConnectionGuard,
    LoopErrors,
    no_tracebacks,
    raise_fd_limit,
)
from baulk.host.web.http import (
    DAEMON_KEY,
    FILES_KEY,
    GUARD_KEY,
    MAX_BODY,
    STATIC,
    THROTTLE_KEY,
    error,
    lang_of,
)
from baulk.host.web.throttle import Guessing

if TYPE_CHECKING:
    from baulk.host.venue.daemon import Daemon

KEEPALIVE_S = 15.0
# How long a stopping server lets its requests finish: every wait in a
# handler is bounded (the store fails fast), so this is a margin, and the
# daemon ends within its own bound (host/cli/service.py) whatever happens.
SHUTDOWN_S = 2.0
# Routes that change something but write nothing to the store: they still
# run while the store cannot write (a sign-in, the handset's language, a
# pocket check: each goes to the table or the session, not the disk).
STORE_FREE = frozenset(
    {
        "/console/signin",
        "/console/signout",
        "/api/tables/{table}/handset",
        "/api/tables/{table}/pocket-check",
    }
)
CHANGES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


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


@web.middleware
async def store_must_write(request: web.Request, handler: Any) -> web.StreamResponse:
    """While the store cannot write, an action that would write answers 503
    at once with why, in the operator's language, instead of waiting for a
    disk that is full (and blaming the table).  What is already waiting
    hears the same from the store's writer (host/store/writer.py)."""
    route = request.match_info.route.resource
    if request.method in CHANGES and route is not None and route.canonical not in STORE_FREE:
        status = request.app[BOARDS_KEY].store_status()
        if not status.get("ok", True):
            return error(503, StoreFailing(str(status.get("error"))).message, lang_of(request))
    response: web.StreamResponse = await handler(request)
    return response


async def _signed_in_staff(request: web.Request) -> bool:
    """The guard's hook (host/web/guard.py): a live staff sign-in, or a right
    bearer token (host/web/auth.py)."""
    return auth.signed_in(request)


def build_app(daemon: Daemon) -> web.Application:
    """The daemon's web app: every room."""
    return _build(daemon, daemon)


def build_boards_app(served: Boards) -> web.Application:
    """The boards' rooms alone (the boards, the API's reads, the players, the
    sign-in that refuses), over what every server reads: ``baulk board``,
    which has no store and no tables of its own to act on."""
    return _build(served, None)


def _build(served: Boards, daemon: Daemon | None) -> web.Application:
    # Most connections the web side may hold: the process's descriptor limit
    # (raised to its hard limit where allowed) less what the tables and the
    # store need.
    guard = ConnectionGuard(max(raise_fd_limit() - RESERVED_FDS - 2 * BACKLOG, 32))
    # The gate holds every request to the role table (host/web/auth.py), then
    # its query is held to its model (host/web/request_models.py); while the
    # store cannot write, a write is refused at once after them; a public
    # read waits for its turn before all of them (host/web/public_reads.py).
    app = web.Application(
        middlewares=[
            guard.middleware(),
            # every public read in its turn after the score path, the work of
            # the middlewares below counted in the turn
            public_reads.lane,
            security_headers,
            errors_as_json,
            auth.gate,
            request_models.queries,  # each route's query held to its model
            store_must_write,
            guard.staff_middleware(),
        ],
        client_max_size=MAX_BODY,
    )
    app[GUARD_KEY] = guard
    app[FILES_KEY] = files.load(STATIC)
    app[BOARDS_KEY] = served
    if daemon is not None:  # the rooms that act reach the daemon itself (host/web/doors.py)
        app[DAEMON_KEY] = daemon
    app[THROTTLE_KEY] = Guessing()
    # A signed-in staff member's connection is never pushed out for room.
    guard.is_staff = _signed_in_staff
    boards.add_routes(app)  # the venue's screens and the live feed
    api.add_routes(app)  # the API's reads, the report pages
    auth.add_routes(app)  # the sign-in and sign-out; the staff registry
    players.add_routes(app, served.config.store_path)  # player pages and the registry
    openapi.add_routes(app)  # GET /api/openapi.json: every route, described
    if daemon is not None:
        console.add_routes(app)  # the console and its match actions
        desk.add_routes(app)  # the desk: table sessions, bills, the daily report
        handset.add_routes(app)  # GET/POST /api/tables/{table}/handset: its language
        sensors.add_routes(app)  # the pockets' sensors, the pocket check (on players' reader)
        staff_pages.add_routes(app)  # the owner's: users, tokens, activity, verify
        firmware.add_routes(app)  # the owner's: the tables' firmware, updated over their links
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
    if not isinstance(loop.get_exception_handler(), LoopErrors):
        loop.set_exception_handler(LoopErrors())
    no_tracebacks()
    # An idle keep-alive connection goes after KEEPALIVE_S (aiohttp keeps
    # one an hour by default); the guard closes one that trickles a request.
    runner = web.AppRunner(
        app, access_log=None, keepalive_timeout=KEEPALIVE_S, shutdown_timeout=SHUTDOWN_S
    )
    await runner.setup()
    assert runner.server is not None
    try:
        server = await loop.create_server(
            guard.factory(runner.server, SECURITY_HEADERS),
            host,
            port,
            ssl=ssl_context,
            backlog=BACKLOG,
        )
    except OSError:
        await runner.cleanup()
        raise
    guard.start()
    real = int(server.sockets[0].getsockname()[1]) if server.sockets else port
    scheme = "https" if ssl_context is not None else "http"
    return WebServer(runner, server, guard), f"{scheme}://{host}:{real}"
