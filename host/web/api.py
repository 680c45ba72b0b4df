"""The JSON API's reads (docs/API.md): the server, the engine's vocabulary,
the tables' boards, the matches and their reports (JSON and CSV), and the
report and result-sheet pages made from the same reports.

Every one is a public read, served in its turn after the score path
(host/web/public_reads.py); the match list and the reports are worked out
off the event loop, once per store version."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from baulk.firmware import names
from baulk.host.name_rules import NAME_BYTES
from baulk.host.referee import reports
from baulk.host.referee.name_fixes import annotated_report, fixed_match
from baulk.host.sentences import Message
from baulk.host.venue.live import SCHEMA_VERSION, SERVER
from baulk.host.web import public_reads, sheet
from baulk.host.web.doors import BOARDS_KEY, Boards
from baulk.host.web.http import error, json_response, lang_of
from baulk.host.web.public_reads import READS_KEY, Answer, Views, dumps_in_pieces
from baulk.host.web.request_models import BEST_OF_MAX, MatchesQuery, query_of


# ---------------------------------------------------------------------- worked out off the loop
# Each runs in the public reads' worker (host/web/public_reads.py) on its own
# connection, and gives the answer's bytes; None: there is no such match.  A
# report is made of its match's table's rows alone (Answer.table): another
# table streaming leaves it kept.
def _report(views: Views, match_id: str, ledger: bool = False) -> dict[str, Any] | None:
    reader = views.reader
    report = reports.build(reader, match_id, ledger=ledger)
    if report is None:
        return None
    return annotated_report(report, reader.name_fix_record(report["match"]["match_id"]))


def _json(data: Any, table: str | None = None) -> Answer:
    return Answer(dumps_in_pieces(data).encode(), "application/json", table=table)


def _report_html(
    views: Views, match_id: str, lang: str, names: tuple[tuple[str, str], ...], sheet_of: bool
) -> Answer | None:
    report = _report(views, match_id)
    if report is None:
        return None
    name = dict(names).get(report["match"]["table_id"])
    if sheet_of:
        referee = views.reader.referee_of(report["match"]["match_id"])
        text = sheet.html_page(report, lang, name, referee)
    else:
        text = reports.html_page(report, lang, name)
    return Answer(text.encode(), "text/html", table=report["match"]["table_id"])


def _report_data(views: Views, match_id: str, fmt: str) -> Answer | None:
    report = _report(views, match_id, ledger=fmt == "json")
    if report is None:
        return None
    if fmt == "csv":
        disposition = f'attachment; filename="{report["match"]["match_id"]}.csv"'
        return Answer(
            reports.to_csv(report).encode(),
            "text/csv",
            headers=(("Content-Disposition", disposition),),
            table=report["match"]["table_id"],
        )
    return _json({"schema": SCHEMA_VERSION, "report": report}, report["match"]["table_id"])


def _match_list(views: Views, table: str | None, limit: int, skip_empty: bool) -> Answer:
    reader = views.reader
    found = [
        fixed_match(m, reader.name_fix(m["match_id"]))
        for m in reader.matches(table, limit, skip_empty)
    ]
    return _json({"schema": SCHEMA_VERSION, "matches": found})


def _table_names(daemon: Boards) -> tuple[tuple[str, str], ...]:
    boards = [daemon.board(t) for t in daemon.table_ids()]
    return tuple((str(b["table"]), str(b["name"])) for b in boards if b is not None)


async def _page(request: web.Request, sheet_of: bool) -> web.StreamResponse:
    match_id, lang = request.match_info["match"], lang_of(request)
    names = _table_names(request.app[BOARDS_KEY])
    key = ("sheet" if sheet_of else "report", match_id, lang, names)
    found = await request.app[READS_KEY].answer(
        request, key, _report_html, match_id, lang, names, sheet_of
    )
    if found is None:
        raise web.HTTPNotFound(text="no such match")
    return found.response()


async def report_page(request: web.Request) -> web.StreamResponse:
    return await _page(request, sheet_of=False)


async def sheet_page(request: web.Request) -> web.StreamResponse:
    return await _page(request, sheet_of=True)


async def api_root(request: web.Request) -> web.Response:
    daemon = request.app[BOARDS_KEY]
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
    daemon = request.app[BOARDS_KEY]
    boards = [daemon.board(t) for t in daemon.table_ids()]
    return json_response({"schema": SCHEMA_VERSION, "tables": [b for b in boards if b is not None]})


async def api_table(request: web.Request) -> web.Response:
    daemon = request.app[BOARDS_KEY]
    board = daemon.board(request.match_info["table"])
    if board is None:
        return error(404, Message("there is no table '{id}'", id=request.match_info["table"]))
    return json_response({"schema": SCHEMA_VERSION, "board": board})


async def api_matches(request: web.Request) -> web.Response:
    q = query_of(request, MatchesQuery)  # checked against its model (request_models.py)
    asked = (q.table, q.limit, q.skip_empty == "1")
    found = await request.app[READS_KEY].answer(
        request, ("matches", *asked), _match_list, *asked, table=q.table
    )
    assert found is not None  # a list is never missing
    return found.response()


async def api_match(request: web.Request) -> web.StreamResponse:
    fmt = request.match_info.get("fmt", "json")
    match_id = request.match_info["match"]
    found = await request.app[READS_KEY].answer(
        request, ("report data", match_id, fmt), _report_data, match_id, fmt
    )
    if found is None:
        return error(404, Message("there is no match '{id}'", id=match_id[:100]))
    return found.response()


def add_routes(app: web.Application) -> None:
    public_reads.install(app)
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
