"""The store's edges: what a row must hold before it reaches the committer,
and what a caller hears when the store cannot keep its row.

The score path comes first (docs/DESIGN.md, "Nothing is lost"): no row of
another kind, whatever its value and whatever the bug that made it, may stop
the devices' events from being stored and acknowledged.  So every row is
held here to what SQLite and the store's JSON can keep (integers within 64
bits, text that is valid UTF-8, finite numbers, bounded sizes and depth)
before it joins a batch:

* a row of the club, the staff, the operator's actions, names, health or
  links that fails is refused to its caller at once (:class:`StoreRefused`),
  and nothing of it is stored;
* an event row is never refused: what of it cannot be kept as decoded is
  left out and said in its ``invalid`` column (its bytes are kept, for the
  record), and a projection that cannot be kept is dropped with an alert
  (``baulk rebuild`` makes it again from the events).

The writer (:mod:`.writer`) narrows a batch that still fails to the row that
fails, so a row that passes here and fails in SQL (a bug) is refused there
the same way.
"""

from __future__ import annotations

import dataclasses
import math

from baulk.host.errors import ActionError, Refusal
from baulk.host.sentences import Message
from baulk.protocol import messages

from .records import CheckpointRow, EventRow, Projection

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
TEXT_MOST = 65_536  # characters in one text value
BLOB_MOST = 65_536  # bytes in one byte string
DEPTH_MOST = 12  # lists and maps inside each other
VALUES_MOST = 100_000  # values in one row, every level counted
_EVENT_INTS = ("boot_id", "seq", "rx_ms", "src", "cmd", "mtype", "action")


class StoreRefused(ActionError):
    """The store cannot keep this row: its value is beyond what the store
    keeps (bad input, refused at the edge), or writing it failed (the host
    failed: a bug the writer narrowed down to it).  Nothing of it was stored."""


class StoreFailing(ActionError):
    """The store cannot write now (a full disk, a broken file): nothing of
    the row was stored.  The tables keep their events until it can."""

    def __init__(self, why: str) -> None:
        super().__init__(
            Refusal.UNAVAILABLE,
            Message("the store cannot write: {text}; nothing was changed", text=why),
        )
        self.why = why


def refused_at_edge(kind: str, why: str) -> StoreRefused:
    return StoreRefused(
        Refusal.BAD_INPUT,
        Message(
            "the store cannot keep this {row}: {text}; nothing was changed", row=kind, text=why
        ),
    )


def refused_by_writer(kind: str, why: str) -> StoreRefused:
    return StoreRefused(
        Refusal.FAILED,
        Message(
            "the store could not write this {row}: {text}; nothing was changed", row=kind, text=why
        ),
    )


def _scalar(v: object) -> str | None:
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, int):
        return None if INT64_MIN <= v <= INT64_MAX else "an integer beyond 64 bits"
    if isinstance(v, float):
        return None if math.isfinite(v) else "a number that is not finite"
    if isinstance(v, str):
        if len(v) > TEXT_MOST:
            return f"a text longer than {TEXT_MOST:,} characters"
        try:
            v.encode()
        except UnicodeEncodeError:
            return "a text that is not valid Unicode (a lone surrogate)"
        return None
    if isinstance(v, bytes | bytearray | memoryview):
        return None if len(v) <= BLOB_MOST else f"bytes longer than {BLOB_MOST:,}"
    return f"a value of type {type(v).__name__}"


def unstorable(value: object) -> str | None:
    """Why the store cannot keep ``value`` (a row, a projection, a JSON-like
    value), naming the field: None when it can.  A walk with its own stack,
    bounded in depth and in the values it looks at."""
    stack: list[tuple[str, object, int]] = [("", value, 0)]
    seen = 0
    while stack:
        where, v, depth = stack.pop()
        seen += 1
        if seen > VALUES_MOST:
            return f"more than {VALUES_MOST:,} values"
        if depth > DEPTH_MOST:
            return f"{where or 'it'}: nested more than {DEPTH_MOST} deep"
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            for f in dataclasses.fields(v):
                stack.append((f"{where}.{f.name}" if where else f.name, getattr(v, f.name), depth))
        elif isinstance(v, dict):
            for k, item in v.items():
                if not isinstance(k, str | int) or isinstance(k, bool):
                    return f"{where or 'it'}: a key of type {type(k).__name__}"
                why = _scalar(k)
                if why is not None:
                    return f"{where or 'it'}: a key that is {why}"
                stack.append((f"{where}.{k}" if where else str(k), item, depth + 1))
        elif isinstance(v, list | tuple):
            for i, item in enumerate(v):
                stack.append((f"{where}[{i}]", item, depth + 1))
        else:
            why = _scalar(v)
            if why is not None:
                return f"{where}: {why}" if where else why
    return None


