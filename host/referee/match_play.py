"""A match's play as the rules engine's undo leaves it: every stroke (who
played it, when, what it potted, what it scored, its foul) and every referee
action between strokes, with where each pot came from (a pocket sensor or a
hand on the keypad or the console).

The shadow referee (host/referee/shadow.py) hands it every event it applies, live,
when the daemon restores a table and in ``baulk rebuild``; at a frame's end it
gives the frame's play to host/referee/frame_figures.py, which works out the ball
accounting and the players' figures.

Undo.  The engine takes back whole actions: a stroke, from ``strike`` to
``rest`` with every foul, miss and hanging ball called on it (even late), or
one referee event between strokes (docs/ENGINE.md, "Undo").  The play keeps
the same actions and drops the last one on every ``undo`` the engine takes,
so a stroke taken back counts for nothing; its sensor pots are noted as taken
back, against their pockets.  A pot with no stroke open that is no late call
is a ball that fell by itself and was put back (R3.12.1): not an action, so
undo never takes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from baulk.firmware import names
from baulk.firmware.engine import LOG_EVENTS, Engine
from baulk.host.store.frame_records import match_members
from baulk.protocol.messages import SRC_SENSOR

_NO_FOUL = -1
_OUT_OF_TURN = names.code_of(names.FOUL_KINDS, "out_of_turn")
_SENSOR: int = SRC_SENSOR
_RED = names.BALLS[0]
# A colour's bit in the engine's ``colours`` mask is its ball code.
COLOUR_BIT = {c: 1 << names.code_of(names.BALLS, c) for c in names.COLOURS}
# Calls after which the table is racked again: the next stroke is a break-off
# and starts a new visit.
RACKS_AGAIN = ("rerack",)
# Bounds of what one frame keeps beside its actions (a sensor that fires for
# ever must not grow the host's memory).
MAX_NOTES = 1000


class Pot(NamedTuple):
    ball: str
    pocket: str | None
    src: int
    seq: int

    @property
    def by_sensor(self) -> bool:
        return self.src == _SENSOR


class Stroke:
    """One stroke: its striker, its times on the device's clock, its pots and
    how it was settled (again after a late call).  It keeps what the engine
    said when it settled; what that means is worked out at the frame's end."""

    __slots__ = (
        "brk_after",
        "colours_after",
        "colours_at_strike",
        "ended",
        "foul",
        "frame",
        "last_t",
        "member",
        "offs",
        "pots",
        "reds_at_strike",
        "rest_t",
        "score_after",
        "score_before",
        "shot_ms",
        "side",
        "strike_t",
        "voided",
    )

    def __init__(
        self,
        frame: int,
        side: int,
        member: int,
        score_before: int,
        reds: int,
        colours: int,
        strike_t: int | None,
        shot_ms: int | None,
    ) -> None:
        self.frame = frame
        self.side = side
        self.member = member
        self.score_before = score_before
        self.score_after = score_before
        self.reds_at_strike = reds
        self.colours_at_strike = colours
        self.colours_after = colours
        self.strike_t = strike_t
        self.shot_ms = shot_ms  # from the previous stroke's rest (None: not known)
        self.rest_t: int | None = None
        self.last_t = strike_t
        self.pots: list[Pot] = []
        self.offs: list[Pot] = []
        self.brk_after = 0  # the striker's break once settled: 0 ends his visit
        self.foul: tuple[int, int, str, int] | None = None  # side, member, kind, points
        self.voided = False  # replayed after a ball fell from the edge (R3.12.2)
        self.ended = False  # it ended the frame

    @property
    def points(self) -> int:
        """What the striker scored (nothing on a foul)."""
        return 0 if self.foul is not None else self.score_after - self.score_before

    @property
    def respotted(self) -> int:
        """Colours it potted or forced off that went back on their spots."""
        return 0 if self.ended else (self.left_mask() & self.colours_after).bit_count()

    def left_mask(self) -> int:
        """The colours this stroke potted or forced off."""
        mask = 0
        for p in self.pots:
            mask |= COLOUR_BIT.get(p.ball, 0)
        for p in self.offs:
            mask |= COLOUR_BIT.get(p.ball, 0)
        return mask

    def reds_left(self) -> int:
        return sum(p.ball == _RED for p in self.pots) + sum(p.ball == _RED for p in self.offs)

    def end_inventory(self) -> tuple[int, int]:
        """(reds, colours) on the table once this stroke's balls had gone."""
        left = (self.colours_at_strike & ~self.left_mask()).bit_count()
        return self.reds_at_strike - self.reds_left(), left


