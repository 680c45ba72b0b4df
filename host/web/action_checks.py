"""The checks of an operator action's body, before anything is sent to a
table: a new match, a correction (any engine event but ``match``), corrected
names; and the checks of a name and of a line of free text that every area
of the web side uses (the desk's payer, reason and items among them).  Each
raises ValueError with a sentence that names what is wrong
(host/web/refusals.py has its Persian).  What a name may hold is
host/name_rules.py's: the same rules hold a table's own names to them for
display."""

from __future__ import annotations

from typing import Any

from baulk.firmware import names
from baulk.firmware.engine import Rejected, parse_event
from baulk.host.name_rules import NAME_BYTES, problem

BEST_OF_MAX = 35
TEXT_BYTES = 200  # a line of free text, unless its field says otherwise


def check_name(v: Any, what: str, most: int = NAME_BYTES) -> str:
    """A name, trimmed: non-empty, at most ``most`` bytes of UTF-8 (a
    name's NAME_BYTES unless told), nothing invisible and no emoji
    (host/name_rules.py)."""
    if not isinstance(v, str) or not v.strip():
        raise ValueError(f"{what} must be a non-empty name")
    text: str = v.strip()
    if len(text.encode()) > most:
        raise ValueError(f"{what} is longer than {most} bytes")
    why = problem(text, what)
    if why is not None:
        raise ValueError(why)
    return text


def check_text(v: Any, what: str, most: int = TEXT_BYTES) -> str:
    """A line of free text (a reason, a payer, an item's name), trimmed:
    non-empty, at most ``most`` bytes of UTF-8, one line, and the same
    characters as a name allows, currency and mathematical signs besides."""
    if not isinstance(v, str) or not v.strip():
        raise ValueError(f"{what} must be a non-empty text")
    text: str = v.strip()
    if len(text.encode()) > most:
        raise ValueError(f"{what} is longer than {most} bytes")
    why = problem(text, what, free_text=True)
    if why is not None:
        raise ValueError(why)
    return text


def _players(players: Any) -> list[Any]:
    if not isinstance(players, list) or len(players) != 2:
        raise ValueError("players must be a list of two names (or two teams of two names)")
    clean: list[Any] = []
    for i, p in enumerate(players):
        if isinstance(p, list):
            # The engine plays doubles as two pairs (it alternates the
            # partners' visits): a team of one would be refused by the table
            # after "Done" here, so it is refused here, in words.
            if len(p) != 2:
                raise ValueError(f"team {i + 1} must have two players")
            clean.append([check_name(x, f"player {i + 1}.{j + 1}") for j, x in enumerate(p)])
        else:
            clean.append(check_name(p, f"player {i + 1}"))
    return clean


def _unknown_keys(data: dict[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(data) - allowed)
    if extra:
        raise ValueError(f"unknown key '{extra[0]}' (allowed: {', '.join(sorted(allowed))})")


def parse_setup(data: dict[str, Any]) -> dict[str, Any]:
    """Check a new-match request; raise ValueError with the reason."""
    _unknown_keys(data, {"players", "best_of", "reds", "breaker", "who"})
    clean = _players(data.get("players"))
    if isinstance(clean[0], list) != isinstance(clean[1], list):  # SPEC.md 7.3
        raise ValueError("players must be two names or two teams, not a name and a team")
    best_of = data.get("best_of")
    if isinstance(best_of, bool) or not isinstance(best_of, int):
        raise ValueError("best_of must be an odd integer from 1 to 35")
    if not (1 <= best_of <= BEST_OF_MAX and best_of % 2 == 1):
        raise ValueError("best_of must be an odd integer from 1 to 35")
    reds = data.get("reds", 15)
    if reds not in (6, 10, 15) or isinstance(reds, bool):
        raise ValueError("reds must be 15, 10 or 6")
    breaker = data.get("breaker", 0)
    if breaker not in (0, 1) or isinstance(breaker, bool):
        raise ValueError("breaker must be 0 or 1")
    who = data.get("who")
    if who is not None:
        who = check_name(who, "who")
    ev = {"ev": "match", "players": clean, "best_of": best_of, "reds": reds, "breaker": breaker}
    try:
        parse_event(ev)
    except Rejected as why:
        raise ValueError(str(why)) from None
    return {"players": clean, "best_of": best_of, "reds": reds, "breaker": breaker, "who": who}


def parse_command(data: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """Check a correction (any engine input event but ``match``)."""
    data = dict(data)
    who = data.pop("who", None)
    if who is not None:
        who = check_name(who, "who")
    name = data.get("ev")
    if not isinstance(name, str) or name not in names.EVENTS:
        raise ValueError(f"ev must be one of: {', '.join(n for n in names.EVENTS if n != 'match')}")
    if name == "match":
        raise ValueError("a new match goes to POST /api/tables/{table}/match")
    try:
        parse_event(data)
    except Rejected as why:
        raise ValueError(str(why)) from None
    return data, who


def parse_names(data: dict[str, Any]) -> tuple[list[Any], str | None]:
    """Check a name correction: the players as for a new match, and ``who``."""
    _unknown_keys(data, {"players", "who"})
    who = data.get("who")
    return _players(data.get("players")), check_name(who, "who") if who is not None else None
