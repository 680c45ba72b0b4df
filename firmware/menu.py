# The referee's MENU and the flows it opens (keypad_flow.py runs them):
# a new match (best of, reds, who breaks), an award, a re-rack, the toss, the
# spots taken, a claim, an edge-ball replace, the order in doubles, the link's
# figures and the pocket check.  They run rarely, so this module is imported
# when the MENU key is pressed and leaves the heap once the handset is back
# at play (keypad_flow.KeypadFlow.menu); its screens are here too.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


from . import keypad_flow as kf
from . import names, screens

# In one string (options "a|b|c": keypad_flow.KeypadFlow.label), which stays
# in flash where a tuple of strings would be kept in RAM.
MENU_ITEMS = (
    "new match|award frame|award match|re-rack|toss|spots|claim frame|edge replace|"
    "order (dbl)|link info|pocket check"
)
_M_NEW = const(0)
_M_AWARD_FRAME = const(1)
_M_AWARD_MATCH = const(2)
_M_RERACK = const(3)
_M_TOSS = const(4)
_M_SPOTS = const(5)
_M_CLAIM = const(6)
_M_EDGE = const(7)
_M_ORDER = const(8)
_M_CHECK = const(10)
REDS_CHOICE = b"\x0f\x0a\x06"  # 15, 10, 6
_REDS_LABELS = "15 reds|10 reds|6 reds"
_K_WHITE = const(7)
_K_OK = const(16)
SPOTS_HELP = "colour keys: toggle a spot, WHITE: behind"


def show(f):
    f._list(kf.MENU, "MENU", MENU_ITEMS)


def key(f, step, k):
    """Key k on a step of the menu's flows."""
    if step == kf.SPOTS:
        if 1 <= k <= 6:
            f.occupied ^= 1 << k
        elif k == _K_WHITE:
            f.occupied ^= 0x80
        elif k == _K_OK:
            occ = [names.BALLS[c] for c in range(1, 7) if f.occupied & (1 << c)]
            if f.occupied & 0x80:
                occ.append("behind")
            f._send({"ev": "spots", "occupied": occ})
    elif step == kf.INFO:
        if k == _K_OK:
            f._cancel()
    elif k <= 6:
        i = f._picked(k)
        if i >= 0:
            _chosen(f, step, i)


def _names(f):
    """The two sides as name parts (painter.py), or words before a match."""
    if f.app.engine.players is None:
        return "side 0|side 1"
    return [-1, -2]


def _chosen(f, step, i):
    e = f.app.engine
    d = f.draft
    if step == kf.MENU:
        _item(f, i)
    elif step == kf.BEST_OF:
        d["best_of"] = kf.BEST_OFS[i]
        f._list(kf.REDS, "REDS", _REDS_LABELS)
    elif step == kf.REDS:
        d["reds"] = REDS_CHOICE[i]
        f._list(kf.BREAKER, "WHO BREAKS?", "Player A|Player B" if e.players is None else [-1, -2])
    elif step == kf.BREAKER:
        d["breaker"] = i
        f._confirm("NEW MATCH", ["best of ", d["best_of"], ", ", d["reds"], " reds? OK"], d)
    elif step == kf.SIDE:
        d["side"] = i
        if d["ev"] in ("toss", "order") and e.doubles:
            f._list(kf.PARTNER, "WHO PLAYS FIRST?", [-3 - 2 * i, -4 - 2 * i])
        elif d["ev"] == "award":
            what = "match to " if d.get("match") else "frame to "
            f._confirm("AWARD", [what, -1 - i, "? OK"], d)
        else:
            f._send(d)
    elif step == kf.PARTNER:
        d["player" if d["ev"] == "toss" else "first"] = i
        f._send(d)


def _item(f, i):
    app = f.app
    if i == _M_NEW:
        e = app.engine
        players = e.players if e.players is not None else ["Player A", "Player B"]
        f.draft = {"ev": "match", "players": players}
        f._list(kf.BEST_OF, "BEST OF", "")
    elif i in (_M_AWARD_FRAME, _M_AWARD_MATCH):
        f.draft = {"ev": "award"}
        if i == _M_AWARD_MATCH:
            f.draft["match"] = True
        f._list(kf.SIDE, "AWARD TO", _names(f))
    elif i == _M_RERACK:
        f._confirm("RE-RACK", "restart the frame? OK", {"ev": "rerack"})
    elif i == _M_TOSS:
        f.draft = {"ev": "toss"}
        f._list(kf.SIDE, "TOSS WON BY", _names(f))
    elif i == _M_SPOTS:
        f.step = kf.SPOTS
        f.title = "SPOTS TAKEN"
        f.occupied = 0
    elif i == _M_CLAIM:
        f._confirm("CLAIM", "striker claims the frame? OK", {"ev": "claim"})
    elif i == _M_EDGE:
        f._confirm("EDGE BALL", "replace all, replay? OK", {"ev": "edge_replace"})
    elif i == _M_ORDER:
        f.draft = {"ev": "order"}
        f._list(kf.SIDE, "ORDER FOR", _names(f))
    elif i == _M_CHECK:
        f.step = kf.IDLE
        why = app.pocket_check()
        if why is not None:
            app.say(why)
    else:
        f.step = kf.INFO
        f.title = "LINK"


# -- its screens (screens.py) ------------------------------------------------------
def _spots_taken(f):
    taken = []  # type: list[object]
    for c in range(1, 7):
        if f.occupied & (1 << c):
            taken.append(screens.abbr(names.BALLS[c]))
    if f.occupied & 0x80:
        taken.append("behind")
    return taken


def english(app):
    """(rows, hint) of the SPOTS or INFO screen below its title, in English."""
    f = app.flow
    if f.step == kf.SPOTS:
        body = [[line] for line in screens.wrap(SPOTS_HELP)]
        for line in screens.wrap(" ".join(_spots_taken(f)) or "none"):
            body.append([line])
        return body, "OK send"
    s = app.link.session
    j = app.journal
    return [
        ["table ", app.table.encode()],
        ["boot ", j.boot],
        ["seq ", j.next - 1, " ack ", j.acked],
        ["retx ", s.sender.retransmits],
        ["bad ", s.bad_frames],
    ], "OK close"


def persian(app, title):
    """The SPOTS or INFO screen's pages in Persian (screens.pages)."""
    f = app.flow
    if f.step == kf.SPOTS:
        body = [(_spots_taken(f) or ["none"]) + [None, "OK send"]]
        screens.paragraph(app, SPOTS_HELP, body)
        return screens.paged([title], body)
    s = app.link.session
    j = app.journal
    return [[
        title + [None, "OK close"],
        ["table ", app.table.encode(), None, "boot ", j.boot],
        ["seq ", j.next - 1, None, "ack ", j.acked],
        ["retx ", s.sender.retransmits, None, "bad ", s.bad_frames],
    ]]  # fmt: skip
