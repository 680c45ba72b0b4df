"""The boards: the static pages for the venue's screens (table board,
overlay, venue board, the index) and the live feed they paint from
(WebSocket ``/api/live``, docs/API.md)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from baulk.host.config import valid_table_id
from baulk.host.web import files
from baulk.host.web.http import DAEMON_KEY, FILES_KEY, error, page

if TYPE_CHECKING:
    from baulk.host.venue.daemon import Daemon


async def static_file(request: web.Request) -> web.StreamResponse:
    found = request.app[FILES_KEY].get(request.match_info["path"])
    if found is None:
        raise web.HTTPNotFound(text="no such file")
    return files.respond(request, found)


async def index(request: web.Request) -> web.StreamResponse:
    return page(request, "index.html")


async def table_page(request: web.Request) -> web.StreamResponse:
    if request.match_info["table"] not in request.app[DAEMON_KEY].tables:
        raise web.HTTPNotFound(text="no such table")
    return page(request, "board.html")


async def overlay_page(request: web.Request) -> web.StreamResponse:
    if request.match_info["table"] not in request.app[DAEMON_KEY].tables:
        raise web.HTTPNotFound(text="no such table")
    return page(request, "overlay.html")


async def venue_page(request: web.Request) -> web.StreamResponse:
    return page(request, "venue.html")


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


def add_routes(app: web.Application) -> None:
    r = app.router
    r.add_get("/", index)
    r.add_get("/table/{table}", table_page)
    r.add_get("/overlay/{table}", overlay_page)
    r.add_get("/venue", venue_page)
    r.add_get("/api/live", api_live)
    r.add_get("/static/{path:.+}", static_file)
