# The message catalogue (SPEC.md "Messages"): type ids, the keys of every body,
# their types and ranges, the check a receiver runs on a decoded body, and the
# pure conversions between the engine's event and state dicts and their compact
# wire maps.  Codes for balls, pockets, events and foul kinds are their index in
# firmware/names.py, so the wire, the journal and the undo log agree.
#
# The catalogue is text (_TYPES, _RAW, _STATE, _BODIES below), read a line at a
# time by the accessors type_of() and schema() when a message comes or goes.
# With the code in flash (ROMFS, frozen) a text constant stays in flash too,
# where dicts of tuples would take some 5 KB of the board's heap for as long as
# it runs.  The host reads the same text once into dicts (host_catalogue.py:
# TYPES, SCHEMA, RAW, STATE_KEYS), so the vocabulary is declared here alone.

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
_T_HEALTH = const(16)  # the pockets' sensor counts (device -> host; host_catalogue.py)
_T_POCKET_CHECK = const(17)  # a pocket check's result per pocket (device -> host)
_T_CHECK_REQUEST = const(18)  # start a pocket check (host -> device)
CHECKPOINT = const(19)
# 20-21, the sensor capture's (since 1.3): private too, for the same reason;
# the host's names are host_catalogue's CAPTURE_REQUEST and TRACE.  A trace
# (21) is the host's alone, as health is: the device sends it unreliably
# without knowing the type (firmware/capture.py).
_T_CAPTURE_REQUEST = const(20)  # start or stop a sensor capture (host -> device)
_T_TRACE = const(21)  # a capture's raw beam edges and colour windows (device -> host)
# 22, since 1.4: the head of the host's money rows' chain, for the device to
# sign into a checkpoint (SPEC.md 7.8, "Anchors"); private for the same reason.
_T_ANCHOR = const(22)
# 23-25, since 1.5: the firmware update's (SPEC.md 7.9), private for the same
# reason.  update_status (24) is the host's alone, as health is: the update
# mode sends it, without a session, and no line here names it
# (firmware/update/mode.py).  update_data (25) is the one type whose frames
# may be longer than MAX_FRAME (host_codec.MAX_UPDATE_FRAME).
_T_UPDATE_REQUEST = const(23)  # leave the match for the update mode, or confirm a trial
_T_UPDATE_STATUS = const(24)  # where the update mode is (device -> host)
_T_UPDATE_DATA = const(25)  # a chunk of the release's stream (host -> device)

DEVICE = const(1)  # sent by the device
HOST = const(2)  # sent by the host
BOTH = const(3)

# One line a message type: its id, its name, who sends it (device, host,
# both) and its stream (reliable, or - for unreliable).  Health (16) is the
# host's alone (host_catalogue.py): a device sends it, unreliably, without
# knowing the type; so are trace (21) and update_status (24).
_TYPES = (
    "\n1 hello device -"
    "\n2 welcome host -"
    "\n3 event device reliable"
    "\n4 state device -"
    "\n5 ack both -"
    "\n6 heartbeat both -"
    "\n7 setup_match host reliable"
    "\n8 command host reliable"
    "\n9 time host -"
    "\n10 snapshot_request host -"
    "\n11 log device -"
    "\n12 error both -"
    "\n13 light host reliable"
    "\n14 settings host reliable"
    "\n15 name_bitmap host reliable"
    "\n17 pocket_check device reliable"  # here: the device sends it reliably
    "\n18 check_request host reliable"
    "\n19 checkpoint device reliable"
    "\n20 capture_request host reliable"
    "\n22 anchor host reliable"
    "\n23 update_request host reliable"
    "\n25 update_data host -"
)


def type_of(mtype):
    """(name, sender, reliable) of a message type, or None for a type not
    known here."""
    at = _TYPES.find("\n%d " % mtype)
    if at < 0:
        return None
    w = _words(_TYPES, at + 1)
    return w[1], _index(" - device host both ", w[2]), w[3] == "reliable"


def type_name(mtype):
    t = type_of(mtype)
    return t[0] if t else "type %d" % mtype


def is_reliable(mtype):  # on every send: its line's stream word, no tuple
    at = _TYPES.find("\n%d " % mtype)
    return at >= 0 and _words(_TYPES, at + 1)[3] == "reliable"


