# The message catalogue (SPEC.md "Messages"): type ids, the keys of every body,
# their types and ranges, the check a receiver runs on a decoded body, and the
# pure conversions between the engine's event and state dicts and their compact
# wire maps.  Codes for balls, pockets, events and foul kinds are their index in
# firmware/names.py, so the wire, the journal and the undo log agree.

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


from ..firmware import names

# Message types.  0 is never used.  Ids 1, 2 and 12 and the keys those three
# messages use today are frozen across major versions, so that two peers of
# different majors can still tell each other why they refuse (SPEC.md
# "Versioning").
HELLO = const(1)
WELCOME = const(2)
EVENT = const(3)
STATE = const(4)
ACK = const(5)
HEARTBEAT = const(6)
SETUP_MATCH = const(7)
COMMAND = const(8)
TIME = const(9)
SNAPSHOT_REQUEST = const(10)
LOG = const(11)
ERROR = const(12)
LIGHT = const(13)  # the table light's relay (host -> device)
SETTINGS = const(14)
NAME_BITMAP = const(15)
# 16-18, the pocket check's: private, so that the device spends no names on
# them (its heap); the host's names are host_catalogue.HEALTH, POCKET_CHECK,
# CHECK_REQUEST, and the device's own copies are checked by
# tests/test_wire_codes.py.
_T_HEALTH = const(16)  # the pockets' sensor counts (device -> host; schema in host_catalogue.py)
_T_POCKET_CHECK = const(17)  # a pocket check's result per pocket (device -> host)
_T_CHECK_REQUEST = const(18)  # start a pocket check (host -> device)
CHECKPOINT = const(19)

DEVICE = const(1)  # sent by the device
HOST = const(2)  # sent by the host
BOTH = const(3)

# id: (name, sender, reliable)
TYPES = {
    HELLO: ("hello", DEVICE, False),
    WELCOME: ("welcome", HOST, False),
    EVENT: ("event", DEVICE, True),
    STATE: ("state", DEVICE, False),
    ACK: ("ack", BOTH, False),
    HEARTBEAT: ("heartbeat", BOTH, False),
    SETUP_MATCH: ("setup_match", HOST, True),
    COMMAND: ("command", HOST, True),
    TIME: ("time", HOST, False),
    SNAPSHOT_REQUEST: ("snapshot_request", HOST, False),
    LOG: ("log", DEVICE, False),
    ERROR: ("error", BOTH, False),
    LIGHT: ("light", HOST, True),
    SETTINGS: ("settings", HOST, True),
    NAME_BITMAP: ("name_bitmap", HOST, True),
    _T_POCKET_CHECK: ("pocket_check", DEVICE, True),  # here: the device sends it reliably
    _T_CHECK_REQUEST: ("check_request", HOST, True),
    CHECKPOINT: ("checkpoint", DEVICE, True),
}


def type_name(mtype):
    t = TYPES.get(mtype)
    return t[0] if t else "type %d" % mtype


def is_reliable(mtype):
    t = TYPES.get(mtype)
    return bool(t and t[2])


# Value kinds of the schema.
UINT = const(0)  # a, b: inclusive range
INT = const(1)  # a, b: inclusive range
TEXT = const(2)  # a: most UTF-8 bytes
BOOL = const(3)
NAME = const(4)  # a: names table.  uint code, or text for a name outside the table
NAMES = const(5)  # a: names table, b: most items
UINTS = const(6)  # a: (items, lo, hi)
PLAYERS = const(7)  # two names, or two teams of one or two names
FOUL = const(8)  # {0: side, 1: points, 2: kind code}
BALL_ON = const(9)  # NAME over BALLS, or -1 for "any colour"
COLOURS = const(10)  # bitmask over names.COLOURS, or an array of NAME
WARNING = const(11)  # NAME over WARNINGS
BYTES = const(12)  # a, b: fewest and most bytes

REQ = const(1)  # the key must be present
NUL = const(2)  # null is allowed

