"""Reads of the statistics' tables (:mod:`.stats_schema`): the player
registry's search, a player's figures over every match he played, one
match's figures per player, and each frame's ball accounting.

Figures are sums and medians over the rows of ``player_frames``; the same
function makes them for one player and for one match, so the player page and
the match report cannot disagree.  docs/API.md describes the result.
"""

from __future__ import annotations

import json
import sqlite3
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import Any

from .player_names import name_words, player_key
from .stats_writer import BREAK_BANDS, unpack_shots

# Shot time histogram: the lower edge of each bin, in ms; the last is open.
SHOT_BINS_MS = (0, 5_000, 10_000, 15_000, 20_000, 30_000, 45_000, 60_000)
MAX_SEARCH = 100
_TOP = "\U0010ffff"  # sorts after every character: the end of a prefix's range

_SUMS = (
    "count(*), coalesce(sum(won), 0), coalesce(sum(strokes), 0), coalesce(sum(visits), 0), "
    "coalesce(sum(visit_points), 0), coalesce(sum(breaks_10), 0), coalesce(sum(breaks_20), 0), "
    "coalesce(sum(breaks_50), 0), coalesce(sum(breaks_100), 0), coalesce(max(high_break), 0), "
    "coalesce(sum(fouls), 0), coalesce(sum(foul_points), 0)"
)


# ---------------------------------------------------------------------- the registry
def search_players(db: sqlite3.Connection, text: str, limit: int = 10) -> list[dict[str, Any]]:
    """Players whose name starts with ``text``, or has a word that does,
    compared as keys (host/store/player_names.py); names that start with it
    first, then those with the most matches.  Empty text: the players seen
    last."""
    key = player_key(text) if name_words(text) else ""
    limit = max(1, min(limit, MAX_SEARCH))
    matches = "(SELECT count(*) FROM match_players m WHERE m.player_key = p.key)"
    if not key:
        rows = db.execute(
            f"SELECT p.key, p.name, p.first_ms, p.last_ms, {matches} FROM players p "
            "ORDER BY p.last_ms DESC, p.key LIMIT ?",
            (limit,),
        ).fetchall()
    else:
        rows = db.execute(
            f"SELECT p.key, p.name, p.first_ms, p.last_ms, {matches}, "
            "(p.key >= ? AND p.key < ?) AS whole FROM players p "
            "WHERE (p.key >= ? AND p.key < ?) OR instr(' ' || p.words, ' ' || ?) > 0 "
            "ORDER BY whole DESC, 5 DESC, p.key LIMIT ?",
            (key, key + _TOP, key, key + _TOP, name_words(text), limit),
        ).fetchall()
    return [_player_row(r) for r in rows]


def player(db: sqlite3.Connection, key: str) -> dict[str, Any] | None:
    r = db.execute(
        "SELECT p.key, p.name, p.first_ms, p.last_ms, "
        "(SELECT count(*) FROM match_players m WHERE m.player_key = p.key) "
        "FROM players p WHERE p.key = ?",
        (key,),
    ).fetchone()
    return _player_row(r) if r else None


def _player_row(r: Sequence[Any]) -> dict[str, Any]:
    return {"key": r[0], "name": r[1], "first_ms": r[2], "last_ms": r[3], "matches": r[4]}


def player_matches(db: sqlite3.Connection, key: str, limit: int = 20) -> list[dict[str, Any]]:
    """The player's newest matches: side, result and the players of each."""
    rows = db.execute(
        "SELECT match_id, side, won FROM match_players WHERE player_key = ? "
        "ORDER BY started_ms DESC, match_id DESC LIMIT ?",
        (key, limit),
    ).fetchall()
    out = []
    for match_id, side, won in rows:
        m = db.execute(
            "SELECT table_id, started_ms, players, best_of, frames_won, ended_ms, winner "
            "FROM matches WHERE match_id = ?",
            (match_id,),
        ).fetchone()
        if m is None:
            continue
        out.append(
            {
                "match_id": match_id,
                "side": side,
                "won": None if won is None else bool(won),
                "table_id": m[0],
                "started_ms": m[1],
                "players": json.loads(m[2]),
                "best_of": m[3],
                "frames_won": json.loads(m[4]),
                "ended_ms": m[5],
                "winner": m[6],
            }
        )
    return out


# ---------------------------------------------------------------------- figures
def player_statistics(db: sqlite3.Connection, key: str) -> dict[str, Any]:
    """One player's figures over every frame he finished, in every match."""
    sums = db.execute(f"SELECT {_SUMS} FROM player_frames WHERE player_key = ?", (key,)).fetchone()
    timed = db.execute(
        "SELECT shots, frame_ms FROM player_frames WHERE player_key = ?", (key,)
    ).fetchall()
    fouls = db.execute(
        "SELECT kind, sum(count), sum(points) FROM player_fouls WHERE player_key = ? GROUP BY kind",
        (key,),
    ).fetchall()
    played, won = db.execute(
        "SELECT count(*), coalesce(sum(won), 0) FROM match_players WHERE player_key = ?", (key,)
    ).fetchone()
    return {"matches": played, "matches_won": won, **figures(sums, timed, fouls)}


