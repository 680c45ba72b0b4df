"""The operator console (``/console``, on a phone): its page and the match
actions it sends, a new match, a correction (any keypad call) and the
players' names, each through the operator pipeline (operator.py), each
body held to its model (host/web/request_models.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aiohttp import web

from baulk.host.venue.actions import UNCHECKED
from baulk.host.web.http import page
from baulk.host.web.operator import run_action
from baulk.host.web.request_models import Command, Names, NewMatch

if TYPE_CHECKING:
    from baulk.host.venue.daemon import Daemon


async def console_page(request: web.Request) -> web.StreamResponse:
    return page(request, "console.html")


async def _new_match(d: Daemon, table: str, m: NewMatch, _actor: str | None) -> dict[str, Any]:
    # ``who`` of a set-up is the referee the form names (the result sheet
    # prints it); the activity log keeps who sent it.  ``expect``: the match
    # id the console was showing (null: none), checked against the table's
    # (the table changed: look again); left out, not checked.
    expect: object = m.expect if "expect" in m.model_fields_set else UNCHECKED
    return await d.actions.setup_match(
        table, m.players, m.best_of, m.reds, m.breaker, m.who, expect=expect
    )


async def act_match(request: web.Request) -> web.Response:
    return await run_action(request, NewMatch, _new_match)


async def _command(d: Daemon, table: str, m: Command, actor: str | None) -> dict[str, Any]:
    """A correction, and ``version``: the board's ``events`` as the console
    was showing them (left out: not checked), checked against the table's
    (the table changed: look again)."""
    event = m.root
    ev = event.model_dump(exclude_unset=True, exclude_none=True, exclude={"who", "version"})
    return await d.actions.command(table, ev, actor, event.version)


async def act_command(request: web.Request) -> web.Response:
    return await run_action(request, Command, _command)


async def _names(d: Daemon, table: str, m: Names, actor: str | None) -> dict[str, Any]:
    """A name correction, and ``expect``: the players as the console was
    showing them (left out: not checked)."""
    expect: object = m.expect if "expect" in m.model_fields_set else UNCHECKED
    return await d.actions.correct_names(table, m.players, actor, expect)


async def act_names(request: web.Request) -> web.Response:
    return await run_action(request, Names, _names)


def add_routes(app: web.Application) -> None:
    r = app.router
    r.add_get("/console", console_page)
    r.add_post("/api/tables/{table}/match", act_match)
    r.add_post("/api/tables/{table}/command", act_command)
    r.add_post("/api/tables/{table}/names", act_names)
