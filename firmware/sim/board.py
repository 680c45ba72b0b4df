# The simulated board: the Pico's wiring (boards/pico.py) over virtual pins,
# buses and port, with the whole firmware (app.App) running on it.  Tests and
# the host's table simulator drive it: beam breaks, colour readings, rail and
# table switches, key presses in; the serial bytes and the display's text out.
#
# Time is virtual: advance(ms) moves the clock, fires the scheduled signal
# changes (their interrupts run at that moment, as on the board), fires the
# keypad timer and runs the main loop every tick_ms.  A power cut (reset())
# throws the running firmware away and boots it again on the same flash.

# The firmware modules are imported where they are first needed, so that a
# heap measurement can tell the simulator's own memory from the firmware's.
from . import pocket_model  # the simulator's own (devices.py imports it too)
from .devices import (
    SimI2C,
    SimMux,
    SimPin,
    SimRelay,
    SimSsd1306,
    SimTcs34725,
    SimUart,
    SimWdt,
    VirtualClock,
)

# Every simulated board signs its checkpoints with this key (a board's own is
# written by `baulk firmware deploy --key`): b"baulk simulator key, not secret!"
SIM_KEY = "6261756c6b2073696d756c61746f72206b65792c206e6f742073656372657421"


def give_key(flash, key=SIM_KEY):
    """Put a device key into a simulated board's flash, unless it has one."""
    path = flash + "/device_key"
    try:
        open(path).close()  # no os.path on MicroPython
    except OSError:
        with open(path, "w") as f:
            f.write(key)


class Config:
    """A board's pin map with some entries changed (sensors left out, ...)."""

    def __init__(self, base=None, **changes):
        if base is None:
            from ..boards import pico as base
        for name in dir(base):
            if name.isupper():
                setattr(self, name, getattr(base, name))
        for name in changes:
            setattr(self, name, changes[name])

    def __getattr__(self, name):  # only for names the board does not define
        raise AttributeError(name)


# The board's colour settings (hw/pockets.py): 4x gain, one 2.4 ms step.
GAIN_X = 4
ATIME = 0xFF


def reading_for(ball):
    """What the chip reads, one window with no noise, with the reference set's
    ball centred in front of the sensor (-1: the empty pocket): a reading the
    chip can give (docs/POCKET-MODEL.md)."""
    return [int(v) for v in pocket_model.ideal_reading(ball, GAIN_X, ATIME)]


def between(a, b, share=50):
    """A reading `share` percent of the way from ball a's to ball b's, in the
    classifier's terms: the colour (per 1024 of clear) and the brightness each
    mixed, as read (a dirty ball, a sensor drifting)."""
    e = reading_for(-1)
    ra = reading_for(a)
    rb = reading_for(b)
    out = [0, 0, 0, 0]
    la = ra[0] - e[0]
    lb = rb[0] - e[0]
    lum = (la * (100 - share) + lb * share) // 100
    out[0] = e[0] + lum
    for k in range(1, 4):
        ca = (ra[k] - e[k]) * 1024 // la if la > 0 else 0
        cb = (rb[k] - e[k]) * 1024 // lb if lb > 0 else 0
        out[k] = e[k] + (ca * (100 - share) + cb * share) // 100 * lum // 1024
    return out


def nearest(ball):
    """The ball whose centroid is nearest this one's: halfway between the two,
    no third centroid is nearer, so the reading is as ambiguous as can be."""
    from ..hw import colour

    d = [int(x) for x in colour.DEFAULTS.split()]
    cs = [d[b * 8 : b * 8 + 4] for b in range(8)]
    best = -1
    best_d = 0
    for other in range(len(cs)):
        if other != ball:
            far = 0
            for i in range(4):
                far += (cs[ball][i] - cs[other][i]) ** 2
            if best < 0 or far < best_d:
                best, best_d = other, far
    return best


