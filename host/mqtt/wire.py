"""The bridge's contract on the broker: topic names and JSON payloads (docs/MQTT.md).

Everything a host publishes lives under its own id, ``baulk/<venue>/<host>/``,
so that the broker's ACL can give each host the topics of its own user name
and nothing else (``pattern write baulk/<venue>/%u/#``):

==============================================  =========  ======  ======================
topic                                           retained   QoS     payload
==============================================  =========  ======  ======================
``baulk/<venue>/<host>/status``                 yes        1       the host: online, or
                                                                   offline (its last will)
``baulk/<venue>/<host>/<table>/state``          yes        1       the table's board state
``baulk/<venue>/<host>/<table>/events``         no         1       one device event
``baulk/<venue>/<host>/<table>/link``           yes        1       the table's link status
``baulk/<venue>/<host>/<table>/replay``         no         1       a board asks the host
                                                                   for events again
==============================================  =========  ======  ======================

The last topic level says what a message is; venue, table and host ids are
1-32 letters, digits, ``-`` or ``_`` (the daemon's own rule for table ids), so
they never need escaping and can never hold ``/``, ``+`` or ``#``.  A topic of
four levels is a host's, of five a table's.

Payloads are UTF-8 JSON objects with ``"v": 1``.  Each kind has a size bound,
and no payload may nest deeper than :data:`MAX_DEPTH`; both are checked on the
raw bytes before the JSON parser sees them.  A reader refuses a payload whose
``v`` is not 1, that is not JSON, that is too big or too deep, or whose fields
do not fit (the ``host`` and ``table`` fields must be the topic's): the parse
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
STATE: Final = "state"
EVENTS: Final = "events"
LINK: Final = "link"
STATUS: Final = "status"
REPLAY: Final = "replay"
TABLE_LEAVES: Final = (STATE, EVENTS, LINK, REPLAY)
HOST_LEAVES: Final = (STATUS,)
# The most bytes a payload of each kind may have: a state with a 35-frame
# history is ~10 kB, an event under 1 kB.  Bounds keep a stranger's payload
# from costing a reader more than a few milliseconds.
MAX_PAYLOAD: Final = 256 << 10
LIMITS: Final = {
    STATE: MAX_PAYLOAD,
    EVENTS: 16 << 10,
    LINK: 1 << 10,
    STATUS: 8 << 10,
    REPLAY: 1 << 10,
}
MAX_DEPTH: Final = 32  # a board state nests 7 levels; Python's parser fails near 1000
MAX_TEXT: Final = 500  # characters of a reason, refusal or status text
MAX_HOST_TABLES: Final = 256  # tables one host's status may list

_ID: Final = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_U32: Final = 0xFFFFFFFF
# For the depth check: JSON strings (which may hold brackets), anything but
# brackets, and an innermost pair.
_STRING: Final = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET: Final = re.compile(rb"[^\[\]{}]+")
_TOO_DEEP: Final = re.compile(rb"[\[{]{%d}" % (MAX_DEPTH + 1))


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


def host_topic(venue: str, host: str, leaf: str = STATUS) -> str:
    """``baulk/<venue>/<host>/<leaf>``: the host's own status."""
    return f"{ROOT}/{venue}/{host}/{leaf}"


def table_topic(venue: str, host: str, table: str, leaf: str) -> str:
    """``baulk/<venue>/<host>/<table>/<leaf>``: a table, under the host that serves it
    (``+`` for host or table makes a subscription pattern)."""
    return f"{ROOT}/{venue}/{host}/{table}/{leaf}"


@dataclass(frozen=True)
class Topic:
    venue: str
    host: str
    table: str | None  # None for a host's own topic (``status``)
    leaf: str


def parse_topic(name: str) -> Topic:
    parts = name.split("/")
    if parts[0] != ROOT or len(parts) not in (4, 5):
        raise Malformed(
            f"topic {name[:200]!r} is not baulk/<venue>/<host>/status "
            "or baulk/<venue>/<host>/<table>/<kind>"
        )
    venue, host, leaf = parts[1], parts[2], parts[-1]
    table = parts[3] if len(parts) == 5 else None
    leaves = HOST_LEAVES if table is None else TABLE_LEAVES
    if leaf not in leaves:
        if table is None and leaf in TABLE_LEAVES:
            raise Malformed(
                f"topic {name[:200]!r} has no host level: it is from a host of an older "
                "baulk (topics baulk/<venue>/<table>/<kind>); update that host"
            )
        raise Malformed(
            f"topic {name[:200]!r}: unknown kind {leaf[:40]!r} (known: {', '.join(leaves)})"
        )
    if not all(valid_id(x) for x in (venue, host, table or host)):
        raise Malformed(
            f"topic {name[:200]!r}: venue, host and table ids must be 1-32 of A-Z a-z 0-9 - _"
        )
    return Topic(venue, host, table, leaf)


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


