"""An operator action's way through the web side: the sign-in, the body
held to its model (host/web/request_models.py), then the daemon, which
forwards it to the table.  Each refusal is a JSON error, and nothing is
sent."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from aiohttp import web
from pydantic import BaseModel

from baulk.host.errors import ActionError
from baulk.host.sentences import Message, say
from baulk.host.web.auth import authorised, who
from baulk.host.web.http import DAEMON_KEY, error, json_response, lang_of, refused
from baulk.host.web.request_models import body_of

if TYPE_CHECKING:
    from baulk.host.venue.daemon import Daemon

_Body = TypeVar("_Body", bound=BaseModel)


async def run_action(
    request: web.Request,
    model: type[_Body],
    run: Callable[[Daemon, str, _Body, str | None], Awaitable[dict[str, Any]]],
) -> web.Response:
    """An operator action: sign-in, the body held to ``model``, then the
    daemon, which forwards it to the table.  Each refusal is a JSON error,
    nothing sent.  ``run`` gets the signed-in actor's name
    (host/web/auth.py ``who``)."""
    lang = lang_of(request)
    denied = await authorised(request)
    if denied is not None:
        return denied
    parsed = await body_of(request, model)
    if isinstance(parsed, web.Response):
        return parsed
    daemon = request.app[DAEMON_KEY]
    table = request.match_info["table"]
    if table not in daemon.tables:
        return error(404, Message("there is no table '{id}'", id=table), lang)
    try:
        result = await run(daemon, table, parsed, who(request))
    except ActionError as e:
        return refused(e, lang)
    if "message" in result:
        result = {**result, "message": say(result["message"], lang)}
    return json_response(result, status=200 if result["status"] == "done" else 202)
