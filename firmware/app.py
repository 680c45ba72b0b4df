# The table controller: sensor and key events go into the rules engine, every
# event is journaled on flash and then streamed to the host; the handset
# display and the status LED follow (docs/DESIGN.md, "The journey of one pot").
#
# One pass of the main loop is tick(): the asyncio task on the board calls it
# every _TICK_MS (and at once when a beam interrupt wakes it); tests and the
# simulator call it directly, so the very same code runs on the board, under
# CPython and under MicroPython's WebAssembly port.
#
# Order of a pass, so a pot reaches the wire first and the display last:
#   edges from the interrupt ring -> pocket/rail/strike filters -> sensor queue
#   -> colour reads -> engine -> journal -> session -> serial; then keys,
#   link input, display (one page a pass), LED.

from array import array

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


from ..protocol import messages
from . import engine as rules
from . import journal as jr
from . import keypad_flow as kf
from . import link as lk
from . import names, screens
from .handset import Handset
from .hw import FAST, SLOW, STEADY
from .hw.inputs import EDGE_RAIL, EDGE_SPEED, EDGE_STRIKE, Monotonic
from .painter import Painter, text_of

# What the hello says this firmware is: `baulk firmware build` writes the
# release's version and its rules engine's in its place (host/release/bundle.py
# firmware_text); run from the source tree it stays this.
FIRMWARE = "baulk-fw 0.1"
_TICK_MS = const(2)
_STATE_MS = const(250)  # state snapshots are coalesced to at most this often
_MESSAGE_MS = const(6000)  # a refusal stays on the display this long
_REDRAW_MS = const(1000)
_RESET_GAP_MS = const(5000)  # after a reset, device time resumes this far on
_QUEUE = const(12)  # sensor events waiting for a colour or the referee
_HEALTH_SAVE_MS = const(1000)  # sensor counts go to flash at most this often
_HEALTH_MS = const(60000)  # ... and to the host, when they changed

# Event sources (messages.SRC_*, folded here; tests/test_wire_codes.py checks them).
_SRC_SENSOR = const(0)
_SRC_HOST = const(2)
# A fault in a pass of the main loop goes to the host as a `log` at level
# error (messages' _LOG_ERROR), at most this often: the line is the score's.
_LOG_ERROR = const(3)
_FAULT_MS = const(1000)

# Sensor queue entries: [what, pocket, t, ball, due]
_Q_POT = const(0)
_Q_OFF = const(1)
_Q_STRIKE = const(2)
_Q_REST = const(3)
# ball slot while unresolved
_B_COLOUR = const(-2)  # waiting for the colour reading
_B_ASK = const(-3)  # the referee must say
_B_ASKED = const(-4)  # ... and the handset is asking
_B_NONE = const(-1)  # nothing after all: dropped
# How much farther than its own faded colour a reading may be from a faded
# ball that is on for the two to be told apart (the classifier's units; 200
# is some three spreads squared: bench/pockets.py's "other" case).
_FADED_MARGIN = const(200)
_NOTHING = const(0xFF)  # a queued pot's "two likeliest": the colour sensor saw no ball
_QUIET_MS = const(400)  # ... and such a pot is asked about once its pocket is this long quiet
_SHAKE_MS = const(60)  # two such pots in two pockets this close: the table was shaken
# The pocket check's message types (SPEC.md 7.1; private in messages.py, so
# that the device spends no names on them: tests/test_wire_codes.py).
_T_HEALTH = const(16)
_T_CHECK_REQUEST = const(18)
_T_CAPTURE_REQUEST = const(20)  # the sensor capture's (capture.py; private in messages.py too)
_T_ANCHOR = const(22)  # the host's money chain head, signed at once (SPEC.md 7.8; private too)
_T_UPDATE_REQUEST = const(23)  # leave the match for the update mode (SPEC.md 7.9; private too)


