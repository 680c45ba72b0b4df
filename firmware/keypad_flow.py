# The referee's keypad: key presses become engine events (docs/ENGINE.md),
# through short flows with a prompt on the handset display.
#
# Conventions, printed on the key legends (hardware/keypad.md):
#   - a ball key alone enters a pot by hand (a stroke is opened if none is);
#     OK closes the stroke (or plays one in which nothing was potted);
#   - in a list, press the ball whose value is the option's number
#     (red 1 ... black 7); with more than 7 options BLACK shows the next page;
#   - BACK cancels a flow; OK confirms.
# Whatever the engine refuses is shown as its own sentence and changes nothing.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


from . import names

# Key codes.  0..7 are the ball codes of names.BALLS.
_K_WHITE = const(7)
_K_FOUL = const(8)
_K_MISS = const(9)
_K_FREE = const(10)
_K_AGAIN = const(11)
_K_REPLACE = const(12)
_K_UNDO = const(13)
_K_CONCEDE = const(14)
_K_MENU = const(15)
_K_OK = const(16)
_K_BACK = const(17)
_K_NOM = const(18)
_K_OFF = const(19)
# (No star-unpacking in displays on MicroPython, hence the + below.)
KEY_NAMES = names.BALLS + (
    "foul", "miss", "free", "again", "replace", "undo", "concede", "menu", "ok", "back",
    "nom", "off",
)  # fmt: skip

_SRC_KEYPAD = const(1)  # messages.SRC_KEYPAD

# Steps of a flow.
IDLE = const(0)
FOUL_KIND = const(1)
FOUL_BALL = const(2)
MISS = const(3)
_NOMINATE = const(4)
_OFF_BALL = const(5)
UNDO = const(6)
CONCEDE = const(7)
CONFIRM = const(8)  # OK sends self.draft
MENU = const(9)
BEST_OF = const(10)
REDS = const(11)
BREAKER = const(12)
SIDE = const(13)  # award, toss, order: choose a side
PARTNER = const(14)  # toss, order in doubles: choose a partner
SPOTS = const(15)
ASK_POT = const(16)  # the app asks which ball a pocket took
ASK_OFF = const(17)  # the app asks which ball went off the table
INFO = const(18)

# Fouls in the order the referee reaches for them.
FOUL_MENU = (
    "wrong_ball_first", "no_contact", "push", "touch", "double_hit", "feet_off_floor",
    "out_of_turn", "outside_d", "jump", "cue", "two_balls", "off_table",
    "before_rest", "before_spot", "pot_not_on", "in_off", "free_ball_snooker", "conferring",
    "ball_off_table_used", "measuring", "red_after_red", "non_cue_ball", "no_declaration",
    "foul_before_nomination",
)  # fmt: skip

MENU_ITEMS = (
    "new match", "award frame", "award match", "re-rack", "toss", "spots", "claim frame",
    "edge replace", "order (dbl)", "link info",
)  # fmt: skip
BEST_OFS = tuple(range(1, 36, 2))
REDS_CHOICE = (15, 10, 6)
SPOT_KEYS = ("yellow", "green", "brown", "blue", "pink", "black")


def short(name):
    return name.replace("_", " ")