# Value kinds of the schema; a kind's word in the catalogue is its place in
# _KINDS (tests/protocol/test_wire_messages.py holds the two together), a
# sender's (DEVICE ...) its place in " - device host both ", a presence's
# (REQ, NUL) in " - req nul ".
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
WARNING = const(11)  # NAME over names.WARNINGS
BYTES = const(12)  # a, b: fewest and most bytes
# ... and marks: a checkpoint's, which only the host checks (host_catalogue.MARKS).
_KINDS = " uint int text bool name names uints players foul ball_on colours warning bytes marks "

REQ = const(1)  # the key must be present
NUL = const(2)  # null is allowed

U8 = const(0xFF)
U16 = const(0xFFFF)
U32 = const(0xFFFFFFFF)
U63 = 0x7FFFFFFFFFFFFFFF
NAME_BYTES = const(48)  # a player's or operator's name, UTF-8
_NAME_TEXT_BYTES = const(32)  # a ball, pocket, event or foul name sent as text
_REASON_BYTES = const(160)  # an event's rejection reason (key -2); the host's bound
CODE_LIMIT = const(255)  # codes above the tables are names appended in a newer minor

ANY_COLOUR = const(-1)  # ball_on "colour": any colour may be played

# The keys of a body, one line each, indented by two spaces: its name, its
# integer key, its kind, a and b (a number; u8, u16, u32 or u63, the largest
# unsigned integer of so many bits; a names table of firmware/names.py by its
# name; or items,lo,hi for a list of integers), and its presence: req, nul
# (may be null) or -.
#
# Raw input of the engine: one key space shared by event, command and
# setup_match, keys 0, 1, 2, ... in this order (a key is found by its line).
_RAW = (
    "\n  ev        0  name     EVENTS      0   req"
    "\n  ball      1  name     BALLS       0   -"
    "\n  pocket    2  name     POCKETS     0   -"
    "\n  kind      3  name     FOUL_KINDS  0   -"
    "\n  side      4  uint     0           u8  -"
    "\n  clear     5  bool     0           0   -"
    "\n  match     6  bool     0           0   -"
    "\n  players   7  players  0           0   -"
    "\n  best_of   8  uint     0           u16 -"
    "\n  breaker   9  uint     0           u8  -"
    "\n  reds      10 uint     0           u8  -"
    "\n  occupied  11 names    BALLS       8   -"
    "\n  first     12 uint     0           u8  -"
    "\n  t         13 uint     0           u63 -"
)

# Engine state keys in the compact snapshot, in the order a snapshot carries
# them.  history and rejected grow with the match and are not sent: the host
# has both from the event stream.
_STATE = (
    "\n  frame              1  uint     0         u16 -"
    "\n  frames             2  uints    2,0,u16   0   -"
    "\n  scores             3  uints    2,0,u16   0   -"
    "\n  striker            4  uint     0         1   -"
    "\n  player             5  text     48        0   nul"
    "\n  reds               6  uint     0         u8  -"
    "\n  colours            7  colours  0         0   -"
    "\n  ball_on            8  ball_on  BALLS     0   nul"
    "\n  nominated          9  name     BALLS     0   nul"
    "\n  free_ball          10 bool     0         0   -"
    "\n  break              11 uint     0         u16 -"
    "\n  highest_break      12 uints    2,0,u16   0   -"
    "\n  points_remaining   13 uint     0         u16 -"
    "\n  snookers_required  14 uints    2,0,u16   0   -"
    "\n  last_foul          15 foul     0         0   nul"
    "\n  misses             16 uint     0         u8  -"
    "\n  warning            17 warning  WARNINGS  0   nul"
    "\n  respot             18 names    BALLS     6   -"
    "\n  respotted_black    19 bool     0         0   -"
    "\n  in_hand            20 bool     0         0   -"
    "\n  frame_over         21 bool     0         0   -"
    "\n  match_over         22 bool     0         0   -"
    "\n  frame_winner       23 uint     0         1   nul"
    "\n  match_winner       24 uint     0         1   nul"
)

