"""The bridge's contract on the broker: topic names and JSON payloads (docs/MQTT.md).

Everything the bridge publishes lives under ``baulk/<venue>/``:

=====================================  =========  ======  ==============================
topic                                  retained   QoS     payload
=====================================  =========  ======  ==============================
``baulk/<venue>/<table>/state``        yes        1       the table's board state
``baulk/<venue>/<table>/events``       no         1       one device event
``baulk/<venue>/<table>/link``         yes        1       the table's link status
``baulk/<venue>/<host>/status``        yes        1       the host: online, or offline
                                                          (the last will)
``baulk/<venue>/<table>/replay``       no         1       a board asks for events again
=====================================  =========  ======  ==============================

The last topic level says what a message is; venue, table and host ids are
1-32 letters, digits, ``-`` or ``_`` (the daemon's own rule for table ids), so
they never need escaping and can never hold ``/``, ``+`` or ``#``.

Payloads are UTF-8 JSON objects with ``"v": 1``.  A reader refuses a payload
whose ``v`` is not 1, that is not JSON, or whose fields do not fit: the parse
functions below raise :class:`Malformed` with a sentence that names the field.
Fields a reader does not know are ignored (additions within ``v`` 1).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Final

ROOT: Final = "baulk"
VERSION: Final = 1
MAX_PAYLOAD: Final = 1 << 20  # a state with a 35-frame history is ~10 kB
STATE: Final = "state"
EVENTS: Final = "events"
LINK: Final = "link"
STATUS: Final = "status"
REPLAY: Final = "replay"
TABLE_LEAVES: Final = (STATE, EVENTS, LINK, REPLAY)
LEAVES: Final = (*TABLE_LEAVES, STATUS)

_ID: Final = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_U32: Final = 0xFFFFFFFF


class Malformed(ValueError):
    """A message on a ``baulk/`` topic that cannot be used (the text says why)."""


def valid_id(text: object) -> bool:
    """A venue, table or host id that can be one topic level."""
    return isinstance(text, str) and bool(_ID.match(text))


def check_id(kind: str, text: object) -> str:
    if not valid_id(text):
        raise ValueError(f"the {kind} id must be 1-32 letters, digits, '-' or '_', not {text!r}")
    assert isinstance(text, str)
    return text


@dataclass(frozen=True, order=True)
class Position:
    """Where a device event stands in its table's stream: ``(boot_id, seq)``."""

    boot: int
    seq: int

    def to_json(self) -> list[int]:
        return [self.boot, self.seq]

    def __str__(self) -> str:
        return f"(boot {self.boot}, seq {self.seq})"


def topic(venue: str, node: str, leaf: str) -> str:
    """``baulk/<venue>/<node>/<leaf>``; node is a table id or, for ``status``, a host id."""
    return f"{ROOT}/{venue}/{node}/{leaf}"


@dataclass(frozen=True)
class Topic:
    venue: str
    node: str  # table id, or host id for ``status``
    leaf: str


def parse_topic(name: str) -> Topic:
    parts = name.split("/")
    if len(parts) != 4 or parts[0] != ROOT:
        raise Malformed(f"topic {name!r} is not baulk/<venue>/<table or host>/<kind>")
    _, venue, node, leaf = parts
    if leaf not in LEAVES:
        raise Malformed(f"topic {name!r}: unknown kind {leaf!r} (known: {', '.join(LEAVES)})")
    if not valid_id(venue) or not valid_id(node):
        raise Malformed(f"topic {name!r}: venue and table/host ids must be 1-32 of A-Z a-z 0-9 - _")
    return Topic(venue, node, leaf)


# --------------------------------------------------------------------------- encoding


