"""How the two sides of a match are written wherever a person reads them:
boards, reports, receipts."""

from __future__ import annotations

from typing import Any


def names_of(players: Any, unknown: str = "") -> list[str]:
    """The two sides' names as the boards and reports write them (a pair as
    "A & B"); ``unknown`` for both when ``players`` is not two sides."""
    if not isinstance(players, list) or len(players) != 2:
        return [unknown, unknown]
    return [" & ".join(map(str, p)) if isinstance(p, list) else str(p) for p in players]
