"""The pockets' sensors through the API (docs/API.md, "Pockets"):

    GET  /api/tables/{table}/sensors       counts per pocket, the latest pocket
                                           check, the log of disagreements (public)
    POST /api/tables/{table}/pocket-check  {"who"?}  start a pocket check
                                           (operator token or console sign-in + CSRF)
    POST /api/tables/{table}/sensor-capture  {"on"?, "during_match"?, "seconds"?,
                                           "passages"?, "who"?}  start or stop a
                                           sensor capture (`baulk sensors record`)

The device refuses a check mid-frame (409 with its reason) and nothing
changes.  The reads run on the player pages' read-only connection
(host/web/players.py), off the event loop; errors, the sign-in and the
body's reading are the app's own (host/web/app.py).
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from baulk.host.store import sensor_queries
from baulk.host.venue.live import SCHEMA_VERSION
from baulk.host.web.action_checks import check_name
from baulk.host.web.http import DAEMON_KEY, error, json_response, lang_of
from baulk.host.web.operator import run_action
from baulk.host.web.players import READER_KEY


def parse_check(data: dict[str, Any]) -> str | None:
    """The body of a pocket check request: only ``who``, the operator."""
    extra = sorted(set(data) - {"who"})
    if extra:
        raise ValueError(f"unknown key '{extra[0]}' (allowed: who)")
    who = data.get("who")
    return check_name(who, "who") if who is not None else None


async def get_sensors(request: web.Request) -> web.Response:
    daemon = request.app[DAEMON_KEY]
    table = request.match_info["table"]
    if table not in daemon.tables:
        return error(404, f"there is no table '{table}'", lang_of(request))
    found = await request.app[READER_KEY].run(sensor_queries.table_sensors, table)
    found["checking"] = bool(daemon.tables[table].view.sensors.get("checking"))
    response = json_response({"schema": SCHEMA_VERSION, **found})
    response.headers["Cache-Control"] = "no-store"
    return response


async def start_check(request: web.Request) -> web.Response:
    return await run_action(
        request, parse_check, lambda d, t, _, who: d.actions.start_pocket_check(t, who)
    )


def parse_capture(data: dict[str, Any]) -> dict[str, Any]:
    """The body of a sensor capture request: who, on (default true),
    during_match, seconds (1-900), passages (1-255)."""
    allowed = {"who", "on", "during_match", "seconds", "passages"}
    extra = sorted(set(data) - allowed)
    if extra:
        raise ValueError(f"unknown key '{extra[0]}' (allowed: {', '.join(sorted(allowed))})")
    out: dict[str, Any] = {"who": check_name(data["who"], "who") if data.get("who") else None}
    for key in ("on", "during_match"):
        v = data.get(key, key == "on")
        if not isinstance(v, bool):
            raise ValueError(f"'{key}' must be true or false")
        out[key] = v
    for key, most in (("seconds", 900), ("passages", 255)):
        v = data.get(key)
        if v is not None and (type(v) is not int or not 1 <= v <= most):
            raise ValueError(f"'{key}' must be a whole number from 1 to {most}")
        out[key] = v
    return out


async def start_capture(request: web.Request) -> web.Response:
    return await run_action(
        request,
        parse_capture,
        lambda d, t, c, actor: d.actions.start_capture(
            t, c["who"] or actor, c["during_match"], c["seconds"], c["passages"], c["on"]
        ),
    )


def add_routes(app: web.Application) -> None:
    r = app.router
    r.add_get("/api/tables/{table}/sensors", get_sensors)
    r.add_post("/api/tables/{table}/pocket-check", start_check)
    r.add_post("/api/tables/{table}/sensor-capture", start_capture)
