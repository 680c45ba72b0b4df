"""The shadow referee: the device's raw inputs replayed through the very same
rules engine (``baulk.firmware.engine``), compared with what the device said.

The device is authoritative (docs/DESIGN.md, "Principles").  The shadow never changes
what the boards show the device scored; it raises an alert when the two
disagree, and it projects what the store keeps beside the events: the match a
``match`` event opens, the frames finished (with their ball accounting and
the players' figures: host/referee/match_play.py, host/referee/frame_figures.py), the breaks
of 50 and over, and the break in progress as the balls that made it.

The same class runs live in the daemon and, over the stored events, in
``baulk rebuild``: one projection, so a rebuilt store equals the live one.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass
from typing import Any

from baulk.firmware import names
from baulk.firmware.engine import Engine, Rejected
from baulk.host.name_rules import shown_players
from baulk.host.referee.frame_figures import frame_record
from baulk.host.referee.match_play import MatchPlay
from baulk.host.referee.sensors import SensorLog
from baulk.host.store import BreakResult, FrameResult, Projection
from baulk.protocol.messages import SRC_SENSOR

log = logging.getLogger("baulk.shadow")

REPORT_BREAK = 50  # breaks of this and over go into the store and the reports
MAX_ALERTS = 20
# State keys of the device's snapshot that the shadow cross-checks.
CHECKED_KEYS = (
    "frame",
    "frames",
    "scores",
    "striker",
    "reds",
    "colours",
    "ball_on",
    "nominated",
    "free_ball",
    "break",
    "highest_break",
    "points_remaining",
    "snookers_required",
    "respot",
    "respotted_black",
    "in_hand",
    "frame_over",
    "match_over",
    "frame_winner",
    "match_winner",
)

Event = dict[str, Any]


@dataclass
class Applied(Projection):
    """What one device event did, as the shadow saw it: what the store
    projects from it, and the alert when the device disagreed."""

    alert: str | None = None


def ball_value(ball: str) -> int:
    code = names.code_of(names.BALLS, ball)
    return names.BALL_VALUES[code] if code >= 0 else 0


def describe(ev: Event) -> str:
    """A short human form of an input event, for alerts and logs."""
    parts = [str(ev.get("ev"))]
    for key in ("ball", "kind", "side", "pocket"):
        if key in ev:
            parts.append(str(ev[key]))
    return " ".join(parts)


class ShadowReferee:
    """Replays one table's event stream through its own Engine."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.engine = Engine()
        self.match_id: str | None = None
        self.last_key: tuple[int, int] | None = None  # (boot, seq) applied last
        self.alerts: deque[dict[str, Any]] = deque(maxlen=MAX_ALERTS)
        self.mismatches = 0
        self.events = 0
        # break in progress: (ball, points credited) in the order potted
        self.break_balls: list[tuple[str, int]] = []
        self._credited = 0
        self._stroke_pots: list[str] = []
        self.miss_called = False  # a miss was called on the last stroke
        self.last_event: Event | None = None
        self._state: dict[str, Any] | None = None
        self.play = MatchPlay()  # the match's strokes as undo leaves them
        self.sensors = SensorLog()  # the sensors' pots undo may take back
        # Not judged: the rules engine the table's hello names, when this
        # host does not run it ({"table": N, "host": M}), or None.  The shadow
        # still follows the match, and raises nothing rather than false alarms.
        self.not_judged: dict[str, int] | None = None
        self.unjudged = 0  # differences it would have raised meanwhile

    # ------------------------------------------------------------------ applying
    @property
    def in_context(self) -> bool:
        """True once a ``match`` event was seen: the shadow can check."""
        return bool(self.engine.active)

    def apply(
        self,
        ev: Event,
        key: tuple[int, int],
        device_scores: list[int] | None = None,
        device_rejected: str | None = None,
        at_ms: int = 0,
        src: int = SRC_SENSOR,
    ) -> Applied:
        """Apply one event the device reported (``src``: where it came from,
        a sensor, the keypad or the host); compare with its result."""
        e = self.engine
        self.events += 1
        self.last_key = key
        self._state = None
        name = ev.get("ev")
        if name == "match":
            self.match_id = f"{self.table_id}-{key[0]}-{key[1]}"
            # The table's names are the record; what the host shows of them
            # (boards, reports, the player pages, the handset) keeps to the
            # name rules, as a name typed at the desk does.
            ev = {**ev, "players": shown_players(ev.get("players"))}
        prev_frame, prev_hist = e.frame, e.hist_len
        prev_side, prev_brk = (e.striker if e.active else 0), e.brk
        prev_scores = (e.s0, e.s1)
        was_over = e.match_over
        context = self.in_context or name == "match"
        accepted = True
        reason: str | None = None
        before = self.play.before(e, name)
        log_len = e.log_len
        try:
            e.apply(ev)
        except Rejected as why:
            accepted = False
            reason = str(why)
        out = Applied(self.match_id if context else None, prev_frame, accepted)
        if not context:
            return out  # joined mid-match: nothing to check until the next match
        if accepted:
            self.last_event = ev
        # Compare with the device (its result is the truth).
        if device_rejected is not None and accepted:
            out.alert = (
                f"the device refused '{describe(ev)}' ({device_rejected}); the shadow took it"
            )
        elif device_rejected is None and not accepted:
            out.alert = f"the shadow refuses '{describe(ev)}' ({reason}); the device took it"
        elif (
            device_scores is not None
            and list(device_scores) != [e.s0, e.s1]
            and not (e.match_over and list(device_scores) == self._final_scores())
        ):
            out.alert = (
                f"after '{describe(ev)}' the device has {device_scores[0]}-{device_scores[1]},"
                f" the shadow {e.s0}-{e.s1}"
            )
        if out.alert:
            self._raise(out.alert, key, at_ms)
        for n in range(prev_hist, e.hist_len):
            i = n * 3
            out.frames_done.append(
                FrameResult(n + 1, [e.history[i], e.history[i + 1]], e.history[i + 2])
            )
        self.play.after(e, ev, src, key[1], before, accepted, bool(out.frames_done))
        for f in out.frames_done:
            out.frame_records.append(frame_record(self.play.frame_play(f.frame, f.scores), f))
        if not accepted:
            return out
        out.disagreements = self.sensors.after(e, ev, src, log_len)
        if name == "match":
            out.new_match = {
                "players": ev.get("players"),
                "best_of": ev.get("best_of"),
                "reds": ev.get("reds", 15),
                "breaker": ev.get("breaker", 0),
            }
            self.break_balls, self._credited, self._stroke_pots = [], 0, []
            return out
        if name != "undo":
            ended = self._break_ended(prev_frame, prev_side, prev_brk, prev_scores, out)
            if ended >= REPORT_BREAK:
                out.breaks.append(
                    BreakResult(prev_side, self._name_of(prev_side), prev_frame, ended)
                )
        if e.match_over and not was_over:
            out.match_over = True
            out.winner = e.match_winner if e.match_winner >= 0 else None
        self._track_break(ev)
        return out

    def _final_scores(self) -> list[int]:
        e = self.engine
        if e.hist_len:
            i = (e.hist_len - 1) * 3
            return [e.history[i], e.history[i + 1]]
        return [e.s0, e.s1]

    def _break_ended(
        self,
        prev_frame: int,
        side: int,
        prev_brk: int,
        prev_scores: tuple[int, int],
        out: Applied,
    ) -> int:
        """Points of the break that this event ended, or 0."""
        e = self.engine
        if out.frames_done:
            # The frame ended: the state is already the next frame's, so the
            # last ball of the break is only in the finished frame's score.
            final = out.frames_done[0].scores[side]
            return prev_brk + max(final - prev_scores[side], 0)
        if prev_brk == 0:
            return 0
        if e.striker == side and e.brk >= prev_brk:
            return 0  # the break goes on
        return prev_brk

    def _name_of(self, side: int) -> str | None:
        players = self.engine.players
        if not players:
            return None
        p = players[side]
        return " & ".join(p) if isinstance(p, list) else str(p)

    def _track_break(self, ev: Event) -> None:
        """Keep the balls of the break in progress (for the ball icons)."""
        name = ev.get("ev")
        if name == "strike":
            self._stroke_pots = []
            self.miss_called = False
        elif name == "pot" and ev.get("ball") != "white" and self.engine.stroke_open:
            self._stroke_pots.append(str(ev.get("ball")))
        elif name == "miss":
            self.miss_called = True
        brk = self.engine.brk
        if brk == 0:
            self.break_balls, self._credited = [], 0
            return
        if brk > self._credited and not self.engine.stroke_open:
            gained = brk - self._credited
            pots = self._stroke_pots or ["red"]
            self._stroke_pots = []
            for i, ball in enumerate(pots):
                points = gained if i == len(pots) - 1 else min(ball_value(ball), gained)
                gained -= points
                self.break_balls.append((ball, points))
            self._credited = brk
        while brk < self._credited and self.break_balls:  # undo took points back
            _, points = self.break_balls.pop()
            self._credited -= points

    def _raise(self, text: str, key: tuple[int, int], at_ms: int) -> None:
        if self.not_judged is not None:
            self.unjudged += 1
            return
        self.mismatches += 1
        alert = {"text": text, "boot": key[0], "seq": key[1], "at_ms": at_ms}
        self.alerts.append(alert)
        log.warning("table %s: shadow referee mismatch at seq %d: %s", self.table_id, key[1], text)

    # ------------------------------------------------------------------ comparing
    def compare_state(self, device_state: dict[str, Any], at_ms: int = 0) -> str | None:
        """Check the device's snapshot (taken after the last applied event)."""
        if not self.in_context:
            return None
        mine = self.state()
        for k in CHECKED_KEYS:
            if k in device_state and device_state[k] != mine.get(k):
                text = f"state differs on '{k}': device {device_state[k]!r}, shadow {mine.get(k)!r}"
                self._raise(text, self.last_key or (0, 0), at_ms)
                return text
        return None

    def state(self) -> dict[str, Any]:
        """The shadow engine's state (computed once per change)."""
        if self._state is None:
            st = self.engine.state()
            st.pop("rejected", None)
            self._state = st
        return self._state

    def board_extras(self) -> dict[str, Any]:
        """What the boards show beyond the engine state."""
        return {
            "break_balls": [b for b, _ in self.break_balls],
            "miss": self.miss_called,
            "last_event": self.last_event,
            "verified": self.in_context and self.not_judged is None,
            "not_judged": self.not_judged,
            "alerts": list(self.alerts),
        }