class KeypadFlow:
    def __init__(self, app):
        self.app = app
        self.step = IDLE
        self.draft = {}  # type: dict[str, object]  # the event being put together
        self.opts = ()  # labels of the list shown
        self.page = 0
        self.then = IDLE  # what a list leads to
        self.title = ""
        self.question = ""
        self.occupied = 0  # SPOTS: bit per colour code, bit 7 'behind'
        self.pocket = -1

    # -- lists ---------------------------------------------------------------
    def _list(self, step, title, opts):
        self.step = step
        self.title = title
        self.opts = opts
        self.page = 0

    def _picked(self, k):
        """Index picked by ball key k in the list shown, or -1 (BLACK pages on)."""
        n = len(self.opts)
        if k > 6:
            return -1
        if n <= 7:
            return k if k < n else -1
        if k == 6:
            self.page = (self.page + 1) % ((n + 5) // 6)
            return -1
        i = self.page * 6 + k
        return i if i < n else -1

    def lines(self):
        """The list page as display lines: "1 option" ... and the page hint."""
        n = len(self.opts)
        if n <= 7:
            first, count = 0, n
        else:
            first, count = self.page * 6, 6
        out = []
        for j in range(count):
            if first + j < n:
                out.append("%d %s" % (j + 1, self.opts[first + j]))
        if n > 7:
            out.append("7 more...")
        return out

    # -- the way in ----------------------------------------------------------
    def key(self, k):
        """One debounced key press."""
        app = self.app
        app.message = None
        if k == _K_BACK and self.step != IDLE:
            self._cancel()
            return
        step = self.step
        if step == IDLE:
            self._idle(k)
        elif step in (FOUL_KIND, MISS, MENU, BEST_OF, REDS, BREAKER, SIDE, PARTNER, CONCEDE):
            if k <= 6:
                i = self._picked(k)
                if i >= 0:
                    self._chosen(step, i)
        elif step in (FOUL_BALL, _NOMINATE, _OFF_BALL, ASK_POT, ASK_OFF):
            if k <= _K_WHITE:
                self._ball(step, k)
            elif k == _K_OK and step == FOUL_BALL:
                self._send(self.draft)
        elif step in (CONFIRM, UNDO):
            if k == _K_OK:
                self._send(self.draft)
        elif step == SPOTS:
            if 1 <= k <= 6:
                self.occupied ^= 1 << k
            elif k == _K_WHITE:
                self.occupied ^= 0x80
            elif k == _K_OK:
                occ = [names.BALLS[c] for c in range(1, 7) if self.occupied & (1 << c)]
                if self.occupied & 0x80:
                    occ.append("behind")
                self._send({"ev": "spots", "occupied": occ})
        elif step == INFO and k == _K_OK:
            self._cancel()

    def _cancel(self):
        step = self.step
        self.step = IDLE
        self.draft = {}
        if step in (ASK_POT, ASK_OFF):
            self.app.answer(-1)  # BACK: no ball after all (a false trigger)

    def _send(self, ev):
        self.step = IDLE
        self.draft = {}
        return self.app.submit(ev, _SRC_KEYPAD) is None

    def _ask_ball(self, step, title, question):
        self.step = step
        self.title = title
        self.question = question

    def _confirm(self, title, question, ev):
        self.step = CONFIRM
        self.title = title
        self.question = question
        self.draft = ev

    def _names(self):
        e = self.app.engine
        players = e.players or ("side 0", "side 1")
        out = []
        for p in players:
            out.append(p if type(p) is str else p[0] + "+" + p[1])
        return out

    def _idle(self, k):
        app = self.app
        e = app.engine
        if k <= _K_WHITE:
            self._stroke_event({"ev": "pot", "ball": names.BALLS[k]})
        elif k == _K_OK:
            if e.stroke_open or self._send({"ev": "strike"}):
                self._send({"ev": "rest"})
        elif k == _K_FOUL:
            self._list(FOUL_KIND, "FOUL: which?", tuple(short(f) for f in FOUL_MENU))
        elif k == _K_MISS:
            self._list(MISS, "MISS", ("miss", "clear ball miss"))
        elif k == _K_FREE:
            if self._send({"ev": "free_ball"}):
                self._ask_ball(_NOMINATE, "FREE BALL", "nominate a colour (BACK: later)")
        elif k == _K_AGAIN:
            self._send({"ev": "play_again"})
        elif k == _K_REPLACE:
            self._send({"ev": "replace"})
        elif k == _K_UNDO:
            self.step = UNDO
            self.title = "UNDO"
            self.question = "take back the last action?"
            self.draft = {"ev": "undo"}
        elif k == _K_CONCEDE:
            self._list(CONCEDE, "CONCEDE", ("the frame", "the match"))
        elif k == _K_NOM:
            self._ask_ball(_NOMINATE, "NOMINATE", "which ball?")
        elif k == _K_OFF:
            self._ask_ball(_OFF_BALL, "BALL OFF TABLE", "which ball?")
        elif k == _K_MENU:
            self._list(MENU, "MENU", MENU_ITEMS)

    def _stroke_event(self, ev):
        # A pot or a ball off entered by hand opens a stroke if none is open.
        if not self.app.engine.stroke_open and not self._send({"ev": "strike"}):
            return
        self._send(ev)

    def _ball(self, step, k):
        ball = names.BALLS[k]
        if step == FOUL_BALL:
            self.draft["ball"] = ball
            self._send(self.draft)
        elif step == _NOMINATE:
            self._send({"ev": "nominate", "ball": ball})
        elif step == _OFF_BALL:
            self.step = IDLE
            self._stroke_event({"ev": "off", "ball": ball})
        else:  # ASK_POT, ASK_OFF: the app applies it in its place among the sensor events
            self.step = IDLE
            self.app.answer(k)

    def _chosen(self, step, i):
        if step == FOUL_KIND:
            kind = FOUL_MENU[i]
            self.draft = {"ev": "foul", "kind": kind}
            if names.penalty_class(kind) == names.PENALTY_HIGHER:
                self._ask_ball(FOUL_BALL, "FOUL " + short(kind), "ball concerned? (OK: none)")
            else:
                self._send(self.draft)
        elif step == MISS:
            self._send({"ev": "miss", "clear": i == 1})
        elif step == CONCEDE:
            who = self._names()[self.app.engine.striker]
            ev = {"ev": "concede"}  # type: dict[str, object]
            if i == 1:
                ev["match"] = True
            self._confirm("CONCEDE", "%s concedes the %s? OK" % (who, ("frame", "match")[i]), ev)
        elif step == MENU:
            self._menu(i)
        elif step == BEST_OF:
            self.draft["best_of"] = BEST_OFS[i]
            self._list(REDS, "REDS", ("15 reds", "10 reds", "6 reds"))
        elif step == REDS:
            self.draft["reds"] = REDS_CHOICE[i]
            self._list(BREAKER, "WHO BREAKS?", tuple(self._names_for_new()))
        elif step == BREAKER:
            self.draft["breaker"] = i
            self._confirm(
                "NEW MATCH",
                "best of %s, %s reds? OK" % (self.draft["best_of"], self.draft["reds"]),
                self.draft,
            )
        elif step == SIDE:
            self.draft["side"] = i
            if self.draft["ev"] in ("toss", "order") and self.app.engine.doubles:
                pair = self.app.engine.players[i]
                self._list(PARTNER, "WHO PLAYS FIRST?", (pair[0], pair[1]))
            elif self.draft["ev"] == "award":
                what = "match" if self.draft.get("match") else "frame"
                self._confirm("AWARD", "%s to %s? OK" % (what, self._names()[i]), self.draft)
            else:
                self._send(self.draft)
        elif step == PARTNER:
            self.draft["player" if self.draft["ev"] == "toss" else "first"] = i
            self._send(self.draft)

    def _names_for_new(self):
        e = self.app.engine
        if e.players is None:
            return ["Player A", "Player B"]
        return self._names()

    def _menu(self, i):
        item = MENU_ITEMS[i]
        if item == "new match":
            e = self.app.engine
            players = e.players if e.players is not None else ["Player A", "Player B"]
            self.draft = {"ev": "match", "players": players}
            self._list(BEST_OF, "BEST OF", tuple(str(n) for n in BEST_OFS))
        elif item == "award frame" or item == "award match":
            self.draft = {"ev": "award"}
            if item == "award match":
                self.draft["match"] = True
            self._list(SIDE, "AWARD TO", tuple(self._names()))
        elif item == "re-rack":
            self._confirm("RE-RACK", "restart the frame? OK", {"ev": "rerack"})
        elif item == "toss":
            self.draft = {"ev": "toss"}
            self._list(SIDE, "TOSS WON BY", tuple(self._names()))
        elif item == "spots":
            self.step = SPOTS
            self.title = "SPOTS TAKEN"
            self.occupied = 0
        elif item == "claim frame":
            self._confirm("CLAIM", "striker claims the frame? OK", {"ev": "claim"})
        elif item == "edge replace":
            self._confirm("EDGE BALL", "replace all, replay? OK", {"ev": "edge_replace"})
        elif item == "order (dbl)":
            self.draft = {"ev": "order"}
            self._list(SIDE, "ORDER FOR", tuple(self._names()))
        else:
            self.step = INFO
            self.title = "LINK"

    # -- questions from the sensors -------------------------------------------
    def ask(self, step, pocket, question):
        """The app needs a ball named (ASK_POT or ASK_OFF); shown when idle."""
        self.step = step
        self.pocket = pocket
        self.title = ("POT %s" % names.POCKETS[pocket]) if step == ASK_POT else "BALL OFF TABLE"
        self.question = question