# -- the pockets' sensor health ----------------------------------------------------
# Per pocket, the balls its beam counted, its
# beam's glitches (a break too short to be a ball), its unclear colour
# readings and the referee's corrections of it; and the pockets the last
# pocket check found weak or faulty (pocket_check.py).  The counts run from the
# day the flash was new, live in one small file beside the handset's (written
# whole and renamed by handset.py, so a power cut leaves the old or the new
# one) and go to the host now and then (SPEC.md `health`).
#
# A correction is a disagreement between a sensor and the referee, found the
# same way here and in the host's log (host/referee/sensors.py runs this very class
# over the events it stores):
#   _D_CHANGED     a sensor pot the referee took back (undo) and keyed again as
#                another ball in the same stroke
#   _D_TAKEN_BACK  a sensor pot taken back and not keyed again by the time its
#                stroke is played again (the ball never went in)
#   _D_KEYED       a pot keyed by hand where no sensor pot was taken back: its
#                pocket's sensor saw nothing (a pot keyed without its pocket
#                counts as `unplaced`)
# A sensor pot the referee keys again as the same ball is no disagreement:
# he took the stroke back for another reason.  Undo takes back whole strokes
# (docs/ENGINE.md, "Undo"), so each sensor pot is kept with its stroke's
# number in the frame: the strokes a later undo takes back are those numbered
# above the engine's count after it, and keying them again makes the same
# numbers.
#
# It lives here, not in a module of its own, for the heap (bench/firmware_bench.py):
# a module costs the heap about a kilobyte with the code in ROMFS.  And every
# name of the class is one the firmware already has (methods, attributes and
# arguments alike): MicroPython interns each new name for good, and its table
# of names grows by doubling.
_H_N = const(6)
# Where each count's six pockets start in the array, then the rest
# (pocket_check.py writes the faulty and weak pockets by these places: its
# _H_FAULTY and _H_WEAK, held together by tests/firmware/test_fw_pockets.py).
_H_BALLS = const(0)
_H_GLITCHES = const(6)
_H_UNCLEAR = const(12)
_H_CORRECTIONS = const(18)
_H_UNPLACED = const(24)
_H_FAULTY = const(25)  # bit per pocket
_H_WEAK = const(26)
_H_MAGIC = const(27)  # the file's version, written last: a short file fails it
_H_SIZE = const(28)
_H_VERSION = const(0x4B485331)

# Kinds of disagreement: codes of host/referee/sensors.py KINDS (tests/test_wire_codes.py).
_D_CHANGED = const(1)
_D_TAKEN_BACK = const(2)
_D_KEYED = const(3)

_H_POTS = const(16)  # sensor pots kept: undo reaches back this many
_H_BACK = const(1 << 23)  # a kept pot's flag: taken back, not settled yet (a small int)


class Health:
    def __init__(self, hs):
        """hs: the handset (handset.py), whose files sit in the journal's
        directory; None: counts in RAM only (the host's log)."""
        c = self.c = array("I")
        for _ in range(_H_SIZE):
            c.append(0)
        self.hs = hs
        # Sensor pots in undo's reach: stroke << 6 | ball << 3 | pocket, with
        # _H_BACK once taken back.
        self.marks = []
        self.dirty = False  # counts not on flash yet
        self.pending = 1  # 0: the host has the counts, 1: they changed, 2: send now
        self.at = 0  # when the counts were last written (app.py's clock)
        self.last = 0  # ... and last sent
        if hs is None:
            return
        try:
            with open(hs.path("health"), "rb") as f:
                n = f.readinto(c)
            if n != 4 * _H_SIZE or c[_H_MAGIC] != _H_VERSION:
                raise ValueError
        except (OSError, ValueError):  # none yet, or cut short: start again
            for i in range(_H_SIZE):
                c[i] = 0

    def write(self):
        """The counts to flash."""
        self.c[_H_MAGIC] = _H_VERSION
        self.hs.write("health", self.c)
        self.dirty = False

    def count(self, i, n=1):
        self.c[i] += n
        self.dirty = True
        if not self.pending:
            self.pending = 1

    def take(self, pk):
        """The balls and glitches the beams (hw/pockets.py) counted since the last look."""
        for p in range(_H_N):
            if pk.balls[p]:
                self.count(_H_BALLS + p, pk.balls[p])
                pk.balls[p] = 0
            if pk.glitches[p]:
                self.count(_H_GLITCHES + p, pk.glitches[p])
                pk.glitches[p] = 0

    def body(self, cmd=-1):
        """The `health` message (SPEC.md 7.6); cmd >= 0: a check runs, started
        by that check_request (0: on the handset)."""
        c = self.c
        out = {4: c[_H_UNPLACED], 5: c[_H_FAULTY], 6: c[_H_WEAK]}  # type: dict[int, object]
        for key in range(4):
            out[key] = [c[6 * key + p] for p in range(_H_N)]
        if cmd >= 0:
            out[7] = True
            if cmd:
                out[8] = cmd
        return out

    # -- sensor and referee -------------------------------------------------------
    def feed(self, e, ev, src, n):
        """After engine e took `ev` from `src`; n: its log's length before (a
        pot between strokes that did not go into the log is a ball that fell
        by itself, R3.12.1: nothing undo can take)."""
        name = ev["ev"]
        k = e.frame << 10 | e.frame_strokes  # the stroke being played, or the last
        kept = self.marks
        below = -1  # pots taken back from strokes before this are settled
        if name == "pot":
            if not (e.stroke_open or e.log_len != n):
                return
            pocket = names.code_of(names.POCKETS, ev.get("pocket")) & 7
            ball = names.code_of(names.BALLS, ev.get("ball")) & 7
            if src == _SRC_SENSOR:
                if len(kept) >= _H_POTS:
                    kept.pop(0)
                kept.append(k << 6 | ball << 3 | pocket)
                return
            # Keyed: a pot of this stroke taken back, of this ball if any.
            found = -1
            for i in range(len(kept)):
                p = kept[i]
                if p & _H_BACK and (p & ~_H_BACK) >> 6 == k:
                    if p >> 3 & 7 == ball:
                        found = i
                        break
                    if found < 0:
                        found = i
            if found < 0:
                self.disagree(_D_KEYED, pocket, -1, ball)
                return
            p = kept.pop(found)
            if p >> 3 & 7 != ball:
                self.disagree(_D_CHANGED, p & 7, p >> 3 & 7, ball)
        elif name == "undo":
            for i in range(len(kept)):
                if kept[i] >> 6 > k and not kept[i] & _H_BACK:
                    kept[i] |= _H_BACK
        elif name == "rest":
            below = k + 1
        elif name == "strike" and src == _SRC_SENSOR:
            below = k  # play goes on: the strokes before this one are done
        elif name == "match":
            kept.clear()
        if below < 0:
            return
        i = 0
        while i < len(kept):
            p = kept[i]
            if p & _H_BACK and (p & ~_H_BACK) >> 6 < below:
                kept.pop(i)
                self.disagree(_D_TAKEN_BACK, p & 7, p >> 3 & 7, -1)
            else:
                i += 1

    def disagree(self, kind, pocket, ball, k):
        """The sensor at `pocket` (7: not known) read `ball`, the referee
        keyed `k` (-1: none); the host's log overrides this."""
        self.count(_H_CORRECTIONS + pocket if pocket < _H_N else _H_UNPLACED)


