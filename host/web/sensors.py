"""The pockets' sensors through the API (docs/API.md, "Pockets"):

    GET  /api/tables/{table}/sensors       counts per pocket, the latest pocket
                                           check, the log of disagreements (public)
    POST /api/tables/{table}/pocket-check  {"who"?}  start a pocket check
                                           (operator token or console sign-in + CSRF)
    POST /api/tables/{table}/sensor-capture  {"on"?, "during_match"?, "seconds"?,
                                           "passages"?, "who"?}  start or stop a
                                           sensor capture (`baulk sensors record`)

The device refuses a check mid-frame (409 with its reason) and nothing
changes.  The read is a public read (host/web/public_reads.py): in its turn
after the score path, worked out in the public reads' worker once per store
version, in their budget; errors, the sign-in and the
bodies' models are the app's own (host/web/operator.py,
host/web/request_models.py).
"""

from __future__ import annotations

from aiohttp import web

from baulk.host.sentences import Message
from baulk.host.store import sensor_queries
from baulk.host.venue.live import SCHEMA_VERSION
from baulk.host.web import public_reads
from baulk.host.web.http import DAEMON_KEY, error, json_response, lang_of
from baulk.host.web.operator import run_action
from baulk.host.web.request_models import PocketCheck, SensorCapture

UNREADABLE = Message("the store cannot be read now; try again shortly")


async def get_sensors(request: web.Request) -> web.Response:
    daemon = request.app[DAEMON_KEY]
    table = request.match_info["table"]
    if table not in daemon.tables:
        return error(404, Message("there is no table '{id}'", id=table), lang_of(request))
    found = await public_reads.read(request, sensor_queries.table_sensors, table, table=table)
    if found is None:
        return error(503, UNREADABLE, lang_of(request))
    checking = bool(daemon.tables[table].view.sensors.get("checking"))  # the table's, not stored
    response = json_response({"schema": SCHEMA_VERSION, **found, "checking": checking})
    response.headers["Cache-Control"] = "no-store"
    return response


async def start_check(request: web.Request) -> web.Response:
    return await run_action(
        request, PocketCheck, lambda d, t, _, who: d.actions.start_pocket_check(t, who)
    )


async def start_capture(request: web.Request) -> web.Response:
    return await run_action(
        request,
        SensorCapture,
        lambda d, t, c, actor: d.actions.start_capture(
            t, c.who or actor, c.during_match, c.seconds, c.passages, c.on
        ),
    )


def add_routes(app: web.Application) -> None:
    r = app.router
    r.add_get("/api/tables/{table}/sensors", get_sensors)
    r.add_post("/api/tables/{table}/pocket-check", start_check)
    r.add_post("/api/tables/{table}/sensor-capture", start_capture)