def check_row(row: object, kind: str) -> None:
    """Refuse a row the store cannot keep (raises :class:`StoreRefused`, bad input):
    a dataclass's fields, or another object's attributes, are what it keeps."""
    is_record = dataclasses.is_dataclass(row) and not isinstance(row, type)
    why = unstorable(row if is_record else dict(vars(row)) if hasattr(row, "__dict__") else row)
    if why is not None:
        raise refused_at_edge(kind, why)


def _plain(v: object) -> bool:
    """A value the store keeps as it is, told quickly: an event's fields are
    nearly always small integers and short names."""
    t = type(v)
    if t is int:
        return INT64_MIN <= v <= INT64_MAX  # type: ignore[operator]
    if isinstance(v, str) and t is str:
        return len(v) <= 256 and v.isascii()
    return v is None or t is bool


def _fits(v: object) -> str | None:
    """Why ``v`` (a map of an event's fields, or its scores) cannot be kept."""
    if type(v) is dict:
        if all(type(k) is str and _plain(x) for k, x in v.items()):
            return None
    elif type(v) is list:
        if all(_plain(x) for x in v):
            return None
    elif v is None:
        return None
    return unstorable(v)


def fit_event(row: EventRow) -> list[str]:
    """Make an event row storable, whatever it holds: it is never refused.
    What cannot be kept as decoded is left out (the device's bytes stay);
    returns what was left out, for the table's alert (empty: nothing).
    Quick for the usual event (a few microseconds): the whole walk runs only
    for what is not plain, and for what an event made beside itself."""
    left: list[str] = []
    for name in _EVENT_INTS:
        v = getattr(row, name)
        if type(v) is not int or not INT64_MIN <= v <= INT64_MAX:
            setattr(row, name, 0)
            left.append(f"{name} (not an integer the store keeps)")
    for name in ("ev", "scores"):
        why = _fits(getattr(row, name))
        if why is not None:
            setattr(row, name, None)
            left.append(f"{name} ({why})")
    for name in ("rejected", "invalid"):
        v = getattr(row, name)
        if v is not None and not _plain(v) and (type(v) is not str or _scalar(v) is not None):
            setattr(
                row, name, v[:200].encode(errors="replace").decode() if isinstance(v, str) else None
            )
            left.append(name)
    for name in ("raw", "body"):
        v = getattr(row, name)
        if v is not None and (type(v) is not bytes or len(v) > BLOB_MOST):
            setattr(row, name, None)
            left.append(name)
    a = row.applied
    if a is not None:
        if a.projects or a.frame_records:
            why = unstorable(a)
        elif not (_plain(a.match_id) and type(a.frame) is int and _plain(a.frame)):
            why = "its match or frame"
        else:
            why = None
        if why is not None:
            row.applied = bare_projection(a)
            left.append(f"what it made ({why}): run baulk rebuild")
    if row.pocket_check is not None:
        why = unstorable(row.pocket_check)
        if why is not None:
            row.pocket_check = None
            left.append(f"its pocket check ({why})")
    if left and not row.invalid and row.ev is None:
        row.invalid = "the host could not keep this event as decoded: " + ", ".join(left)[:300]
    return left


def bare_projection(a: Projection) -> Projection:
    """The projection of an event with nothing but where it belongs: the
    event keeps its match and frame, and makes nothing beside itself."""
    match_id = a.match_id if isinstance(a.match_id, str) and _scalar(a.match_id) is None else None
    frame = a.frame if isinstance(a.frame, int) and _scalar(a.frame) is None else 0
    return Projection(match_id, frame, bool(a.accepted))


def checkpoint_unread(cp: CheckpointRow, why: str) -> EventRow:
    """A checkpoint the store cannot keep, as the row that keeps its place in
    the device's stream (outside the chain, like a pocket check's)."""
    raw = cp.raw if isinstance(cp.raw, bytes) else None
    row = EventRow(
        cp.table_id, cp.boot_id, cp.seq, cp.rx_ms, None, raw=raw, mtype=messages.CHECKPOINT
    )
    fit_event(row)
    row.invalid = f"a checkpoint the host could not store: {why}"[:300]
    return row
