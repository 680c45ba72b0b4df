# The vocabulary shared by the rules engine, the keypad, the journal and the
# wire protocol.  A name's index in its tuple is its code on the wire and in the
# engine's undo log, so entries are only ever appended, never reordered.

BALLS = ("red", "yellow", "green", "brown", "blue", "pink", "black", "white")
# R1.5: values in the same order as BALLS (the cue ball has none).
BALL_VALUES = (1, 2, 3, 4, 5, 6, 7, 0)
COLOURS = BALLS[1:7]  # value order, yellow first

POCKETS = ("tl", "tr", "ml", "mr", "bl", "br")

# Languages of the referee's handset (the host's `settings` message).
LANGS = ("en", "fa")

# The state's warnings (the engine's MISS_WARNING).
WARNINGS = ("third_miss_forfeits",)

# Input events of the engine contract, then baulk's additions.
EVENTS = (
    "match",
    "strike",
    "pot",
    "off",
    "rest",
    "foul",
    "miss",
    "free_ball",
    "nominate",
    "play_again",
    "replace",
    "concede",
    "award",
    "rerack",
    "toss",
    "undo",
    # additions (docs/ENGINE.md)
    "spots",
    "claim",
    "edge_replace",
    "order",
)

# R3.13: how a foul's penalty is valued.  Every penalty is at least 4.
PENALTY_BALL_ON = 0  # the value of the ball on
PENALTY_HIGHER = 1  # the higher of the ball on and the ball concerned
PENALTY_SEVEN = 2  # 7, whatever the balls


# Foul kinds with their penalty class.  A kind's code is its index, so a new
# kind goes at the end, whatever its class: tests/test_wire_codes.py pins every
# code.  (One foul() call a kind rather than a literal table of pairs, which
# MicroPython would keep in RAM beside the two tables it makes.)
def _foul_table():
    kinds = []  # type: list[str]
    penalties = bytearray()

    def foul(kind, penalty):
        kinds.append(kind)
        penalties.append(penalty)

    foul("double_hit", PENALTY_BALL_ON)
    foul("feet_off_floor", PENALTY_BALL_ON)
    foul("out_of_turn", PENALTY_BALL_ON)
    foul("outside_d", PENALTY_BALL_ON)
    foul("no_contact", PENALTY_BALL_ON)
    foul("in_off", PENALTY_BALL_ON)
    foul("free_ball_snooker", PENALTY_BALL_ON)
    foul("jump", PENALTY_BALL_ON)
    foul("cue", PENALTY_BALL_ON)
    foul("conferring", PENALTY_BALL_ON)
    foul("before_rest", PENALTY_HIGHER)
    foul("before_spot", PENALTY_HIGHER)
    foul("pot_not_on", PENALTY_HIGHER)
    foul("wrong_ball_first", PENALTY_HIGHER)
    foul("push", PENALTY_HIGHER)
    foul("touch", PENALTY_HIGHER)
    foul("off_table", PENALTY_HIGHER)
    foul("two_balls", PENALTY_HIGHER)
    foul("ball_off_table_used", PENALTY_SEVEN)
    foul("measuring", PENALTY_SEVEN)
    foul("red_after_red", PENALTY_SEVEN)
    foul("non_cue_ball", PENALTY_SEVEN)
    foul("no_declaration", PENALTY_SEVEN)
    foul("foul_before_nomination", PENALTY_SEVEN)
    return tuple(kinds), bytes(penalties)


# FOUL_PENALTY: the penalty class of each kind, by its code.
FOUL_KINDS, FOUL_PENALTY = _foul_table()
del _foul_table


def penalty_class(kind):
    """PENALTY_BALL_ON, PENALTY_HIGHER or PENALTY_SEVEN for a foul kind's name."""
    return FOUL_PENALTY[code_of(FOUL_KINDS, kind)]


def code_of(table, name):
    """Index of ``name`` in ``table``, or -1 when it is not a known name."""
    for i in range(len(table)):
        if table[i] == name:
            return i
    return -1
