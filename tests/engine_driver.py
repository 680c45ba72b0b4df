"""Helpers shared by the rules-engine tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from baulk.firmware.engine import Engine, Rejected

SCENARIOS = Path(__file__).parent / "scenarios"

Event = dict[str, Any]
State = dict[str, Any]


def play(events: list[Event]) -> tuple[Engine, list[tuple[int, str]]]:
    """Feed events to a fresh engine; return it and the (index, reason) rejections."""
    engine = Engine()
    rejected: list[tuple[int, str]] = []
    for i, ev in enumerate(events, 1):
        try:
            engine.apply(ev)
        except Rejected as why:
            rejected.append((i, str(why)))
    return engine, rejected


def final_state(events: list[Event]) -> State:
    engine, rejected = play(events)
    state: State = engine.state(rejected)
    return state


def scenario_files() -> list[Path]:
    return sorted(SCENARIOS.glob("*.jsonl"))


def load_expectation(path: Path) -> dict[str, Any]:
    expect: dict[str, Any] = json.loads(path.with_suffix(".expect.json").read_text())
    return expect


def match(players: Any = ("Ali", "Reza"), best_of: int = 1, **extra: Any) -> Event:
    ev: Event = {"ev": "match", "players": list(players), "best_of": best_of}
    ev.update(extra)
    return ev


def stroke(*pots: str, fouls: tuple[Event, ...] = ()) -> list[Event]:
    """One stroke: strike, the balls potted, rest, then any referee calls."""
    return [
        {"ev": "strike"},
        *({"ev": "pot", "ball": b} for b in pots),
        {"ev": "rest"},
        *fouls,
    ]
