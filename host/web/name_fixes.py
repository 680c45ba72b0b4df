"""Corrected player names in what the web side shows: lists, reports and
result sheets take the names the desk corrected (host/venue/actions.py
``correct_names``, stored beside the match) instead of those the match
started with.
"""

from __future__ import annotations

from typing import Any

from baulk.host.sides import names_of


def fixed_match(match: dict[str, Any], players: list[Any] | None) -> dict[str, Any]:
    """A match record (as the store lists it) with its corrected players."""
    if players is None:
        return match
    out = {**match, "players": players}
    if "names" in match:
        out["names"] = names_of(players)
    return out


def fixed_report(report: dict[str, Any], players: list[Any] | None) -> dict[str, Any]:
    """A match report with its corrected players, in the match and the breaks."""
    if players is None:
        return report
    old = report["match"]["players"]
    breaks = [
        {**b, "player": renamed(old, players, b["side"], b.get("player"))} for b in report["breaks"]
    ]
    return {**report, "match": fixed_match(report["match"], players), "breaks": breaks}


def renamed(old: list[Any], new: list[Any], side: int, player: str | None) -> str | None:
    """The corrected name of one player of side ``side`` (in doubles, the
    partner in the same place of the pair)."""
    if side not in (0, 1) or len(old) != 2 or len(new) != 2:
        return player
    before, after = old[side], new[side]
    if isinstance(before, list) and isinstance(after, list):
        if player in before and len(after) == len(before):
            return str(after[before.index(player)])
        return player
    return str(after) if not isinstance(after, list) else player