class Call:
    """A referee action between strokes (free ball, replace, concede, ...)."""

    __slots__ = ("ended", "frame", "inventory_before", "last_t", "name", "returned", "voids")

    def __init__(self, frame: int, name: str, t: int | None, inventory: tuple[int, int]) -> None:
        self.frame = frame
        self.name = name
        self.last_t = t
        self.inventory_before = inventory
        self.returned = 0  # balls it put back on the table
        self.voids: Stroke | None = None  # edge_replace: the stroke replayed
        self.ended = False

    def end_inventory(self) -> tuple[int, int]:
        return self.inventory_before


Action = Stroke | Call


@dataclass
class FrameNotes:
    """What a frame saw outside its actions: balls that fell by themselves
    and were put back, sensor pots the rules refused, sensor pots undone."""

    fell: list[Pot] = field(default_factory=list)
    refused: list[Pot] = field(default_factory=list)
    undone: list[Pot] = field(default_factory=list)

    def note(self, where: list[Pot], pot: Pot) -> None:
        if len(where) < MAX_NOTES:
            where.append(pot)


@dataclass
class FramePlay:
    """One finished frame's play, for host/referee/frame_figures.py."""

    frame: int
    actions: list[Action]
    notes: FrameNotes
    players: list[tuple[int, int, str]]  # (side, member, name) of everyone in the match
    reds: int  # reds of the variant
    doubles: bool


# What the play needs of the engine from just before an event: (stroke open,
# frame, reds, colours mask, snapshot).  The snapshot is taken only for a pot
# between strokes.  A plain tuple: it is made for every event the host sees.
Before = tuple[bool, int, int, int, tuple[Any, ...] | None]


