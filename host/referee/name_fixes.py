"""Corrected player names: what the venue adds on top of the table's record.

The desk may correct a match's names (host/venue/actions.py ``correct_names``,
stored beside the match).  The table's signed record keeps the names the
match started with; lists, reports and result sheets show the corrected ones,
and an exported report carries the correction as the venue's *annotation*
(``annotations.names``: the names, who made it and when), so that
``baulk verify`` can tell the venue's edit from the table's record
(docs/LEDGER.md).
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
    """A match report with its corrected players: in the match, its breaks and
    its players' statistics."""
    if players is None:
        return report
    old = report["match"]["players"]
    breaks = [
        {**b, "player": renamed(old, players, b["side"], b.get("player"))} for b in report["breaks"]
    ]
    out = {**report, "match": fixed_match(report["match"], players), "breaks": breaks}
    if "statistics" in report:
        out["statistics"] = [_fixed_figures(old, players, s) for s in report["statistics"]]
    return out


def annotated_report(report: dict[str, Any], fix: dict[str, Any] | None) -> dict[str, Any]:
    """The report as the venue shows it: corrected, with the correction
    listed under ``annotations`` (not signed by the table)."""
    if fix is None:
        return report
    out = fixed_report(report, fix["players"])
    out["annotations"] = {
        "names": {
            "signed": report["match"]["players"],
            "players": fix["players"],
            "who": fix.get("who"),
            "at_ms": fix.get("at_ms"),
        }
    }
    return out


def _fixed_figures(old: list[Any], new: list[Any], figures: dict[str, Any]) -> dict[str, Any]:
    side, member = figures.get("side"), figures.get("member", 0)
    if side not in (0, 1) or len(old) != 2 or len(new) != 2:
        return figures
    before, after = old[side], new[side]
    if isinstance(before, list) and isinstance(after, list):
        if not isinstance(member, int) or not 0 <= member < len(after):
            return figures
        name = str(after[member])
    elif not isinstance(after, list):
        name = str(after)
    else:
        return figures
    # The key stays: it names the player in the registry, which is made
    # from the names the table recorded.
    return {**figures, "name": name}


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
