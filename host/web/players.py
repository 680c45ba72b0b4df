"""The player registry on the web: a player's page (``/player/{name}``) and
a JSON API with a prefix search for the operator console's match form
(docs/API.md, "Players").

A player is addressed by any spelling of his name: the path is folded into
the registry's key (host/store/player_names.py), so ``/player/Ali%20Reza``
and ``/player/alireza`` are one page.

The reads run in the public reads' worker, on a read-only connection of its
own, once per store version (host/web/public_reads.py): a player's figures
over a thousand matches take tens of milliseconds, which must not hold up the
event loop that stores and acknowledges the tables' events.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from aiohttp import web

from baulk.host.referee import stats_html as h
from baulk.host.store import stats_queries as queries
from baulk.host.store.frame_records import match_members
from baulk.host.store.player_names import player_key
from baulk.host.venue.live import SCHEMA_VERSION
from baulk.host.web import public_reads
from baulk.host.web.request_models import PlayersQuery, query_of

_T = TypeVar("_T")
RECENT_MATCHES = 20


def player_data(db: sqlite3.Connection, key: str) -> dict[str, Any]:
    """Everything the player page and /api/players/{key} show ({}: no such player)."""
    found = queries.player(db, key)
    if found is None:
        return {}
    return {
        "player": found,
        "statistics": queries.player_statistics(db, key),
        "matches": queries.player_matches(db, key, RECENT_MATCHES),
    }


def _json(data: Any, status: int = 200) -> web.Response:
    return web.json_response(data, status=status, dumps=lambda v: json.dumps(v, ensure_ascii=False))


def _error(status: int, text: str) -> web.Response:
    return _json({"error": text}, status)


# ---------------------------------------------------------------------- API
NO_STORE = "this server keeps no store (a board fed by MQTT): players are on the venue's host"


async def api_search(request: web.Request) -> web.Response:
    q = query_of(request, PlayersQuery)  # checked against its model (request_models.py)
    found = await public_reads.read(request, queries.search_players, q.q, q.limit)
    if found is None:
        return _error(503, NO_STORE)
    found = [{**p, "page": h.player_href(p["key"], "en")} for p in found]  # the kept stays
    return _json({"schema": SCHEMA_VERSION, "players": found})


async def api_player(request: web.Request) -> web.Response:
    given = request.match_info["key"]
    data = await public_reads.read(request, player_data, player_key(given))
    if data is None:
        return _error(503, NO_STORE)
    if not data:
        return _error(404, f"there is no player '{given[:60]}'")
    return _json({"schema": SCHEMA_VERSION, **data})


# ---------------------------------------------------------------------- the page
async def player_page(request: web.Request) -> web.Response:
    lang = h.lang_of(request.query.get("lang"))
    data = await public_reads.read(request, player_data, player_key(request.match_info["key"]))
    if not data:
        why, status = ("not_found", 404) if data == {} else ("no_store", 503)
        return web.Response(
            text=_page(lang, h.TEXT[lang]["player_title"], f"<p>{h.TEXT[lang][why]}</p>"),
            content_type="text/html",
            status=status,
        )
    return web.Response(text=player_html(data, lang), content_type="text/html")


def _page(lang: str, title: str, body: str) -> str:
    direction = "rtl" if lang == "fa" else "ltr"
    return (
        f"<!doctype html>\n<html lang='{lang}' dir='{direction}'><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{h.esc(title)}</title><link rel='stylesheet' href='/static/report.css'>"
        "<link rel='stylesheet' href='/static/stats.css'>"
        f"</head><body><main>{body}</main></body></html>\n"
    )


def player_html(data: dict[str, Any], lang: str) -> str:
    t = h.TEXT[lang]
    p, stats = data["player"], data["statistics"]
    other = "en" if lang == "fa" else "fa"
    switch = h.player_href(p["key"], other)
    seen = h.say(lang, "known_since", d=h.date(p["first_ms"], lang), e=h.date(p["last_ms"], lang))
    summary = (
        f"<p class='sub'>{seen} · <a id='lang' href='{switch}' lang='{other}'>"
        f"<bdi>{t['other_lang']}</bdi></a></p>"
    )
    counts = (
        f"<table class='counts'><tbody>"
        f"<tr><th scope='row'>{t['matches']}</th>"
        f"<td id='matches'>{h.num(stats['matches'], lang)}</td></tr>"
        f"<tr><th scope='row'>{t['matches_won']}</th>"
        f"<td id='matches-won'>{h.num(stats['matches_won'], lang)}</td></tr></tbody></table>"
    )
    if stats["frames"]:
        figures = (
            h.figures_table([(h.name(p["name"]), stats)], lang)
            + f"<h2>{t['shot_spread']}</h2>{h.shot_histogram(stats, lang)}"
        )
    else:
        figures = f"<p>{t['no_figures']}</p>"
    body = (
        f"<h1>{t['player_title']}: {h.name(p['name'])}</h1>{summary}{counts}"
        f"<section id='statistics'><h2>{t['statistics']}</h2><p class='note'>"
        f"{t['statistics_note']}</p>{figures}</section>"
        f"<section id='matches-list'><h2>{t['recent']}</h2>{_matches_table(data['matches'], lang)}"
        "</section>"
    )
    return _page(lang, f"{t['player_title']}: {p['name']}", body)


def _matches_table(matches: list[dict[str, Any]], lang: str) -> str:
    t = h.TEXT[lang]
    if not matches:
        return f"<p>{t['none']}</p>"
    rows = []
    for m in matches:
        side = m["side"]
        opponents = [n for s, _, n in match_members(m["players"]) if s != side]
        mine, theirs = m["frames_won"][side], m["frames_won"][1 - side]
        result = t["in_play"] if m["won"] is None else t["won"] if m["won"] else t["lost"]
        report = f"/report/{quote(m['match_id'], safe='')}" + ("?lang=fa" if lang == "fa" else "")
        rows.append(
            f"<tr><td>{h.date(m['started_ms'], lang)}</td>"
            f"<td>{' &amp; '.join(h.name(n) for n in opponents)}</td>"
            f"<td>{result} {h.num(mine, lang)}–{h.num(theirs, lang)}</td>"
            f"<td><a href='{report}'>{t['report']}</a></td></tr>"
        )
    head = "".join(
        f"<th scope='col'>{t[k]}</th>" for k in ("date", "opponent", "result", "report_head")
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


# ---------------------------------------------------------------------- registration
def add_routes(app: web.Application, store_path: Path) -> None:
    """The player page and API, reading the store at ``store_path``."""
    public_reads.install(app, store_path)
    app.router.add_get("/player/{key}", player_page)
    app.router.add_get("/api/players", api_search)
    app.router.add_get("/api/players/{key}", api_player)
