"""What every area of the web side shares: the app's keys, JSON answers and
errors, the language a request asks for, and a request's JSON body read
within its bound (host/web/request_models.py holds it, and the query, to
their models).

Every error is JSON ``{"error": "sentence"}``; an action's error also carries
``message``, the sentence in the language the request asks for (``?lang=fa``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from baulk.host.errors import ActionError, Refusal
from baulk.host.sentences import Message, message_of, say
from baulk.host.web import files
from baulk.host.web.guard import ConnectionGuard
from baulk.host.web.throttle import Guessing

if TYPE_CHECKING:
    from baulk.host.venue.daemon import Daemon

STATIC = Path(__file__).resolve().with_name("static")
MAX_BODY = 16 * 1024
NUMBER_CHARS = 40  # a JSON number in a body: no field needs more
LANGS = ("en", "fa")
DAEMON_KEY: web.AppKey[Daemon] = web.AppKey("daemon")
THROTTLE_KEY: web.AppKey[Guessing] = web.AppKey("guessing")
GUARD_KEY: web.AppKey[ConnectionGuard] = web.AppKey("connection_guard")
FILES_KEY: web.AppKey[dict[str, files.StaticFile]] = web.AppKey("static_files")
# The JSON body read_body took (the activity log shows it in short).
BODY_KEY: web.RequestKey[dict[str, Any]] = web.RequestKey("body")


# The sentence an error answer said (:func:`error`), for the activity log.
SAID = web.ResponseKey("said", Message)


def error(status: int, text: Message | str, lang: str | None = None) -> web.Response:
    """A JSON error: ``error`` the English (API clients read it), ``message``
    the same in the request's language, and ``id`` the sentence's message id."""
    body = {"error": str(text)}
    if isinstance(text, Message):
        body["id"] = text.msgid
    if lang is not None:
        body["message"] = say(text, lang)
    response = json_response(body, status=status)
    if isinstance(text, Message):
        response[SAID] = text  # the activity log keeps the sentence, not its English alone
    return response


# The status each kind of refusal from below the web side is answered with
# (host/errors.py): the one place the layers' refusals become HTTP.
REFUSAL_STATUS: dict[Refusal, int] = {
    Refusal.BAD_INPUT: 400,
    Refusal.NOT_FOUND: 404,
    Refusal.CONFLICT: 409,
    Refusal.UNAVAILABLE: 503,
    Refusal.FAILED: 500,
}


def refusal_status(e: ActionError, checked: bool = True) -> int:
    """The status an action's refusal (the staff registry's too) is answered
    with.  ``checked``: the request's body and query passed their models, so
    bad input found below is a rule of the state (the bill's currency, the
    table's match, the account as it is), a 409, never the 400 of a request
    that breaks its schema (docs/API.md)."""
    if checked and e.kind is Refusal.BAD_INPUT:
        return REFUSAL_STATUS[Refusal.CONFLICT]
    return REFUSAL_STATUS[e.kind]


def refused(e: ActionError, lang: str | None, checked: bool = True) -> web.Response:
    """An action's refusal as a JSON error, its status chosen here alone."""
    return error(refusal_status(e, checked), e.message, lang)


def path_id(text: str | None, most: int = 12) -> int | None:
    """A row's id from a path: ASCII digits only, at most ``most`` of them.
    str.isdigit() alone lets through a superscript two (which int() refuses)
    and Persian digits (which it takes): neither is an id anyone wrote."""
    if text and len(text) <= most and text.isascii() and text.isdigit():
        return int(text)
    return None


def lang_of(request: web.Request) -> str:
    """The language the request asks for (``?lang=fa``), English otherwise:
    the language its refusal is said in (the query's model refuses any
    other value, host/web/request_models.py)."""
    lang = request.query.get("lang", "en")
    return lang if lang in LANGS else "en"


def json_response(data: Any, status: int = 200) -> web.Response:
    return web.json_response(data, status=status, dumps=lambda v: json.dumps(v, ensure_ascii=False))


def page(request: web.Request, name: str) -> web.Response:
    """One of the static pages, from memory."""
    return files.respond(request, request.app[FILES_KEY][name])


def page_handler(name: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    """A route's handler that serves one static page."""

    async def serve(request: web.Request) -> web.StreamResponse:
        return page(request, name)

    return serve


def _bounded(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    """A JSON number's parser that refuses what no field needs: more than
    NUMBER_CHARS characters, or a number that is not finite (1e999), so no
    handler is handed a value that costs it unbounded work."""

    def parse(text: str) -> Any:
        if len(text) > NUMBER_CHARS:
            raise ValueError(Message("a number is longer than {n} characters", n=NUMBER_CHARS))
        value = kind(text)
        if value in (math.inf, -math.inf):
            raise ValueError(Message("{text} is not a finite number", text=text[:20]))
        return value

    return parse


def _fraction(text: str) -> float | int:
    """A JSON number written with a fraction or an exponent, as JSON Schema
    reads it: one with no fraction left (``3.0``, ``1e3``) is that integer,
    so a body holds what its document allows (an ``integer`` is any number
    without a fraction), and any other is a float."""
    value = float(text)
    if math.isfinite(value):
        exact = Decimal(text)
        if exact.adjusted() < NUMBER_CHARS and exact == exact.to_integral_value():
            return int(exact)
    return value


def _no_constant(text: str) -> Any:
    raise ValueError(Message("{text} is not a number", text=text[:20]))


TOO_BIG = Message("the request body is over {n} bytes", n=MAX_BODY)


def _said(e: ValueError) -> Message | str:
    """Why the JSON was refused: a number's bound (a Message), or the
    parser's own English, cut short."""
    said = message_of(e)
    return said if isinstance(said, Message) else said[:120]


async def read_body(request: web.Request, lang: str | None = None) -> dict[str, Any] | web.Response:
    if request.content_length is not None and request.content_length > MAX_BODY:
        return error(413, TOO_BIG, lang)
    try:
        raw = await request.content.read(MAX_BODY + 1)
    except (TimeoutError, ConnectionError):
        return error(400, Message("the request body could not be read"), lang)
    if len(raw) > MAX_BODY:
        return error(413, TOO_BIG, lang)
    try:
        data = json.loads(
            raw.decode("utf-8"),
            parse_int=_bounded(int),
            parse_float=_bounded(_fraction),
            parse_constant=_no_constant,
        )
    except (UnicodeDecodeError, ValueError) as e:
        return error(
            400, Message("the body must be a JSON object: {reason}", reason=_said(e)), lang
        )
    except RecursionError:
        return error(400, Message("the body must be a JSON object: it is nested too deeply"), lang)
    if not isinstance(data, dict):
        return error(400, Message("the body must be a JSON object"), lang)
    request[BODY_KEY] = data
    return data