U8 = 0xFF
U16 = 0xFFFF
U32 = 0xFFFFFFFF
U63 = 0x7FFFFFFFFFFFFFFF
NAME_BYTES = const(48)  # a player's or operator's name, UTF-8
_NAME_TEXT_BYTES = const(32)  # a ball, pocket, event or foul name sent as text
_REASON_BYTES = const(160)  # an event's rejection reason (key -2); host_catalogue's bound
CODE_LIMIT = const(255)  # codes above the tables are names appended in a newer minor
# A player's name drawn by the host for the handset (name_bitmap): at most one
# display row, 16 pixels high and as wide as the display, 1 bit a pixel.  (The
# host reads the bounds from SCHEMA; private here, so they cost the board no RAM.)
_BITMAP_WIDTH = const(128)
_BITMAP_HEIGHT = const(16)
_BITMAP_BYTES = const(256)  # (width + 7) // 8 * height, at the most

WARNINGS = ("third_miss_forfeits",)
ANY_COLOUR = const(-1)  # ball_on "colour": any colour may be played

# Raw input of the engine: one key space shared by event, command, setup_match.
# name: (key, kind, a, b)
RAW = {
    "ev": (0, NAME, names.EVENTS, 0),
    "ball": (1, NAME, names.BALLS, 0),
    "pocket": (2, NAME, names.POCKETS, 0),
    "kind": (3, NAME, names.FOUL_KINDS, 0),
    "side": (4, UINT, 0, U8),
    "clear": (5, BOOL, 0, 0),
    "match": (6, BOOL, 0, 0),
    "players": (7, PLAYERS, 0, 0),
    "best_of": (8, UINT, 0, U16),
    "breaker": (9, UINT, 0, U8),
    "reds": (10, UINT, 0, U8),
    "occupied": (11, NAMES, names.BALLS, 8),
    "first": (12, UINT, 0, U8),
    "t": (13, UINT, 0, U63),
}
RAW_BY_KEY = {}
for _n in RAW:
    RAW_BY_KEY[RAW[_n][0]] = _n

# Engine state keys in the compact snapshot.  history and rejected grow with
# the match and are not sent: the host has both from the event stream.
STATE_KEYS = {
    "frame": (1, UINT, 0, U16),
    "frames": (2, UINTS, (2, 0, U16), 0),
    "scores": (3, UINTS, (2, 0, U16), 0),
    "striker": (4, UINT, 0, 1),
    "player": (5, TEXT, NAME_BYTES, 0),
    "reds": (6, UINT, 0, U8),
    "colours": (7, COLOURS, 0, 0),
    "ball_on": (8, BALL_ON, names.BALLS, 0),
    "nominated": (9, NAME, names.BALLS, 0),
    "free_ball": (10, BOOL, 0, 0),
    "break": (11, UINT, 0, U16),
    "highest_break": (12, UINTS, (2, 0, U16), 0),
    "points_remaining": (13, UINT, 0, U16),
    "snookers_required": (14, UINTS, (2, 0, U16), 0),
    "last_foul": (15, FOUL, 0, 0),
    "misses": (16, UINT, 0, U8),
    "warning": (17, WARNING, WARNINGS, 0),
    "respot": (18, NAMES, names.BALLS, 6),
    "respotted_black": (19, BOOL, 0, 0),
    "in_hand": (20, BOOL, 0, 0),
    "frame_over": (21, BOOL, 0, 0),
    "match_over": (22, BOOL, 0, 0),
    "frame_winner": (23, UINT, 0, 1),
    "match_winner": (24, UINT, 0, 1),
}
STATE_NULLABLE = (
    "player",
    "ball_on",
    "nominated",
    "last_foul",
    "warning",
    "frame_winner",
    "match_winner",
)

# Event source (event key -4).
SRC_SENSOR = const(0)
SRC_KEYPAD = const(1)
SRC_HOST = const(2)
_SRC_DEVICE = const(3)

# Error codes (error key 0).
ERR_VERSION = const(1)  # another major protocol version: refused
ERR_BODY = const(2)  # a body failed its check; the message was dropped
ERR_UNSUPPORTED = const(3)  # a reliable message of a type this peer does not know
ERR_JOURNAL_FULL = const(4)  # the device journal is full; events wait
ERR_REFUSED = const(5)  # a command or set-up was refused (text says why)
ERR_NOT_READY = const(6)  # no handshake yet

# Log levels (log key 0).
_LOG_DEBUG = const(0)
_LOG_INFO = const(1)
LOG_WARN = const(2)
_LOG_ERROR = const(3)


def raw_schema(required_ev):
    s = {}
    for n in RAW:
        key, kind, a, b = RAW[n]
        s[key] = (n, kind, a, b, REQ if (required_ev and key == 0) else 0)
    return s


