"""The host's half of the message catalogue (SPEC.md "Messages").

A device never checks the messages only a device sends (hello, event, state,
log: Session refuses them by sender before any check), so their bodies, the
snapshot decoder and the receiver's verdict on a whole frame live here, off the
board.  Importing this module completes messages.py's catalogue text with them
and with the types only a host knows (health, trace, update_status), and
reads the whole of it once into the dicts host code looks things up in
(TYPES, SCHEMA, REQUIRED, RAW, STATE_KEYS): messages.py declares the
vocabulary, these are views of it.  The host's Session and decoder import
it, and ``baulk firmware build`` leaves it out like host_codec.  It runs
under MicroPython too (the vector tests, the simulated host), hence no
typing.
"""

from ..firmware import names
from . import messages as M
from .messages import (
    ANY_COLOUR,
    BALL_ON,
    COLOURS,
    FOUL,
    NAME,
    NAMES,
    NUL,
    REQ,
    STATE,
    WARNING,
)

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
    "drift",
)
NO_BALL = 255

# The sensor capture (SPEC.md 7.6 `trace`, firmware/capture.py keeps these as
# constants: tests/protocol/test_wire_capture.py holds the two together).  A
# trace carries at most so many records of each kind, packed little-endian:
#   edge    source (0-5 a pocket's drop beam, 8 the speed beams), level, ms after t (u16)
#   window  pocket, gain (0: 16x, 1: 4x, 2: the pocket's background before a passage),
#           ms after t (u16), clear, red, green, blue (u16 each)
#   mark    kind (CAPTURE_MARKS), pocket, ms after t (u16)
# and why a capture ended, in its last trace (key 7).
TRACE_EDGES = 32
EDGE_BYTES = 4
TRACE_WINDOWS = 24
WINDOW_BYTES = 12
TRACE_MARKS = 8
MARK_BYTES = 4
EDGE_SPEED = 8
CAPTURE_MARKS = ("none", "asked")  # the handset asks the referee about the pocket's pot
CAPTURE_ENDS = ("running", "stopped", "time", "passages", "match")

# A kind of value only the host checks: a checkpoint's marks, a byte string
# of 4-byte CRC-32 marks, at most `a` of them (SPEC.md 7.8).  Anything else
# cannot be split into marks.
MARKS = M._index(M._KINDS, "marks")
_device_check_value = M._check_value


def _check_value(kind, a, b, v):
    if kind == MARKS:
        if type(v) is bytes and len(v) % 4 == 0 and len(v) <= 4 * a:
            return None
        return "at most %d marks of 4 bytes each" % a
    return _device_check_value(kind, a, b, v)


M._check_value = _check_value  # messages.check and host_codec look it up when they check