def replay_one(engine, body):
    try:  # noqa: SIM105 (no contextlib on MicroPython)
        engine.apply(messages.wire_to_event(body))
    except rules.Rejected:
        pass  # it was refused the first time too


class App:
    def __init__(self, hw):
        self.hw = hw
        self.table = hw.table
        self.clock = Monotonic(hw.ticks)
        self.engine = rules.Engine()
        self.journal = jr.Journal(hw.flash)
        self.key = hw.key  # signs the journal's checkpoints (SPEC.md "Checkpoints")
        self.boot = self.journal.open()
        self.replayed = self.journal.restore(self.engine, replay_one, hw.wdt.feed)
        light = hw.led.light  # the table light's relay, active low (boards/, hw/__init__.py)
        if light is not None:  # as the host last left it, before the link is up
            light.value(0 if self.journal.light else 1)
        # The language and the names' bitmaps: host messages that leave no
        # event, so the handset remembers the newest one it took.
        self.handset = Handset(hw.flash, hw.texts)
        # The pockets' sensor counts, and the pockets the last check found faulty.
        self.health = Health(self.handset)
        self.check = None  # the pocket check running (pocket_check.Check)
        self.capture = None  # the sensor capture running (capture.py), loaded only then
        self.update = None  # an update_request's op: run() returns, main.py starts the update mode
        if self.journal.nmarks:
            # Events the last boot journaled but did not sign (the power went
            # between an event and its checkpoint): signed now, so no
            # checkpoint ever lists more than MARKS of them.
            self.journal.checkpoint(self.key)
        had = self.journal.next > 1
        self.t0 = self.journal.last_t + _RESET_GAP_MS if had else 0
        self.link = lk.Link(
            hw.serial,
            0,
            FIRMWARE,
            self.table,
            self.boot,
            self.journal.acked,
            max(self.journal.delivered, self.handset.seq),
            self.journal.next - 1,
        )
        self.offered = self.journal.acked  # newest seq handed to the session
        self.flow = kf.KeypadFlow(self)
        self.queue = []
        for what, pocket, t in self.journal.unanswered():
            # Asked before the power cut, never answered: ask again.
            self.queue.append([what, pocket, t - self.t0, _B_ASK, 0, True])
        # The open stroke was started by the strike sensor, so the rest sensor
        # closes it (after a reset mid-stroke: whenever a rest sensor is fitted).
        self.sensor_stroke = self.engine.stroke_open and hw.rest is not None
        self.message = None
        self.message_at = 0
        self.painter = Painter(hw.display, self.handset)
        self.lines = [None] * screens.ROWS  # type: list[list[object] | None]
        self.shown = [0] * screens.ROWS  # type: list[object]  # 0: draw it (it may hold noise)
        self.pages = 0  # pages drawn into the frame buffer, not yet sent
        self.page = 0  # the Persian screen's page shown (screens.pages)
        self.page_at = 0  # ... counted from here: its first page after a change
        self.dirty = True
        self.drawn_at = 0
        self.state_due = True
        self.state_at = -_STATE_MS
        self.now = 0
        self.was_up = False
        self.last_colour = (-1, 0)  # (ball, confidence) of the latest reading
        self.fault_at = -_FAULT_MS  # when the last fault went to the host

    def menu(self):
        """The MENU and the flows it opens (menu.py, which the keypad's flow
        runs): loaded when the referee opens it, and out of the heap again
        once the handset is back at play (keypad_flow.py)."""
        from . import menu

        return menu

    # -- time ------------------------------------------------------------------
    def t(self):
        """Device time of an event: ms since boot, continuing across resets."""
        return self.t0 + self.now

    def say(self, text):
        self.message = text
        self.message_at = self.page_at = self.now
        self.dirty = True

    # -- the one door into the engine --------------------------------------------
    def submit(self, ev, src, cmd=0, act=0):
        """Apply an input event, journal it, stream it.  Returns the refusal or None."""
        if "t" not in ev:
            ev["t"] = self.t()
        reason = None
        e = self.engine
        players = e.players
        log_len = e.log_len
        ended = e.hist_len + e.match_over
        try:
            e.apply(ev)
        except rules.Rejected as why:
            reason = why.args[0] if why.args else "refused"
        if e.players != players:
            self.handset.forget_names()  # they showed the last match's players
            self._redraw()  # rows name players by side: the same parts, other names
        if reason is None:
            self.health.feed(e, ev, src, log_len)
        body = messages.event_body(ev, (e.s0, e.s1), reason, self.boot, src, cmd, act)
        j = self.journal
        self._stream(messages.EVENT, body, j.append(body, ev["t"]))
        # A checkpoint at every frame's end (and the match's), when its marks
        # are full, and before an image (SPEC.md "Checkpoints").
        if e.hist_len + e.match_over != ended or j.nmarks >= jr.MARKS or j.image_due():
            seq, cp = j.checkpoint(self.key)
            self._stream(messages.CHECKPOINT, cp, seq)
        self.state_due = True
        self.dirty = True
        self.page_at = self.now
        if reason is not None and src != _SRC_SENSOR:
            self.say(reason)
        if j.image_due():
            j.write_image(e)
        return reason

    def _stream(self, mtype, body, seq):
        # A journaled record goes to the session now, or later from flash.
        self.link.assigned(seq)
        if self.offered == seq - 1 and self.link.room() > 0 and self.link.offer(mtype, body) == seq:
            self.offered = seq

    # -- one pass ----------------------------------------------------------------
    def tick(self):
        hw = self.hw
        now = self.now = self.clock.update()
        hw.wdt.feed()
        self._edges(now)
        self._sensors(now)
        self._feed_outbox()
        self.link.transmit(now)  # a pot goes out here, before anything slow
        if hw.scan_in_loop:
            hw.keypad.scan()
        k = hw.keypad.get()
        while k >= 0:
            self.flow.key(k)
            self.dirty = True
            self.page_at = now
            k = hw.keypad.get()
        self._ask(now)
        self._keep_questions()
        if self.check is not None:
            self.check.tick(now)
        if self.capture is not None:  # the sensor capture (capture.py): its frame, or its end
            self.capture.tick(now)
        self._link(now)
        h = self.health
        if h.dirty and now - h.at >= _HEALTH_SAVE_MS:
            h.at = now
            h.write()
        self._display(now)
        led = hw.led
        if self.flow.step != kf.IDLE or self.message:
            led.mode = FAST
        else:
            led.mode = STEADY if self.link.up else SLOW
        led.update(now)

    def _edges(self, now):
        hw = self.hw
        ring = hw.ring
        pk = hw.pockets
        at = self.clock.at
        beams = False  # a beam edge or ball: its counts go to the health counts
        while ring.pending():
            src, level, tick = ring.get()
            t = at(tick)
            if self.capture is not None:  # the sensor capture records every beam edge
                self.capture.edge(src, level, t)
            if src < 6:
                beams = True
                if pk.edge(src, level, t):
                    if self.check is not None:  # the referee is checking the pockets
                        self.check.ball(src, pk.start[src])
                    else:
                        self._queue(_Q_POT, src, t)
            elif self.check is not None:
                continue  # the referee is handling balls, not playing
            elif src == EDGE_RAIL:
                if hw.rail is not None and hw.rail.edge(level, t):
                    self._queue(_Q_OFF, -1, t)
            elif src == EDGE_SPEED:
                pk.speed_edge(level, t)
            elif src == EDGE_STRIKE and hw.strike is not None and hw.strike.edge(level, t):
                self._queue(_Q_STRIKE, -1, t)
                if hw.rest is not None:
                    hw.rest.motion(now)
        busy = False
        for p in range(6):
            if pk.poll(p, now, ring.pins[p].value()):
                beams = True
                if self.check is not None:
                    self.check.ball(p, pk.start[p])
                else:
                    self._queue(_Q_POT, p, pk.start[p])
            if pk.busy[p]:
                busy = True
                if not pk.sample(p, now):  # the ball has passed the colour sensor
                    self._judge(p)
                elif self.capture is not None:  # the sensor capture records the window read
                    self.capture.sample(p, now)
        if not busy:
            pk.background(now)
        if beams:
            self.health.take(pk)  # the beams' counts since the last look

    def _queue(self, what, pocket, t):
        if len(self.queue) >= _QUEUE:
            self.say("too many sensor events: check the sensors")
            return
        ball = _B_COLOUR if what == _Q_POT else (_B_ASK if what == _Q_OFF else _B_NONE)
        # [what, pocket, time, ball, the two likeliest balls (a question's), asked the referee]
        self.queue.append([what, pocket, t, ball, 0, False])

    def _judge(self, p):
        """Pocket p's passage is over: name its balls.  The sensors judge the
        count (hw/pockets.py balls_seen) and each ball by the hump of
        brightness it made; a ball the beam counted that the colour cannot
        tell apart from another, or a second ball the beam alone could not
        see, is asked of the referee, never guessed."""
        if self.check is not None:
            return  # the pocket check reads the passage itself
        pk = self.hw.pockets
        q = self.queue
        count = 0  # (counted twice rather than listed: the heap)
        for item in q:
            if item[0] == _Q_POT and item[1] == p and item[3] == _B_COLOUR:
                count += 1
        if not count:
            return
        n = pk.balls_seen(p)
        while count < n and len(q) < _QUEUE:
            q.append([_Q_POT, p, pk.start[p], _B_COLOUR, 0, False])
            count += 1
        humps = pk.humps[p] if pk.samples[p] else 0
        # One break, and the sensor watching it saw no ball: asked, or the
        # next ball's (_ask).
        nothing = count == 1 and pk.saw_nothing(p) and not self.health.c[_H_FAULTY] >> p & 1
        i = 0
        named = 0  # the colours this passage named: a set has one of each
        for item in q:
            if item[0] == _Q_POT and item[1] == p and item[3] == _B_COLOUR:
                b = self._colour(p, i, item) if humps >= count and not nothing else _B_ASK
                if b > 0 and named >> b & 1:
                    # A second yellow..white in one passage is no ball of the
                    # set: a lone ball's humps split in two (the black's, near
                    # the empty pocket's own reading).  Asked, never named.
                    b = _B_ASK
                    item[4] = 0
                    self.health.count(_H_UNCLEAR + p)
                elif b > 0:
                    named |= 1 << b
                item[3] = b
                if nothing:
                    item[4] = _NOTHING
                i += 1

    def _sensors(self, now):
        hw = self.hw
        q = self.queue
        for item in q:
            if item[3] == _B_COLOUR and not hw.pockets.busy[item[1]]:
                self._judge(item[1])  # its passage ended while the check had the pocket
                if item[3] == _B_COLOUR:
                    item[3] = _B_ASK
        e = self.engine
        if (
            hw.rest is not None
            and self.sensor_stroke
            and e.stroke_open
            and not q
            and hw.rest.at_rest(now)
        ):
            q.append([_Q_REST, -1, self.t() - self.t0, _B_NONE, 0, False])
        while q:
            item = q[0]
            what = item[0]
            ball = item[3]
            if what in (_Q_POT, _Q_OFF) and ball < _B_NONE:
                return  # the head waits for its colour or for the referee
            q.pop(0)
            t = self.t0 + item[2]
            if what == _Q_STRIKE:
                if e.stroke_open or not e.active or e.match_over:
                    continue  # the table shook in a stroke already open, or out of play
                self.sensor_stroke = True
                self.submit({"ev": "strike", "t": t}, _SRC_SENSOR)
            elif what == _Q_REST:
                if e.stroke_open:
                    self.sensor_stroke = False
                    self.submit({"ev": "rest", "t": t}, _SRC_SENSOR)
            elif ball >= 0:
                if not e.stroke_open and hw.strike is None and e.active:
                    # No strike sensor fitted: a ball dropping opens the stroke.
                    self.sensor_stroke = True
                    if hw.rest is not None:
                        hw.rest.motion(now)
                    self.submit({"ev": "strike", "t": t}, _SRC_SENSOR)
                if what == _Q_POT:
                    ev = {"ev": "pot", "ball": names.BALLS[ball], "pocket": names.POCKETS[item[1]]}
                else:
                    ev = {"ev": "off", "ball": names.BALLS[ball]}
                ev["t"] = t
                self.submit(ev, _SRC_SENSOR)

    def _colour(self, pocket, h, item):
        """The ball of hump h of the pocket's passage, or _B_ASK (with the
        two likeliest in the item, for the question)."""
        hw = self.hw
        if self.health.c[_H_FAULTY] >> pocket & 1:  # the last check failed it: the referee names it
            return _B_ASK
        f = hw.pockets.rgbc  # the sampling's buffer: its passage is over
        if not hw.pockets.features(pocket, h, f):
            self.last_colour = (-1, 0)
            self.health.count(_H_UNCLEAR + pocket)
            return _B_ASK
        cl = hw.classifier
        if h and hw.pockets.humps[pocket] == 3 and cl.darker_than_any(pocket, f):
            # A second ball by the shadow's length (the speed beam), whose
            # windows are dimmer than two thirds of the black: a lone ball's tail
            # after a shaken beam made its shadow long.  Asked, not named.
            self.health.count(_H_UNCLEAR + pocket)
            return _B_ASK
        ball = cl.classify(pocket, f)
        self.last_colour = (ball, cl.confidence)
        if ball >= 0 and not self.engine.pot_is_on(ball):
            # A ball that is not on, read where a ball that is on reads once
            # chalked or worn (a red as a pink or a brown): the colour cannot
            # tell the two apart, so the referee says, the one on second.
            near = cl.faded(pocket, f, ball) + _FADED_MARGIN
            on = -1
            for b in range(7):
                if b != ball and self.engine.pot_is_on(b):
                    d = cl.faded(pocket, f, b)
                    if d < near:
                        near, on = d, b
            if on >= 0:
                item[4] = (ball + 1) | (on + 1) << 4
                return _B_ASK
        if ball < 0:
            self.health.count(_H_UNCLEAR + pocket)
            ball = cl.classify(pocket, f, 0)
            if ball >= 0 and cl.second >= 0:
                item[4] = (ball + 1) | (cl.second + 1) << 4
            return _B_ASK
        return ball

    def _ask(self, now):
        q = self.queue
        if not q or q[0][3] != _B_ASK or self.flow.step != kf.IDLE:
            return
        item = q[0]
        if item[0] == _Q_POT and item[4] == _NOTHING:
            # The beam broke but the colour sensor, watching, saw no ball (a
            # bump's glitches run into one break).  Asked only once the
            # pocket has been quiet a while: a ball the sensor does see
            # dropping through it just after is the one ball the referee saw
            # go in, and the break was nobody's (asking would record it twice).
            p = item[1]
            for it in q:
                if it is not item and it[0] == _Q_POT and it[1] == p and it[3] >= 0:
                    item[3] = _B_NONE
                    self.health.count(_H_GLITCHES + p)
                    return
            if self.hw.pockets.busy[p] or now - item[2] < _QUIET_MS:
                return
            # Another such break in another pocket at the same moment: the
            # table was shaken (a bump reaches every beam), not two balls,
            # each of which its own sensor would have seen.
            shaken = False
            for it in q:
                near = -_SHAKE_MS < it[2] - item[2] < _SHAKE_MS
                if it is not item and it[4] == _NOTHING and near:
                    it[3] = _B_NONE
                    self.health.count(_H_GLITCHES + it[1])
                    shaken = True
            if shaken:
                item[3] = _B_NONE
                self.health.count(_H_GLITCHES + p)
                return
        item[3] = _B_ASKED
        item[5] = True
        if item[0] == _Q_POT:
            why = "which ball? (colour unclear)"  # type: str | list[object]
            two = item[4]
            if self.health.c[_H_FAULTY] >> item[1] & 1:
                why = "which ball? (pocket faulty)"
            elif two and two != _NOTHING:  # "red or brown?": the two likeliest first
                why = [names.BALLS[(two & 15) - 1], " or ", names.BALLS[(two >> 4) - 1], "?"]
            self.flow.ask(kf.ASK_POT, item[1], why)
        else:
            self.flow.ask(kf.ASK_OFF, -1, "which ball went off?")
        self.dirty = True

    def _keep_questions(self):
        # A pot the referee is being asked about exists only in this queue
        # until it is answered: keep it on flash, or a power cut loses it.
        q = self.queue
        if not q and not self.journal.asked:
            return
        items = []
        for it in q:
            if it[5]:
                items.append([it[0], it[1], self.t0 + it[2]])
        self.journal.save_asked(items)

    def answer(self, ball):
        """The referee named the ball the sensors asked about (-1: none)."""
        q = self.queue
        if q and q[0][3] == _B_ASKED:
            q[0][3] = ball if ball >= 0 else _B_NONE

    # -- the host link -------------------------------------------------------------
    def _feed_outbox(self):
        # Events that did not fit the session's window wait on flash.
        j = self.journal
        link = self.link
        while self.offered < j.next - 1 and link.room() > 0:
            n = 0
            for seq, kind, body in j.records(self.offered + 1, link.room()):
                # kind 0 an event, 1 a pocket check, 2 a checkpoint (journal.py)
                if link.offer(b"\x03\x11\x13"[kind], body) != seq:
                    return
                self.offered = seq
                n += 1
            if not n:
                return

    def _link(self, now):
        link = self.link
        inbox = link.receive(now)
        while inbox:  # one at a time: what a raising handler leaves waits there
            what, mtype, seq, body = inbox.pop(0)
            if what == "deliver":
                if mtype == messages.SETUP_MATCH or mtype == messages.COMMAND:
                    act = body.get(-6, 0)
                    if act and self.journal.applied(act):
                        # A repeat (a restarted host sends what it has no
                        # answer for): the event that answered it is in the
                        # stream already.  Nothing is applied again.
                        continue
                    if mtype == messages.SETUP_MATCH:
                        # The keys of its table alone make the match (SPEC.md 7.6).
                        ev = messages.wire_to_event(body, messages.schema(mtype))
                        ev["ev"] = "match"
                    else:
                        ev = messages.wire_to_event(body)
                    ev.pop("t", None)  # the device's clock stamps events
                    self.submit(ev, _SRC_HOST, seq, act)
                elif mtype == messages.LIGHT:
                    # The state and its seq go to flash together, before the
                    # ack goes out (SPEC.md 7.6); then the relay switches.
                    j = self.journal
                    j.light = body[0]
                    j.delivered = seq
                    j._save_meta()
                    light = self.hw.led.light
                    if light is not None:
                        light.value(0 if body[0] else 1)
                elif mtype == messages.SETTINGS or mtype == messages.NAME_BITMAP:
                    self._handset(mtype, seq, body)
                elif mtype == _T_ANCHOR:
                    # The host's money chain head goes into a checkpoint of
                    # its own now, signed like the events (SPEC.md 7.8,
                    # "Anchors"); its seq to flash first, as a light's.
                    j = self.journal
                    j.delivered = seq
                    j._save_meta()
                    at, cp = j.checkpoint(self.key, body)
                    self._stream(messages.CHECKPOINT, cp, at)
                elif mtype == _T_CHECK_REQUEST:
                    # Its seq goes to flash before anything else, as a light's
                    # does, so a reset does not bring the same request back.
                    j = self.journal
                    j.delivered = seq
                    j._save_meta()
                    why = self.pocket_check(seq)
                    if why is not None:
                        link.send(
                            messages.ERROR,
                            {0: messages.ERR_REFUSED, 1: why, 2: _T_CHECK_REQUEST, 3: seq},
                        )
                elif mtype == _T_CAPTURE_REQUEST:
                    # A sensor capture (capture.py): its module is imported
                    # now, and unloads itself when the capture ends or is refused.
                    from .capture import start

                    why = start(self, seq, body)
                    if why is not None:
                        link.send(
                            messages.ERROR,
                            {0: messages.ERR_REFUSED, 1: why, 2: _T_CAPTURE_REQUEST, 3: seq},
                        )
                elif mtype == _T_UPDATE_REQUEST:
                    # The update mode runs instead of the match, never beside
                    # it (firmware/update/mode.py): so only between matches,
                    # with nothing waiting that it would hold up.  Its seq to
                    # flash first, as a light's: the restart after the mode
                    # does not bring the same request back.
                    j = self.journal
                    j.delivered = seq
                    j._save_meta()
                    e = self.engine
                    if (
                        (e.active and not e.match_over)
                        or self.queue
                        or self.check is not None
                        or self.capture is not None
                        or link.acked() < j.next - 1
                    ):
                        link.send(
                            messages.ERROR,
                            {
                                0: messages.ERR_REFUSED,
                                1: "no update during a match, or while events wait for the host",
                                2: _T_UPDATE_REQUEST,
                                3: seq,
                            },
                        )
                    else:
                        self.update = body[0]
            elif what == "message":
                if mtype == messages.SNAPSHOT_REQUEST:
                    self.state_due = True
                    self.state_at = -_STATE_MS
            elif what == "behind":
                # The host lost events it had acknowledged (its store was
                # restored from a backup): what the journal keeps after its
                # ack goes again, and stays on flash until it is acked again.
                # Unacknowledged again on flash, so a reset sends them too.
                j = self.journal
                self.offered = j.acked = link.rewind(seq, j.oldest())
                j._save_meta()
            elif what == "open" or what == "down" or what == "refused":
                self.state_due = self.dirty = True
                self.page_at = now  # a Persian screen shows its first page
                self.health.pending = 2
                if what == "refused":
                    self.say(body)
        acked = link.acked()
        if acked > self.journal.acked:
            self.journal.ack(acked)
        if not link.up:
            link.session.kept = self.journal.oldest()  # what the next hello announces
        if link.up != self.was_up:
            self.was_up = link.up
            self.dirty = True
        h = self.health
        if link.up and h.pending and (h.pending > 1 or now - h.last >= _HEALTH_MS):
            h.pending = 0
            h.last = now
            c = self.check
            link.send(_T_HEALTH, h.body(-1 if c is None else c.cmd))
        if self.state_due and link.up and now - self.state_at >= _STATE_MS:
            self.state_due = False
            self.state_at = now
            link.send(
                messages.STATE, messages.state_to_wire(self.engine.state(), self.journal.last_event)
            )
        link.transmit(now)

    # -- the pocket check (pocket_check.py) -------------------------------------------
    def pocket_check(self, cmd=0):
        """Start a pocket check (from the MENU, or the host's check_request
        `cmd`): None, or why not (and nothing changes).  Its module is
        imported now, and leaves the heap when the check closes."""
        e = self.engine
        if self.check is not None:
            return "a pocket check is already running"
        if e.active and not e.match_over and (e.frame_strokes or e.stroke_open):
            return "no pocket check mid-frame: check before the match or between frames"
        if self.queue:
            return "a pot waits for the referee: name its ball first"
        from .pocket_check import start

        self.flow.check()
        self.check = start(self, cmd)
        self.health.pending = 2
        self.dirty = True
        return None

    # -- the handset display ---------------------------------------------------------
    def _handset(self, mtype, seq, body):
        # settings and name_bitmap: refused with a sentence, or taken and shown
        hs = self.handset
        why = hs.settings(body, seq) if mtype == messages.SETTINGS else hs.name_bitmap(body, seq)
        if why is not None:
            self.link.send(messages.ERROR, {0: messages.ERR_REFUSED, 1: why, 2: mtype, 3: seq})
            return
        self._redraw()  # another layout, or a name drawn anew

    def _redraw(self):
        for i in range(screens.ROWS):
            self.shown[i] = 0
        self.dirty = True
        self.page_at = self.now

    def _display(self, now):
        if self.message and now - self.message_at >= _MESSAGE_MS:
            self.message = None
            self.dirty = True
        if self.handset.persian:  # the next page of a Persian screen that takes more
            page = (now - self.page_at) // screens.PAGE_MS
            if page != self.page:
                self.page = page
                self.dirty = True
        if self.dirty or now - self.drawn_at >= _REDRAW_MS:
            screens.render(self, self.lines)
            self.dirty = False
            self.drawn_at = now
        d = self.hw.display
        if not d.ok:
            return
        # One row drawn into the frame buffer, or one page sent, a pass.
        pages = self.pages
        if pages:
            p = 0
            while not pages & (1 << p):
                p += 1
            if d.show_page(p):
                self.pages = pages & ~(1 << p)
            return
        lines = self.lines
        shown = self.shown
        persian = self.handset.persian
        for r in range(4 if persian else screens.ROWS):
            row = lines[r]
            if row != shown[r]:
                if persian:
                    self.painter.persian(r, row or (), self.engine)
                    self.pages = 3 << (2 * r)
                else:
                    self.painter.english(r, text_of(self.engine, row) if row else "")
                    self.pages = 1 << r
                shown[r] = row
                return

    def screen(self):
        """The rows the display shows (or is about to show), as English text."""
        screens.render(self, self.lines)
        return [text_of(self.engine, row) if row else "" for row in self.lines]

    # -- the asyncio task on the board -------------------------------------------------
    def exception(self, e):
        """A pass of the main loop raised e: the host is told, with a `log`
        at level error that says what and where, and the loop goes on with
        the next pass (the host's messages after the one that raised wait in
        the link's inbox).  The watchdog is left for a real hang.  Nothing is
        printed: on a Pico stdout is the link itself."""
        try:
            if self.now - self.fault_at < _FAULT_MS:
                return  # one a second at most, however often it comes
            self.fault_at = self.now
            # (strings the firmware has already: each new one is an interned name)
            text = type(e).__name__ + ": " + str(e)
            import sys

            pe = getattr(sys, "print_exception", None)  # MicroPython's: where it came from
            if pe is not None:
                import io

                s = io.StringIO()
                pe(e, s)
                lines = s.getvalue().split("\n")  # ..., the innermost frame, the message, ""
                if len(lines) > 3:
                    text = text + ", " + lines[-3].strip()
            while len(text.encode()) > 200:  # the log's bound (SPEC.md 7.5)
                text = text[:-1]
            self.link.send(messages.LOG, {0: _LOG_ERROR, 1: text, 2: self.t()})
        except Exception:
            pass  # not even that (no memory left?): the loop goes on all the same

    async def run(self):
        # The main loop, until the host asks for the update mode (self.update).
        import asyncio

        sleep_ms = getattr(asyncio, "sleep_ms", None)
        while self.update is None:
            try:
                self.tick()
            except Exception as e:
                self.exception(e)
            if sleep_ms is not None:
                await sleep_ms(_TICK_MS)
            else:  # CPython
                await asyncio.sleep(_TICK_MS / 1000)
