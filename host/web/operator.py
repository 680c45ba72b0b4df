"""An operator action's way through the web side: the sign-in, the body, the
action's own check, then the daemon, which forwards it to the table.  Each
refusal is a JSON error, and nothing is sent."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from aiohttp import web

from baulk.host.errors import ActionError
from baulk.host.web.auth import authorised, who
from baulk.host.web.http import DAEMON_KEY, error, json_response, lang_of, read_body
from baulk.host.web.refusals import localise

if TYPE_CHECKING:
    from baulk.host.venue.daemon import Daemon

_Parsed = TypeVar("_Parsed")  # what an action's own check makes of its body


async def run_action(
    request: web.Request,
    parse: Callable[[dict[str, Any]], _Parsed],
    run: Callable[[Daemon, str, _Parsed, str | None], Awaitable[dict[str, Any]]],
) -> web.Response:
    """An operator action: sign-in, body, its own check, then the daemon,
    which forwards it to the table.  Each refusal is a JSON error, nothing
    sent.  ``run`` gets the signed-in actor's name (host/web/auth.py ``who``)."""
    lang = lang_of(request)
    denied = await authorised(request)
    if denied is not None:
        return denied
    data = await read_body(request, lang)
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
        result = await run(daemon, table, parsed, who(request))
    except ActionError as e:
        return error(e.status, e.text, lang)
    if "message" in result:
        result = {**result, "message": localise(str(result["message"]), lang)}
    return json_response(result, status=200 if result["status"] == "done" else 202)