def match_statistics(db: sqlite3.Connection, match_id: str) -> list[dict[str, Any]]:
    """One match's figures, per player (doubles: per partner), side 0 first."""
    people = db.execute(
        "SELECT side, member, name, player_key FROM match_players WHERE match_id = ? "
        "ORDER BY side, member",
        (match_id,),
    ).fetchall()
    sums = {
        (r[0], r[1]): r[2:]
        for r in db.execute(
            f"SELECT side, member, {_SUMS} FROM player_frames WHERE match_id = ? "
            "GROUP BY side, member",
            (match_id,),
        )
    }
    timed: dict[tuple[int, int], list[Any]] = {}
    for side, member, shots, frame_ms in db.execute(
        "SELECT side, member, shots, frame_ms FROM player_frames WHERE match_id = ? ORDER BY frame",
        (match_id,),
    ):
        timed.setdefault((side, member), []).append((shots, frame_ms))
    fouls: dict[tuple[int, int], list[Any]] = {}
    for side, member, kind, count, points in db.execute(
        "SELECT side, member, kind, sum(count), sum(points) FROM player_fouls "
        "WHERE match_id = ? GROUP BY side, member, kind",
        (match_id,),
    ):
        fouls.setdefault((side, member), []).append((kind, count, points))
    out = []
    for side, member, name, key in people:
        who = (side, member)
        row = sums.get(who, (0,) * 12)
        out.append(
            {
                "side": side,
                "member": member,
                "name": name,
                "key": key,
                **figures(row, timed.get(who, []), fouls.get(who, [])),
            }
        )
    return out


def figures(
    sums: Sequence[Any], timed: Iterable[Sequence[Any]], fouls: Iterable[Sequence[Any]]
) -> dict[str, Any]:
    """Figures from the sums of player_frames rows (_SUMS), their (shots,
    frame_ms) and their fouls summed by kind."""
    frames, won, strokes, visits, points, b10, b20, b50, b100, high, n_fouls, given = sums
    blobs: list[bytes] = []
    frame_times: list[int] = []
    for blob, frame_ms in timed:
        blobs.append(blob)
        if frame_ms is not None:
            frame_times.append(frame_ms)
    shots = sorted(unpack_shots(b"".join(blobs)))  # one array for all frames: one copy
    frame_times.sort()
    kinds = sorted(
        ({"kind": k, "count": c, "points": p} for k, c, p in fouls),
        key=lambda f: (-f["count"], f["kind"]),
    )
    return {
        "frames": frames,
        "frames_won": won,
        "frame_ms": {
            "count": len(frame_times),
            "mean": round(sum(frame_times) / len(frame_times)) if frame_times else None,
            "median": _median(frame_times),
        },
        "shot_ms": {
            "count": len(shots),
            "median": _median(shots),
            "histogram": _histogram(shots),
        },
        "strokes": strokes,
        "visits": visits,
        "points": points,
        "points_per_visit": round(points / visits, 2) if visits else None,
        "breaks": {
            **dict(zip(map(str, BREAK_BANDS), (b10, b20, b50, b100), strict=True)),
            "highest": high,
        },
        "fouls": {"count": n_fouls, "points": given, "kinds": kinds},
    }


def _median(ordered: Sequence[int]) -> int | None:
    """The median of sorted values, to the nearest ms (None: no values)."""
    n = len(ordered)
    if not n:
        return None
    mid = n // 2
    if n % 2:
        return ordered[mid]
    return round((ordered[mid - 1] + ordered[mid]) / 2)


def _histogram(ordered: Sequence[int]) -> list[dict[str, Any]]:
    edges = [bisect_left(ordered, edge) for edge in SHOT_BINS_MS] + [len(ordered)]
    return [
        {
            "from_ms": low,
            "to_ms": SHOT_BINS_MS[i + 1] if i + 1 < len(SHOT_BINS_MS) else None,
            "count": edges[i + 1] - edges[i],
        }
        for i, low in enumerate(SHOT_BINS_MS)
    ]


# ---------------------------------------------------------------------- ball accounting
def frame_accounts(db: sqlite3.Connection, match_id: str) -> dict[int, dict[str, Any]]:
    """Each finished frame's ball accounting (host/store/frame_records.py)."""
    out: dict[int, dict[str, Any]] = {}
    for r in db.execute(
        "SELECT frame, reds, reds_down, colours_down, respots, returned, sensor, keyed, pockets, "
        "keyed_pots FROM frame_accounts WHERE match_id = ? ORDER BY frame",
        (match_id,),
    ):
        frame, reds, reds_down, colours_down, respots, returned, sensor, keyed = r[:8]
        must = reds_down + colours_down + respots + returned
        out[frame] = {
            "reds": reds,
            "must_leave": {
                "reds": reds_down,
                "colours": colours_down,
                "respots": respots,
                "returned": returned,
                "total": must,
            },
            "recorded": {"sensor": sensor, "keyed": keyed, "total": sensor + keyed},
            "balanced": must == sensor + keyed,
            "pockets": json.loads(r[8]),
            "keyed_pots": json.loads(r[9]),
        }
    return out