def nesting_within(payload: bytes, most: int = MAX_DEPTH) -> bool:
    """Whether the JSON text nests at most ``most`` arrays and objects deep,
    judged on the raw bytes, in C-speed passes only: strings are taken out
    (they may hold brackets), then every pass removes the innermost pairs.
    Unbalanced brackets count as too deep (the JSON is broken anyway)."""
    brackets = _NOT_BRACKET.sub(b"", _STRING.sub(b"", payload))
    if most == MAX_DEPTH and _TOO_DEEP.search(brackets):
        return False  # the usual attack, found in one pass
    for _ in range(most):
        if not brackets:
            return True
        shorter = brackets.replace(b"[]", b"").replace(b"{}", b"")
        if len(shorter) == len(brackets):
            return False
        brackets = shorter
    return not brackets


def load(payload: bytes, leaf: str) -> dict[str, Any]:
    """The JSON object of a ``leaf`` message, bounded before it is parsed."""
    limit = LIMITS.get(leaf, MAX_PAYLOAD)
    if len(payload) > limit:
        raise Malformed(f"payload of {len(payload)} bytes is over the {limit}-byte limit")
    if not nesting_within(payload):
        raise Malformed(f"payload nests deeper than {MAX_DEPTH} levels")
    try:
        body = json.loads(payload.decode("utf-8"))
    except UnicodeDecodeError:
        raise Malformed("payload is not UTF-8 text") from None
    except json.JSONDecodeError as e:
        raise Malformed(f"payload is not JSON ({e.msg} at character {e.pos})") from None
    except (RecursionError, ValueError) as e:  # the bounds above should make these unreachable
        raise Malformed(f"payload cannot be read ({type(e).__name__})") from None
    if not isinstance(body, dict):
        raise Malformed("payload is not a JSON object")
    v = body.get("v")
    if v != VERSION:
        raise Malformed(f"payload version v={_short(v)}; this reader knows v={VERSION}")
    return body


def _short(v: object) -> str:
    text = repr(v) if not isinstance(v, int) or abs(v) < 10**30 else "a long number"
    return text if len(text) <= 60 else text[:57] + "..."


def _uint(body: dict[str, Any], key: str, lo: int = 0, hi: int = _U32) -> int:
    v = body.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise Malformed(f"field {key!r} must be an integer {lo}..{hi}, not {_short(v)}")
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
        raise Malformed(f"field {key!r} must be text, not {_short(v)}")
    if len(v) > MAX_TEXT:
        raise Malformed(f"field {key!r} has {len(v)} characters; at most {MAX_TEXT}")
    return v


def _ident(body: dict[str, Any], key: str, expect: str | None) -> str:
    v = body.get(key)
    if not valid_id(v):
        raise Malformed(f"field {key!r} must be an id of 1-32 of A-Z a-z 0-9 - _, not {_short(v)}")
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
    raise Malformed(f"field {key!r} must be [boot_id, seq], not {_short(v)}")


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
        raise Malformed(f"field {key!r} must be true or false, not {_short(v)}")
    return v


@dataclass(frozen=True)
class EventMessage:
    venue: str
    host: str
    event: BridgeEvent
    prev: Position | None


def _envelope(t: Topic, body: dict[str, Any]) -> tuple[str, str, str]:
    """venue, host, table of a table's message: each must be the topic's."""
    if t.table is None:
        raise Malformed("a table's message on a host's topic")
    return (
        _ident(body, "venue", t.venue),
        _ident(body, "host", t.host),
        _ident(body, "table", t.table),
    )


def parse_event(t: Topic, payload: bytes) -> EventMessage:
    body = load(payload, EVENTS)
    venue, host, table = _envelope(t, body)
    pos = Position(_uint(body, "boot", 0), _uint(body, "seq", 0))
    scores = body.get("scores")
    if scores is not None and not (
        isinstance(scores, list)
        and len(scores) == 2
        and all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= _U32 for s in scores)
    ):
        raise Malformed(f"field 'scores' must be [a, b] or null, not {_short(scores)}")
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
    body = load(payload, STATE)
    venue, host, table = _envelope(t, body)
    state = _object(body, "state", optional=False)
    assert state is not None
    return StateMessage(
        venue=venue,
        table=table,
        host=host,
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
    body = load(payload, LINK)
    venue, host, table = _envelope(t, body)
    return LinkMessage(
        venue=venue,
        table=table,
        host=host,
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
    body = load(payload, STATUS)
    tables = body.get("tables", [])
    if (
        not isinstance(tables, list)
        or len(tables) > MAX_HOST_TABLES
        or not all(valid_id(x) for x in tables)
    ):
        raise Malformed(f"field 'tables' must be a list of at most {MAX_HOST_TABLES} table ids")
    return StatusMessage(
        venue=_ident(body, "venue", t.venue),
        host=_ident(body, "host", t.host),
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
    body = load(payload, REPLAY)
    return ReplayMessage(
        after=_position(body.get("after"), "after"), by=_text(body, "by", optional=True) or "?"
    )
