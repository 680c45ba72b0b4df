"""The host's half of the message catalogue (SPEC.md "Messages").

A device never checks the messages only a device sends (hello, event, state,
log: Session refuses them by sender before any check), so their schemas, the
snapshot decoder and the receiver's verdict on a whole frame live here, off the
board, where they cost the device no heap.  Importing this module completes
``messages.SCHEMA`` and ``messages.REQUIRED``; the host's Session and decoder
import it, and ``baulk firmware build`` leaves it out like host_codec.  It runs
under MicroPython too (the vector tests, the simulated host), hence no typing.
"""

from ..firmware import names
from . import messages as M
from .messages import (
    ANY_COLOUR,
    BALL_ON,
    BOOL,
    BYTES,
    CHECKPOINT,
    COLOURS,
    EVENT,
    FOUL,
    HELLO,
    LOG,
    NAME,
    NAMES,
    NUL,
    REQ,
    STATE,
    STATE_KEYS,
    STATE_NULLABLE,
    TEXT,
    U8,
    U16,
    U32,
    U63,
    UINT,
    UINTS,
    WARNING,
)


def _event_schema():
    s = M.raw_schema(True)
    s[-1] = ("scores", UINTS, (2, 0, U16), 0, REQ)
    s[-2] = ("rejected", TEXT, 160, 0, 0)  # messages._REASON_BYTES (private: no RAM)
    s[-3] = ("boot", UINT, 1, U32, 0)
    s[-4] = ("src", UINT, 0, 3, 0)
    s[-5] = ("cmd", UINT, 1, U32, 0)
    s[-6] = ("action", UINT, 1, U63, 0)
    return s


def _state_schema():
    s = {0: ("at", UINT, 0, U32, REQ)}
    for n in STATE_KEYS:
        key, kind, a, b = STATE_KEYS[n]
        s[key] = (n, kind, a, b, NUL if n in STATE_NULLABLE else 0)
    return s


# The pocket check (SPEC.md 7.6 `pocket_check`): what it found in each pocket
# and why, as codes (firmware/pocket_check.py keeps them as constants:
# tests/test_wire_codes.py holds the two together), and the code of "no ball
# read" where a ball code goes.
CHECK_VERDICTS = ("ok", "weak", "faulty")
CHECK_REASONS = (
    "none",
    "no_break",
    "beam_stuck",
    "short_break",
    "no_sensor",
    "dark",
    "wrong_ball",
    "unclear",
    "low_confidence",
)
NO_BALL = 255
_POCKETS = len(names.POCKETS)


def _per_pocket(most):
    return (UINTS, (_POCKETS, 0, most), 0)


def _with(name, spec, presence=REQ):
    return (name, spec[0], spec[1], spec[2], presence)


# A kind of value only the host checks (messages.py numbers the device's
# kinds 0-12): a checkpoint's marks, a byte string of 4-byte CRC-32 marks, at
# most `a` of them (SPEC.md 7.8).  Anything else cannot be split into marks.
MARKS = 13
_device_check_value = M._check_value


def _check_value(kind, a, b, v):
    if kind == MARKS:
        if type(v) is bytes and len(v) % 4 == 0 and len(v) <= 4 * a:
            return None
        return "at most %d marks of 4 bytes each" % a
    return _device_check_value(kind, a, b, v)


M._check_value = _check_value  # messages.check and host_codec look it up when they check


# type: {key: (name, kind, a, b, presence)}, as messages.SCHEMA
DEVICE_SENT = {
    HELLO: {
        0: ("fw", TEXT, 32, 0, REQ),
        1: ("table", TEXT, 32, 0, REQ),
        2: ("boot", UINT, 1, U32, REQ),
        3: ("last", UINT, 0, U32, REQ),
        4: ("base", UINT, 1, U32, REQ),
        5: ("ack", UINT, 0, U32, REQ),
        6: ("window", UINT, 1, U8, 0),
        7: ("capacity", UINT, 1, U16, 0),
    },
    EVENT: _event_schema(),
    STATE: _state_schema(),
    LOG: {
        0: ("level", UINT, 0, 3, REQ),
        1: ("text", TEXT, 200, 0, REQ),
        2: ("t", UINT, 0, U63, 0),
    },
    # The counts since the device's flash was new, per pocket (names.POCKETS
    # order), and the pockets' state after the last pocket check.
    16: {  # health (16-18 are private in messages.py: host_codec.HEALTH ...)
        0: _with("balls", _per_pocket(U32)),
        1: _with("glitches", _per_pocket(U32)),
        2: _with("unclear", _per_pocket(U32)),
        3: _with("corrections", _per_pocket(U32)),
        4: ("unplaced", UINT, 0, U32, 0),
        5: ("faulty", UINT, 0, 63, 0),
        6: ("weak", UINT, 0, 63, 0),
        7: ("checking", BOOL, 0, 0, 0),
        8: ("cmd", UINT, 1, U32, 0),
    },
    17: {  # pocket_check
        0: _with("verdicts", _per_pocket(len(CHECK_VERDICTS) - 1)),
        1: _with("reasons", _per_pocket(U8)),
        2: _with("break_ms", _per_pocket(U16)),
        3: _with("confidence", _per_pocket(100)),
        4: _with("read", _per_pocket(U8)),
        5: ("cmd", UINT, 1, U32, 0),
        6: ("t", UINT, 0, U63, 0),
    },
    CHECKPOINT: {
        0: ("at", UINT, 0, U32, REQ),
        1: ("boot", UINT, 1, U32, REQ),
        2: ("head", BYTES, 32, 32, REQ),
        3: ("marks", MARKS, 32, 0, REQ),  # journal.MARKS of them at most
        4: ("mac", BYTES, 32, 32, REQ),
    },
}
# Only a device sends health, unreliably; the board does not hold the entry
# (it sends health all the same: a type without an entry goes unreliably).
M.TYPES[16] = ("health", M.DEVICE, False)
for _t in DEVICE_SENT:
    M.SCHEMA[_t] = DEVICE_SENT[_t]
    M.REQUIRED[_t] = M.required_keys(DEVICE_SENT[_t])