# -6 action: the operator action's id, never reused; the device applies each
# id once (SPEC.md "Actions").
_ACTION = ("action", UINT, 1, U63, 0)
_COMMAND = raw_schema(True)
_COMMAND[-1] = ("who", TEXT, NAME_BYTES, 0, 0)
_COMMAND[-6] = _ACTION

_SETUP = {
    7: ("players", PLAYERS, 0, 0, REQ),
    8: ("best_of", UINT, 0, U16, REQ),
    9: ("breaker", UINT, 0, U8, 0),
    10: ("reds", UINT, 0, U8, 0),
    13: ("t", UINT, 0, U63, 0),
    -1: ("who", TEXT, NAME_BYTES, 0, 0),
    -6: _ACTION,
}

# The schemas of the messages a device receives.  type: {key: (name, kind, a,
# b, presence)}.  Those only a device sends (hello, event, state, log) are
# never checked on the device (Session refuses them by sender first):
# host_catalogue.py adds them on the host, so the board does not hold them.
SCHEMA = {
    WELCOME: {
        0: ("host", TEXT, 32, 0, REQ),
        1: ("ack", UINT, 0, U32, REQ),
        2: ("base", UINT, 1, U32, REQ),
        3: ("last", UINT, 0, U32, REQ),
        4: ("refuse", TEXT, 200, 0, 0),
        5: ("window", UINT, 1, U8, 0),
    },
    ACK: {0: ("ack", UINT, 0, U32, REQ)},
    HEARTBEAT: {0: ("ack", UINT, 0, U32, REQ), 1: ("t", UINT, 0, U63, 0)},
    SETUP_MATCH: _SETUP,
    COMMAND: _COMMAND,
    TIME: {0: ("unix_ms", UINT, 0, U63, REQ), 1: ("tz_min", INT, -1440, 1440, 0)},
    SNAPSHOT_REQUEST: {0: ("reason", TEXT, 48, 0, 0)},
    ERROR: {
        0: ("code", UINT, 0, U8, REQ),
        1: ("text", TEXT, 200, 0, REQ),
        2: ("type", UINT, 0, U8, 0),
        3: ("seq", UINT, 0, U32, 0),
    },
    LIGHT: {0: ("on", BOOL, 0, 0, REQ)},
    SETTINGS: {0: ("lang", NAME, names.LANGS, 0, 0)},
    NAME_BITMAP: {
        0: ("side", UINT, 0, 1, REQ),
        1: ("member", UINT, 0, 1, REQ),
        2: ("width", UINT, 1, _BITMAP_WIDTH, REQ),
        3: ("height", UINT, 1, _BITMAP_HEIGHT, REQ),
        4: ("bits", BYTES, 0, _BITMAP_BYTES, REQ),
    },
    _T_CHECK_REQUEST: {0: ("who", TEXT, NAME_BYTES, 0, 0)},
}

# Bodies that may carry engine input keys this catalogue does not know yet,
# under their text name (SPEC.md "Raw input").  Not setup_match: its body is
# its table, and the device feeds the engine's match event from that alone.
TEXT_KEYS_ALLOWED = (EVENT, COMMAND)


E_UNKNOWN_TYPE = "unknown_type"  # a frame fine in itself, of a type not in TYPES


def _is_uint(v, lo, hi):
    return type(v) is int and lo <= v <= hi


def _text_ok(v, most):
    return type(v) is str and len(v.encode()) <= most


def _name_ok(v):
    return _is_uint(v, 0, CODE_LIMIT) or _text_ok(v, _NAME_TEXT_BYTES)


