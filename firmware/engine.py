# The rules of snooker as a pure state machine (docs/ENGINE.md).
#
# Events in (``apply``), state out (``state_obj``).  No clock, no I/O, no
# hardware: the table firmware, the host's shadow referee and `baulk replay` all
# drive this module, under MicroPython and CPython alike.
#
# Memory stays bounded: the state is a fixed set of small integers, the undo log
# is one preallocated bytearray and the frame history one preallocated array.

from array import array

from . import names, respot
from .state_json import Obj, Seq, dump, dumps

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# Ball codes (firmware/names.py).
_RED = const(0)
_YELLOW = const(1)
_PINK = const(5)
_BLACK = const(6)
_WHITE = const(7)
_ALL_COLOURS = const(0x7E)  # bits 1..6

# What ``on`` holds besides a colour code (colours phase).
_ON_RED = const(0)
_ON_COLOUR = const(8)  # any colour: after a red, or once after the last red
_ON_NONE = const(-1)

_NONE = const(-1)

# Event codes (index in names.EVENTS).
_EV_MATCH = const(0)
_EV_STRIKE = const(1)
_EV_POT = const(2)
_EV_OFF = const(3)
_EV_REST = const(4)
_EV_FOUL = const(5)
_EV_MISS = const(6)
_EV_FREE_BALL = const(7)
_EV_NOMINATE = const(8)
_EV_PLAY_AGAIN = const(9)
_EV_REPLACE = const(10)
_EV_CONCEDE = const(11)
_EV_AWARD = const(12)
_EV_RERACK = const(13)
_EV_TOSS = const(14)
_EV_UNDO = const(15)
_EV_SPOTS = const(16)
_EV_CLAIM = const(17)
_EV_EDGE_REPLACE = const(18)
_EV_ORDER = const(19)

# Foul kinds that are referred to by rule (index in names.FOUL_KINDS).
_K_OUT_OF_TURN = const(2)
_K_OUTSIDE_D = const(3)
_K_IN_OFF = const(5)
_K_FREE_BALL_SNOOKER = const(6)
_K_POT_NOT_ON = const(12)
_K_OFF_TABLE = const(16)
_K_TWO_BALLS = const(17)
_K_RED_AFTER_RED = const(20)
_K_FOUL_BEFORE_NOMINATION = const(23)

_MAX_BEST_OF = const(35)
_MAX_NAME_BYTES = const(48)  # UTF-8, as the wire protocol carries a name
_MAX_STROKE_EVENTS = const(40)
LOG_EVENTS = const(512)
_ACTION = const(0x80)  # log flag: this entry starts an undoable action
_SETTLE_MS = const(4000)  # R3.12.3: a hanging ball dropping within this counts

MISS_WARNING = "third_miss_forfeits"

# The state: every mutable scalar, its value before any match, and when else it
# goes back to that value: _AT_FRAME at every rack (a new frame), _AT_STROKE at
# every strike.  A new match resets them all.  A snapshot is the tuple of these
# values in this order; restoring one is how a rejected event changes nothing.
# (Engine's annotations repeat the names for the type checkers only;
# tests/test_engine_state_table.py holds the two together.)
#
# One field() call a field, not a literal table: MicroPython keeps a literal
# tuple of constants in RAM for as long as the module lives, even with the
# code in ROMFS; these calls run once, from flash, and leave only the four
# tables below.
_AT_MATCH = const(0)
_AT_FRAME = const(1)
_AT_STROKE = const(2)
_AT_BOTH = const(3)


def _state_table():
    names = []  # type: list[str]
    defaults = []  # type: list[int]
    at_frame = bytearray()
    at_stroke = bytearray()

    def field(name, default, at=_AT_MATCH):
        if at & _AT_FRAME:
            at_frame.append(len(names))
        if at & _AT_STROKE:
            at_stroke.append(len(names))
        names.append(name)
        defaults.append(default)

    field("active", False)  # a match has been set up
    field("best_of", 0)
    field("reds_per_frame", 0)
    field("first_breaker", 0)
    field("frame", 0)
    field("f0", 0)  # frames won
    field("f1", 0)
    field("s0", 0, _AT_FRAME)  # scores in this frame
    field("s1", 0, _AT_FRAME)
    field("h0", 0)  # highest breaks of the match
    field("h1", 0)
    field("hist_len", 0)
    field("breaker", 0, _AT_FRAME)
    field("first0", 0, _AT_FRAME)  # doubles: which partner of side 0 plays first this frame
    field("first1", 0, _AT_FRAME)
    field("pos", 0, _AT_FRAME)  # position in this frame's order of play
    field("reds", 0, _AT_FRAME)
    field("colours", 0, _AT_FRAME)  # bitmask; colours waiting to be spotted count as on the table
    field("on", _ON_NONE, _AT_FRAME)
    field("nominated", _NONE, _AT_FRAME)
    field("free_ball", False, _AT_FRAME)
    field("brk", 0, _AT_FRAME)
    field("in_hand", False, _AT_FRAME)
    field("foul_side", _NONE)  # the last settled stroke's foul (last_foul)
    field("foul_points", 0)
    field("foul_kind", _NONE)
    field("misses", 0, _AT_FRAME)
    field("miss_chain", False, _AT_FRAME)  # a clear miss was replaced: the next one counts on
    field("respot", 0, _AT_BOTH)  # R3.10.3: spotted by the referee before the next stroke
    field("places", 0, _AT_BOTH)  # respot placements, 4 bits per colour code
    field("respotted_black", False, _AT_FRAME)
    field("toss_open", False, _AT_BOTH)
    field("frame_over", False)
    field("match_over", False)
    field("frame_winner", _NONE)
    field("match_winner", _NONE)
    field("stroke_open", False, _AT_FRAME)
    field("frame_strokes", 0, _AT_FRAME)  # strokes played in this frame
    field("foul_open", False, _AT_BOTH)  # last settled stroke was a foul: free ball / play again
    field("miss_open", False, _AT_BOTH)  # ... and a miss: replace allowed
    field("after_stroke", False, _AT_BOTH)  # only calls since the last stroke: edge_replace
    field("offender_pos", 0)
    field("incoming_pos", 0)
    field("strike_pos", _NONE)  # log index of the current/last stroke's strike
    field("rest_pos", _NONE, _AT_STROKE)  # log index of its rest, -1 while the stroke is open
    # The stroke being played: set from the state at each strike ...
    field("st_on", _ON_NONE)
    field("st_nom", _NONE)
    field("st_free", False)
    field("st_in_hand", False)
    field("st_reds", 0)
    field("st_colours", 0)
    field("st_brk", 0)
    field("st_pos", 0)
    # ... and what happens in it.
    field("st_red_pots", 0, _AT_STROKE)
    field("st_col_pots", 0, _AT_STROKE)  # bitmask
    field("st_white_pot", False, _AT_STROKE)
    field("st_red_offs", 0, _AT_STROKE)
    field("st_col_offs", 0, _AT_STROKE)
    field("st_white_off", False, _AT_STROKE)
    field("st_chosen", _NONE, _AT_STROKE)  # colour taken as nominated/free ball when none was
    field("st_fkind", _NONE, _AT_STROKE)
    field("st_fpts", 0, _AT_STROKE)
    field("st_fball", _NONE, _AT_STROKE)
    field("st_miss", 0, _AT_STROKE)  # 0 none, 1 miss, 2 clear miss
    field("st_events", 0, _AT_STROKE)
    return tuple(names), tuple(defaults), bytes(at_frame), bytes(at_stroke)


