"""The referee's handset language through the API (docs/API.md).

    GET  /api/tables/{table}/handset        {"table", "lang", "langs"}  (public)
    POST /api/tables/{table}/handset        {"lang": "fa"}   (operator token)

``lang`` is null while the host holds none for the table (no ``handset_lang``
in the config and none set here): the device then keeps the language on its
flash.  A language set here is sent to the device at once, or at its next
hello when it is offline, and holds until the daemon stops; the config's
``handset_lang`` is the lasting one.  The operator console puts a control on
it.  Errors, the token check and the body's reading are the app's own
(host/web/app.py: error, _json, _action).
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from baulk.host.handset import sync as handset
from baulk.host.web.http import DAEMON_KEY, error, json_response
from baulk.host.web.operator import run_action


def parse_lang(data: dict[str, Any]) -> str:
    """The body of a language change; ValueError says what is wrong."""
    extra = sorted(set(data) - {"lang"})
    if extra:
        raise ValueError(f"unknown key '{extra[0]}' (allowed: lang)")
    lang = data.get("lang")
    if not isinstance(lang, str):
        raise ValueError(f"lang must be one of: {', '.join(handset.LANGS)}")
    handset.lang_code(lang)  # raises ValueError naming the choices
    return lang


async def get_handset(request: web.Request) -> web.Response:
    daemon = request.app[DAEMON_KEY]
    table = request.match_info["table"]
    if table not in daemon.tables:
        return error(404, f"there is no table '{table}'")
    return json_response(
        {"table": table, "lang": daemon.handsets.lang(table), "langs": list(handset.LANGS)}
    )


async def set_handset(request: web.Request) -> web.Response:
    return await run_action(
        request, parse_lang, lambda d, t, lang, _who: d.actions.set_handset_lang(t, lang)
    )


def add_routes(app: web.Application) -> None:
    r = app.router
    r.add_get("/api/tables/{table}/handset", get_handset)
    r.add_post("/api/tables/{table}/handset", set_handset)
