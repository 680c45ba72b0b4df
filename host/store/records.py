"""The rows the store takes and gives back."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from .frame_records import FrameRecord


@dataclass
class FrameResult:
    frame: int
    scores: list[int]
    winner: int


@dataclass
class BreakResult:
    side: int
    player: str | None
    frame: int
    points: int


@dataclass
class Disagreement:
    """A pocket's sensors and the referee disagreed (host/referee/sensors.py):
    ``kind`` changed, taken_back or keyed; balls and pocket by name (None:
    not known, or none)."""

    kind: str
    pocket: str | None
    sensor_ball: str | None
    keyed_ball: str | None


@dataclass
class Projection:
    """What one stored event made: the match it belongs to and what it opened
    or finished.  The shadow referee works it out (host/referee/shadow.py); the store
    writes it into ``matches``, ``frames`` and ``breaks``."""

    match_id: str | None  # the match the event belongs to (None: no context yet)
    frame: int  # the frame the event was played in
    accepted: bool  # the rules engine took it
    new_match: dict[str, Any] | None = None  # players, best_of, reds of a new match
    frames_done: list[FrameResult] = field(default_factory=list)
    breaks: list[BreakResult] = field(default_factory=list)
    match_over: bool = False
    winner: int | None = None
    # with frames_done: each frame's ball accounting and players' figures
    frame_records: list[FrameRecord] = field(default_factory=list)
    disagreements: list[Disagreement] = field(default_factory=list)

    @property
    def projects(self) -> bool:
        """Does it write anything beside its event row?"""
        return bool(
            self.new_match
            or self.frames_done
            or self.breaks
            or self.match_over
            or self.disagreements
        )


@dataclass
class EventRow:
    """One delivered reliable message of a device stream, ready to store."""

    table_id: str
    boot_id: int
    seq: int
    rx_ms: int
    ev: dict[str, Any] | None  # engine input (None for an invalid message)
    scores: list[int] | None = None
    rejected: str | None = None
    invalid: str | None = None
    src: int = 0
    cmd: int = 0
    raw: bytes | None = None
    mtype: int = 0
    applied: Projection | None = None
    action: int = 0  # the operator action it answers (event key -6)
    body: bytes | None = None  # the body's bytes as the device sent them: the chain covers them
    pocket_check: PocketCheckRow | None = None  # the stream's message was a pocket check


@dataclass
class PocketCheckRow:
    """A pocket check's result (SPEC.md ``pocket_check``), per pocket in
    names.POCKETS order, with codes as the wire has them."""

    verdicts: list[int]
    reasons: list[int]
    break_ms: list[int]
    confidence: list[int]
    read: list[int]
    cmd: int | None = None
    t: int | None = None


@dataclass
class HealthRow:
    """A table's newest sensor counts (SPEC.md ``health``)."""

    table_id: str
    rx_ms: int
    balls: list[int]
    glitches: list[int]
    unclear: list[int]
    corrections: list[int]
    unplaced: int = 0
    faulty: int = 0
    weak: int = 0
    checking: bool = False


@dataclass
class CheckpointRow:
    """A device checkpoint: the chain's head after event ``at_seq``, signed."""

    table_id: str
    boot_id: int
    seq: int
    rx_ms: int
    at_seq: int
    head: bytes
    marks: bytes
    mac: bytes
    raw: bytes | None = None
    # the money chain's head it signs, since 1.4 (host/store/money_chain.py)
    money_n: int | None = None
    money: bytes | None = None
    money_mac: bytes | None = None


@dataclass
class LinkRow:
    table_id: str
    name: str | None = None
    boot_id: int | None = None
    device_table: str | None = None
    firmware: str | None = None
    last_seen_ms: int | None = None


@dataclass
class RawRow:
    table_id: str
    rx_ms: int
    mtype: int
    seq: int
    data: bytes


@dataclass
class CommandRow:
    """An operator action, stored before it is sent.  The writer gives it its
    id, ``action``: (``epoch`` << 32) | its row id, so no two are alike even
    across daemon restarts and a store restored from a backup."""

    table_id: str
    seq: int
    mtype: int
    body: dict[str, Any]
    who: str | None
    created_ms: int
    epoch: int = 0
    action: int = 0


@dataclass
class NameFixRow:
    """Corrected player names of a match: the match event on the table cannot
    change (the device's journal is the record), so the boards, reports and
    lists show these instead."""

    match_id: str
    players: list[Any]
    who: str | None
    at_ms: int


