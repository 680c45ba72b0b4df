"""Property tests: random mixes of lawful and unlawful events never break the engine."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baulk.firmware import names
from baulk.firmware.engine import Engine, Rejected

from .engine_driver import Event

# BAULK_PROP_EXAMPLES=5000 for a longer hunt; the suite default stays quick.
EXAMPLES = int(os.environ.get("BAULK_PROP_EXAMPLES", "300"))

BALLS = list(names.BALLS)

SIMPLE: list[Event] = [
    {"ev": name}
    for name in (
        "strike",
        "rest",
        "free_ball",
        "play_again",
        "replace",
        "rerack",
        "undo",
        "claim",
        "edge_replace",
        "concede",
    )
]
POTS: list[Event] = [{"ev": "pot", "ball": b} for b in BALLS]
POTS += [{"ev": "pot", "ball": "red", "pocket": p} for p in names.POCKETS]
OTHER: list[Event] = (
    [{"ev": "off", "ball": b} for b in BALLS]
    + [{"ev": "nominate", "ball": b} for b in BALLS]
    + [{"ev": "foul", "kind": k} for k in names.FOUL_KINDS]
    + [{"ev": "foul", "kind": "push", "ball": b} for b in BALLS]
    + [{"ev": "foul", "kind": "two_balls", "ball": "red"}]
    + [{"ev": "miss"}, {"ev": "miss", "clear": True}]
    + [{"ev": "award", "side": s} for s in (0, 1)]
    + [{"ev": "toss", "side": s} for s in (0, 1)]
    + [{"ev": "concede", "match": True}, {"ev": "award", "side": 1, "match": True}]
    + [{"ev": "spots", "occupied": ["black", "pink"]}, {"ev": "spots", "occupied": []}]
    + [{"ev": "order", "side": 0, "first": 1}]
)
BAD: list[Event] = [
    {"ev": "pot", "ball": "purple"},
    {"ev": "pot"},
    {"ev": "warp"},
    {"ev": "foul", "kind": "sneeze"},
    {"ev": "strike", "extra": 1},
    {"ev": "award", "side": 2},
    {"ev": "miss", "clear": "yes"},
    {"ev": "spots", "occupied": ["moon"]},
    {"ev": "match", "players": ["A"], "best_of": 3},
    {"ev": "match", "players": ["A", "B"], "best_of": 4},
    {"ev": "toss", "side": True},
]
MATCHES: list[Event] = [
    {"ev": "match", "players": ["Ali", "Reza"], "best_of": 3},
    {"ev": "match", "players": ["Ali", "Reza"], "best_of": 1, "reds": 6, "breaker": 1},
    {"ev": "match", "players": ["Ali", "Reza"], "best_of": 5, "reds": 10},
    {"ev": "match", "players": [["A1", "A2"], ["B1", "B2"]], "best_of": 3},
]

# Strokes that pot are common, so random games reach the colours and the end.
potting_stroke = st.lists(st.sampled_from(POTS[:8]), min_size=0, max_size=2).map(
    lambda pots: [{"ev": "strike"}, *pots, {"ev": "rest"}]
)
single = st.one_of(
    st.sampled_from(SIMPLE),
    st.sampled_from(POTS),
    st.sampled_from(OTHER),
    st.sampled_from(BAD),
).map(lambda e: [e])
red_then_colour = st.sampled_from(names.COLOURS).map(
    lambda c: [
        {"ev": "strike"},
        {"ev": "pot", "ball": "red"},
        {"ev": "rest"},
        {"ev": "strike"},
        {"ev": "pot", "ball": c},
        {"ev": "rest"},
    ]
)
colours_in_order = st.just(
    [e for c in names.COLOURS for e in ({"ev": "strike"}, {"ev": "pot", "ball": c}, {"ev": "rest"})]
)
chunk = st.one_of(
    potting_stroke, red_then_colour, red_then_colour, colours_in_order, single, single, single
)
games = st.tuples(
    st.sampled_from(MATCHES),
    st.lists(chunk, min_size=10, max_size=150).map(lambda chunks: [e for c in chunks for e in c]),
)

STROKE_EVENTS = {"pot", "off", "rest", "foul", "miss"}


def points_formula(state: dict[str, Any]) -> int:
    if state["match_over"]:
        return 0
    values = {c: names.BALL_VALUES[names.BALLS.index(c)] for c in names.COLOURS}
    reds, on = state["reds"], state["ball_on"]
    if on == "red":
        total = 8 * reds + 27
    elif on == "colour":
        total = 8 * reds + 34
    else:
        total = sum(values[c] for c in state["colours"])
    if state["free_ball"]:
        total += 8 if reds else values[on]
    return total


def check_invariants(engine: Engine, state: dict[str, Any]) -> None:
    assert state["points_remaining"] == points_formula(state)
    assert 0 <= state["reds"] <= engine.reds_per_frame
    need = engine.best_of // 2 + 1
    assert max(state["frames"]) <= need
    assert sum(state["frames"]) <= engine.best_of
    assert min(state["scores"]) >= 0
    assert state["frame_over"] == state["match_over"]


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_random_games_keep_every_invariant(game: tuple[Event, list[Event]]) -> None:
    first, events = game
    engine = Engine()
    engine.apply(first)
    # States before each undoable action, to check that undo restores them.
    before_actions: list[str] = []
    for ev in events:
        before = engine.to_json()
        snap = engine.snapshot()
        log_before = bytes(engine.log[: engine.log_len])
        prev = engine.state()
        # A stroke event, a late call or an edge fall never opens a new action.
        opens_action = ev["ev"] not in STROKE_EVENTS
        try:
            engine.apply(ev)
        except Rejected as why:
            assert str(why), "every rejection carries a reason"
            assert engine.to_json() == before, f"rejected {ev} changed the state"
            assert engine.snapshot() == snap
            assert bytes(engine.log[: engine.log_len]) == log_before
            continue
        state = engine.state()
        check_invariants(engine, state)
        name = ev["ev"]
        late_call = name in STROKE_EVENTS and not prev["stroke_open"]
        if name == "match" or late_call:
            # A late call re-settles an earlier stroke, so the states recorded
            # since then are no longer what undo should return to.
            before_actions = []
        elif name == "undo":
            if before_actions:
                assert engine.to_json() == before_actions.pop(), "undo did not restore the state"
        elif opens_action:
            before_actions.append(before)
        # Within a frame, scores only go up (undo and re-rack excepted).
        same_frame = state["frame"] == prev["frame"] and not prev["match_over"]
        if same_frame and name not in ("undo", "rerack", "edge_replace", "foul", "miss"):
            assert state["scores"][0] >= prev["scores"][0]
            assert state["scores"][1] >= prev["scores"][1]


@settings(max_examples=60, deadline=None)
@given(games)
def test_json_output_is_plain_json(game: tuple[Event, list[Event]]) -> None:
    first, events = game
    engine = Engine()
    engine.apply(first)
    rejected: list[tuple[int, str]] = []
    for i, ev in enumerate(events):
        try:
            engine.apply(ev)
        except Rejected as why:
            rejected.append((i, str(why)))
    text = engine.to_json(rejected)
    assert json.dumps(json.loads(text)) == text
    assert json.loads(text) == engine.state(rejected)