# The bodies of the messages a device receives: a line "name:" per type, then
# its keys; "+raw" stands for the raw input's keys ("+state" for the state's).
# Those only a device sends (hello, event, state, log, ...) are never checked
# on the device (Session refuses them by sender first): host_catalogue.py adds
# them on the host.
# -6 action: the operator action's id, never reused; the device applies each
# id once (SPEC.md "Actions").  A player's name drawn by the host for the
# handset (name_bitmap): at most one display row, 16 pixels high and as wide
# as the display (128), 1 bit a pixel: (128 + 7) // 8 * 16 = 256 bytes.
_BODIES = (
    "\nwelcome:"
    "\n  host      0   text     32     0     req"
    "\n  ack       1   uint     0      u32   req"
    "\n  base      2   uint     1      u32   req"
    "\n  last      3   uint     0      u32   req"
    "\n  refuse    4   text     200    0     -"
    "\n  window    5   uint     1      u8    -"
    "\nack:"
    "\n  ack       0   uint     0      u32   req"
    "\nheartbeat:"
    "\n  ack       0   uint     0      u32   req"
    "\n  t         1   uint     0      u63   -"
    "\nsetup_match:"
    "\n  players   7   players  0      0     req"
    "\n  best_of   8   uint     0      u16   req"
    "\n  breaker   9   uint     0      u8    -"
    "\n  reds      10  uint     0      u8    -"
    "\n  t         13  uint     0      u63   -"
    "\n  who       -1  text     48     0     -"
    "\n  action    -6  uint     1      u63   -"
    "\ncommand:"
    "\n  +raw"
    "\n  who       -1  text     48     0     -"
    "\n  action    -6  uint     1      u63   -"
    "\ntime:"
    "\n  unix_ms   0   uint     0      u63   req"
    "\n  tz_min    1   int      -1440  1440  -"
    "\nsnapshot_request:"
    "\n  reason    0   text     48     0     -"
    "\nerror:"
    "\n  code      0   uint     0      u8    req"
    "\n  text      1   text     200    0     req"
    "\n  type      2   uint     0      u8    -"
    "\n  seq       3   uint     0      u32   -"
    "\nlight:"
    "\n  on        0   bool     0      0     req"
    "\nsettings:"
    "\n  lang      0   name     LANGS  0     -"
    "\nname_bitmap:"
    "\n  side      0   uint     0      1     req"
    "\n  member    1   uint     0      1     req"
    "\n  width     2   uint     1      128   req"
    "\n  height    3   uint     1      16    req"
    "\n  bits      4   bytes    0      256   req"
    "\ncheck_request:"
    "\n  who       0   text     48     0     -"
    "\ncapture_request:"
    "\n  on        0   bool     0      0     req"
    "\n  during    1   bool     0      0     -"
    "\n  seconds   2   uint     1      900   -"
    "\n  passages  3   uint     1      255   -"
    "\n  who       4   text     48     0     -"
    "\nanchor:"
    "\n  n         0   uint     1      u32   req"
    "\n  head      1   bytes    32     32    req"
    "\nupdate_request:"
    "\n  op        0   uint     0      1     req"
    "\n  size      1   uint     0      u32   -"
    "\n  who       2   text     48     0     -"
    "\nupdate_data:"
    "\n  offset    0   uint     0      u32   req"
    "\n  data      1   bytes    1      1024  -"
    "\n  commit    2   bool     0      0     -"
)


def _index(words, w):
    # The place of word w in `words`, a text of words between single spaces.
    return words.count(" ", 0, words.find(" %s " % w))


def _words(text, at):
    # The words of the line of `text` that starts at `at`.
    end = text.find("\n", at)
    return (text[at:end] if end >= 0 else text[at:]).split()


def _bound(w):
    if w == "0":
        return 0
    if "," in w:  # items,lo,hi
        return tuple(_bound(x) for x in w.split(","))
    if w.startswith("u"):  # u8 ... u63
        return (1 << int(w[1:])) - 1
    if w.isupper():  # a names table
        return getattr(names, w)
    return int(w)


def _entry(w):
    # A key line's words -> (name, kind, a, b, presence)
    return w[0], _index(_KINDS, w[2]), _bound(w[3]), _bound(w[4]), _index(" - req nul ", w[5])


def _keys(out, text, at):
    """Put the key lines of `text` from index `at` on (a newline), up to the
    first line that is not indented, into out as {key: entry}; returns out."""
    while text.startswith("\n  ", at):
        w = _words(text, at + 3)
        if w[0].startswith("+"):  # +raw, +state: those keys here
            _keys(out, _RAW if w[0] == "+raw" else _STATE, 0)
        else:
            out[int(w[1])] = _entry(w)
        at = text.find("\n", at + 3)
        if at < 0:
            break
    return out


def schema(mtype):
    """{key: (name, kind, a, b, presence)} of a type's body (in the
    catalogue's order, where dicts keep one), or None when this catalogue
    holds no body for the type."""
    t = type_of(mtype)
    at = _BODIES.find("\n%s:" % t[0]) if t else -1
    if at < 0:
        return None
    return _keys({}, _BODIES, _BODIES.find("\n", at + 1))  # -1 (no keys): {}


