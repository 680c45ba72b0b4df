"""A short match written by hand, with every figure worked out by hand: the
statistics tests, the daemon test and the browser test all play it.

Six reds, best of three, "Ali Reza" (side 0, breaks frame 1) against "رضا"
(side 1).  ``t`` is the device's clock in ms.  Sources: S a pocket or table
sensor, K the referee's keypad, H the operator console (a host command).
Comments give the score after the event and what it means for the figures.
"""

from __future__ import annotations

from typing import Any

from baulk.protocol.messages import SRC_HOST, SRC_KEYPAD, SRC_SENSOR

S, K, H = SRC_SENSOR, SRC_KEYPAD, SRC_HOST
ALI, REZA = "Ali Reza", "رضا"

# (event, source)
EVENTS: list[tuple[dict[str, Any], int]] = [
    ({"ev": "match", "players": [ALI, REZA], "best_of": 3, "reds": 6, "t": 1000}, H),
    # ---- frame 1: Ali breaks off
    ({"ev": "strike", "t": 10000}, S),  # Ali: break-off, no shot time
    ({"ev": "rest", "t": 14000}, S),  # nothing potted: Ali's visit 1 = 0
    ({"ev": "strike", "t": 30000}, S),  # Reza: shot 16 s
    ({"ev": "pot", "ball": "red", "pocket": "tl", "t": 31000}, S),
    ({"ev": "rest", "t": 33000}, S),  # 0-1
    ({"ev": "strike", "t": 45000}, S),  # Reza: shot 12 s
    ({"ev": "pot", "ball": "black", "pocket": "tr", "t": 46000}, S),  # re-spotted
    ({"ev": "rest", "t": 48000}, S),  # 0-8
    ({"ev": "strike", "t": 55000}, S),  # Reza: shot 7 s
    ({"ev": "rest", "t": 58000}, S),  # missed: Reza's visit 1 = 8
    ({"ev": "strike", "t": 80000}, S),  # Ali: shot 22 s
    ({"ev": "pot", "ball": "red", "t": 81000}, K),  # keyed, no beam broke, no pocket given
    ({"ev": "rest", "t": 84000}, S),  # 1-8
    ({"ev": "strike", "t": 94000}, S),  # Ali: shot 10 s
    ({"ev": "pot", "ball": "pink", "pocket": "bl", "t": 95000}, S),  # re-spotted
    ({"ev": "rest", "t": 97000}, S),  # 7-8
    ({"ev": "strike", "t": 105000}, S),  # Ali: shot 8 s
    ({"ev": "pot", "ball": "red", "pocket": "br", "t": 106000}, S),
    ({"ev": "rest", "t": 108000}, S),  # 8-8
    ({"ev": "strike", "t": 120000}, S),  # Ali: shot 12 s
    ({"ev": "pot", "ball": "blue", "pocket": "ml", "t": 121000}, S),  # re-spotted
    ({"ev": "rest", "t": 123000}, S),  # 13-8
    ({"ev": "strike", "t": 130000}, S),  # Ali: shot 7 s
    ({"ev": "pot", "ball": "red", "pocket": "tl", "t": 131000}, H),  # keyed at the console for tl
    ({"ev": "rest", "t": 133000}, S),  # 14-8
    ({"ev": "strike", "t": 143000}, S),  # Ali: shot 10 s
    ({"ev": "pot", "ball": "black", "pocket": "tr", "t": 144000}, S),  # re-spotted
    ({"ev": "rest", "t": 146000}, S),  # 21-8
    ({"ev": "strike", "t": 160000}, S),  # Ali: shot 14 s
    ({"ev": "rest", "t": 163000}, S),  # missed: Ali's visit 2 = 21
    ({"ev": "strike", "t": 175000}, S),  # Reza: shot 12 s
    ({"ev": "pot", "ball": "white", "pocket": "bl", "t": 176000}, S),  # in-off
    ({"ev": "rest", "t": 178000}, S),  # foul in_off 4 by Reza: 25-8; Reza's visit 2 = 0
    ({"ev": "strike", "t": 190000}, S),  # Ali: shot 12 s ... (taken back below)
    ({"ev": "pot", "ball": "red", "pocket": "mr", "t": 191000}, S),  # the sensor's pot
    ({"ev": "rest", "t": 193000}, S),  # 26-8
    ({"ev": "undo", "t": 200000}, K),  # the referee takes the stroke back: 25-8
    ({"ev": "strike", "t": 205000}, K),  # Ali, re-entered after the undo: no shot time
    ({"ev": "pot", "ball": "red", "t": 205000}, K),  # keyed, no pocket
    ({"ev": "rest", "t": 205000}, K),  # 26-8
    ({"ev": "strike", "t": 215000}, S),  # Ali: shot 10 s
    ({"ev": "rest", "t": 219000}, S),  # missed: Ali's visit 3 = 1
    ({"ev": "concede", "t": 230000}, K),  # Reza concedes: frame 1 to Ali, 26-8
    # ---- frame 2: Reza breaks off
    ({"ev": "strike", "t": 300000}, S),  # Reza: break-off
    ({"ev": "pot", "ball": "red", "pocket": "bl", "t": 301000}, S),
    ({"ev": "rest", "t": 303000}, S),  # 0-1
    ({"ev": "strike", "t": 311000}, S),  # Reza: shot 8 s
    ({"ev": "pot", "ball": "black", "pocket": "tl", "t": 312000}, S),  # re-spotted
    ({"ev": "rest", "t": 314000}, S),  # 0-8
    ({"ev": "strike", "t": 320000}, S),  # Reza: shot 6 s
    ({"ev": "pot", "ball": "red", "pocket": "tr", "t": 321000}, S),
    ({"ev": "rest", "t": 323000}, S),  # 0-9
    ({"ev": "strike", "t": 330000}, S),  # Reza: shot 7 s
    ({"ev": "pot", "ball": "black", "pocket": "tl", "t": 331000}, S),  # re-spotted
    ({"ev": "rest", "t": 333000}, S),  # 0-16
    ({"ev": "strike", "t": 341000}, S),  # Reza: shot 8 s
    ({"ev": "rest", "t": 345000}, S),  # missed: Reza's visit 3 = 16
    ({"ev": "strike", "t": 365000}, S),  # Ali: shot 20 s
    ({"ev": "rest", "t": 370000}, S),  # nothing potted
    ({"ev": "foul", "kind": "push", "t": 372000}, K),  # called late: foul 4 by Ali, 0-20
    ({"ev": "strike", "t": 390000}, S),  # Reza: shot 20 s (from the rest at 370 s)
    ({"ev": "rest", "t": 394000}, S),  # Reza's visit 4 = 0
    ({"ev": "concede", "t": 400000}, K),  # Ali concedes: frame 2 to Reza, 0-20
    # ---- frame 3: Ali breaks off and concedes at once
    ({"ev": "concede", "t": 460000}, K),  # frame 3 and the match to Reza, 2-1
]

