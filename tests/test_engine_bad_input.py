"""Every bad-input case of the engine contract is refused with a reason and changes nothing."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from baulk.firmware.engine import Engine, Rejected, parse_event

from .engine_driver import Event, match, stroke

OPENING: list[Event] = [match(best_of=3), *stroke("red"), {"ev": "nominate", "ball": "black"}]


def engine_after(events: list[Event]) -> Engine:
    engine = Engine()
    for ev in events:
        engine.apply(ev)
    return engine


def assert_refused(events: list[Event], bad: Event, reason_part: str) -> None:
    engine = engine_after(events)
    before = engine.to_json()
    snap = engine.snapshot()
    log = bytes(engine.log[: engine.log_len])
    with pytest.raises(Rejected) as caught:
        engine.apply(bad)
    assert reason_part in str(caught.value)
    assert engine.to_json() == before
    assert engine.snapshot() == snap
    assert bytes(engine.log[: engine.log_len]) == log


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ({"ev": "dance"}, "unknown event 'dance'"),
        ({"ev": "pot", "ball": "purple"}, "unknown ball 'purple'"),
        ({"ev": "pot", "ball": "red", "pocket": "xx"}, "unknown pocket 'xx'"),
        ({"ev": "foul", "kind": "sneeze"}, "unknown foul kind 'sneeze'"),
        ({"ev": "strike", "speed": 3}, "unknown key 'speed'"),
        ({"ev": "award", "side": 2}, "side must be 0 or 1"),
        ({"ev": "award", "side": True}, "side must be 0 or 1"),
        ({"ev": "miss", "clear": "yes"}, "clear must be true or false"),
        ({"ev": "pot"}, "pot needs 'ball'"),
        ({"ev": "strike", "t": -5}, "t must be"),
        ({"ev": "spots", "occupied": ["moon"]}, "unknown spot 'moon'"),
        ({"ev": "match", "players": ["A"], "best_of": 3}, "players must list the two sides"),
        ({"ev": "match", "players": ["A", "B"], "best_of": 4}, "positive odd integer"),
        ({"ev": "match", "players": ["A", "B"], "best_of": 0}, "positive odd integer"),
        ({"ev": "match", "players": ["A", "B"], "best_of": 3.0}, "positive odd integer"),
        ({"ev": "match", "players": ["A", "B"], "best_of": 3, "reds": 7}, "reds must be"),
        ({"ev": "match", "players": ["A", ""], "best_of": 3}, "non-empty"),
        ({"ev": "match", "players": [["A", "B"], ["C"]], "best_of": 3}, "pair of player names"),
        ({"ev": "match", "players": ["A", "\u0631" * 25], "best_of": 3}, "at most 48 bytes"),
    ],
)
def test_unknown_event_or_key_value(bad: Event, reason: str) -> None:
    assert_refused(OPENING, bad, reason)


def test_sixteenth_red() -> None:
    events: list[Event] = [match(reds=6)]
    for _ in range(6):
        events += stroke("red") + stroke()  # red, then miss the colour
        events += [{"ev": "strike"}, {"ev": "rest"}]  # opponent misses
    events.append({"ev": "strike"})
    assert_refused(events, {"ev": "pot", "ball": "red"}, "no red is left")


def test_colour_already_down() -> None:
    events: list[Event] = [match(reds=6)]
    for _ in range(6):
        events += stroke("red") + stroke("black")
    events += [*stroke("yellow"), {"ev": "strike"}]
    assert_refused(events, {"ev": "pot", "ball": "yellow"}, "the yellow is not on the table")


def test_nominate_red_after_red_is_not_lawful() -> None:
    assert_refused(OPENING, {"ev": "nominate", "ball": "red"}, "R3.4a")


def test_nominate_when_red_is_on() -> None:
    assert_refused([match()], {"ev": "nominate", "ball": "blue"}, "the ball on is a red")


@pytest.mark.parametrize("call", [{"ev": "free_ball"}, {"ev": "play_again"}])
def test_free_ball_or_play_again_after_no_foul(call: Event) -> None:
    assert_refused([match(), *stroke()], call, "needs a foul")


def test_play_again_after_a_miss_call_still_counts_the_foul() -> None:
    # Referee events since the foul (miss, free_ball) don't make it "no foul".
    engine = engine_after(
        [
            match(),
            *stroke(),
            {"ev": "foul", "kind": "no_contact"},
            {"ev": "miss"},
            {"ev": "free_ball"},
        ]
    )
    engine.apply({"ev": "play_again"})
    assert engine.state()["striker"] == 0


def test_replace_with_no_miss() -> None:
    events = [match(), *stroke(), {"ev": "foul", "kind": "no_contact"}]
    assert_refused(events, {"ev": "replace"}, "needs a foul and a miss")


def test_stroke_event_after_match_over() -> None:
    events = [match(), {"ev": "concede"}]
    for bad in ({"ev": "strike"}, {"ev": "rerack"}, {"ev": "nominate", "ball": "red"}):
        assert_refused(events, bad, "the match is over")


def test_toss_outside_respotted_black() -> None:
    assert_refused([match()], {"ev": "toss", "side": 1}, "only for a re-spotted black")


def test_undo_with_nothing_to_take_back() -> None:
    assert_refused([match()], {"ev": "undo"}, "nothing to undo")


def test_event_before_any_match() -> None:
    assert_refused([], {"ev": "strike"}, "no match has been set up")


def test_rest_without_strike_and_double_strike() -> None:
    assert_refused([match()], {"ev": "rest"}, "no stroke is being played")
    assert_refused([match(), {"ev": "strike"}], {"ev": "strike"}, "already being played")


def test_referee_event_while_balls_move() -> None:
    assert_refused([match(), {"ev": "strike"}], {"ev": "concede"}, "still moving")


# The engine's input keys (docs/ENGINE.md), written out here by hand: the
# engine keeps them as text (engine._KEYS), and a key it lets through or
# refuses against this table is a contract broken.
ALLOWED = {
    "match": ("players", "best_of", "breaker", "reds"),
    "strike": (),
    "pot": ("ball", "pocket"),
    "off": ("ball",),
    "rest": (),
    "foul": ("kind", "ball"),
    "miss": ("clear",),
    "free_ball": (),
    "nominate": ("ball",),
    "play_again": (),
    "replace": (),
    "concede": ("match",),
    "award": ("side", "match"),
    "rerack": (),
    "toss": ("side", "player"),
    "undo": (),
    "spots": ("occupied",),
    "claim": (),
    "edge_replace": (),
    "order": ("side", "first"),
}
REQUIRED = {
    "match": ("players", "best_of"),
    "pot": ("ball",),
    "off": ("ball",),
    "foul": ("kind",),
    "nominate": ("ball",),
    "award": ("side",),
    "toss": ("side",),
    "spots": ("occupied",),
    "order": ("side", "first"),
}
_KEYS = [*sorted({k for keys in ALLOWED.values() for k in keys}), -1, 0, 1]
_KEYS += ["ev", "t", "ball*", "*", "", "pot:", "match:", "ball pocket", "\npot"]
_NAMES = [*ALLOWED, "dance", "", "pot:", "pot: ball*", "x\npot", "pot ", "Pot"]


def expected_refusal(ev: dict[Any, Any]) -> str | None:
    name = ev["ev"]
    if name not in ALLOWED:
        return f"unknown event '{name}'"
    for key in ev:
        if key not in ("ev", "t") and key not in ALLOWED[name]:
            return f"unknown key '{key}' for {name}"
    for key in REQUIRED.get(name, ()):
        if key not in ev:
            return f"{name} needs '{key}'"
    return None


def test_an_events_keys_are_held_to_the_contracts_table() -> None:
    # every event name, odd ones too, with no key, any one, any two, and
    # every key it may have
    key_sets = [(), *itertools.combinations(_KEYS, 1), *itertools.combinations(_KEYS, 2)]
    for name in _NAMES:
        for keys in [*key_sets, ALLOWED.get(name, ())]:
            ev = {**dict.fromkeys(keys), "ev": name}
            want = expected_refusal(ev)
            try:
                parse_event(ev)
            except Rejected as e:
                if want is not None:
                    assert str(e) == want
                else:  # past the keys: a value's own check (None is no ball, ...)
                    assert not str(e).startswith(("unknown event", "unknown key")), ev
                    assert "needs" not in str(e), ev
            else:
                assert want is None, (ev, want)