SCHEMA = M.SCHEMA  # now the whole catalogue
check = M.check

STATE_BY_KEY = {}
for _n in STATE_KEYS:
    STATE_BY_KEY[STATE_KEYS[_n][0]] = _n


def outcome(f):
    """What a receiver makes of a decoded frame.Frame: None when usable, else
    the frame's own error, "unknown_type", or "body" when its check fails."""
    if f.error is not None:
        return f.error
    if f.mtype not in M.TYPES:
        return M.E_UNKNOWN_TYPE
    if check(f.mtype, f.body) is not None:
        return "body"
    return None


def wire_to_state(m):
    """Compact snapshot -> (at, engine state dict with the keys it carried)."""
    st = {}  # type: dict[str, object]
    for k in m:
        n = STATE_BY_KEY.get(k)
        if n is None:
            continue
        v = m[k]
        kind = STATE_KEYS[n][1]
        if v is None:
            st[n] = None
            continue
        if kind in (NAME, WARNING):
            v = M.name_from_wire(STATE_KEYS[n][2], v)
        elif kind == BALL_ON:
            v = "colour" if v == ANY_COLOUR else M.name_from_wire(names.BALLS, v)
        elif kind == NAMES:
            v = [M.name_from_wire(names.BALLS, x) for x in v]
        elif kind == COLOURS:
            if type(v) is int:
                v = [names.COLOURS[i] for i in range(6) if v & (1 << i)]
            else:
                v = [M.name_from_wire(names.BALLS, x) for x in v]
        elif kind == FOUL:
            v = {"side": v[0], "points": v[1], "kind": M.name_from_wire(names.FOUL_KINDS, v[2])}
        st[n] = v
    return m.get(0, 0), st


# ---------------------------------------------------------------------------
# Named records (the host's side of the wire).  The device keeps its compact
# integer keys; the host reads and writes bodies through the field names of
# the catalogue above.  host_codec.py holds the typed records and makes them
# from bodies; body_of() turns any record back into a body, by the names, so
# it takes host_codec's dataclasses as well as any object with those
# attributes (the MicroPython tests have no dataclasses).

# Raw engine input travels under its own keys in these types; a record holds
# it as one engine event dict, ``input``.
RAW_INPUT = (M.EVENT, M.COMMAND)


def key_of(mtype, name):
    """The integer key of field ``name`` in a body of type ``mtype``."""
    schema = SCHEMA[mtype]
    for k in schema:
        if schema[k][0] == name:
            return k
    raise KeyError("%s has no field %s" % (M.type_name(mtype), name))


def named(mtype, body):
    """{field name: value} of a body's catalogue keys (the raw input of an
    event or a command as ``input``, a snapshot's state as ``state``)."""
    if mtype == STATE:
        at, st = wire_to_state(body)
        return {"at": at, "state": st}
    out = {}
    raw = mtype in RAW_INPUT
    if raw:
        out["input"] = M.wire_to_event(body)
    schema = SCHEMA[mtype]
    for k in schema:
        name = schema[k][0]
        if k in body and not (raw and name in M.RAW):
            out[name] = body[k]
    return out


def body_of(record):
    """The integer-keyed body of a record (its ``TYPE`` and named fields);
    None fields are left out."""
    mtype = record.TYPE
    if mtype == STATE:
        return M.state_to_wire(record.state, record.at)
    schema = SCHEMA[mtype]
    body = M.event_to_wire(record.input) if mtype in RAW_INPUT else {}
    for k in schema:
        name = schema[k][0]
        if mtype in RAW_INPUT and name in M.RAW:
            continue
        v = getattr(record, name, None)
        if v is not None:
            body[k] = v
    return body