# Worked by hand from the comments above.
#   Ali's shots (s): 22 10 8 12 7 10 14 10 | 20        -> sorted 7 8 10 10 10 12 14 20 22
#   Reza's shots (s): 16 12 7 12 | 8 6 7 8 20          -> sorted 6 7 7 8 8 12 12 16 20
#   frame 1: 10 s .. 230 s = 220 s; frame 2: 300 s .. 400 s = 100 s; frame 3: no stroke
ALI_FIGURES: dict[str, Any] = {
    "frames": 3,
    "frames_won": 1,
    "frame_ms": {"count": 2, "mean": 160000, "median": 160000},
    "shot_count": 9,
    "shot_median": 10000,
    "shot_bins": [0, 2, 5, 0, 2, 0, 0, 0],  # <5, 5-10, 10-15, 15-20, 20-30, 30-45, 45-60, 60+ s
    "strokes": 11,  # 10 in frame 1 (the one taken back does not count), 1 in frame 2
    "visits": 4,  # 0, 21, 1 | 0
    "points": 22,
    "points_per_visit": 5.5,
    "breaks": {"10": 1, "20": 1, "50": 0, "100": 0, "highest": 21},
    "fouls": {"count": 1, "points": 4, "kinds": [{"kind": "push", "count": 1, "points": 4}]},
}
REZA_FIGURES: dict[str, Any] = {
    "frames": 3,
    "frames_won": 2,
    "frame_ms": {"count": 2, "mean": 160000, "median": 160000},
    "shot_count": 9,
    "shot_median": 8000,
    "shot_bins": [0, 5, 2, 1, 1, 0, 0, 0],
    "strokes": 10,
    "visits": 4,  # 8, 0 | 16, 0
    "points": 24,
    "points_per_visit": 6.0,
    "breaks": {"10": 1, "20": 0, "50": 0, "100": 0, "highest": 16},
    "fouls": {"count": 1, "points": 4, "kinds": [{"kind": "in_off", "count": 1, "points": 4}]},
}
# Frame 1's balls.  Must have left: 5 reds (one still on the table when Reza
# conceded), no colour for good, 4 re-spots (black, pink, blue, black).
# Recorded: by a sensor red tl, black tr, pink bl, red br, blue ml, black tr;
# by hand the keypad's two reds and the console's red for tl.
FRAME1_ACCOUNT: dict[str, Any] = {
    "reds": 6,
    "must_leave": {"reds": 5, "colours": 0, "respots": 4, "returned": 0, "total": 9},
    "recorded": {"sensor": 6, "keyed": 3, "total": 9},
    "balanced": True,
    "pockets": {
        "bl": {"sensor": 2, "keyed": 0, "undone": 0, "refused": 0},  # pink, and the in-off
        "br": {"sensor": 1, "keyed": 0, "undone": 0, "refused": 0},
        "ml": {"sensor": 1, "keyed": 0, "undone": 0, "refused": 0},
        "mr": {"sensor": 0, "keyed": 0, "undone": 1, "refused": 0},  # the pot taken back
        "none": {"sensor": 0, "keyed": 2, "undone": 0, "refused": 0},
        "tl": {"sensor": 1, "keyed": 1, "undone": 0, "refused": 0},
        "tr": {"sensor": 2, "keyed": 0, "undone": 0, "refused": 0},
    },
    "keyed_pots": [
        {"seq": 13, "ball": "red", "pocket": None, "src": "keypad"},
        {"seq": 25, "ball": "red", "pocket": "tl", "src": "host"},
        {"seq": 40, "ball": "red", "pocket": None, "src": "keypad"},
    ],
}


def figures_as_worked(figures: dict[str, Any]) -> dict[str, Any]:
    """The parts of a Figures dict (docs/API.md) the hand-worked values name."""
    return {
        "frames": figures["frames"],
        "frames_won": figures["frames_won"],
        "frame_ms": figures["frame_ms"],
        "shot_count": figures["shot_ms"]["count"],
        "shot_median": figures["shot_ms"]["median"],
        "shot_bins": [b["count"] for b in figures["shot_ms"]["histogram"]],
        "strokes": figures["strokes"],
        "visits": figures["visits"],
        "points": figures["points"],
        "points_per_visit": figures["points_per_visit"],
        "breaks": figures["breaks"],
        "fouls": figures["fouls"],
    }
