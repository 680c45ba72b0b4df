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
# Every key's name by its code, in one string (a literal tuple would stay in
# RAM): the simulator presses keys by these names (KEY_NAMES.split()).
KEY_NAMES = (
    "red yellow green brown blue pink black white foul miss free again replace undo "
    "concede menu ok back nom off"
)

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
_CHECK = const(19)  # a pocket check runs: its keys go to app.check (pocket_check.py)

# Fouls in the order the referee reaches for them, as codes in names.FOUL_KINDS
# (a bytes literal, which stays in flash: MicroPython keeps a tuple of
# constants in RAM, even the one a bytes((...)) call would take).
# Page 1: wrong ball first, no contact, push, touch, double hit, feet off floor.
FOUL_ORDER = (
    b"\x0d\x04\x0e\x0f\x00\x01\x02\x03\x07\x08\x11\x10"
    b"\x0a\x0b\x0c\x05\x06\x09\x12\x13\x14\x15\x16\x17"
)
BEST_OFS = range(1, 36, 2)  # the BEST OF list (menu.py), by its numbers


def short(name):
    return name.replace("_", " ")


# The foul kinds whose names are too long for a row of the handset's list
# ("1 " and 14 characters) or for the FOUL title, and what it shows instead.
_SHORTER = (
    "|wrong_ball_first:wrong ball|ball_off_table_used:off-table ball"
    "|free_ball_snooker:FB snooker|foul_before_nomination:pre-nomination|"
)


def foul_text(kind):
    """A foul kind as the handset names it (at most 14 characters)."""
    at = _SHORTER.find("|" + kind + ":")
    if at < 0:
        return short(kind)
    at += len(kind) + 2
    return _SHORTER[at : _SHORTER.find("|", at)]


def foul_label(i):
    """The i-th foul of the list, as the handset names it."""
    return foul_text(names.FOUL_KINDS[FOUL_ORDER[i]])


class KeypadFlow:
    def __init__(self, app):
        self.app = app
        self.step = IDLE
        self.draft = {}  # type: dict[str, object]  # the event being put together
        self.opts = ""  # the list shown: "a|b|c", or a list of parts (painter.py)
        self.page = 0
        self.then = IDLE  # what a list leads to
        # What the display shows (screens.py): text, or a list of parts
        # (painter.py), so that names and numbers come apart from the words.
        self.title = ""  # type: str | list[object]
        self.question = ""  # type: str | list[object]
        self.occupied = 0  # SPOTS: bit per colour code, bit 7 'behind'
        self.pocket = -1

    # -- lists ---------------------------------------------------------------
    def _list(self, step, title, opts):
        self.step = step
        self.title = title
        self.opts = opts
        self.page = 0

    def count(self):
        """Options in the list shown."""
        step = self.step
        if step == FOUL_KIND:
            return len(FOUL_ORDER)
        if step == BEST_OF:
            return len(BEST_OFS)
        o = self.opts
        return o.count("|") + 1 if type(o) is str else len(o)

    def label(self, i):
        """Option i of the list shown: a part (text, a number or a name)."""
        step = self.step
        if step == FOUL_KIND:
            return foul_label(i)
        if step == BEST_OF:
            return BEST_OFS[i]
        o = self.opts
        return o.split("|")[i] if type(o) is str else o[i]

    def _picked(self, k):
        """Index picked by ball key k in the list shown, or -1 (BLACK pages on)."""
        n = self.count()
        if k > 6:
            return -1
        if n <= 7:
            return k if k < n else -1
        if k == 6:
            self.page = (self.page + 1) % ((n + 5) // 6)
            return -1
        i = self.page * 6 + k
        return i if i < n else -1

    def visible(self):
        """(first, how many) options of the page shown; more pages when n > 7."""
        n = self.count()
        if n <= 7:
            return 0, n
        first = self.page * 6
        return first, min(6, n - first)

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
        elif step in (FOUL_KIND, MISS, CONCEDE):
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
        elif step == _CHECK:
            self.app.check.key(k)
        else:  # the menu's lists and screens (menu.py)
            self.app.menu().key(self, step, k)
        if self.step == IDLE:
            self._menu_done()

    def _menu_done(self):
        from . import unload

        unload("menu")

    def _cancel(self):
        step = self.step
        self.step = IDLE
        self.draft = {}
        if step in (ASK_POT, ASK_OFF):
            self.app.answer(-1)  # BACK: no ball after all (a false trigger)
        elif step == _CHECK:
            self.app.check.close()  # stopped before the end: nothing changes
        self._menu_done()

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

    def _idle(self, k):
        app = self.app
        e = app.engine
        if k <= _K_WHITE:
            self._stroke_event({"ev": "pot", "ball": names.BALLS[k]})
        elif k == _K_OK:
            if e.stroke_open or self._send({"ev": "strike"}):
                self._send({"ev": "rest"})
        elif k == _K_FOUL:
            self._list(FOUL_KIND, "FOUL: which?", "")
        elif k == _K_MISS:
            self._list(MISS, "MISS", "miss|clear ball")
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
            self._list(CONCEDE, "CONCEDE", "the frame|the match")
        elif k == _K_NOM:
            self._ask_ball(_NOMINATE, "NOMINATE", "which ball?")
        elif k == _K_OFF:
            self._ask_ball(_OFF_BALL, "BALL OFF TABLE", "which ball?")
        elif k == _K_MENU:
            self.app.menu().show(self)

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
        e = self.app.engine
        if step == FOUL_KIND:
            kind = names.FOUL_KINDS[FOUL_ORDER[i]]
            self.draft = {"ev": "foul", "kind": kind}
            if names.penalty_class(kind) == names.PENALTY_HIGHER:
                self._ask_ball(FOUL_BALL, ["FOUL ", foul_text(kind)], "ball concerned? (OK: none)")
            else:
                self._send(self.draft)
        elif step == MISS:
            self._send({"ev": "miss", "clear": i == 1})
        elif step == CONCEDE:
            ev = {"ev": "concede"}  # type: dict[str, object]
            if i == 1:
                ev["match"] = True
            what = " concedes the match? OK" if i else " concedes the frame? OK"
            self._confirm("CONCEDE", [-1 - e.striker, what], ev)

    def check(self):
        """A pocket check takes the handset (whatever list it showed)."""
        self.step = _CHECK
        self.draft = {}
        self._menu_done()

    # -- questions from the sensors -------------------------------------------
    def ask(self, step, pocket, question):
        """The app needs a ball named (ASK_POT or ASK_OFF); shown when idle."""
        self.step = step
        self.pocket = pocket
        self.title = ["POT ", names.POCKETS[pocket]] if step == ASK_POT else "BALL OFF TABLE"
        self.question = question