def _dumps(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def _table_payload(venue: str, host: str, table: str, **fields: Any) -> bytes:
    # Every per-table message opens with the same envelope, in this order.
    return _dumps({"v": VERSION, "venue": venue, "table": table, "host": host, **fields})


@dataclass(frozen=True)
class BridgeEvent:
    """One stored device event, as the bridge publishes it."""

    table: str
    pos: Position
    rx_ms: int  # when the host received it (host clock, Unix ms)
    ev: dict[str, Any] | None  # engine input; None when the device sent an invalid body
    scores: list[int] | None = None  # the device's settled score after it
    rejected: str | None = None  # the device engine's refusal, if any
    invalid: str | None = None  # why the host could not read the body, if so


def event_payload(venue: str, host: str, e: BridgeEvent, prev: Position | None) -> bytes:
    return _table_payload(
        venue,
        host,
        e.table,
        boot=e.pos.boot,
        seq=e.pos.seq,
        prev=prev.to_json() if prev is not None else None,
        rx_ms=e.rx_ms,
        ev=e.ev,
        scores=e.scores,
        rejected=e.rejected,
        invalid=e.invalid,
    )


def state_payload(
    venue: str, host: str, table: str, pos: Position | None, at_ms: int, state: dict[str, Any]
) -> bytes:
    return _table_payload(
        venue,
        host,
        table,
        pos=pos.to_json() if pos is not None else None,
        at_ms=at_ms,
        state=state,
    )


def link_payload(
    venue: str, host: str, table: str, online: bool, last_seen_ms: int | None, at_ms: int
) -> bytes:
    return _table_payload(venue, host, table, online=online, last_seen_ms=last_seen_ms, at_ms=at_ms)


def status_payload(
    venue: str, host: str, online: bool, reason: str, at_ms: int | None, tables: list[str]
) -> bytes:
    return _dumps(
        {
            "v": VERSION,
            "venue": venue,
            "host": host,
            "online": online,
            "reason": reason,
            "at_ms": at_ms,
            "tables": tables,
        }
    )


def replay_payload(after: Position, by: str) -> bytes:
    return _dumps({"v": VERSION, "after": after.to_json(), "by": by})


# --------------------------------------------------------------------------- decoding


def _load(payload: bytes) -> dict[str, Any]:
    if len(payload) > MAX_PAYLOAD:
        raise Malformed(f"payload of {len(payload)} bytes is over the {MAX_PAYLOAD}-byte limit")
    try:
        body = json.loads(payload.decode("utf-8"))
    except UnicodeDecodeError:
        raise Malformed("payload is not UTF-8 text") from None
    except json.JSONDecodeError as e:
        raise Malformed(f"payload is not JSON ({e.msg} at character {e.pos})") from None
    if not isinstance(body, dict):
        raise Malformed("payload is not a JSON object")
    v = body.get("v")
    if v != VERSION:
        raise Malformed(f"payload version v={v!r}; this reader knows v={VERSION}")
    return body


def _uint(body: dict[str, Any], key: str, lo: int = 0, hi: int = _U32) -> int:
    v = body.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise Malformed(f"field {key!r} must be an integer {lo}..{hi}, not {v!r}")
    return v


def _opt_uint(body: dict[str, Any], key: str) -> int | None:
    if body.get(key) is None:
        return None
    return _uint(body, key, 0, (1 << 63) - 1)


def _text(body: dict[str, Any], key: str, optional: bool = False) -> str | None:
    v = body.get(key)
    if v is None and optional:
        return None
    if not isinstance(v, str):
        raise Malformed(f"field {key!r} must be text, not {v!r}")
    return v


def _ident(body: dict[str, Any], key: str, expect: str | None) -> str:
    v = body.get(key)
    if not valid_id(v):
        raise Malformed(f"field {key!r} must be an id of 1-32 of A-Z a-z 0-9 - _, not {v!r}")
    assert isinstance(v, str)
    if expect is not None and v != expect:
        raise Malformed(f"field {key!r} is {v!r} but the topic says {expect!r}")
    return v


def _position(v: object, key: str) -> Position:
    if (
        isinstance(v, list)
        and len(v) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= _U32 for x in v)
    ):
        return Position(v[0], v[1])
    raise Malformed(f"field {key!r} must be [boot_id, seq], not {v!r}")


