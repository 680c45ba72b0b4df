"""The boards: the static pages for the venue's screens (table board,
overlay, venue board, the index) and the live feed they paint from
(WebSocket ``/api/live``, docs/API.md).  The pages and files are public
reads, served in their turn after the score path (host/web/public_reads.py);
the live feed has its own bounds (host/web/guard.py)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from baulk.host.config import valid_table_id
from baulk.host.sentences import Message
from baulk.host.web import files, public_reads
from baulk.host.web.doors import BOARDS_KEY, Boards
from baulk.host.web.http import FILES_KEY, GUARD_KEY, error, lang_of, page


async def static_file(request: web.Request) -> web.StreamResponse:
    found = request.app[FILES_KEY].get(request.match_info["path"])
    if found is None:
        raise web.HTTPNotFound(text="no such file")
    return files.respond(request, found)


async def index(request: web.Request) -> web.StreamResponse:
    return page(request, "index.html")


async def table_page(request: web.Request) -> web.StreamResponse:
    if request.match_info["table"] not in request.app[BOARDS_KEY].tables:
        raise web.HTTPNotFound(text="no such table")
    return page(request, "board.html")


async def overlay_page(request: web.Request) -> web.StreamResponse:
    if request.match_info["table"] not in request.app[BOARDS_KEY].tables:
        raise web.HTTPNotFound(text="no such table")
    return page(request, "overlay.html")


async def venue_page(request: web.Request) -> web.StreamResponse:
    return page(request, "venue.html")


# A live feed pings every HEARTBEAT_S and is closed when its pong is
# HEARTBEAT_S / 2 late; one that does not take what it is sent for
# FEED_STALL_S (host/web/guard.py: it stopped reading, its buffers are full)
# is closed as well.  Either way it loses its socket, and a viewer's page is
# never kept waiting for it.
HEARTBEAT_S = 10.0
FEEDS_KEY: web.AppKey[set[web.WebSocketResponse]] = web.AppKey("live_feeds")


async def api_live(request: web.Request) -> web.StreamResponse:
    daemon = request.app[BOARDS_KEY]
    tables: set[str] | None = None
    if "tables" in request.query:
        tables = {t for t in request.query["tables"].split(",") if t}
        bad = [t for t in tables if not valid_table_id(t)]
        if bad:
            return error(400, Message("'{id}' is not a table id", id=bad[0][:40]))
    if not web.WebSocketResponse().can_prepare(request).ok:
        # a plain GET: aiohttp's own refusal would be a bare "Bad Request"
        return error(
            400,
            Message("the live feed is a WebSocket: open it with a WebSocket handshake"),
            lang_of(request),
        )
    guard = request.app[GUARD_KEY]
    if not guard.may_feed(request.transport):
        return error(
            429,
            Message("too many live feeds from this address; close a board and try again"),
            lang_of(request),
        )
    # compress=False: every client gets the same bytes; deflating them once
    # per connection would cost more than the loopback or LAN saves.
    ws = web.WebSocketResponse(heartbeat=HEARTBEAT_S, max_msg_size=4096, compress=False)
    try:
        await ws.prepare(request)
        guard.feeding(request.transport)
        # A ping at once: a client that reads answers it within a round trip,
        # and so tells the guard it is a screen, not a socket left hanging.
        await ws.ping()
    except ConnectionError:  # the client left during the handshake
        return web.Response(status=400)
    feeds = request.app[FEEDS_KEY]
    feeds.add(ws)
    sub = daemon.hub.subscribe(tables)
    sender = asyncio.get_running_loop().create_task(_send_feed(ws, sub, daemon))
    try:
        async for msg in ws:  # clients send nothing we need; this notices closes
            if msg.type == WSMsgType.ERROR:
                break
    except ConnectionError:
        pass
    finally:
        feeds.discard(ws)
        daemon.hub.unsubscribe(sub)
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sender
    return ws


async def _send_feed(ws: web.WebSocketResponse, sub: Any, daemon: Boards) -> None:
    # No timeout here for each message: a send waits only once the socket's
    # buffers are full, and the guard's sweep closes a feed that stays so.
    try:
        await ws.send_str(daemon.hub.hello())
        while not ws.closed:
            for message in await sub.take():
                await ws.send_str(message)
    except (ConnectionError, RuntimeError):
        pass


async def _close_feeds(app: web.Application) -> None:
    """Stopping: every live feed is told the server is going away, so the
    runner need not wait for them (they would wait for ever)."""
    open_feeds: set[web.WebSocketResponse] = app[FEEDS_KEY]
    feeds = list(open_feeds)
    if feeds:
        await asyncio.gather(
            *(asyncio.wait_for(ws.close(code=WSCloseCode.GOING_AWAY), 1.0) for ws in feeds),
            return_exceptions=True,
        )


def add_routes(app: web.Application) -> None:
    app[FEEDS_KEY] = set()
    app.on_shutdown.append(_close_feeds)
    public_reads.install(app)
    r = app.router
    r.add_get("/", index)
    r.add_get("/table/{table}", table_page)
    r.add_get("/overlay/{table}", overlay_page)
    r.add_get("/venue", venue_page)
    r.add_get("/api/live", api_live)
    r.add_get("/static/{path:.+}", static_file)
