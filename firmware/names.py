# The vocabulary shared by the rules engine, the keypad, the journal and the
# wire protocol.  A name's index in its tuple is its code on the wire and in the
# engine's undo log, so entries are only ever appended, never reordered.

BALLS = ("red", "yellow", "green", "brown", "blue", "pink", "black", "white")
# R1.5: values in the same order as BALLS (the cue ball has none).
BALL_VALUES = (1, 2, 3, 4, 5, 6, 7, 0)
COLOURS = BALLS[1:7]  # value order, yellow first

POCKETS = ("tl", "tr", "ml", "mr", "bl", "br")

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

# R3.13: foul kinds grouped by how their penalty is valued.
FOULS_BALL_ON = (
    "double_hit",
    "feet_off_floor",
    "out_of_turn",
    "outside_d",
    "no_contact",
    "in_off",
    "free_ball_snooker",
    "jump",
    "cue",
    "conferring",
)
FOULS_HIGHER = (
    "before_rest",
    "before_spot",
    "pot_not_on",
    "wrong_ball_first",
    "push",
    "touch",
    "off_table",
    "two_balls",
)
FOULS_SEVEN = (
    "ball_off_table_used",
    "measuring",
    "red_after_red",
    "non_cue_ball",
    "no_declaration",
    "foul_before_nomination",
)
FOUL_KINDS = FOULS_BALL_ON + FOULS_HIGHER + FOULS_SEVEN


def code_of(table, name):
    """Index of ``name`` in ``table``, or -1 when it is not a known name."""
    for i in range(len(table)):
        if table[i] == name:
            return i
    return -1
