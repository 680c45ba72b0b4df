"""Realistic snooker matches as engine input events, for benchmarks, tests and the demo.

Two simulated players make the decisions a real frame is made of: break-building
with reds and colours, safety exchanges, fouls (in-offs, wrong ball first,
misses with the balls replaced), free balls, play-again requests and
concessions when the snookers needed run out.  The rules engine itself decides
what is lawful: the player reads the engine's state and only chooses.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from baulk.firmware import names
from baulk.firmware.engine import Engine, Rejected

Event = dict[str, Any]

COLOUR_CHOICE = ("black", "black", "black", "pink", "pink", "blue", "brown", "green", "yellow")


@dataclass
class Style:
    """How well the simulated players play (probabilities per stroke)."""

    pot: float = 0.72
    foul: float = 0.05
    miss_given: float = 0.35
    replace_after_miss: float = 0.6
    play_again: float = 0.2
    free_ball: float = 0.3
    concede_when_needing_snookers: float = 0.6


class MatchPlayer:
    """Plays one match through an Engine, yielding every event it applies."""

    def __init__(self, seed: int, style: Style | None = None) -> None:
        self.rng = random.Random(seed)
        self.style = style or Style()
        self.engine = Engine()

    def apply(self, ev: Event) -> Event:
        try:
            self.engine.apply(ev)
        except Rejected as why:  # the simulator must only ever choose lawful events
            raise AssertionError(f"simulator chose an unlawful event {ev}: {why}") from None
        return ev

    def play(
        self, players: list[Any], best_of: int, reds: int = 15, max_frames: int | None = None
    ) -> Iterator[Event]:
        yield self.apply({"ev": "match", "players": players, "best_of": best_of, "reds": reds})
        frames_started = 1
        while not self.engine.match_over:
            frame = self.engine.frame
            yield from self.play_stroke()
            if self.engine.frame != frame:
                frames_started += 1
                if max_frames is not None and frames_started > max_frames:
                    return

    # --------------------------------------------------------------- one turn at the table
    def play_stroke(self) -> Iterator[Event]:
        e, rng, style = self.engine, self.rng, self.style
        state = e.state()
        if state["respotted_black"] and e.toss_open:
            yield self.apply({"ev": "toss", "side": rng.randrange(2)})
        if self.should_concede(state):
            yield self.apply({"ev": "concede"})
            return
        on = state["ball_on"]
        if on == "colour" and state["nominated"] is None and rng.random() < 0.5:
            yield self.apply({"ev": "nominate", "ball": self.pick_colour(state)})
            state = e.state()
        if state["free_ball"] and state["nominated"] is None:
            choices = [c for c in state["colours"] if c != on]
            if choices:
                yield self.apply({"ev": "nominate", "ball": rng.choice(choices)})
                state = e.state()
        yield self.apply({"ev": "strike"})
        if rng.random() < style.foul:
            yield from self.foul_stroke(state)
            return
        if rng.random() < self.pot_chance(state):
            ball = self.target(state)
            yield self.apply({"ev": "pot", "ball": ball, "pocket": rng.choice(names.POCKETS)})
        yield self.apply({"ev": "rest"})

    def pot_chance(self, state: dict[str, Any]) -> float:
        # Long pots at the start of a visit are harder than the next ball in a break.
        return self.style.pot if state["break"] else self.style.pot * 0.6

    def target(self, state: dict[str, Any]) -> str:
        on = state["ball_on"]
        if state["free_ball"] and state["nominated"]:
            return str(state["nominated"])
        if on == "red":
            return "red"
        if on == "colour":
            return str(state["nominated"] or self.pick_colour(state))
        return str(on)

    def pick_colour(self, state: dict[str, Any]) -> str:
        colours = state["colours"]
        for _ in range(10):
            choice = self.rng.choice(COLOUR_CHOICE)
            if choice in colours:
                return choice
        return str(colours[-1])

    def foul_stroke(self, state: dict[str, Any]) -> Iterator[Event]:
        rng, style, e = self.rng, self.style, self.engine
        kind = rng.choice(("in_off", "wrong_ball_first", "no_contact", "push", "touch"))
        if kind == "in_off":
            yield self.apply({"ev": "pot", "ball": "white", "pocket": rng.choice(names.POCKETS)})
            yield self.apply({"ev": "rest"})
        else:
            yield self.apply({"ev": "rest"})
            ev: Event = {"ev": "foul", "kind": kind}
            if kind == "wrong_ball_first":
                ev["ball"] = rng.choice(state["colours"] or ["black"])
            yield self.apply(ev)
        only_black = e.reds == 0 and state["colours"] == ["black"]
        missable = kind in ("no_contact", "wrong_ball_first") and not only_black
        if missable and e.foul_open and rng.random() < style.miss_given:
            yield self.apply({"ev": "miss", "clear": rng.random() < 0.3})
            if rng.random() < style.replace_after_miss and e.miss_open:
                yield self.apply({"ev": "replace"})
                return
        if not e.foul_open or e.match_over:
            return
        if rng.random() < style.play_again:
            yield self.apply({"ev": "play_again"})
        elif rng.random() < style.free_ball and not only_black:
            yield self.apply({"ev": "free_ball"})

    def should_concede(self, state: dict[str, Any]) -> bool:
        side = state["striker"]
        needs = state["snookers_required"][side]
        return bool(needs) and self.rng.random() < self.style.concede_when_needing_snookers


def generate_match(
    seed: int,
    best_of: int = 7,
    reds: int = 15,
    players: list[Any] | None = None,
    max_frames: int | None = None,
) -> list[Event]:
    """Every input event of one simulated match, deterministic for a seed."""
    player = MatchPlayer(seed)
    return list(player.play(players or ["Ali", "Reza"], best_of, reds, max_frames))


def generate_long_match(seed: int, frames: int = 35) -> list[Event]:
    """A match that goes the full distance: best of ``frames``, every frame played.

    The side behind in frames plays better, so the match converges on a decider.
    """
    player = MatchPlayer(seed)
    events: list[Event] = []
    gen = player.play(["Ali", "Reza"], frames)
    for ev in gen:
        events.append(ev)
        e = player.engine
        behind = 0 if e.f0 < e.f1 else 1 if e.f1 < e.f0 else None
        # The trailing side gets the better cue arm.
        player.style.pot = 0.72 if behind is None or e.striker == behind else 0.45
    return events