# _DEFAULTS: the snapshot of an engine before any match; _FRAME_RESET and
# _STROKE_RESET: the indices into _FIELDS of what a rack, and a strike, reset.
_FIELDS, _DEFAULTS, _FRAME_RESET, _STROKE_RESET = _state_table()
del _state_table


try:
    # CPython: one C call reads every field (the host replays every event of
    # every table through the shadow referee).  MicroPython's operator module,
    # where it has one, takes a single name; it uses the loop in snapshot().
    from operator import attrgetter

    _get_fields = attrgetter(*_FIELDS)
    # ... and a reset is one dict update.
    _FRAME_VALUES = {_FIELDS[i]: _DEFAULTS[i] for i in _FRAME_RESET}  # type: dict[str, int] | None
    _STROKE_VALUES = {_FIELDS[i]: _DEFAULTS[i] for i in _STROKE_RESET}  # type: dict[str, int] | None
except (ImportError, TypeError):
    _get_fields = None  # type: ignore[assignment]
    _FRAME_VALUES = _STROKE_VALUES = None


class Rejected(Exception):
    """An input event the engine refuses; the state is left exactly as it was."""


def value_of(ball):
    return names.BALL_VALUES[ball]


def _lowest(mask):
    code = _YELLOW
    while code <= _BLACK:
        if mask & (1 << code):
            return code
        code += 1
    return _ON_NONE


def _count(mask):
    n = 0
    while mask:
        n += mask & 1
        mask >>= 1
    return n


def _sum_values(mask):
    total = 0
    for code in range(_YELLOW, _BLACK + 1):
        if mask & (1 << code):
            total += code + 1  # yellow 2 ... black 7
    return total


def _ball_name(code):
    return names.BALLS[code]


