"""The JSON API's reads (docs/API.md): the server, the engine's vocabulary,
the tables' boards, the matches and their reports (JSON and CSV), and the
report and result-sheet pages made from the same reports."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aiohttp import web

from baulk.firmware import names
from baulk.host.config import valid_table_id
from baulk.host.name_rules import NAME_BYTES
from baulk.host.referee import reports
from baulk.host.referee.name_fixes import annotated_report, fixed_match
from baulk.host.venue.live import SCHEMA_VERSION, SERVER
from baulk.host.web import sheet
from baulk.host.web.action_checks import BEST_OF_MAX
from baulk.host.web.http import DAEMON_KEY, error, json_response, lang_of

if TYPE_CHECKING:
    from baulk.host.venue.daemon import Daemon


def _report(request: web.Request, ledger: bool = False) -> dict[str, Any] | None:
    reader = request.app[DAEMON_KEY].reader
    report = reports.build(reader, request.match_info["match"], ledger=ledger)
    if report is None:
        return None
    return annotated_report(report, reader.name_fix_record(report["match"]["match_id"]))


def _table_name(daemon: Daemon, table_id: str) -> str | None:
    board = daemon.board(table_id)
    return str(board["name"]) if board is not None else None


async def report_page(request: web.Request) -> web.StreamResponse:
    report = _report(request)
    if report is None:
        raise web.HTTPNotFound(text="no such match")
    name = _table_name(request.app[DAEMON_KEY], report["match"]["table_id"])
    return web.Response(
        text=reports.html_page(report, lang_of(request), name), content_type="text/html"
    )


async def sheet_page(request: web.Request) -> web.StreamResponse:
    report = _report(request)
    if report is None:
        raise web.HTTPNotFound(text="no such match")
    daemon = request.app[DAEMON_KEY]
    referee = daemon.reader.referee_of(report["match"]["match_id"])
    name = _table_name(daemon, report["match"]["table_id"])
    return web.Response(
        text=sheet.html_page(report, lang_of(request), name, referee),
        content_type="text/html",
    )


async def api_root(request: web.Request) -> web.Response:
    daemon = request.app[DAEMON_KEY]
    return json_response(
        {
            "schema": SCHEMA_VERSION,
            "server": SERVER,
            "tables": daemon.table_ids(),
            "live": "/api/live",
            "actions_enabled": daemon.config.operator_token is not None,
            "store": daemon.store_status(),
        }
    )


async def api_vocabulary(request: web.Request) -> web.Response:
    """The names the console offers: balls, foul kinds by how their penalty
    is valued (a ``higher`` kind names the ball concerned), limits."""
    return json_response(
        {
            "balls": list(names.BALLS),
            "colours": list(names.COLOURS),
            "foul_kinds": {
                valued: [
                    kind
                    for kind, cls in zip(names.FOUL_KINDS, names.FOUL_PENALTY, strict=True)
                    if cls == penalty
                ]
                for valued, penalty in (
                    ("ball_on", names.PENALTY_BALL_ON),
                    ("higher", names.PENALTY_HIGHER),
                    ("seven", names.PENALTY_SEVEN),
                )
            },
            "best_of_max": BEST_OF_MAX,
            "name_bytes": NAME_BYTES,
        }
    )


async def api_tables(request: web.Request) -> web.Response:
    daemon = request.app[DAEMON_KEY]
    boards = [daemon.board(t) for t in daemon.table_ids()]
    return json_response({"schema": SCHEMA_VERSION, "tables": [b for b in boards if b is not None]})


async def api_table(request: web.Request) -> web.Response:
    daemon = request.app[DAEMON_KEY]
    board = daemon.board(request.match_info["table"])
    if board is None:
        return error(404, f"there is no table '{request.match_info['table']}'")
    return json_response({"schema": SCHEMA_VERSION, "board": board})


async def api_matches(request: web.Request) -> web.Response:
    daemon = request.app[DAEMON_KEY]
    table = request.query.get("table")
    if table is not None and not valid_table_id(table):
        return error(400, "table must be a table id (letters, digits, '-' or '_')")
    try:
        limit = int(request.query.get("limit", "50"))
    except ValueError:
        return error(400, "limit must be an integer")
    if not 1 <= limit <= 1000:
        return error(400, "limit must be 1..1000")
    skip_empty = request.query.get("skip_empty", "0")
    if skip_empty not in ("0", "1"):
        return error(400, "skip_empty must be 0 or 1")
    reader = daemon.reader
    found = [
        fixed_match(m, reader.name_fix(m["match_id"]))
        for m in reader.matches(table, limit, skip_empty == "1")
    ]
    return json_response({"schema": SCHEMA_VERSION, "matches": found})


async def api_match(request: web.Request) -> web.StreamResponse:
    fmt = request.match_info.get("fmt", "json")
    report = _report(request, ledger=fmt == "json")
    if report is None:
        return error(404, f"there is no match '{request.match_info['match'][:100]}'")
    if fmt == "csv":
        return web.Response(
            text=reports.to_csv(report),
            content_type="text/csv",
            headers={
                "Content-Disposition": f'attachment; filename="{report["match"]["match_id"]}.csv"'
            },
        )
    return json_response({"schema": SCHEMA_VERSION, "report": report})


def add_routes(app: web.Application) -> None:
    r = app.router
    r.add_get("/report/{match}", report_page)
    r.add_get("/report/{match}/sheet", sheet_page)
    r.add_get("/api", api_root)
    r.add_get("/api/vocabulary", api_vocabulary)
    r.add_get("/api/tables", api_tables)
    r.add_get("/api/tables/{table}", api_table)
    r.add_get("/api/matches", api_matches)
    r.add_get("/api/matches/{match}", api_match)
    r.add_get(r"/api/matches/{match}/report.{fmt:(json|csv)}", api_match)