def _opt_position(body: dict[str, Any], key: str) -> Position | None:
    v = body.get(key)
    return None if v is None else _position(v, key)


def _object(body: dict[str, Any], key: str, optional: bool) -> dict[str, Any] | None:
    v = body.get(key)
    if v is None and optional:
        return None
    if not isinstance(v, dict):
        raise Malformed(f"field {key!r} must be a JSON object, not {type(v).__name__}")
    return v


def _bool(body: dict[str, Any], key: str) -> bool:
    v = body.get(key)
    if not isinstance(v, bool):
        raise Malformed(f"field {key!r} must be true or false, not {v!r}")
    return v


@dataclass(frozen=True)
class EventMessage:
    venue: str
    host: str
    event: BridgeEvent
    prev: Position | None


def parse_event(t: Topic, payload: bytes) -> EventMessage:
    body = _load(payload)
    venue = _ident(body, "venue", t.venue)
    table = _ident(body, "table", t.node)
    host = _ident(body, "host", None)
    pos = Position(_uint(body, "boot", 0), _uint(body, "seq", 0))
    scores = body.get("scores")
    if scores is not None and not (
        isinstance(scores, list)
        and len(scores) == 2
        and all(isinstance(s, int) and not isinstance(s, bool) for s in scores)
    ):
        raise Malformed(f"field 'scores' must be [a, b] or null, not {scores!r}")
    event = BridgeEvent(
        table=table,
        pos=pos,
        rx_ms=_uint(body, "rx_ms", 0, (1 << 63) - 1),
        ev=_object(body, "ev", optional=True),
        scores=scores,
        rejected=_text(body, "rejected", optional=True),
        invalid=_text(body, "invalid", optional=True),
    )
    return EventMessage(venue, host, event, _opt_position(body, "prev"))


@dataclass(frozen=True)
class StateMessage:
    venue: str
    table: str
    host: str
    pos: Position | None
    at_ms: int
    state: dict[str, Any]


def parse_state(t: Topic, payload: bytes) -> StateMessage:
    body = _load(payload)
    state = _object(body, "state", optional=False)
    assert state is not None
    return StateMessage(
        venue=_ident(body, "venue", t.venue),
        table=_ident(body, "table", t.node),
        host=_ident(body, "host", None),
        pos=_opt_position(body, "pos"),
        at_ms=_uint(body, "at_ms", 0, (1 << 63) - 1),
        state=state,
    )


@dataclass(frozen=True)
class LinkMessage:
    venue: str
    table: str
    host: str
    online: bool
    last_seen_ms: int | None
    at_ms: int


def parse_link(t: Topic, payload: bytes) -> LinkMessage:
    body = _load(payload)
    return LinkMessage(
        venue=_ident(body, "venue", t.venue),
        table=_ident(body, "table", t.node),
        host=_ident(body, "host", None),
        online=_bool(body, "online"),
        last_seen_ms=_opt_uint(body, "last_seen_ms"),
        at_ms=_uint(body, "at_ms", 0, (1 << 63) - 1),
    )


@dataclass(frozen=True)
class StatusMessage:
    venue: str
    host: str
    online: bool
    reason: str
    at_ms: int | None
    tables: tuple[str, ...]


def parse_status(t: Topic, payload: bytes) -> StatusMessage:
    body = _load(payload)
    tables = body.get("tables", [])
    if not isinstance(tables, list) or not all(valid_id(x) for x in tables):
        raise Malformed("field 'tables' must be a list of table ids")
    return StatusMessage(
        venue=_ident(body, "venue", t.venue),
        host=_ident(body, "host", t.node),
        online=_bool(body, "online"),
        reason=_text(body, "reason", optional=True) or "",
        at_ms=_opt_uint(body, "at_ms"),
        tables=tuple(tables),
    )


@dataclass(frozen=True)
class ReplayMessage:
    after: Position
    by: str


def parse_replay(payload: bytes) -> ReplayMessage:
    body = _load(payload)
    return ReplayMessage(
        after=_position(body.get("after"), "after"), by=_text(body, "by", optional=True) or "?"
    )
