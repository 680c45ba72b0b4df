"""The referee's handset language through the API (docs/API.md).

    GET  /api/tables/{table}/handset        {"table", "lang", "langs"}  (public)
    POST /api/tables/{table}/handset        {"lang": "fa"}   (operator token)

``lang`` is null while the host holds none for the table (no ``handset_lang``
in the config and none set here): the device then keeps the language on its
flash.  A language set here is sent to the device at once, or at its next
hello when it is offline, and holds until the daemon stops; the config's
``handset_lang`` is the lasting one.  The operator console puts a control on
it.  Errors, the sign-in and the body's model are the app's own
(host/web/operator.py, host/web/request_models.py).
"""

from __future__ import annotations

from aiohttp import web

from baulk.host.handset import sync as handset
from baulk.host.sentences import Message
from baulk.host.web.http import DAEMON_KEY, error, json_response
from baulk.host.web.operator import run_action
from baulk.host.web.request_models import HandsetLang


async def get_handset(request: web.Request) -> web.Response:
    daemon = request.app[DAEMON_KEY]
    table = request.match_info["table"]
    if table not in daemon.tables:
        return error(404, Message("there is no table '{id}'", id=table))
    return json_response(
        {"table": table, "lang": daemon.handsets.lang(table), "langs": list(handset.LANGS)}
    )


async def set_handset(request: web.Request) -> web.Response:
    return await run_action(
        request, HandsetLang, lambda d, t, body, _who: d.actions.set_handset_lang(t, body.lang)
    )


def add_routes(app: web.Application) -> None:
    r = app.router
    r.add_get("/api/tables/{table}/handset", get_handset)
    r.add_post("/api/tables/{table}/handset", set_handset)
