"""What every area of the web side shares: the app's keys, JSON answers and
errors, the language a request asks for, and a request's JSON body read
within its bound.

Every error is JSON ``{"error": "sentence"}``; an action's error also carries
``message``, the sentence in the language the request asks for (``?lang=fa``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Awaitable, Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from baulk.host.club import views
from baulk.host.web import files
from baulk.host.web.guard import ConnectionGuard
from baulk.host.web.refusals import localise
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


def error(status: int, text: str, lang: str | None = None) -> web.Response:
    body = {"error": text}
    if lang is not None:
        body["message"] = localise(text, lang)
    return json_response(body, status=status)


_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


# The days a report may ask for: the store's times are Unix milliseconds,
# and a year past these is a typing mistake (and past the calendars' range).
FIRST_YEAR, LAST_YEAR = 1970, 2200
FIRST_JYEAR, LAST_JYEAR = FIRST_YEAR - 621, LAST_YEAR - 622


def query_day(request: web.Request, today: date) -> date | web.Response:
    """The day a report asks for: ``date`` (Gregorian) or ``jdate`` (Solar
    Hijri, the Persian picker's), both written YYYY-MM-DD; ``today``
    without either, or the 400 that says how to write it."""
    lang = lang_of(request)
    text, jtext = request.query.get("date"), request.query.get("jdate")
    if text is None and jtext is None:
        return today
    try:
        if not _DAY.fullmatch(text or jtext or ""):
            raise ValueError
        if text is not None:
            day = date.fromisoformat(text)
            if not FIRST_YEAR <= day.year <= LAST_YEAR:
                raise ValueError
            return day
        y, m, d = (int(x) for x in (jtext or "").split("-"))
        if not FIRST_JYEAR <= y <= LAST_JYEAR:
            raise ValueError
        return views.gregorian(y, m, d)
    except ValueError:
        if text is not None:
            return error(
                400,
                f"date must be a day written YYYY-MM-DD (Gregorian, {FIRST_YEAR} to {LAST_YEAR})",
                lang,
            )
        return error(
            400,
            f"jdate must be a day of the Solar Hijri calendar, YYYY-MM-DD "
            f"({FIRST_JYEAR} to {LAST_JYEAR})",
            lang,
        )


def path_id(text: str | None, most: int = 12) -> int | None:
    """A row's id from a path: ASCII digits only, at most ``most`` of them.
    str.isdigit() alone lets through a superscript two (which int() refuses)
    and Persian digits (which it takes): neither is an id anyone wrote."""
    if text and len(text) <= most and text.isascii() and text.isdigit():
        return int(text)
    return None


def lang_of(request: web.Request) -> str:
    """The language the request asks for (``?lang=fa``), English otherwise."""
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
            raise ValueError(f"a number is longer than {NUMBER_CHARS} characters")
        value = kind(text)
        if value in (math.inf, -math.inf):
            raise ValueError(f"{text[:20]} is not a finite number")
        return value

    return parse


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not a number")


async def read_body(request: web.Request, lang: str | None = None) -> dict[str, Any] | web.Response:
    if request.content_length is not None and request.content_length > MAX_BODY:
        return error(413, f"the request body is over {MAX_BODY} bytes", lang)
    try:
        raw = await request.content.read(MAX_BODY + 1)
    except (TimeoutError, ConnectionError):
        return error(400, "the request body could not be read", lang)
    if len(raw) > MAX_BODY:
        return error(413, f"the request body is over {MAX_BODY} bytes", lang)
    try:
        data = json.loads(
            raw.decode("utf-8"),
            parse_int=_bounded(int),
            parse_float=_bounded(float),
            parse_constant=_no_constant,
        )
    except (UnicodeDecodeError, ValueError) as e:
        return error(400, f"the body must be a JSON object: {str(e)[:120]}", lang)
    except RecursionError:
        return error(400, "the body must be a JSON object: it is nested too deeply", lang)
    if not isinstance(data, dict):
        return error(400, "the body must be a JSON object", lang)
    request[BODY_KEY] = data
    return data
