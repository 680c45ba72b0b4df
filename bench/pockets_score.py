"""How bench/pockets.py scores what the firmware made of each modelled pot.

A trial is one visit of one pocket: the balls that went in (``truth``, in the
order they passed the sensor; none for a bump of the table or a bounce-out),
the pots the firmware recorded in that trial (``recorded``: [pocket, ball]
pairs, from the events the host received), and the referee's answers to the
questions it was asked (``answers``: a ball, or None for BACK).

Per trial:

* counted right: the pots recorded at that pocket are as many as the balls
  that went in (after the referee's answers), and none at another pocket;
* identity right: recorded with the right balls and no question asked;
* asked: a question was asked;
* silent wrong: a recorded ball differs from the truth with no question asked,
  or a pot was recorded where no ball went, without a question;
* missed / extra: balls that went in and were not recorded / pots recorded
  beyond the balls.

The confusion pairs are the silent wrongs, (true ball, recorded ball); "none"
where no ball went in.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

GOAL_COUNTED = 99.9  # percent of pots, at least
GOAL_SILENT = 0.05  # percent of pots, at most
GOAL_ASKED = 2.0  # percent of pots, at most


def _minus(a: list[str], b: list[str]) -> list[str]:
    """a less b, as multisets, in a's order."""
    left = Counter(b)
    out = []
    for x in a:
        if left[x]:
            left[x] -= 1
        else:
            out.append(x)
    return out


@dataclass
class Verdict:
    counted: bool
    identity: bool
    asked: bool
    silent: list[tuple[str, str]]  # (true, recorded) of each silent wrong
    missed: int
    extra: int


def judge(trial: dict[str, Any]) -> Verdict:
    pocket = trial["pocket"]
    truth = list(trial["truth"])
    here = [b for p, b in trial["recorded"] if p == pocket]
    stray = [b for p, b in trial["recorded"] if p != pocket]
    answers = trial["answers"]
    asked = len(answers) > 0
    named = [a for a in answers if a is not None]
    # The answered pots are the referee's: they take their balls first.
    answered = _minus(named, _minus(named, here))  # named and recorded
    unasked = _minus(here, answered)
    left = _minus(truth, answered)
    wrong = _minus(unasked, left)  # recorded, unasked, matching no ball that went in
    unmatched = _minus(left, unasked)  # the balls they stand for, in passage order
    silent = []
    for i, rec in enumerate(wrong):
        silent.append((unmatched[i] if i < len(unmatched) else "none", rec))
    silent.extend(("none", rec) for rec in stray)
    return Verdict(
        counted=len(here) == len(truth) and not stray,
        identity=not asked and not stray and sorted(here) == sorted(truth),
        asked=asked,
        silent=silent,
        missed=max(0, len(truth) - len(here)),
        extra=max(0, len(here) - len(truth)) + len(stray),
    )


@dataclass
class Tally:
    pots: int = 0
    balls: int = 0
    counted: int = 0
    identity: int = 0
    asked: int = 0
    silent: int = 0  # pots with at least one silent wrong
    missed: int = 0
    extra: int = 0
    confusion: Counter[tuple[str, str]] = field(default_factory=Counter)

    def add(self, trial: dict[str, Any]) -> Verdict:
        v = judge(trial)
        self.pots += 1
        self.balls += len(trial["truth"])
        self.counted += v.counted
        self.identity += v.identity
        self.asked += v.asked
        self.silent += bool(v.silent)
        self.missed += v.missed
        self.extra += v.extra
        self.confusion.update(v.silent)
        return v

    def merge(self, other: Tally) -> None:
        for k in ("pots", "balls", "counted", "identity", "asked", "silent", "missed", "extra"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.confusion.update(other.confusion)

    def pct(self, n: int) -> float:
        return 100.0 * n / self.pots if self.pots else 0.0

    def goal_met(self) -> bool:
        return (
            self.pct(self.counted) >= GOAL_COUNTED
            and self.pct(self.silent) <= GOAL_SILENT
            and self.pct(self.asked) <= GOAL_ASKED
        )

    def figures(self) -> dict[str, Any]:
        return {
            "pots": self.pots,
            "balls": self.balls,
            "counted": self.counted,
            "identity": self.identity,
            "asked": self.asked,
            "silent_wrong": self.silent,
            "missed": self.missed,
            "extra": self.extra,
            "counted_pct": round(self.pct(self.counted), 3),
            "identity_pct": round(self.pct(self.identity), 3),
            "asked_pct": round(self.pct(self.asked), 3),
            "silent_wrong_pct": round(self.pct(self.silent), 3),
            "confusion": {f"{t}->{r}": n for (t, r), n in sorted(self.confusion.items())},
            "goal_met": self.goal_met(),
        }


def tally(trials: list[dict[str, Any]]) -> Tally:
    t = Tally()
    for trial in trials:
        t.add(trial)
    return t