class SimBoard:
    def __init__(self, flash="/flash", table="sim-1", cfg=None, serial=None, tick_ms=2, clock=None,
                 texts=None):  # fmt: skip
        self.cfg = cfg if cfg is not None else Config()
        self.texts = texts  # the handset's Persian text file (fa.bin), when not beside the code
        self.table = table
        self.flash = flash
        self.clock = clock if clock is not None else VirtualClock(1000)
        self.serial = serial if serial is not None else SimUart()
        self.tick_ms = tick_ms
        self.bus = SimI2C()
        self.mux = SimMux()
        self.bus.attach(self.mux)
        self.colour = [SimTcs34725(clock=self.clock, seed=ch + 1) for ch in range(6)]
        for chip in self.colour:
            chip.rgbc = reading_for(-1)
        self.room = None  # the pockets' nuisances (pocket_model.Room; None: a quiet room)
        self.sensors = None  # each pocket's pocket_model.Sensor (None: typical chips)
        # each pocket's pocket_model.Pocket, once a ball is rolled
        self.scenes = [None] * 6  # type: list[pocket_model.Pocket | None]
        self.speed_dark = 0  # pockets whose speed beam is blocked now (they share one input)
        # True: pot() gives each ball as the chip reads it centred, for 30 ms,
        # not the model's passage (the heap bench: the model's objects are the
        # simulator's, and a passage in flight would count as the firmware's).
        self.ideal = False
        for ch in range(6):
            self.mux.attach(self.cfg.COLOUR_CHANNELS[ch], self.colour[ch])
        self.display = SimSsd1306()
        if self.cfg.DISPLAY_CHANNEL is None:
            self.display_bus = SimI2C()
            self.display_bus.attach(self.display)
        else:
            self.display_bus = self.bus
            self.mux.attach(self.cfg.DISPLAY_CHANNEL, self.display)
        self.pins = {}
        self.levels = {}  # outside signal levels, kept across resets
        # The board's pins are there before the firmware boots (a Pico's
        # machine.Pin objects are static: they cost no heap), so they are made
        # once, here, and set up afresh at every boot: a heap measurement
        # (bench/firmware_mp_heap.py) counts them with the simulator.
        self.made = {}
        self.readers = [self._reader(col) for col in range(len(self.cfg.KEY_COLS))]
        self._make_pins()
        self.pressed = []  # matrix positions held down
        self.timers = []
        self.sched = []  # [t, order, function, argument]
        self.order = 0
        self.app = None
        self.hw = None
        self.wdt = None
        self.next_tick = 0
        self.boots = 0
        self.on_tick = None  # called after every pass of the main loop (a test's host)

    # -- what the firmware sees ----------------------------------------------------
    def _make_pins(self):
        cfg = self.cfg
        for n in cfg.BEAMS + cfg.KEY_COLS + (cfg.RAIL, cfg.STRIKE, cfg.REST, cfg.SPEED_BEAMS):
            if n is not None:
                self._pin_in(n)
        for n in cfg.KEY_ROWS + (cfg.LED, cfg.LIGHT):
            if n is not None:
                self._pin_out(n)
        self.pins = {}

    def _pin(self, n, level, reader=None):
        # The outside level, kept across resets (set here at first: the
        # simulator's dict is full before the firmware boots).
        level = self.levels.setdefault(n, level)
        pin = self.made.get(n)
        if type(pin) is SimPin:
            pin.reset(level, reader)  # a boot sets the pin up afresh
        else:
            pin = self.made[n] = SimPin(n, level, reader)
        self.pins[n] = pin
        return pin

    def _reader(self, col):
        return lambda: self._column(col)

    def _pin_in(self, n):
        cfg = self.cfg
        if n in cfg.KEY_COLS:
            return self._pin(n, 1, self.readers[cfg.KEY_COLS.index(n)])
        if n in cfg.BEAMS or n == cfg.SPEED_BEAMS:
            return self._pin(n, 1 - cfg.BEAM_BROKEN)
        if n == cfg.RAIL:
            return self._pin(n, 1 - cfg.RAIL_CLOSED)
        if n == cfg.STRIKE:
            return self._pin(n, 1 - cfg.STRIKE_ACTIVE)
        if n == cfg.REST:
            return self._pin(n, 1 - cfg.REST_MOVING)
        return self._pin(n, 1)

    def _pin_out(self, n):
        if n == self.cfg.LIGHT:
            # The relay drops out while the board is dark: idle again at each boot.
            relay = self.made.get(n)
            if type(relay) is SimRelay:
                relay.idle()
            else:
                relay = self.made[n] = SimRelay(n)
            self.pins[n] = relay
            return relay
        return self._pin(n, 1)

    def _column(self, col):
        rows = self.cfg.KEY_ROWS
        ncols = len(self.cfg.KEY_COLS)
        for pos in self.pressed:
            if pos % ncols == col and self.pins[rows[pos // ncols]].level == 0:
                return 0
        return 1

    def _i2c(self, spec):
        return self.bus if spec == self.cfg.I2C_SENSORS else self.display_bus

    def _wdt(self, ms):
        self.wdt = SimWdt(self.clock, ms)
        return self.wdt

    def _timer(self, period, callback):
        self.timers.append([period, self.clock.now + period, callback])

    # -- power -----------------------------------------------------------------------
    def boot(self):
        from .. import unload
        from ..app import App
        from ..hw import kit

        self.pins = {}
        self.timers = []
        self.mux.mask = 0
        give_key(self.flash)
        self.hw = kit.assemble(
            self.cfg, self._pin_in, self._pin_out, self._i2c, self.serial, self._wdt,
            self.clock.ticks_ms, self.table, self.flash, self._timer, self.texts,
        )  # fmt: skip
        unload("hw.kit", "boards.pico", "boards.esp32", "boards")  # as main.py does on a board
        self.app = App(self.hw)
        self.next_tick = self.clock.now
        self.boots += 1
        return self.app

    def reset(self):
        """A power cut: RAM is gone, the flash stays; the firmware boots again."""
        self.app = None
        self.hw = None
        self.clock.now += 1500  # the board is dark for a moment
        return self.boot()

    # -- time ------------------------------------------------------------------------
    def at(self, t, fn, arg=None):
        self.order += 1
        item = [t, self.order, fn, arg]
        s = self.sched
        i = len(s)
        while i > 0 and (s[i - 1][0], s[i - 1][1]) > (t, self.order):
            i -= 1
        s.insert(i, item)

    def advance(self, ms):
        """Let `ms` milliseconds of virtual time pass."""
        clock = self.clock
        end = clock.now + ms
        while True:
            nxt = end
            if self.sched and self.sched[0][0] < nxt:
                nxt = self.sched[0][0]
            for tm in self.timers:
                if tm[1] < nxt:
                    nxt = tm[1]
            if self.app is not None and self.next_tick < nxt:
                nxt = self.next_tick
            if nxt > clock.now:
                clock.now = nxt
            self.pump()
            if self.app is not None and self.next_tick <= clock.now:
                self.app.tick()
                self.next_tick = clock.now + self.tick_ms
                if self.on_tick is not None:
                    self.on_tick()
            if clock.now >= end:
                return

    def pump(self):
        """Fire the signal changes and timers that are due now (real-time use).

        A busy machine runs this loop late.  A change is fired with the clock
        held at the time it was due, as a real pin's interrupt reads it at the
        edge: otherwise a beam's break or a key's press comes out shorter
        than it was (both edges fired in one late pass)."""
        clock = self.clock
        now = clock.now
        while self.sched and self.sched[0][0] <= now:
            item = self.sched.pop(0)
            clock.held = item[0]
            try:
                item[2](item[3])
            finally:
                clock.held = None
        for tm in self.timers:
            if tm[1] <= now:
                tm[1] += tm[0]
                if tm[1] <= now:
                    tm[1] = now + tm[0]  # a late real-time loop does not fire a burst
                tm[2](None)

    def settle(self, ms=400):
        """Let the firmware finish what it is doing (display pages, frames)."""
        self.advance(ms)

    # -- signals ---------------------------------------------------------------------
    def _drive(self, pair):
        n, level = pair
        self.levels[n] = level
        pin = self.pins.get(n)
        if pin is not None:
            pin.drive(level)

    def _when(self, at):
        return self.clock.now + 1 if at is None else at

    def signal(self, n, level, at=None):
        self.at(self._when(at), self._drive, (n, level))

    def pulse(self, n, active, width, at=None):
        t = self._when(at)
        self.signal(n, active, t)
        self.signal(n, 1 - active, t + width)

    def beam(self, pocket, width=15, at=None):
        """The beam of a pocket is broken for `width` ms."""
        self.pulse(self.cfg.BEAMS[pocket], self.cfg.BEAM_BROKEN, width, at)

    def set_reading(self, pocket, rgbc, at=None):
        self.at(self._when(at), self._reading, (pocket, rgbc))

    def _reading(self, pair):
        chip = self.colour[pair[0]]
        chip.scene = None  # a set reading, not the model's passage
        chip.rgbc = list(pair[1])

    def pot(self, pocket, ball, at=None, width=None, rgbc=None, v=1.5):
        """A ball drops into a pocket.  By default it falls through the
        pocket's collar at v m/s as the pocket model has it (the beams'
        shadows and the colour sensor's view from its geometry); with rgbc
        (or width) it is an idealised ball instead: the sensor reads rgbc, as
        read, while the drop beam is dark for `width` ms (15 by default)."""
        t = self._when(at)
        if self.ideal and rgbc is None:
            rgbc = reading_for(ball)
            width = 30 if width is None else width
        if rgbc is None and width is None:
            from .pocket_model import Passage

            self.roll(pocket, Passage(ball, t, v))
            return
        w = 15 if width is None else width
        self.set_reading(pocket, rgbc if rgbc is not None else reading_for(ball), t)
        self.beam(pocket, w, t)
        self.set_reading(pocket, reading_for(-1), t + w)

    def scene(self, pocket):
        """The pocket model's view of one pocket (made on first use, in the
        room of the table), with the colour sensor looking at it."""
        scene = self.scenes[pocket]
        room = self.room if self.room is not None else pocket_model.Room()
        if scene is None or scene.room is not room:
            chip = self.sensors[pocket] if self.sensors is not None else None
            scene = self.scenes[pocket] = pocket_model.Pocket(room, chip, seed=pocket + 1)
            self.room = room
        self.colour[pocket].scene = scene
        return scene

    def roll(self, pocket, *passages):
        """Balls through a pocket's collar (pocket_model.Passage): the colour
        sensor sees them as the model has it, and the drop beam and the speed
        beam go dark and light again when their geometry says."""
        scene = self.scene(pocket)
        for ps in passages:
            scene.add(ps)
        cfg = self.cfg
        shake = scene.room.vibration
        beams = pocket_model.beam_intervals
        for t0, t1 in beams(list(passages), "a", scene.rng, shake):
            self.pulse(cfg.BEAMS[pocket], cfg.BEAM_BROKEN, max(1, int(t1 - t0)), int(t0))
        if cfg.SPEED_BEAMS is not None:
            for t0, t1 in beams(list(passages), "b", scene.rng, shake):
                self.at(int(t0), self._speed, 1)
                self.at(int(t0) + max(1, int(t1 - t0)), self._speed, -1)

    def _speed(self, step):
        # The six speed beams are wired together: the input is dark while any is.
        self.speed_dark += step
        broken = self.cfg.BEAM_BROKEN
        self._drive((self.cfg.SPEED_BEAMS, broken if self.speed_dark > 0 else 1 - broken))

    def strike(self, at=None):
        self.pulse(self.cfg.STRIKE, self.cfg.STRIKE_ACTIVE, 3, at)

    def moving(self, ms, at=None):
        """The motion sensor sees moving balls for `ms`."""
        self.pulse(self.cfg.REST, self.cfg.REST_MOVING, ms, at)

    def rail(self, at=None, width=20):
        self.pulse(self.cfg.RAIL, self.cfg.RAIL_CLOSED, width, at)

    def key_position(self, name):
        from ..keypad_flow import KEY_NAMES

        code = KEY_NAMES.split().index(name)
        return self.cfg.KEYMAP.index(bytes((code,)))

    def press(self, name, hold=80, bounce=0, at=None):
        # type: (str, int | None, int, int | None) -> int
        """Press a key (by its name in keypad_flow.KEY_NAMES) for `hold` ms
        (None: until release()); `bounce` contact chatters first (a toggle
        every millisecond)."""
        pos = self.key_position(name)
        t = self._when(at)
        for i in range(bounce):
            self.at(t + i, self._key, (pos, i % 2 == 0))
        self.at(t + bounce, self._key, (pos, True))
        if hold is None:
            return int(t + bounce)
        self.at(t + bounce + hold, self._key, (pos, False))
        return int(t + bounce + hold)

    def release(self, name, at=None):
        """Let go of a key pressed with hold=None."""
        self.at(self._when(at), self._key, (self.key_position(name), False))

    def _key(self, pair):
        pos, down = pair
        if down and pos not in self.pressed:
            self.pressed.append(pos)
        elif not down and pos in self.pressed:
            self.pressed.remove(pos)

    def keys(self, *names, gap=60, hold=60):
        """Press keys one after the other and let the firmware take them in."""
        for name in names:
            self.press(name, hold)
            self.advance(hold + gap)

    # -- what comes out ----------------------------------------------------------------
    def light(self):
        """True while the table light's relay has the lamp lit."""
        relay = self.pins.get(self.cfg.LIGHT)
        return relay is not None and relay.lit()

    def text(self):
        """The display's 8 lines, read back from the simulated SSD1306's memory."""
        return self.display.text()