# The bodies only a device sends, in messages.py's form.  Per pocket (p:
# names.POCKETS order), a list of one integer each.  The event's rejection
# reason is at most messages._REASON_BYTES (private there: no RAM).
# Health: the counts since the device's flash was new, and the pockets' state
# after the last pocket check; only a device sends it, unreliably, and the
# board does not hold its type (it sends health all the same: a type without
# an entry goes unreliably).
DEVICE_SENT = (
    "\nhello:"
    "\n  fw           0   text     32           0    req"
    "\n  table        1   text     32           0    req"
    "\n  boot         2   uint     1            u32  req"
    "\n  last         3   uint     0            u32  req"
    "\n  base         4   uint     1            u32  req"
    "\n  ack          5   uint     0            u32  req"
    "\n  window       6   uint     1            u8   -"
    "\n  capacity     7   uint     1            u16  -"
    "\nevent:"
    "\n  +raw"
    "\n  scores       -1  uints    2,0,u16      0    req"
    "\n  rejected     -2  text     160          0    -"
    "\n  boot         -3  uint     1            u32  -"
    "\n  src          -4  uint     0            3    -"
    "\n  cmd          -5  uint     1            u32  -"
    "\n  action       -6  uint     1            u63  -"
    "\nstate:"
    "\n  at           0   uint     0            u32  req"
    "\n  +state"
    "\nlog:"
    "\n  level        0   uint     0            3    req"
    "\n  text         1   text     200          0    req"
    "\n  t            2   uint     0            u63  -"
    "\nhealth:"
    "\n  balls        0   uints    %(p)d,0,u32     0    req"
    "\n  glitches     1   uints    %(p)d,0,u32     0    req"
    "\n  unclear      2   uints    %(p)d,0,u32     0    req"
    "\n  corrections  3   uints    %(p)d,0,u32     0    req"
    "\n  unplaced     4   uint     0            u32  -"
    "\n  faulty       5   uint     0            63   -"
    "\n  weak         6   uint     0            63   -"
    "\n  checking     7   bool     0            0    -"
    "\n  cmd          8   uint     1            u32  -"
    "\npocket_check:"
    "\n  verdicts     0   uints    %(p)d,0,%(v)d       0    req"
    "\n  reasons      1   uints    %(p)d,0,u8      0    req"
    "\n  break_ms     2   uints    %(p)d,0,u16     0    req"
    "\n  confidence   3   uints    %(p)d,0,100     0    req"
    "\n  read         4   uints    %(p)d,0,u8      0    req"
    "\n  cmd          5   uint     1            u32  -"
    "\n  t            6   uint     0            u63  -"
    "\ncheckpoint:"
    "\n  at           0   uint     0            u32  req"
    "\n  boot         1   uint     1            u32  req"
    "\n  head         2   bytes    32           32   req"
    "\n  marks        3   marks    32           0    req"  # journal.MARKS of them at most
    "\n  mac          4   bytes    32           32   req"
    "\n  money_n      5   uint     1            u32  -"  # since 1.4: an anchor (SPEC.md 7.8)
    "\n  money        6   bytes    32           32   -"
    "\n  money_mac    7   bytes    32           32   -"
    "\ntrace:"
    "\n  capture      0   uint     1            u32  req"
    "\n  frame        1   uint     0            u16  req"
    "\n  t            2   uint     0            u32  req"
    "\n  edges        3   bytes    0            %(e)d  req"
    "\n  windows      4   bytes    0            %(w)d  req"
    "\n  marks        5   bytes    0            %(m)d   -"
    "\n  lost         6   uint     0            u16  -"
    "\n  end          7   uint     1            %(x)d    -"
    "\nupdate_status:"  # since 1.5: the update mode's, which runs no session (SPEC.md 7.9)
    "\n  state        0   uint     0            5    req"
    "\n  offset       1   uint     0            u32  req"
    "\n  reason       2   text     16           0    -"
    "\n  window       3   uint     1            16   -"
    "\n  version      4   text     16           0    -"
    "\n  trial        5   bool     0            0    -"
    "\n  last         6   text     16           0    -"
    "\n  last_v       7   text     16           0    -"
) % {"p": len(names.POCKETS), "v": len(CHECK_VERDICTS) - 1,
     "e": TRACE_EDGES * EDGE_BYTES, "w": TRACE_WINDOWS * WINDOW_BYTES,
     "m": TRACE_MARKS * MARK_BYTES, "x": len(CAPTURE_ENDS) - 1}  # fmt: skip
M._TYPES += "\n16 health device -"
M._TYPES += "\n21 trace device -"
M._TYPES += "\n24 update_status device -"
M._BODIES += DEVICE_SENT
check = M.check

# The views.  type: (name, sender, reliable)
TYPES = {}
for _t in range(256):
    _e = M.type_of(_t)
    if _e is not None:
        TYPES[_t] = _e
# type: {key: (name, kind, a, b, presence)}, and type: its required keys
SCHEMA = {}
REQUIRED = {}
for _t in TYPES:
    SCHEMA[_t] = M.schema(_t)
    REQUIRED[_t] = tuple(k for k in SCHEMA[_t] if SCHEMA[_t][k][4] & REQ)
# name: (key, kind, a, b) of the engine's raw input and of its state
RAW = {}
RAW_BY_KEY = {}
for _k, _e in M._keys({}, M._RAW, 0).items():
    RAW[_e[0]] = (_k, _e[1], _e[2], _e[3])
    RAW_BY_KEY[_k] = _e[0]
STATE_KEYS = {}
STATE_BY_KEY = {}
for _k, _e in M._keys({}, M._STATE, 0).items():
    STATE_KEYS[_e[0]] = (_k, _e[1], _e[2], _e[3])
    STATE_BY_KEY[_k] = _e[0]
STATE_NULLABLE = tuple(n for n in STATE_KEYS if SCHEMA[STATE][STATE_KEYS[n][0]][4] & NUL)

if __import__("sys").implementation.name != "micropython":
    # CPython, where the host takes in every table's frames: a type is one
    # look-up (messages.py reads _RAW into dicts itself).  Under MicroPython
    # the simulated board shares this interpreter, and keeps its text.
    _RELIABLE = frozenset(t for t in TYPES if TYPES[t][2])
    M.type_of = TYPES.get
    M.is_reliable = _RELIABLE.__contains__


def outcome(f):
    """What a receiver makes of a decoded frame.Frame: None when usable, else
    the frame's own error, "unknown_type", or "body" when its check fails."""
    if f.error is not None:
        return f.error
    if f.mtype not in TYPES:
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
RAW_INPUT = M.TEXT_KEYS_ALLOWED


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
        if k in body and not (raw and name in RAW):
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
        if mtype in RAW_INPUT and name in RAW:
            continue
        v = getattr(record, name, None)
        if v is not None:
            body[k] = v
    return body


def event_result(body):
    """(scores, rejected reason or None, boot or 0, src, cmd or 0) of an event body."""
    return (
        body.get(-1),
        body.get(-2),
        body.get(-3, 0),
        body.get(-4, M.SRC_SENSOR),
        body.get(-5, 0),
    )
