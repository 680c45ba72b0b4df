# Plays engine events on the simulated board the way a real table produces
# them: a strike pulse and the motion sensor, balls through the pocket beams in
# front of the colour sensors, the motion sensor going quiet, and the referee's
# key presses for everything else.  host/sim/table.py uses the key sequences in
# real time; tests and benchmarks use Driver in virtual time (under CPython and
# MicroPython alike).

from .. import keypad_flow as kf
from .. import menu, names
from .board import between, nearest

BALL_KEYS = names.BALLS  # the key of the list option numbered n is BALL_KEYS[n - 1]


def foul_menu():
    """The foul kinds in the order of the handset's list."""
    return [names.FOUL_KINDS[c] for c in kf.FOUL_ORDER]


def foul_keys(kind, ball=None):
    """Keys that call a foul: FOUL, the list (6 a page, BLACK pages on), the ball."""
    i = foul_menu().index(kind)
    keys = ["foul"]
    keys.extend(["black"] * (i // 6))
    keys.append(BALL_KEYS[i % 6])
    if names.penalty_class(kind) == names.PENALTY_HIGHER:
        keys.append(ball if ball else "ok")
    return keys


def _pick(options, value):
    i = options.index(value)
    if len(options) <= 7:
        return [BALL_KEYS[i]]
    keys = ["black"] * (i // 6)
    keys.append(BALL_KEYS[i % 6])
    return keys


def _menu(item, tail):
    keys = ["menu"]
    keys.extend(_pick(menu.MENU_ITEMS.split("|"), item))
    keys.extend(tail)
    return keys


def new_match_keys(best_of, reds=15, breaker=0):
    tail = _pick(list(kf.BEST_OFS), best_of)
    tail.extend(_pick(list(menu.REDS_CHOICE), reds))
    tail.append(BALL_KEYS[breaker])
    tail.append("ok")
    return _menu("new match", tail)


def expressible(ev):
    """Can the referee enter this event on the keypad (names aside)?"""
    name = ev.get("ev")
    if "t" in ev or name in ("strike", "rest"):
        return name in ("strike", "rest") and "t" not in ev and len(ev) == 1
    if name == "match":
        p = ev.get("players")
        return (
            type(p) is list
            and len(p) == 2
            and type(p[0]) is str
            and ev.get("best_of") in kf.BEST_OFS
            and ev.get("reds", 15) in list(menu.REDS_CHOICE)
            and ev.get("breaker", 0) in (0, 1)
            and len(ev) <= 5
        )
    for key in ev:
        if key not in ("ev", "ball", "pocket", "kind", "clear", "match", "side", "occupied"):
            return False
    for key in ("ball",):
        if key in ev and ev[key] not in names.BALLS:
            return False
    if name == "foul" and ev.get("kind") not in foul_menu():
        return False
    if "side" in ev and ev["side"] not in (0, 1):
        return False
    for key in ("clear", "match"):
        if key in ev and ev[key] not in (True, False):
            return False
    if name == "spots":
        occ = ev.get("occupied")
        if type(occ) is not list:
            return False
        for i in range(len(occ)):
            x = occ[i]
            if (x not in names.COLOURS and x != "behind") or x in occ[:i]:
                return False  # a spot listed twice would toggle back off
        return True
    if "pocket" in ev and ev["pocket"] not in names.POCKETS:
        return False
    return len(keys_for(ev)) > 0 or name == "pot"


def keys_for(ev):
    """Key presses for a referee event ([] for the sensors' events)."""
    name = ev["ev"]
    if name == "match":
        return new_match_keys(ev["best_of"], ev.get("reds", 15), ev.get("breaker", 0))
    if name == "foul":
        return foul_keys(ev["kind"], ev.get("ball"))
    if name == "miss":
        return ["miss", "yellow" if ev.get("clear") else "red"]
    if name == "free_ball":
        return ["free", "back"]
    if name == "nominate":
        return ["nom", ev["ball"]]
    if name == "play_again":
        return ["again"]
    if name == "replace":
        return ["replace"]
    if name == "undo":
        return ["undo", "ok"]
    if name == "concede":
        return ["concede", "yellow" if ev.get("match") else "red", "ok"]
    if name == "toss":
        return _menu("toss", [BALL_KEYS[ev["side"]]])
    if name == "award":
        return _menu(
            "award match" if ev.get("match") else "award frame", [BALL_KEYS[ev["side"]], "ok"]
        )
    if name == "rerack":
        return _menu("re-rack", ["ok"])
    if name == "claim":
        return _menu("claim frame", ["ok"])
    if name == "edge_replace":
        return _menu("edge replace", ["ok"])
    if name == "off":
        return ["off", ev["ball"]]
    if name == "spots":
        keys = _menu("spots", [])
        for x in ev["occupied"]:
            keys.append("white" if x == "behind" else x)
        keys.append("ok")
        return keys
    return []


class Driver:
    """Plays engine events on a SimBoard through its sensors and keypad, in
    virtual time.  `by_hand` enters pots and strokes on the keypad instead."""

    def __init__(self, board, by_hand=False, pocket_cycle=0):
        self.board = board
        self.by_hand = by_hand
        self.pocket = pocket_cycle
        self.in_stroke = False
        self.deferred = []

    def perform(self, ev):
        b = self.board
        cfg = b.cfg
        name = ev["ev"]
        if self.by_hand:
            # No STRIKE key: a ball key opens the stroke, OK closes it.  A call
            # on the stroke (foul, miss) is made after OK, which the rules allow
            # up to the next strike (docs/ENGINE.md).
            if name == "strike":
                self.in_stroke = True
                return
            if name == "pot" or name == "off":
                b.keys(*keys_for(ev) if name == "off" else [ev["ball"]])
                return
            if name == "rest":
                self.in_stroke = False
                b.keys("ok")
                for call in self.deferred:
                    b.keys(*keys_for(call))
                self.deferred = []
                return
            if self.in_stroke and (name == "foul" or name == "miss"):
                self.deferred.append(ev)
                return
        if name == "strike":
            b.strike()
            b.signal(cfg.REST, cfg.REST_MOVING)
            b.advance(40)
        elif name == "pot":
            p = ev.get("pocket")
            if p is None:
                p = names.POCKETS[self.pocket % 6]
                self.pocket += 1
            b.pot(names.POCKETS.index(p), names.BALLS.index(ev["ball"]))
            b.advance(60)
        elif name == "rest":
            b.signal(cfg.REST, 1 - cfg.REST_MOVING)
            b.advance(b.hw.rest.quiet_ms + 60)
        else:
            b.keys(*keys_for(ev))

    def answer(self, ball):
        """What a referee does when the sensors ask about the pot just
        made: names its ball, and says BACK to a second one that did not go
        in.  Nothing when nothing is asked."""
        b = self.board
        for key in (ball, "back"):
            if b.app.flow.step != kf.ASK_POT:
                return
            b.keys(key)

    def unknown_pot(self, pocket, ball):
        """A ball whose reading lies halfway to the nearest other colour."""
        self.board.pot(pocket, ball, rgbc=between(ball, nearest(ball)))
        self.board.advance(60)
