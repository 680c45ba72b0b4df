"""Sample messages shared by the vector generator and the protocol benchmarks,
so that the bytes the README reports are the bytes the vectors pin down."""

from __future__ import annotations

from typing import Any

POT = {"ev": "pot", "ball": "red", "pocket": "tl"}

STATE: dict[str, Any] = {
    "frame": 3,
    "frames": [1, 1],
    "scores": [45, 12],
    "striker": 0,
    "player": "Reza",
    "reds": 9,
    "colours": ["yellow", "green", "brown", "blue", "pink", "black"],
    "ball_on": "colour",
    "nominated": None,
    "free_ball": False,
    "break": 9,
    "highest_break": [61, 34],
    "points_remaining": 106,
    "snookers_required": [0, 0],
    "last_foul": {"side": 1, "points": 4, "kind": "in_off"},
    "misses": 0,
    "warning": None,
    "respot": ["black"],
    "respotted_black": False,
    "in_hand": False,
    "frame_over": False,
    "match_over": False,
    "frame_winner": None,
    "match_winner": None,
}