class MatchPlay:
    """The effective actions of the current match."""

    def __init__(self) -> None:
        self.actions: list[Action] = []
        self.notes: dict[int, FrameNotes] = {}
        self.players: list[tuple[int, int, str]] = []
        self.reds = 15
        self.doubles = False
        self.ended_by: Action | None = None
        self._undone_since_rest = True
        self._open: Stroke | None = None

    # ------------------------------------------------------------------ following the engine
    def before(self, e: Engine, name: Any) -> Before:
        if e.stroke_open:
            return (True, e.frame, e.reds, e.colours, None)
        return (False, e.frame, e.reds, e.colours, e.snapshot() if name == "pot" else None)

    def after(
        self,
        e: Engine,
        ev: dict[str, Any],
        src: int,
        seq: int,
        b: Before,
        accepted: bool,
        ended: bool,
    ) -> None:
        """Follow one event the engine took (or refused).  ``ended``: it
        ended a frame."""
        name = ev.get("ev")
        was_open, frame, reds, colours, snapshot = b
        if not accepted:
            if name == "pot" and src == _SENSOR:
                notes = self._notes(frame)
                notes.note(notes.refused, self._pot(ev, src, seq))
            return
        t = ev.get("t")
        if type(t) is not int:  # (a bool is no time either)
            t = None
        action: Action | None
        if name == "match":
            self._start(e)
            return
        if name == "undo":
            self._undo()
            return
        if was_open:
            action = self._open
        elif name in ("foul", "miss") or (name == "pot" and e.snapshot() != snapshot):
            action = self._last_stroke()  # a late call: the engine settled that stroke again
        elif name == "pot":
            notes = self._notes(frame)  # R3.12.1: fell by itself, put back
            notes.note(notes.fell, self._pot(ev, src, seq))
            return
        elif name == "strike":
            action = self._strike(e, frame, reds, colours, t)
        else:
            action = self._call(e, frame, reds, colours, str(name), t, ended)
        if type(action) is Stroke:
            self._stroke_event(action, e, name, ev, src, seq, t, ended)
        if ended and action is not None:
            action.ended = True
            self.ended_by = action

    def frame_play(self, frame: int, scores: list[int]) -> FramePlay:
        """The play of a frame that has just ended with these scores."""
        s = self.ended_by
        if isinstance(s, Stroke):
            # The engine has already racked the next frame: the stroke that
            # ended the frame took its side to the final score.
            s.score_after = scores[s.side]
            s.brk_after = 0
        return FramePlay(
            frame,
            [a for a in self.actions if a.frame == frame],
            self.notes.get(frame, FrameNotes()),
            list(self.players),
            self.reds,
            self.doubles,
        )

    # ------------------------------------------------------------------ the actions
    def _start(self, e: Engine) -> None:
        self.actions = []
        self.notes = {}
        self.reds = e.reds_per_frame
        self.doubles = bool(e.doubles)
        self.players = match_members(e.players)
        self.ended_by = None
        self._undone_since_rest = True
        self._open = None

    def _notes(self, frame: int) -> FrameNotes:
        notes = self.notes.get(frame)
        if notes is None:
            notes = self.notes[frame] = FrameNotes()
        return notes

    @staticmethod
    def _pot(ev: dict[str, Any], src: int, seq: int) -> Pot:
        pocket = ev.get("pocket")
        return Pot(str(ev.get("ball")), pocket if isinstance(pocket, str) else None, src, seq)

    def _push(self, action: Action) -> None:
        actions = self.actions
        actions.append(action)
        if len(actions) > 2 * LOG_EVENTS:
            # The engine's undo reaches at most LOG_EVENTS events back: older
            # actions can only still matter to the frame being played.
            cut, current, k = len(actions) - LOG_EVENTS, action.frame, 0
            while k < cut and actions[k].frame < current:
                k += 1
            del actions[:k]
            for frame in [f for f in self.notes if f < current - 1]:
                del self.notes[frame]

    def _last_stroke(self) -> Stroke | None:
        for a in reversed(self.actions):
            if isinstance(a, Stroke):
                return a
        return None

    def _strike(self, e: Engine, frame: int, reds: int, colours: int, t: int | None) -> Stroke:
        side = e.striker
        member = e.member_at(e.pos) if e.doubles else 0
        shot = None
        if t is not None and not self._undone_since_rest:
            prev = self._previous_stroke(frame)
            if prev is not None and prev.rest_t is not None and t >= prev.rest_t:
                shot = t - prev.rest_t
        s = Stroke(frame, side, member, e.score_of(side), reds, colours, t, shot)
        self._open = s
        self._push(s)
        return s

    def _previous_stroke(self, frame: int) -> Stroke | None:
        """The stroke before this one in the same rack (None: a break-off)."""
        for a in reversed(self.actions):
            if a.frame != frame or (isinstance(a, Call) and a.name in RACKS_AGAIN):
                return None
            if isinstance(a, Stroke):
                return a
        return None

    def _stroke_event(
        self,
        s: Stroke,
        e: Engine,
        name: Any,
        ev: dict[str, Any],
        src: int,
        seq: int,
        t: int | None,
        ended: bool,
    ) -> None:
        if t is not None:
            s.last_t = t
        if name == "pot":
            s.pots.append(self._pot(ev, src, seq))
        elif name == "off":
            s.offs.append(self._pot(ev, src, seq))
        elif name == "rest":
            s.rest_t = t
            self._undone_since_rest = False
        if e.stroke_open and not ended:
            return
        self._open = None
        # Settled (by its rest, or again by a late call).  A stroke that ended
        # the frame finds the engine already on the next frame: its score
        # comes with the frame's final score (frame_play).
        if not ended:
            s.brk_after = e.brk
            s.colours_after = e.colours
            s.score_after = e.s0 if s.side == 0 else e.s1
        kind = e.foul_kind
        if kind == _NO_FOUL:
            s.foul = None
        else:
            member = s.member
            if kind == _OUT_OF_TURN:
                # docs/ENGINE.md: singles, the other player; doubles, the partner.
                member = 1 - s.member if self.doubles else 0
            s.foul = (e.foul_side, member, names.FOUL_KINDS[kind], e.foul_points)

    def _call(
        self, e: Engine, frame: int, reds: int, colours: int, name: str, t: int | None, ended: bool
    ) -> Call:
        c = Call(frame, name, t, (reds, colours.bit_count()))
        if not ended:
            c.returned = max(0, e.reds + e.colours.bit_count() - reds - colours.bit_count())
        if name == "edge_replace":
            c.voids = self._last_stroke()
            if c.voids is not None:
                c.voids.voided = True
        self._push(c)
        return c

    def _undo(self) -> None:
        self._undone_since_rest = True
        self._open = None
        if not self.actions:
            return
        a = self.actions.pop()
        if a is self.ended_by:
            self.ended_by = None
        if isinstance(a, Stroke):
            notes = self._notes(a.frame)
            for p in a.pots:
                if p.by_sensor:
                    notes.note(notes.undone, p)
        elif a.voids is not None:
            a.voids.voided = False
