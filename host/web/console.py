"""The operator console (``/console``, on a phone): its page and the match
actions it sends, a new match, a correction (any keypad call) and the
players' names, each through the operator pipeline (operator.py)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from baulk.host.venue.actions import UNCHECKED
from baulk.host.web.action_checks import parse_command, parse_names, parse_setup
from baulk.host.web.http import page
from baulk.host.web.operator import run_action


async def console_page(request: web.Request) -> web.StreamResponse:
    return page(request, "console.html")


def parse_match(data: dict[str, Any]) -> dict[str, Any]:
    """A new match, and ``expect``: the match id the console was showing
    (null: none), checked against the table's (the table changed: look again)."""
    data = dict(data)
    if "expect" not in data:
        return parse_setup(data)
    expect = data.pop("expect")
    if expect is not None and (not isinstance(expect, str) or len(expect) > 64):
        raise ValueError("expect must be the match id the console showed, or null")
    return {**parse_setup(data), "expect": expect}


async def act_match(request: web.Request) -> web.Response:
    return await run_action(
        # ``who`` of a set-up is the referee the form names (the result
        # sheet prints it); the activity log keeps who sent it
        request,
        parse_match,
        lambda d, t, setup, _who: d.actions.setup_match(t, **setup),
    )


def parse_seen_command(data: dict[str, Any]) -> tuple[dict[str, Any], str | None, int | None]:
    """A correction, and ``version``: the board's ``events`` as the console
    was showing them (left out: not checked), checked against the table's
    (the table changed: look again)."""
    data = dict(data)
    version = data.pop("version", None)
    if version is not None and (
        isinstance(version, bool) or not isinstance(version, int) or not 0 <= version < 2**63
    ):
        raise ValueError("version must be the board's events as the console showed them")
    ev, who = parse_command(data)
    return ev, who, version


def parse_seen_names(data: dict[str, Any]) -> tuple[list[Any], str | None, object]:
    """A name correction, and ``expect``: the players as the console was
    showing them (left out: not checked)."""
    data = dict(data)
    expect = data.pop("expect", UNCHECKED)
    if expect is not UNCHECKED and not isinstance(expect, list):
        raise ValueError("expect must be the players the console showed")
    players, who = parse_names(data)
    return players, who, expect


async def act_command(request: web.Request) -> web.Response:
    return await run_action(
        request,
        parse_seen_command,
        lambda d, t, parsed, who: d.actions.command(t, parsed[0], who, parsed[2]),
    )


async def act_names(request: web.Request) -> web.Response:
    return await run_action(
        request,
        parse_seen_names,
        lambda d, t, parsed, who: d.actions.correct_names(t, parsed[0], who, parsed[2]),
    )


def add_routes(app: web.Application) -> None:
    r = app.router
    r.add_get("/console", console_page)
    r.add_post("/api/tables/{table}/match", act_match)
    r.add_post("/api/tables/{table}/command", act_command)
    r.add_post("/api/tables/{table}/names", act_names)