def _check_value(kind, a, b, v):
    # Returns None when v fits, else what was expected.
    if kind == UINT:
        return None if _is_uint(v, a, b) else "an integer %d..%d" % (a, b)
    if kind == INT:
        return None if (type(v) is int and a <= v <= b) else "an integer %d..%d" % (a, b)
    if kind == TEXT:
        return None if _text_ok(v, a) else "text of at most %d bytes" % a
    if kind == BYTES:
        return None if (type(v) is bytes and a <= len(v) <= b) else "%d to %d bytes" % (a, b)
    if kind == BOOL:
        return None if (v is True or v is False) else "true or false"
    if kind in (NAME, WARNING):
        return None if _name_ok(v) else "a name code or a name"
    if kind == BALL_ON:
        return None if (v == ANY_COLOUR or _name_ok(v)) else "a ball code, -1 or a name"
    if kind == NAMES:
        if type(v) is list and len(v) <= b:
            for x in v:
                if not _name_ok(x):
                    break
            else:
                return None
        return "a list of at most %d name codes" % b
    if kind == UINTS:
        n, lo, hi = a
        if type(v) is list and len(v) == n:
            for x in v:
                if not _is_uint(x, lo, hi):
                    break
            else:
                return None
        return "a list of %d integers %d..%d" % (n, lo, hi)
    if kind == COLOURS:
        if _is_uint(v, 0, 63):
            return None
        return _check_value(NAMES, names.BALLS, 6, v)
    if kind == FOUL:
        if (
            type(v) is dict
            and _is_uint(v.get(0), 0, 1)
            and _is_uint(v.get(1), 0, U16)
            and _name_ok(v.get(2))
        ):
            return None
        return "{0: side, 1: points, 2: kind}"
    if kind == PLAYERS:
        if type(v) is list and len(v) == 2:
            ok = True
            teams = type(v[0]) is list  # both sides alike: a name and a team is neither form
            for x in v:
                if (type(x) is list) != teams:
                    ok = False
                elif teams:
                    if not (1 <= len(x) <= 2):
                        ok = False
                    for y in x:
                        if not _text_ok(y, NAME_BYTES):
                            ok = False
                elif not _text_ok(x, NAME_BYTES):
                    ok = False
            if ok:
                return None
        return "two names, or two teams of one or two names"
    return "a known kind"


def required_keys(schema):
    return tuple(k for k in schema if schema[k][4] & REQ)


REQUIRED = {}
for _t in SCHEMA:
    REQUIRED[_t] = required_keys(SCHEMA[_t])


def check(mtype, body):
    """Check a decoded body against the catalogue.

    Returns None when it fits, else a sentence naming the first problem.  Keys
    the catalogue does not list are ignored: they are a newer minor's
    additions, or (in raw-input messages) engine keys carried by name.
    """
    schema = SCHEMA.get(mtype)
    if schema is None:
        return "unknown message type %d" % mtype
    if type(body) is not dict:
        return "the body of %s must be a map" % type_name(mtype)
    for k in REQUIRED[mtype]:
        if k not in body:
            return "%s: key %d (%s) is missing" % (type_name(mtype), k, schema[k][0])
    raw = mtype in TEXT_KEYS_ALLOWED
    for k in body:
        entry = schema.get(k)
        if entry is None:
            spec = RAW.get(k) if raw else None
            if spec is not None:
                # An engine key by name (SPEC.md 7.3).  Beside its own integer
                # key it would be that key twice.  A name as text, or a list of
                # names under occupied, is held to the integer key's check, or
                # a 40-byte ball name would be journaled under key 1, which the
                # host refuses.  Any other value travels as it came: it is put
                # under its integer key only when it passes that key's check
                # (event_to_wire), and the engine judges it.
                if spec[0] in body:
                    return "%s: key '%s' and key %d both given" % (type_name(mtype), k, spec[0])
                kind = spec[1]
                v = body[k]
                if kind == NAME:
                    v = _name_to_wire(spec[2], v)  # None: not text
                elif kind == NAMES and type(v) is list:
                    v = [_name_to_wire(spec[2], x) for x in v]
                    if None in v:
                        v = None  # not a list of names
                else:
                    v = None
                if v is not None:
                    want = _check_value(kind, spec[2], spec[3], v)
                    if want is not None:
                        return "%s: key '%s' must be %s" % (type_name(mtype), k, want)
            continue
        v = body[k]
        if v is None and entry[4] & NUL:
            continue
        want = _check_value(entry[1], entry[2], entry[3], v)
        if want is not None:
            return "%s: key %d (%s) must be %s" % (type_name(mtype), k, entry[0], want)
    return None


# ---------------------------------------------------------------------------
# Engine dicts <-> wire maps.  Both directions are pure and lossless for every
# value that fits the catalogue; a value that does not fit (an unexpected type)
# travels under its text name, untouched, so the host replays exactly what the
# device's engine saw.


def _name_to_wire(table, v):
    if type(v) is str:
        c = names.code_of(table, v)
        return c if c >= 0 else v
    return None


def name_from_wire(table, v):
    if type(v) is int:
        return table[v] if 0 <= v < len(table) else "#%d" % v
    return v