class Engine:
    # The fields of _STATE, typed for the type checkers (MicroPython drops
    # bare annotations: they cost the board nothing).
    active: bool
    best_of: int
    reds_per_frame: int
    first_breaker: int
    frame: int
    f0: int
    f1: int
    s0: int
    s1: int
    h0: int
    h1: int
    hist_len: int
    breaker: int
    first0: int
    first1: int
    pos: int
    reds: int
    colours: int
    on: int
    nominated: int
    free_ball: bool
    brk: int
    in_hand: bool
    foul_side: int
    foul_points: int
    foul_kind: int
    misses: int
    miss_chain: bool
    respot: int
    places: int
    respotted_black: bool
    toss_open: bool
    frame_over: bool
    match_over: bool
    frame_winner: int
    match_winner: int
    stroke_open: bool
    frame_strokes: int
    foul_open: bool
    miss_open: bool
    after_stroke: bool
    offender_pos: int
    incoming_pos: int
    strike_pos: int
    rest_pos: int
    st_on: int
    st_nom: int
    st_free: bool
    st_in_hand: bool
    st_reds: int
    st_colours: int
    st_brk: int
    st_pos: int
    st_red_pots: int
    st_col_pots: int
    st_white_pot: bool
    st_red_offs: int
    st_col_offs: int
    st_white_off: bool
    st_chosen: int
    st_fkind: int
    st_fpts: int
    st_fball: int
    st_miss: int
    st_events: int

    def __init__(self):
        self.history = array("H", bytes(2 * 3 * _MAX_BEST_OF))
        self.log = bytearray(3 * LOG_EVENTS)
        self.replaying = False
        self.exec_pos = 0
        self._clear_match()

    def _clear_match(self):
        self.restore(_DEFAULTS)
        self.players = None
        self.doubles = False
        self.log_len = 0
        self.checkpoint = None  # type: tuple[object, ...] | None
        self.stroke_base = None  # type: tuple[object, ...] | None
        self.rest_t = _NONE  # type: int

    def _reset(self, fields, values):
        # fields: indices into _FIELDS (_FRAME_RESET, _STROKE_RESET); values:
        # the same as a dict of defaults, on CPython only.
        if values is not None:
            self.__dict__.update(values)
            return
        for i in fields:
            setattr(self, _FIELDS[i], _DEFAULTS[i])

    # ------------------------------------------------------------------ snapshots
    def snapshot(self):
        if _get_fields is not None:
            return _get_fields(self)
        return tuple(getattr(self, name) for name in _FIELDS)

    def restore(self, snap):
        for i, name in enumerate(_FIELDS):
            setattr(self, name, snap[i])

    def image(self, log_view=False):
        """The engine's whole mutable state as plain lists, ints and bytes.

        The journal stores it on flash (as CBOR) so that a reset resumes the
        exact state, undo depth included; ``load_image`` takes it back.  With
        log_view the undo log (up to 3 KB) is a memoryview of the engine's own
        buffer, not a copy: the journal streams it straight to flash.
        """
        cp = self.checkpoint
        sb = self.stroke_base
        return [
            list(self.snapshot()),
            self.players,
            self.doubles,
            list(self.history),
            memoryview(self.log)[: self.log_len] if log_view else bytes(self.log[: self.log_len]),
            None if cp is None else list(cp),
            None if sb is None else list(sb),
            self.rest_t,
        ]

    def load_image(self, image):
        self.restore(image[0])
        self.players = image[1]
        self.doubles = image[2]
        hist = image[3]
        for i in range(len(hist)):
            self.history[i] = hist[i]
        log = image[4]
        self.log[: len(log)] = log
        self.log_len = len(log)
        self.checkpoint = None if image[5] is None else tuple(image[5])
        self.stroke_base = None if image[6] is None else tuple(image[6])
        self.rest_t = image[7]

    # ------------------------------------------------------------------ public face
    def apply(self, ev):
        """Apply one input event (a dict); raise Rejected and change nothing if unlawful."""
        code, a, b, t = parse_event(ev)
        if code == _EV_MATCH:
            self._start_match(ev)
            return
        if not self.active:
            raise Rejected("no match has been set up: send a match event first")
        snap = self.snapshot()
        saved = (self.log_len, self.stroke_base, self.rest_t)
        try:
            self._apply_coded(code, a, b, t)
        except Rejected:
            # The log only grows at its end on this path (a late call undoes
            # its own insertion), so restoring its length restores it.
            self.restore(snap)
            self.log_len, self.stroke_base, self.rest_t = saved
            raise

    def _apply_coded(self, code, a, b, t):
        if code == _EV_UNDO:
            self._undo()
            return
        late = self._is_late_call(code, t)
        if late:
            self._insert_late(code, a, b)
            return
        if code == _EV_POT and not self.stroke_open:
            self._edge_fall(a)  # R3.12.1: nothing changes, nothing to log
            return
        start_action = not (
            self.stroke_open and code in (_EV_POT, _EV_OFF, _EV_REST, _EV_FOUL, _EV_MISS)
        )
        self.exec_pos = self.log_len
        self._exec(code, a, b)
        if code == _EV_REST and t is not None:
            self.rest_t = t
        elif code == _EV_STRIKE:
            self.rest_t = _NONE
        self._log_append(code | (_ACTION if start_action else 0), a, b)

    # ------------------------------------------------------------------ the log
    def _log_append(self, code, a, b):
        if self.log_len + 3 > len(self.log):
            self._roll_log()
        i = self.log_len
        self.log[i] = code
        self.log[i + 1] = a
        self.log[i + 2] = b
        self.log_len = i + 3

    def _action_starts(self):
        starts = []
        i = 0
        while i < self.log_len:
            if self.log[i] & _ACTION:
                starts.append(i)
            i += 3
        return starts

    def _roll_log(self):
        # Move the checkpoint forward past the oldest half of the actions, so
        # the log stays bounded while undo still reaches far back.
        starts = self._action_starts()
        cut = starts[len(starts) // 2] if len(starts) > 1 else self.log_len
        if self.strike_pos >= 0 and cut > self.strike_pos:
            cut = self.strike_pos
        if cut <= 0:
            raise Rejected("the undo log is full")
        current = self.snapshot()
        stroke_base = self.stroke_base
        self.restore(self.checkpoint)
        self._replay(0, cut)
        # Strokes before the checkpoint can no longer be amended.
        self.strike_pos = _NONE
        self.rest_pos = _NONE
        self.checkpoint = self.snapshot()
        self.restore(current)
        self.stroke_base = stroke_base
        remaining = self.log_len - cut
        self.log[0:remaining] = self.log[cut : self.log_len]
        self.log_len = remaining
        if self.strike_pos >= 0:
            self.strike_pos -= cut
        if self.rest_pos >= 0:
            self.rest_pos -= cut

    def _replay(self, start, end):
        self.replaying = True
        try:
            i = start
            while i < end:
                self.exec_pos = i
                self._exec(self.log[i] & 0x7F, self.log[i + 1], self.log[i + 2])
                i += 3
        finally:
            self.replaying = False

    def _undo(self):
        starts = self._action_starts()
        if not starts:
            raise Rejected("nothing to undo")
        cut = starts[-1]
        self.restore(self.checkpoint)
        self.stroke_base = None
        self._replay(0, cut)
        self.log_len = cut
        self.rest_t = _NONE

    def _is_late_call(self, code, t):
        if self.stroke_open or self.rest_pos < 0 or self.stroke_base is None:
            return False
        if code in (_EV_FOUL, _EV_MISS):
            return True
        # R3.12.3: a ball that hangs and drops within the settle window after
        # the balls came to rest still belongs to the stroke.
        return (
            code == _EV_POT
            and t is not None
            and self.rest_t >= 0
            and 0 <= t - self.rest_t <= _SETTLE_MS
        )

    def _insert_late(self, code, a, b):
        # A call about the last stroke after its rest: put it into the stroke,
        # just before the rest, and settle the stroke again from its start.
        if self.log_len + 3 > len(self.log):
            self._roll_log()  # make room; the stroke itself stays in the log
        at = self.rest_pos
        tail = bytes(self.log[at : self.log_len])
        self.log[at] = code
        self.log[at + 1] = a
        self.log[at + 2] = b
        self.log[at + 3 : at + 3 + len(tail)] = tail
        self.log_len += 3
        start = self.strike_pos  # the base snapshot predates this stroke's strike
        self.restore(self.stroke_base)
        try:
            self._replay(start, self.log_len)
        except Rejected:
            self.log[at : at + len(tail)] = tail  # take the call back out
            self.log_len -= 3
            raise

    # ------------------------------------------------------------------ match and frame set-up
    def _start_match(self, ev):
        players, doubles, best_of, breaker, reds = parse_match(ev)
        self._clear_match()
        self.players = players
        self.doubles = doubles
        self.active = True
        self.best_of = best_of
        self.reds_per_frame = reds
        self.first_breaker = breaker
        self.frame = 1
        self._rack(breaker)
        self.checkpoint = self.snapshot()

    def _rack(self, breaker):
        """Set up a frame: every ball on, cue ball in hand, scores annulled."""
        self._reset(_FRAME_RESET, _FRAME_VALUES)
        self.breaker = breaker
        self.reds = self.reds_per_frame
        self.colours = _ALL_COLOURS
        self.on = _ON_RED
        self.in_hand = True  # R2.5: before the frame starts

    # ------------------------------------------------------------------ order of play
    def _order_len(self):
        return 4 if self.doubles else 2

    def side_at(self, pos):
        # R3.3 / R3.18.1: the breaking side plays first, then the sides alternate.
        return self.breaker if pos % 2 == 0 else 1 - self.breaker

    def member_at(self, pos):
        side = self.side_at(pos)
        first = self.first0 if side == 0 else self.first1
        return first if pos < 2 else 1 - first

    def _pos_of(self, side, member):
        for pos in range(self._order_len()):
            if self.side_at(pos) == side and (not self.doubles or self.member_at(pos) == member):
                return pos
        return 0

    @property
    def striker(self):
        return self.side_at(self.pos)

    def player_name(self):
        if self.players is None:
            return None
        entry = self.players[self.striker]
        if self.doubles:
            return entry[self.member_at(self.pos)]
        return entry

    def _next_pos(self, pos):
        return (pos + 1) % self._order_len()

    # ------------------------------------------------------------------ scoring helpers
    def _add_score(self, side, points):
        if side == 0:
            self.s0 += points
        else:
            self.s1 += points

    def score_of(self, side):
        return self.s0 if side == 0 else self.s1

    def _add_break(self, points):
        self.brk += points
        side = self.striker
        if side == 0:
            if self.brk > self.h0:
                self.h0 = self.brk
        elif self.brk > self.h1:
            self.h1 = self.brk

    def _on_value(self):
        """Value of the ball on in the stroke being played, for penalties (R3.13).

        With a free ball it is the value of the ball the free ball stands for
        (R3.11.1), never the nominated colour's own value.
        """
        on = self.st_on
        nom = self.st_nom
        free = self.st_free
        if on == _ON_RED:
            return 1
        if on == _ON_COLOUR:
            if nom != _NONE and not free:
                return value_of(nom)
            return 4  # R3.13c note: any colour, none nominated
        return value_of(on)

    def penalty_for(self, kind, ball):
        """Points a foul of ``kind`` (with ball concerned ``ball`` or _NONE) is worth."""
        valued = names.FOUL_PENALTY[kind]
        if valued == names.PENALTY_SEVEN:
            return 7  # R3.13(c)
        points = self._on_value()  # R3.13(a)
        if valued == names.PENALTY_HIGHER and ball != _NONE and value_of(ball) > points:
            points = value_of(ball)  # R3.13(b)
        return points if points > 4 else 4  # every penalty is at least 4

    # ------------------------------------------------------------------ event dispatch
    def _exec(self, code, a, b):
        if self.match_over and code not in (_EV_FOUL, _EV_MISS):
            raise Rejected("the match is over")
        if self.stroke_open:
            if code not in (_EV_POT, _EV_OFF, _EV_REST, _EV_FOUL, _EV_MISS):
                if code == _EV_STRIKE:
                    raise Rejected(
                        "a stroke is already being played: waiting for the balls to come to rest"
                    )
                raise Rejected("the balls are still moving: wait until they are at rest")
            self.st_events += 1
            if self.st_events > _MAX_STROKE_EVENTS:
                raise Rejected("too many events in one stroke")
        if code == _EV_STRIKE:
            self._strike()
        elif code == _EV_POT:
            self._pot(a)
        elif code == _EV_OFF:
            self._off(a)
        elif code == _EV_REST:
            self._rest()
        elif code == _EV_FOUL:
            self._foul(a, _given(b))
        elif code == _EV_MISS:
            self._miss(a)
        elif code == _EV_EDGE_REPLACE:
            self._edge_replace()
        else:
            self.after_stroke = False
            if code == _EV_FREE_BALL:
                self._free_ball()
            elif code == _EV_NOMINATE:
                self._nominate(a)
            elif code == _EV_PLAY_AGAIN:
                self._play_again()
            elif code == _EV_REPLACE:
                self._replace()
            elif code == _EV_CONCEDE:
                self._concede(a)
            elif code == _EV_AWARD:
                self._award(a, b)
            elif code == _EV_RERACK:
                self._rerack()
            elif code == _EV_TOSS:
                self._toss(a, _given(b))
            elif code == _EV_SPOTS:
                self._spots(a)
            elif code == _EV_CLAIM:
                self._claim()
            elif code == _EV_ORDER:
                self._order(a, b)
            else:
                raise Rejected("unknown event")

    # ------------------------------------------------------------------ the stroke
    def _strike(self):
        # A foul's options (free ball, play again, replace) lapse once the
        # incoming player strikes.
        self.stroke_base = self.snapshot()
        self._reset(_STROKE_RESET, _STROKE_VALUES)
        self.stroke_open = True
        self.strike_pos = self.exec_pos
        self.st_on = self.on
        self.st_nom = self.nominated
        self.st_free = self.free_ball
        self.st_in_hand = self.in_hand
        self.st_reds = self.reds
        self.st_colours = self.colours
        self.st_brk = self.brk
        self.st_pos = self.pos
        self.frame_strokes += 1

    def _reds_left_in_stroke(self):
        return self.st_reds - self.st_red_pots - self.st_red_offs

    def _check_in_play(self, ball):
        if ball == _RED:
            if self._reds_left_in_stroke() <= 0:
                raise Rejected("no red is left on the table")
        elif ball == _WHITE:
            if self.st_white_pot or self.st_white_off:
                raise Rejected("the cue ball has already left the table in this stroke")
        elif not self.st_colours & (1 << ball) or (self.st_col_pots | self.st_col_offs) & (
            1 << ball
        ):
            raise Rejected("the %s is not on the table" % _ball_name(ball))

    def _call(self, kind, ball):
        # R3.13: only the highest penalty of a stroke stands; on a tie, the first.
        points = self.penalty_for(kind, ball)
        if points > self.st_fpts:
            self.st_fpts = points
            self.st_fkind = kind
            self.st_fball = ball

    def _pot(self, ball):
        self._check_in_play(ball)
        if ball == _WHITE:
            self.st_white_pot = True
            self._call(_K_IN_OFF, _NONE)
            return
        if ball == _RED:
            self.st_red_pots += 1
            if self.st_on != _ON_RED:
                self._call(_K_POT_NOT_ON, _RED)
            return
        self.st_col_pots |= 1 << ball
        if not self._colour_is_on(ball):
            self._call(_K_POT_NOT_ON, ball)

    def _colour_is_on(self, ball):
        """Is potting this colour lawful in the stroke being played (so far)?"""
        on = self.st_on
        nom = self.st_nom
        if self.st_free:
            # R3.11: the nominated (or first potted) colour is the free ball.
            if nom == _NONE and self.st_chosen == _NONE and ball != on:
                self.st_chosen = ball
                return True
            if ball == nom or ball == self.st_chosen:
                return True
            return on != _ON_RED and ball == on
        if on == _ON_RED:
            return False
        if on == _ON_COLOUR:
            if nom != _NONE:
                return ball == nom
            if self.st_chosen == _NONE:
                self.st_chosen = ball
                return True
            # Two colours with none nominated: valued at the higher of them.
            if value_of(self.st_chosen) > value_of(ball):
                self._call(_K_POT_NOT_ON, self.st_chosen)
            return False
        return ball == on

    def _off(self, ball):
        if not self.stroke_open:
            raise Rejected("a ball is forced off only during a stroke: strike first")
        self._check_in_play(ball)
        if ball == _WHITE:
            self.st_white_off = True
            self._call(_K_OFF_TABLE, _NONE)
            return
        if ball == _RED:
            self.st_red_offs += 1
        else:
            self.st_col_offs |= 1 << ball
        self._call(_K_OFF_TABLE, ball)  # R3.13(b): forcing a ball off the table

    def _foul(self, kind, ball):
        if not self.stroke_open:
            raise Rejected("there is no stroke to call a foul on")
        # The ball concerned must have been on the table when the stroke
        # began (it may have left it since, in this very stroke).
        if ball == _RED:
            if self.st_reds <= 0:
                raise Rejected("no red was on the table in this stroke")
        elif ball != _NONE and ball != _WHITE and not self.st_colours & (1 << ball):
            raise Rejected("the %s was not on the table in this stroke" % _ball_name(ball))
        on = self.st_on
        if kind == _K_TWO_BALLS and ball != _NONE:
            # R3.8: two reds, or the free ball with the ball on, are no foul.
            if ball == _RED and on == _ON_RED:
                raise Rejected("hitting two reds at once is not a foul (R3.8)")
            if self.st_free and (ball == on or ball == self.st_nom):
                raise Rejected(
                    "hitting the free ball and the ball on together is not a foul (R3.8)"
                )
        elif kind in (_K_RED_AFTER_RED, _K_FOUL_BEFORE_NOMINATION) and on != _ON_COLOUR:
            raise Rejected("%s applies only after a red was potted" % names.FOUL_KINDS[kind])
        elif kind == _K_FREE_BALL_SNOOKER:
            if not self.st_free:
                raise Rejected("free_ball_snooker applies only to a free ball stroke")
            if self.st_reds == 0 and self.st_colours == (1 << _PINK) | (1 << _BLACK):
                raise Rejected(
                    "snookering behind the free ball is no foul"
                    " with only pink and black left (R3.11.3)"
                )
        elif kind == _K_OUTSIDE_D and not self.st_in_hand:
            raise Rejected("outside_d applies only when the cue ball was in hand")
        self._call(kind, ball)

    def _miss(self, clear):
        if not self.stroke_open:
            raise Rejected("there is no stroke to call a miss on")
        if self.st_fkind == _NONE:
            raise Rejected("a miss is called with a foul: call the foul first")
        if self.st_miss:
            raise Rejected("a miss has already been called on this stroke")
        if self.st_reds == 0 and self.st_colours == 1 << _BLACK:
            raise Rejected("a miss is not called when only the black remains (R3.15)")
        self.st_miss = 2 if clear else 1

    def _rest(self):
        if not self.stroke_open:
            raise Rejected("no stroke is being played: rest comes after a strike")
        self.stroke_open = False
        self.rest_pos = self.exec_pos
        self.after_stroke = True
        if self.st_fkind != _NONE:
            self._settle_foul()
        else:
            self._settle_fair()

    def _settle_foul(self):
        striker_pos = self.st_pos
        if self.st_fkind == _K_OUT_OF_TURN:
            # docs/ENGINE.md: singles, the player not due played; doubles, the
            # due player's partner did (R3.18.3).
            offender_pos = (striker_pos + 2) % 4 if self.doubles else self._next_pos(striker_pos)
            incoming_pos = self._next_pos(striker_pos) if self.doubles else striker_pos
        else:
            offender_pos = striker_pos
            incoming_pos = self._next_pos(striker_pos)
        offender = self.side_at(offender_pos)
        points = self.st_fpts
        self._add_score(1 - offender, points)  # R3.1: penalties go to the opponent
        self.foul_side = offender
        self.foul_points = points
        self.foul_kind = self.st_fkind
        # R3.5: reds stay down; R3.10: colours potted or forced off are spotted.
        self.reds = self._reds_left_in_stroke()
        self.respot = (self.st_col_pots | self.st_col_offs) & self.colours
        self.in_hand = self.st_white_pot or self.st_white_off  # R2.5
        self.brk = 0
        self.nominated = _NONE
        self.free_ball = False
        self.offender_pos = offender_pos
        self.incoming_pos = incoming_pos
        self.pos = incoming_pos
        self.on = _ON_RED if self.reds > 0 else _lowest(self.colours)
        self.foul_open = True
        self.miss_open = self.st_miss != 0
        # R3.15.3: count clear-ball misses from the same (replaced) position.
        if self.st_miss == 2:
            self.misses = self.misses + 1 if self.miss_chain else 1
        else:
            self.misses = 0
        self.miss_chain = False
        if self.misses >= 3:
            self._end_frame(1 - offender)  # forfeit, after the penalty is counted
            return
        if self.respotted_black or (self.st_reds == 0 and self.st_colours == 1 << _BLACK):
            self._black_decides()  # R3.9: the first score or foul ends the frame

    def _settle_fair(self):
        self.foul_side = _NONE
        self.foul_points = 0
        self.foul_kind = _NONE
        self.misses = 0
        self.miss_chain = False
        self.in_hand = False
        on = self.st_on
        scored = 0
        spot = 0
        if on == _ON_RED:
            scored = self.st_red_pots
            if self.st_col_pots:
                scored += 1  # R3.11.1/R3.11.5: the free ball counts as a red
                spot = self.st_col_pots
            self.reds = self._reds_left_in_stroke()
            next_on = _ON_COLOUR if scored else _ON_RED
        elif on == _ON_COLOUR:
            if self.st_col_pots:
                scored = value_of(self.st_nom if self.st_nom != _NONE else self.st_chosen)
                spot = self.st_col_pots  # R3.4a/b: re-spotted
            next_on = _ON_RED if self.reds > 0 else _lowest(self.colours)
        else:
            if self.st_col_pots & (1 << on):
                scored = value_of(on)
                self.colours &= ~(1 << on)  # R3.4c: potted in turn, stays down
                spot = self.st_col_pots & ~(1 << on)  # R3.11.5: the free ball goes back
            elif self.st_col_pots:
                scored = value_of(on)  # R3.11.1: the free ball scores as the ball on
                spot = self.st_col_pots
            next_on = _lowest(self.colours)
        self.respot = spot
        self.nominated = _NONE
        self.free_ball = False
        if scored:
            self._add_score(self.striker, scored)
            self._add_break(scored)
            self.on = next_on
            if (
                self.respotted_black
                or (self.st_reds == 0 and self.st_colours == 1 << _BLACK)
                or (self.reds == 0 and self.colours == 0)
            ):
                self._black_decides()
        else:
            # R3.6: the turn ends.
            self.brk = 0
            self.pos = self._next_pos(self.pos)
            self.on = _ON_RED if self.reds > 0 else _lowest(self.colours)

    def _black_decides(self):
        # R3.9: with only the black left, the first score or foul ends the frame,
        # unless the scores are then equal: the black is re-spotted.
        if self.s0 != self.s1:
            self._end_frame(0 if self.s0 > self.s1 else 1)
            return
        self.colours = 1 << _BLACK
        self.respot = 1 << _BLACK
        self.on = _BLACK
        self.in_hand = True
        self.respotted_black = True
        self.toss_open = True
        self.brk = 0
        self.foul_open = False
        self.miss_open = False

    def _end_frame(self, winner, match_ends=False):
        i = self.hist_len * 3
        self.history[i] = self.s0
        self.history[i + 1] = self.s1
        self.history[i + 2] = winner
        self.hist_len += 1
        if winner == 0:
            self.f0 += 1
        else:
            self.f1 += 1
        self.foul_open = False
        self.miss_open = False
        self.after_stroke = False
        need = self.best_of // 2 + 1
        if match_ends or self.f0 >= need or self.f1 >= need:
            self._end_match(winner)
            return
        self.frame += 1
        # R3.3: the break-off alternates frame by frame.
        self._rack(self.first_breaker if self.frame % 2 == 1 else 1 - self.first_breaker)

    def _end_match(self, winner):
        self.match_over = True
        self.frame_over = True
        self.frame_winner = self.history[self.hist_len * 3 - 1]
        self.match_winner = winner
        self.on = _ON_NONE
        self.nominated = _NONE
        self.free_ball = False
        self.respot = 0
        self.places = 0
        self.respotted_black = False
        self.toss_open = False

    # ------------------------------------------------------------------ referee events
    def _edge_fall(self, ball):
        # R3.12.1 / R3.16: a ball that falls by itself is replaced; no score, no foul.
        if self.match_over:
            raise Rejected("the match is over")
        if ball == _RED:
            if self.reds <= 0:
                raise Rejected("no red is left on the table")
        elif ball != _WHITE and (not self.colours & (1 << ball) or self.respot & (1 << ball)):
            raise Rejected("the %s is not on the table" % _ball_name(ball))

    def _require_foul_options(self, what):
        if not self.foul_open:
            raise Rejected("%s needs a foul on the last stroke" % what)

    def _free_ball(self):
        self._require_foul_options("a free ball")
        if self.free_ball:
            raise Rejected("a free ball has already been declared")
        if self.reds == 0 and self.colours == 1 << _BLACK:
            raise Rejected("there is no free ball with only the black left")
        self.free_ball = True  # R3.11
        self.nominated = _NONE

    def _nominate(self, ball):
        if ball == _WHITE:
            raise Rejected("the cue ball cannot be nominated")
        if self.free_ball:
            if ball == _RED:
                raise Rejected("a red cannot be the free ball")
            if not self.colours & (1 << ball):
                raise Rejected("the %s is not on the table" % _ball_name(ball))
            if ball == self.on:
                raise Rejected("the %s is already the ball on" % _ball_name(ball))
            self.nominated = ball
            return
        if self.on == _ON_COLOUR:
            if ball == _RED:
                raise Rejected("after a red the ball on is a colour (R3.4a)")
            if not self.colours & (1 << ball):
                raise Rejected("the %s is not on the table" % _ball_name(ball))
            self.nominated = ball
            return
        if self.on == _ON_RED:
            raise Rejected("nothing to nominate: the ball on is a red")
        raise Rejected(
            "nothing to nominate: the colours are taken in order and the %s is on"
            % _ball_name(self.on)
        )

    def _play_again(self):
        self._require_foul_options("play again")
        # R3.14 / R3.18.3: the offender plays again and the order goes on from him.
        self.pos = self.offender_pos
        self.free_ball = False  # R3.11.6
        self.nominated = _NONE
        self.brk = 0
        self.foul_open = False
        self.miss_open = False

    def _replace(self):
        if not self.miss_open:
            raise Rejected("replace needs a foul and a miss on the last stroke")
        # R3.15.1: every ball back as before the stroke, potted ones included,
        # and the offender plays under that stroke's conditions: the same ball
        # on, a free ball again if he had one.  Not the same nomination: the
        # colour is his to choose again (WPBSA 3.14, "a colour of the
        # striker's choice"), so one potted with none nominated counts as the
        # obvious one, as on any stroke.
        self.reds = self.st_reds
        self.colours = self.st_colours
        self.in_hand = self.st_in_hand
        self.on = self.st_on
        self.respot = 0
        self.places = 0
        self.pos = self.offender_pos
        self.free_ball = self.st_free
        self.nominated = _NONE
        self.brk = 0
        self.miss_chain = self.st_miss == 2
        self.foul_open = False
        self.miss_open = False

    def _edge_replace(self):
        # R3.12.2: a ball fell from the pocket edge and would have been hit in
        # the last stroke: every ball goes back and the striker replays; a
        # penalty given for that stroke stands.
        if not self.after_stroke or self.stroke_base is None:
            raise Rejected("edge_replace must follow the stroke it replaces")
        fouled = self.foul_kind != _NONE
        side, points, kind = self.foul_side, self.foul_points, self.foul_kind
        self.restore(self.stroke_base)
        if fouled:
            self._add_score(1 - side, points)
            self.foul_side, self.foul_points, self.foul_kind = side, points, kind
        self.rest_pos = _NONE
        self.after_stroke = False
        self.foul_open = False
        self.miss_open = False

    def _concede(self, whole_match):
        # R4.5: the striker concedes, in his own turn.
        self.rest_pos = _NONE
        self._end_frame(1 - self.striker, whole_match)

    def _award(self, side, whole_match):
        self.rest_pos = _NONE
        self._end_frame(side, whole_match)  # R4.2

    def _claim(self):
        # R2.1b: only the black left and the striker leads by more than 7.
        if self.reds or self.colours != 1 << _BLACK:
            raise Rejected("a frame can be claimed only when just the black remains")
        side = self.striker
        if self.score_of(side) - self.score_of(1 - side) <= 7:
            raise Rejected("the striker must lead by more than 7 points to claim the frame")
        self.rest_pos = _NONE
        self._end_frame(side)

    def _rerack(self):
        # R3.17: the frame restarts; same breaker, scores annulled, frames kept.
        self.rest_pos = _NONE
        self._rack(self.breaker)

    def _toss(self, side, member):
        if not self.respotted_black:
            raise Rejected("a toss is made only for a re-spotted black")
        if not self.toss_open:
            raise Rejected("the re-spotted black has already been played")
        if member != _NONE and not self.doubles:
            raise Rejected("player is given only in doubles")
        # R3.9c, R3.18.4: the winner of the toss (and partner of his choice) plays.
        if member == _NONE:
            member = self.first0 if side == 0 else self.first1
        self.pos = self._pos_of(side, member)

    def _spots(self, occupied):
        if not self.respot:
            raise Rejected("no colour is waiting to be spotted")
        packed = 0
        for colour, place in respot.places(self.respot, occupied):
            packed |= place << (4 * colour)
        self.places = packed

    def _order(self, side, first):
        if not self.doubles:
            raise Rejected("the order of partners applies only in doubles")
        if self.frame_strokes:
            raise Rejected("the order of play is fixed once the frame has started (R3.18.1)")
        if side == 0:
            self.first0 = first
        else:
            self.first1 = first
        self.pos = 0

    # ------------------------------------------------------------------ derived state
    def points_remaining(self):
        if self.match_over or not self.active:
            return 0
        if self.on == _ON_RED:
            total = 8 * self.reds + 27
        elif self.on == _ON_COLOUR:
            total = 8 * self.reds + 27 + 7
        else:
            total = _sum_values(self.colours)
        if self.free_ball:
            total += 8 if self.reds > 0 else value_of(self.on)
        return total

    def snookers_required(self):
        if self.match_over or not self.active:
            return [0, 0]
        remaining = self.points_remaining()
        if self.reds > 0 or self.on == _ON_COLOUR:
            per = 4
        else:
            per = value_of(self.on) if self.on != _ON_NONE else 4
            if per < 4:
                per = 4
        out = []
        for side in (0, 1):
            deficit = self.score_of(1 - side) - self.score_of(side)
            if deficit <= remaining:
                out.append(0)
            else:
                out.append((deficit - remaining + per - 1) // per)
        return out

    def pot_is_on(self, b):
        """Whether potting ball b (0 red .. 7 white) now is no foul by itself.
        The sensors ask about a ball that is not on rather than score what
        may be a misread (firmware/app.py); it never changes a reading."""
        on = self.st_on if self.stroke_open else self.on
        if on == _ON_NONE or not self.active:
            return True  # no match in play: nothing to weigh a reading against
        if b == _WHITE:
            return False
        if self.st_free if self.stroke_open else self.free_ball:
            return True  # R3.11.5: the free ball may be any colour
        if on == _ON_RED:
            return b == _RED
        if on == _ON_COLOUR:
            return b != _RED
        return b == on

    def ball_on_name(self):
        if self.on == _ON_NONE or not self.active:
            return None
        if self.on == _ON_RED:
            return "red"
        if self.on == _ON_COLOUR:
            return "colour"
        return _ball_name(self.on)

    def colour_names(self):
        return [_ball_name(c) for c in range(_YELLOW, _BLACK + 1) if self.colours & (1 << c)]

    def respot_names(self):
        return [_ball_name(c) for c in respot.order(self.respot)]

    def history_entry(self, n):
        i = n * 3
        return Obj(
            [
                ("frame", n + 1),
                ("scores", [self.history[i], self.history[i + 1]]),
                ("winner", self.history[i + 2]),
            ]
        )

    def respot_place_list(self):
        out = []  # type: list[Obj]
        if not self.places:
            return out
        for colour in respot.order(self.respot):
            place = (self.places >> (4 * colour)) & 15
            if place == respot.PLACE_BEHIND:
                where = "behind"
            elif place == respot.PLACE_BELOW:
                where = "below"
            else:
                where = _ball_name(place)
            out.append(Obj([("ball", _ball_name(colour)), ("spot", where)]))
        return out

    def state_obj(self, rejected=()):
        """The contract's state object, keys in a fixed order."""
        last_foul = None
        if self.foul_kind != _NONE:
            last_foul = Obj(
                [
                    ("side", self.foul_side),
                    ("points", self.foul_points),
                    ("kind", names.FOUL_KINDS[self.foul_kind]),
                ]
            )
        rej = [Obj([("line", line), ("reason", reason)]) for line, reason in rejected]
        active = self.active
        return Obj(
            [
                ("frame", self.frame),
                ("frames", [self.f0, self.f1]),
                ("scores", [self.s0, self.s1]),
                ("striker", self.striker if active else 0),
                ("player", self.player_name() if active else None),
                ("reds", self.reds),
                ("colours", self.colour_names()),
                ("ball_on", self.ball_on_name()),
                ("nominated", _ball_name(self.nominated) if self.nominated != _NONE else None),
                ("free_ball", bool(self.free_ball)),
                ("break", self.brk),
                ("highest_break", [self.h0, self.h1]),
                ("points_remaining", self.points_remaining()),
                ("snookers_required", self.snookers_required()),
                ("last_foul", last_foul),
                ("misses", self.misses),
                # R3.15.3: only while a third clear miss would forfeit, from the
                # same position: the balls may still be, or were, replaced
                # (screens.py asks the same; no method: it costs the board RAM).
                (
                    "warning",
                    MISS_WARNING
                    if self.misses == 2
                    and (self.miss_open or self.miss_chain)
                    and not self.match_over
                    else None,
                ),
                ("respot", self.respot_names()),
                ("respotted_black", bool(self.respotted_black)),
                ("in_hand", bool(self.in_hand)),
                ("frame_over", bool(self.frame_over)),
                ("match_over", bool(self.match_over)),
                ("frame_winner", self.frame_winner if self.frame_winner != _NONE else None),
                ("match_winner", self.match_winner if self.match_winner != _NONE else None),
                ("rejected", rej),
                ("history", Seq(self.hist_len, self.history_entry)),
                ("players", self.players),
                ("best_of", self.best_of),
                ("reds_per_frame", self.reds_per_frame),
                ("breaker", self.breaker),
                ("stroke_open", bool(self.stroke_open)),
                ("respot_places", self.respot_place_list()),
            ]
        )

    def state(self, rejected=()):
        """The state as a plain dict (host-side convenience)."""
        return self.state_obj(rejected).to_dict()

    def to_json(self, rejected=()):
        return dumps(self.state_obj(rejected))

    def write_json(self, write, rejected=()):
        """Stream the state's JSON to ``write`` without holding it whole."""
        dump(self.state_obj(rejected), write)


# ---------------------------------------------------------------------- input parsing
# Each event's keys besides ev and t, one line an event, those it requires
# marked *.  Text, which stays in flash with the code (ROMFS, frozen): a dict
# of tuples would hold the board's heap for good.
_KEYS = (
    "\nmatch: players* best_of* breaker reds"
    "\nstrike:"
    "\npot: ball* pocket"
    "\noff: ball*"
    "\nrest:"
    "\nfoul: kind* ball"
    "\nmiss: clear"
    "\nfree_ball:"
    "\nnominate: ball*"
    "\nplay_again:"
    "\nreplace:"
    "\nconcede: match"
    "\naward: side* match"
    "\nrerack:"
    "\ntoss: side* player"
    "\nundo:"
    "\nspots: occupied*"
    "\nclaim:"
    "\nedge_replace:"
    "\norder: side* first*"
)


def _keys_of(name):
    """(keys, required keys) of event `name` from its line in _KEYS, or None
    for a name that is not an event's."""
    at = _KEYS.find("\n" + name + ":")
    if at < 0:
        return None
    end = _KEYS.find("\n", at + 1)
    words = (_KEYS[at + 1 : end] if end >= 0 else _KEYS[at + 1 :]).split()
    if words[0] != name + ":":
        return None
    keys = []
    required = []
    for w in words[1:]:
        if w.endswith("*"):
            w = w[:-1]
            required.append(w)
        keys.append(w)
    return keys, required


if _get_fields is not None:
    # CPython, where the host replays every event of every table: _KEYS read
    # once into a dict, one look-up an event (a MicroPython board keeps the text).
    _keys_of = {n: _keys_of(n) for n in names.EVENTS}.get


# An event's payload: two bytes, a and b, in the undo log and for _exec.
#
#   pot          a ball         b pocket, optional
#   off          a ball
#   nominate     a ball
#   foul         a kind         b ball concerned, optional
#   miss         a clear (0/1)
#   concede      a match (0/1)
#   award        a side         b match (0/1)
#   toss         a side         b player (doubles), optional
#   order        a side         b first partner
#   spots        a occupied spots (a mask, respot.py)
#
# An optional code is stored one up, so that 0 says "none given".


def _optional(code):
    return code + 1


def _given(b):
    """The optional code stored in a payload byte, or _NONE."""
    return b - 1


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _side(value, key):
    if not _is_int(value) or value not in (0, 1):
        raise Rejected("%s must be 0 or 1" % key)
    return value


def _flag(ev, key):
    value = ev.get(key, False)
    if value is not True and value is not False:
        raise Rejected("%s must be true or false" % key)
    return 1 if value else 0


def _ball(ev, key):
    value = ev.get(key)
    if not isinstance(value, str):
        raise Rejected("%s must be a ball name" % key)
    code = names.code_of(names.BALLS, value)
    if code < 0:
        raise Rejected("unknown ball '%s'" % value)
    return code


def parse_event(ev):
    """Check an input event's shape; return (code, a, b, t) for the engine."""
    if not isinstance(ev, dict):
        raise Rejected("an event must be a JSON object")
    name = ev.get("ev")
    if not isinstance(name, str):
        raise Rejected("the event has no 'ev' name")
    keys = _keys_of(name)
    if keys is None:
        raise Rejected("unknown event '%s'" % name)
    allowed, required = keys
    for key in ev:
        if key != "ev" and key != "t" and key not in allowed:
            raise Rejected("unknown key '%s' for %s" % (key, name))
    for key in required:
        if key not in ev:
            raise Rejected("%s needs '%s'" % (name, key))
    t = ev.get("t")
    if t is not None and (not _is_int(t) or t < 0):
        raise Rejected("t must be a non-negative integer of milliseconds")
    code = names.code_of(names.EVENTS, name)
    a = b = 0
    if name == "pot":
        a = _ball(ev, "ball")
        if "pocket" in ev:
            pocket = ev["pocket"]
            p = names.code_of(names.POCKETS, pocket) if isinstance(pocket, str) else -1
            if p < 0:
                raise Rejected("unknown pocket '%s'" % (pocket,))
            b = _optional(p)
    elif name == "off" or name == "nominate":
        a = _ball(ev, "ball")
    elif name == "foul":
        kind = ev["kind"]
        a = names.code_of(names.FOUL_KINDS, kind) if isinstance(kind, str) else -1
        if a < 0:
            raise Rejected("unknown foul kind '%s'" % (kind,))
        if "ball" in ev:
            b = _optional(_ball(ev, "ball"))
    elif name == "miss":
        a = _flag(ev, "clear")
    elif name == "concede":
        a = _flag(ev, "match")
    elif name == "award":
        a = _side(ev["side"], "side")
        b = _flag(ev, "match")
    elif name == "toss":
        a = _side(ev["side"], "side")
        if "player" in ev:
            b = _optional(_side(ev["player"], "player"))
    elif name == "order":
        a = _side(ev["side"], "side")
        b = _side(ev["first"], "first")
    elif name == "spots":
        a = _parse_occupied(ev["occupied"])
    return code, a, b, t


def _parse_occupied(value):
    if not isinstance(value, list):
        raise Rejected("occupied must be a list of spot names")
    mask = 0
    for item in value:
        if item == "behind":
            bit = respot.BEHIND_BLOCKED
        else:
            code = names.code_of(names.COLOURS, item) if isinstance(item, str) else -1
            if code < 0:
                raise Rejected("unknown spot '%s'" % (item,))
            bit = 1 << (code + 1)
        if mask & bit:
            raise Rejected("spot '%s' is listed twice" % item)
        mask |= bit
    return mask


def _name(value):
    if not isinstance(value, str) or not value:
        raise Rejected("each player name must be a non-empty string")
    if len(value.encode()) > _MAX_NAME_BYTES:
        # 48 bytes: 48 Latin letters, or 24 Persian ones.
        raise Rejected("player names are at most %d bytes of UTF-8" % _MAX_NAME_BYTES)
    return value


def parse_match(ev):
    players = ev.get("players")
    if not isinstance(players, list) or len(players) != 2:
        raise Rejected("players must list the two sides")
    doubles = isinstance(players[0], list)
    parsed = []
    for entry in players:
        if doubles:
            if not isinstance(entry, list) or len(entry) != 2:
                raise Rejected("in doubles each side is a pair of player names")
            parsed.append([_name(entry[0]), _name(entry[1])])
        else:
            parsed.append(_name(entry))
    best_of = ev.get("best_of")
    if not _is_int(best_of) or best_of < 1 or best_of % 2 == 0:
        raise Rejected("best_of must be a positive odd integer")
    if best_of > _MAX_BEST_OF:
        raise Rejected("best_of is at most %d" % _MAX_BEST_OF)
    breaker = _side(ev.get("breaker", 0), "breaker")
    reds = ev.get("reds", 15)
    if not _is_int(reds) or reds not in (15, 10, 6):
        raise Rejected("reds must be 15, 10 or 6")
    return parsed, doubles, best_of, breaker, reds