def _raw(n):
    # (key, entry) of an engine input key by its name, or None.
    if type(n) is not str:
        return None
    at = _RAW.find("\n  %s " % n)
    if at < 0:
        return None
    w = _words(_RAW, at + 3)
    return (int(w[1]), _entry(w)) if w[0] == n else None


def _raw_at(k):
    # The entry of engine input key k, or None.
    if not isinstance(k, int) or k < 0:
        return None
    at = 0
    while k and at >= 0:
        at = _RAW.find("\n", at + 1)
        k -= 1
    return None if at < 0 else _entry(_words(_RAW, at + 3))


if __import__("sys").implementation.name != "micropython":
    # CPython, where the host reads the keys of every event it replays: _RAW
    # read once into dicts, one look-up a key (a board keeps the text).
    _raw_at = _keys({}, _RAW, 0).get
    _raw = {e[0]: (k, e) for k, e in _keys({}, _RAW, 0).items()}.get


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

# Bodies that may carry engine input keys this catalogue does not know yet,
# under their text name (SPEC.md "Raw input").  Not setup_match: its body is
# its table, and the device feeds the engine's match event from that alone.
TEXT_KEYS_ALLOWED = (EVENT, COMMAND)


E_UNKNOWN_TYPE = "unknown_type"  # a frame fine in itself, of a type not in the catalogue


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


def check(mtype, body):
    """Check a decoded body against the catalogue.

    Returns None when it fits, else a sentence naming the first problem.  Keys
    the catalogue does not list are ignored: they are a newer minor's
    additions, or (in raw-input messages) engine keys carried by name.
    """
    keys = schema(mtype)
    if keys is None:
        return "unknown message type %d" % mtype
    if type(body) is not dict:
        return "the body of %s must be a map" % type_name(mtype)
    for k in keys:
        if keys[k][4] & REQ and k not in body:
            return "%s: key %d (%s) is missing" % (type_name(mtype), k, keys[k][0])
    raw = mtype in TEXT_KEYS_ALLOWED
    for k in body:
        entry = keys.get(k)
        if entry is None:
            spec = _raw(k) if raw else None
            if spec is not None:
                # An engine key by name (SPEC.md 7.3).  Beside its own integer
                # key it would be that key twice.  A name as text, or a list of
                # names under occupied, is held to the integer key's check, or
                # a 40-byte ball name would be journaled under key 1, which the
                # host refuses.  Any other value travels as it came: it is put
                # under its integer key only when it passes that key's check
                # (event_to_wire), and the engine judges it.
                key, e = spec
                if key in body:
                    return "%s: key '%s' and key %d both given" % (type_name(mtype), k, key)
                kind = e[1]
                v = body[k]
                if kind == NAME:
                    v = _name_to_wire(e[2], v)  # None: not text
                elif kind == NAMES and type(v) is list:
                    v = [_name_to_wire(e[2], x) for x in v]
                    if None in v:
                        v = None  # not a list of names
                else:
                    v = None
                if v is not None:
                    want = _check_value(kind, e[2], e[3], v)
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
    # Returns (True, wire value) or (False, None) when v does not fit the kind:
    # its key's check, so that a name over _NAME_TEXT_BYTES stays under its
    # text name (SPEC.md 7.3, since 1.3) rather than under a key it fails.
    if kind == NAME:
        w = _name_to_wire(a, v)
        return (w is not None and _name_ok(w)), w
    if kind == NAMES:
        if type(v) is not list or len(v) > b:
            return False, None
        out = []
        for x in v:
            w = _name_to_wire(a, x)
            if w is None or not _name_ok(w):
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
        spec = _raw(n)
        if spec is not None:
            e = spec[1]
            ok, w = _raw_value_to_wire(e[1], e[2], e[3], v)
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
        e = _raw_at(k)
        if e is None:
            continue  # a negative key (result, envelope) or a newer minor's key
        if e[1] == NAME:
            v = name_from_wire(e[2], v)
        elif e[1] == NAMES:
            v = [name_from_wire(e[2], x) for x in v]
        ev[e[0]] = v
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
    entries = _keys({}, _STATE, 0)
    for key in entries:
        n, kind, a, b, presence = entries[key]
        if n not in state:
            continue
        v = state[n]
        if v is None:
            if presence & NUL:
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
