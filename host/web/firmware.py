"""The tables' firmware through the API (docs/UPDATES.md), the owner's:

    GET  /api/firmware          every table: its board, the release an update
                                would send it, and its update under way or last
    POST /api/firmware/update   {"tables"?, "who"?}  update these tables (left
                                out: every table) over their links

Each table is updated on its own (host/venue/updates.py): one that cannot be
(not connected, no release for its board, one under way) is answered in
``refused`` with the sentence, in the caller's language, and the others
start all the same.  A table refuses during a match; its answer then shows
as the update's phase "refused" in ``GET /api/firmware``.
"""

from __future__ import annotations

from aiohttp import web

from baulk.host.sentences import Message, say
from baulk.host.web.auth import who
from baulk.host.web.http import DAEMON_KEY, json_response, lang_of
from baulk.host.web.request_models import FirmwareUpdate, body_of


async def get_firmware(request: web.Request) -> web.Response:
    daemon = request.app[DAEMON_KEY]
    jobs = daemon.updates.view()
    tables = []
    for table_id in sorted(daemon.tables):
        board = daemon.board_of(table_id)
        release = daemon.release_for(board)
        version = None if release is None else ".".join(map(str, release.version))
        tables.append(
            {"table": table_id, "board": board, "release": version, "update": jobs.get(table_id)}
        )
    response = json_response({"tables": tables})
    response.headers["Cache-Control"] = "no-store"
    return response


async def post_update(request: web.Request) -> web.Response:
    data = await body_of(request, FirmwareUpdate)
    if isinstance(data, web.Response):
        return data
    daemon = request.app[DAEMON_KEY]
    lang = lang_of(request)
    asked = data.tables if data.tables is not None else sorted(daemon.tables)
    actor = data.who or who(request)
    started: list[str] = []
    refused: list[dict[str, str]] = []
    for table_id in dict.fromkeys(asked):  # each once, in the order asked
        if table_id not in daemon.tables:
            why: Message | None = Message("there is no table '{id}'", id=table_id)
        else:
            why = daemon.start_update(table_id, actor)
        if why is None:
            started.append(table_id)
        else:
            refused.append({"table": table_id, "text": say(why, lang)})
    return json_response({"started": started, "refused": refused}, status=202)


def add_routes(app: web.Application) -> None:
    r = app.router
    r.add_get("/api/firmware", get_firmware)
    r.add_post("/api/firmware/update", post_update)
