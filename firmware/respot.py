# R3.10: which colours the referee spots, in what order, and where.
#
# Colours are coded 1..6 (yellow..black, firmware/names.py); a set of colours is
# a bitmask with bit ``code``.  Each colour's own spot has the colour's name.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_YELLOW = const(1)
_BLACK = const(6)

# Where a colour goes when every spot is taken (R3.10.6-7).
PLACE_BEHIND = const(7)  # centre line between its own spot and the top cushion
PLACE_BELOW = const(8)  # below its own spot on the centre line (pink, black)
_PINK = const(5)

# Bit in an ``occupied`` mask: no room on the centre line behind pink/black.
BEHIND_BLOCKED = const(1 << 7)


def order(mask):
    """Colours in ``mask``, highest value first (R3.10.5)."""
    out = []
    code = _BLACK
    while code >= _YELLOW:
        if mask & (1 << code):
            out.append(code)
        code -= 1
    return out


def places(respot_mask, occupied):
    """Where each colour waiting to be spotted goes, as [(colour, place)].

    ``occupied`` has bit ``code`` set when that colour's spot is covered by a
    ball, and BEHIND_BLOCKED when the line behind pink/black has no room.
    A place is a colour code (that colour's spot), PLACE_BEHIND or PLACE_BELOW.
    """
    taken = occupied & 0x7E
    result = []
    waiting = []
    # R3.10.5: a colour whose own spot is free goes there first.
    for colour in order(respot_mask):
        if taken & (1 << colour):
            waiting.append(colour)
        else:
            taken |= 1 << colour
            result.append((colour, colour))
    # R3.10.4-5: the others, highest value first, on the highest free spot.
    for colour in waiting:
        spot = _BLACK
        while spot >= _YELLOW and taken & (1 << spot):
            spot -= 1
        if spot >= _YELLOW:
            taken |= 1 << spot
            result.append((colour, spot))
        elif colour >= _PINK and occupied & BEHIND_BLOCKED:
            result.append((colour, PLACE_BELOW))  # R3.10.7
        else:
            result.append((colour, PLACE_BEHIND))  # R3.10.6
    # Report in the order the referee spots them: highest value first.
    ordered = []
    for colour in order(respot_mask):
        for pair in result:
            if pair[0] == colour:
                ordered.append(pair)
    return ordered