def _raw_value_to_wire(kind, a, b, v):
    # Returns (True, wire value) or (False, None) when v does not fit the kind.
    if kind == NAME:
        w = _name_to_wire(a, v)
        return (w is not None), w
    if kind == NAMES:
        if type(v) is not list or len(v) > b:
            return False, None
        out = []
        for x in v:
            w = _name_to_wire(a, x)
            if w is None:
                return False, None
            out.append(w)
        return True, out
    w = v
    if kind == PLAYERS and type(v) is list:
        w = [list(x) if type(x) is list else x for x in v]
    return _check_value(kind, a, b, w) is None, w


def event_to_wire(ev):
    """Engine input dict -> compact map with integer keys (raw input only)."""
    out = {}
    for n in ev:
        v = ev[n]
        spec = RAW.get(n)
        if spec is not None:
            ok, w = _raw_value_to_wire(spec[1], spec[2], spec[3], v)
            if ok:
                out[spec[0]] = w
                continue
        out[n] = v
    return out


def wire_to_event(m, schema=None):
    """Compact map -> engine input dict.  Negative keys (results) are skipped;
    with a schema (setup_match's: SPEC.md 7.6) only the keys it lists are read."""
    ev = {}
    for k in m:
        if schema is not None and k not in schema:
            continue
        v = m[k]
        if type(k) is str:
            ev[k] = v
            continue
        n = RAW_BY_KEY.get(k)
        if n is None:
            continue  # a negative key (result, envelope) or a newer minor's key
        kind = RAW[n][1]
        if kind == NAME:
            v = name_from_wire(RAW[n][2], v)
        elif kind == NAMES:
            v = [name_from_wire(RAW[n][2], x) for x in v]
        ev[n] = v
    return ev


def event_body(ev, scores, rejected=None, boot=0, src=SRC_SENSOR, cmd=0, act=0):
    """The body of an event message: raw input and its settled result."""
    body = event_to_wire(ev)
    body[-1] = [scores[0], scores[1]]
    if rejected is not None:
        # at most _REASON_BYTES of UTF-8, cut before a character's first byte
        b = rejected.encode()
        n = _REASON_BYTES
        if len(b) > n:
            while b[n] & 0xC0 == 0x80:
                n -= 1
            rejected = b[:n].decode()
        body[-2] = rejected
    if boot:
        body[-3] = boot
    if src != SRC_SENSOR:
        body[-4] = src
    if cmd:
        body[-5] = cmd
    if act:
        body[-6] = act
    return body


def event_result(body):
    """(scores, rejected reason or None, boot or 0, src, cmd or 0) of an event body."""
    return (
        body.get(-1),
        body.get(-2),
        body.get(-3, 0),
        body.get(-4, SRC_SENSOR),
        body.get(-5, 0),
    )


def _colours_to_wire(v):
    if type(v) is not list:
        return None
    mask = 0
    last = -1
    for x in v:
        c = names.code_of(names.COLOURS, x)
        if c <= last:  # unknown or out of value order: send the names themselves
            ok, w = _raw_value_to_wire(NAMES, names.BALLS, 6, v)
            return w if ok else None
        mask |= 1 << c
        last = c
    return mask


def state_to_wire(state, at):
    """Engine state dict -> compact snapshot (key 0 is the seq of the newest
    event the state reflects).  Keys outside the catalogue are not sent, nor
    are values that do not fit it."""
    out = {0: at}
    for n in STATE_KEYS:
        if n not in state:
            continue
        key, kind, a, b = STATE_KEYS[n]
        v = state[n]
        if v is None:
            if n in STATE_NULLABLE:
                out[key] = None
            continue
        if kind == COLOURS:
            w = _colours_to_wire(v)
            ok = w is not None
        elif kind == BALL_ON:
            if v == "colour":
                ok, w = True, ANY_COLOUR
            else:
                ok, w = _raw_value_to_wire(NAME, a, 0, v)
        elif kind == WARNING:
            ok, w = _raw_value_to_wire(NAME, a, 0, v)
        elif kind == FOUL:
            ok = type(v) is dict
            if ok:
                w = {
                    0: v.get("side"),
                    1: v.get("points"),
                    2: _name_to_wire(names.FOUL_KINDS, v.get("kind")),
                }
                ok = _check_value(FOUL, 0, 0, w) is None
        elif kind == UINTS and type(v) in (list, tuple):
            w = list(v)
            ok = _check_value(kind, a, b, w) is None
        else:
            ok, w = _raw_value_to_wire(kind, a, b, v)
        if ok:
            out[key] = w
    return out
