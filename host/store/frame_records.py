"""What a finished frame makes beside its score: the ball accounting and each
player's figures.  The shadow referee works them out from the events
(host/referee/frame_figures.py); the store keeps them
(host/store/stats_schema.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Where a pot came from, as the account shows it (protocol/SPEC.md, event key
# -4 src: 0 a sensor, 1 the keypad, 2 a host command, 3 the device itself).
SOURCE_NAMES = ("sensor", "keypad", "host", "device")
NO_POCKET = "none"  # a pot keyed without its pocket


def source_name(src: int) -> str:
    return SOURCE_NAMES[src] if 0 <= src < len(SOURCE_NAMES) else "device"


def match_members(players: Any) -> list[tuple[int, int, str]]:
    """(side, member, name) of a match's players: ``member`` is 0 in singles,
    the partner's index in doubles."""
    out: list[tuple[int, int, str]] = []
    for side, entry in enumerate(players if isinstance(players, list | tuple) else ()):
        names = entry if isinstance(entry, list | tuple) else [entry]
        out += [(side, member, str(name)) for member, name in enumerate(names)]
    return out


@dataclass
class PocketCount:
    """One pocket's sensor in one frame: balls it saw, balls keyed by hand
    for it (it did not see them), its pots the referee took back with undo,
    and its pots the rules refused (no such ball was on the table).  Every
    ball counts, the cue ball too: the sensor does not know the difference."""

    sensor: int = 0
    keyed: int = 0
    undone: int = 0
    refused: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "sensor": self.sensor,
            "keyed": self.keyed,
            "undone": self.undone,
            "refused": self.refused,
        }


@dataclass
class BallAccount:
    """A frame's object balls: what must have left the table against what
    was recorded leaving it.

    Must have left: the reds that went down for good (the variant's reds
    less those still on the table when the frame ended), the colours taken
    for good, every colour re-spotted (it left once more), and every ball put
    back on the table (a miss replaced, a stroke replayed, a ball that fell
    by itself, a re-rack).  Recorded: every pot and every ball forced off in
    the frame's play as undo left it, by a sensor or keyed by hand.
    """

    reds: int  # reds of the variant (15, 10 or 6)
    reds_down: int
    colours_down: int
    respots: int
    returned: int
    sensor: int  # object balls a sensor recorded (pocket beam or rail)
    keyed: int  # object balls keyed by hand (keypad or console)
    pockets: dict[str, PocketCount] = field(default_factory=dict)
    keyed_pots: list[dict[str, Any]] = field(default_factory=list)

    @property
    def must_leave(self) -> int:
        return self.reds_down + self.colours_down + self.respots + self.returned

    @property
    def recorded(self) -> int:
        return self.sensor + self.keyed

    @property
    def balanced(self) -> bool:
        return self.must_leave == self.recorded


@dataclass
class PlayerFrame:
    """One player's figures in one frame (doubles: each partner his own)."""

    side: int
    member: int  # 0, or the partner's index in doubles
    name: str
    won: bool
    strokes: int = 0
    shots_ms: list[int] = field(default_factory=list)  # time from the last rest to his strike
    visits: int = 0
    visit_points: int = 0
    breaks: list[int] = field(default_factory=list)  # every visit's points
    fouls: dict[str, list[int]] = field(default_factory=dict)  # kind: [count, points]


@dataclass
class FrameRecord:
    frame: int
    frame_ms: int | None  # break-off strike to the event that ended it (device clock)
    account: BallAccount
    players: list[PlayerFrame]