@dataclass
class SessionWrite:
    """One change to a table session (host/club/sessions.py), written by
    host/store/club_writer.py: ``open``, ``confirm``, ``close``, ``reopen``,
    ``void``, ``correct``, ``refund``, ``reverse`` (a correction or refund
    taken back), ``item`` or ``item_back``.  Times are (wall_ms, mono_ms,
    boot) of the PC; amounts are minor units."""

    op: str
    session_id: int
    table_id: str = ""
    who: str | None = None
    wall_ms: int = 0
    mono_ms: int = 0
    boot: str = ""
    how: str = "desk"  # open: "desk" or "auto"
    tariff: dict[str, Any] | None = None  # open: the tariff it opens under
    from_event: tuple[int, int] | None = None  # open: (boot, seq) of its first event
    reason: str | None = None  # close: "desk" or "idle"; the others: the desk's reason
    amount: int = 0  # correct, refund, reverse: + or -
    payer: str | None = None  # correct, refund: who it is charged to (None: the table)
    reverses: int | None = None  # reverse, item_back: the row taken back
    item: str | None = None  # item: its name in the price list, and in Persian
    item_fa: str | None = None
    price: int = 0  # item: the price of one
    quantity: int = 0  # item: how many (item_back: minus as many)


class RowWrite(Protocol):
    """A row kind another part of the host adds to the store (the club's,
    the staff's activity log): it names itself for its refusals and the log,
    and writes itself inside the writer's transaction.  The committer holds
    it to the store's edges first (host/store/edges.py), and a write that
    still fails is refused to its caller alone."""

    KIND: ClassVar[str]

    def write(self, db: sqlite3.Connection) -> None: ...


# The row kinds beside the score path, as their refusals name them.
OTHER_KINDS: dict[type[Any], str] = {
    LinkRow: "link",
    RawRow: "raw frame",
    CommandRow: "operator action",
    NameFixRow: "name correction",
    SessionWrite: "table session change",
    HealthRow: "sensor health report",
}


def kind_of(row: object) -> str:
    """What a row is, for a refusal: "operator action", "table session change"..."""
    kind = OTHER_KINDS.get(type(row)) or getattr(row, "KIND", None)
    return kind if isinstance(kind, str) else type(row).__name__


@dataclass
class Batch:
    """What one transaction writes.  The score path first: the devices'
    events and checkpoints, which are never refused; then every other kind,
    each row of which may be refused alone (host/store/writer.py)."""

    events: list[EventRow] = field(default_factory=list)
    links: list[LinkRow] = field(default_factory=list)
    raws: list[RawRow] = field(default_factory=list)
    commands: list[CommandRow] = field(default_factory=list)
    name_fixes: list[NameFixRow] = field(default_factory=list)
    sessions: list[SessionWrite] = field(default_factory=list)
    checkpoints: list[CheckpointRow] = field(default_factory=list)
    health: list[HealthRow] = field(default_factory=list)
    writes: list[RowWrite] = field(default_factory=list)  # the other parts' own kinds

    def __len__(self) -> int:
        return len(self.events) + len(self.checkpoints) + len(self.others())

    def __add__(self, later: Batch) -> Batch:
        return Batch(
            self.events + later.events,
            self.links + later.links,
            self.raws + later.raws,
            self.commands + later.commands,
            self.name_fixes + later.name_fixes,
            self.sessions + later.sessions,
            self.checkpoints + later.checkpoints,
            self.health + later.health,
            self.writes + later.writes,
        )

    def score_part(self) -> Batch:
        """The devices' stream alone: what is never refused."""
        return Batch(events=list(self.events), checkpoints=list(self.checkpoints))

    def others(self) -> list[Any]:
        """Every row beside the score path, in the order they are written."""
        return [
            *self.links,
            *self.raws,
            *self.commands,
            *self.name_fixes,
            *self.sessions,
            *self.health,
            *self.writes,
        ]

    @classmethod
    def of(cls, row: Any) -> Batch:
        """A batch of one row beside the score path."""
        b = cls()
        b.add(row)
        return b

    def add(self, row: Any) -> None:
        for name, kind in _LISTS:
            if isinstance(row, kind):
                getattr(self, name).append(row)
                return
        self.writes.append(row)


_LISTS: tuple[tuple[str, type[Any]], ...] = (
    ("links", LinkRow),
    ("raws", RawRow),
    ("commands", CommandRow),
    ("name_fixes", NameFixRow),
    ("sessions", SessionWrite),
    ("health", HealthRow),
    ("events", EventRow),
    ("checkpoints", CheckpointRow),
)


@dataclass
class StoredEvent:
    id: int
    table_id: str
    boot_id: int
    seq: int
    rx_ms: int
    ev: dict[str, Any] | None
    scores: list[int] | None
    rejected: str | None
    invalid: str | None
    src: int = 0  # protocol/SPEC.md event key -4: 0 a sensor, 1 the keypad, 2 the host
