# The six pockets' sensors, one object for the six (names.POCKETS order): six
# objects of each kind cost the heap more than their code, so their state
# lives in arrays indexed by pocket.
#
# Where they sit (hardware/wiring.md): a collar in each pocket's drop, below
# the bed, where only a potted ball passes.  A ball that rattles in the jaws
# or bounces back out never reaches it, so the beam counts pots, not visits.
#
# The drop beam: an IR beam across the drop, on an interrupt.  The ISR
# (inputs.py) only timestamps edges; this filter, run from the main loop,
# turns them into balls: a break that lasts at least debounce_ms is a ball, a
# shorter one is noise (a glitch).  A restore shorter than merge_ms inside a
# break is the ball's edge chattering and does not end it.
#
# The speed beam (optional): a second beam _SPEED_MM below the drop beam in
# the same drop; the six are wired together into one input, and a break there
# belongs to the pocket whose drop beam broke shortly before.  Its delay gives
# the ball's speed, and with the speed the drop beam's shadow tells one ball
# from two touching ones, and the colour's windows are parted by time: the
# first ball's until it has travelled most of a diameter, the second's after.
#
# The colour: a TCS34725 RGB light sensor (ams datasheet DS000384) beside the
# drop beam, looking across the drop.  The six share one address (0x29), so
# each sits on its own channel of a TCA9548A I2C multiplexer.  It integrates
# freely, one 2.4 ms window after another, and the main loop reads it every
# pass while a ball is in the collar: each new window, less the empty
# pocket's own reading, goes into a sum weighted by how much ball it saw, so
# the ball is judged by the windows that saw most of it, whatever its speed.
# Between pots the empty pocket is read now and then: that background, with
# the room's light in it, is what the ball's windows are measured against,
# and its drift tells the referee to calibrate again (pocket_check.py).

from array import array

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_N = const(6)
_ADDR = const(0x29)
_CMD = const(0x80)  # command bit
_AUTO = const(0x20)  # auto-increment: read CDATAL..BDATAH in one transfer
_ENABLE = const(0x00)
_ATIME = const(0x01)
_CONTROL = const(0x0F)
_CDATAL = const(0x14)
_PON = const(0x01)
_AEN = const(0x02)
# TCS34725: integration time = (256 - ATIME) x 2.4 ms, and the counts stop at
# 1024 per 2.4 ms step.  One step (ATIME 0xFF): a new reading every 2.4 ms, so
# a ball at 3 m/s still gives several windows.  The balls' brightness spans
# some 60 to 1 (the black to the white, docs/POCKET-MODEL.md): a passage
# starts at 16x gain, where the black still gives some 70 counts, and the
# first window past _HIGH switches that sensor to 4x for the rest of the
# passage, so the white with its highlight never reaches the cap.  A 4x window
# counts four times (the gain is the same for the four channels, so the
# colour does not care; the brightness is learnt as calibration saw it).
_ATIME_2_4_MS = const(0xFF)
_GAIN_4X = const(0x01)
_GAIN_16X = const(0x02)
_CLIPPED = const(1000)  # a channel this high may have hit the cap: the window is not used
_HIGH = const(480)  # a 16x window this bright: the next ones at 4x
_SPEED_MM = const(40)  # the speed beam below the drop beam (hardware/wiring.md)
_SOONEST_MS = const(10)  # a speed-beam break this long after a drop-beam break ...
_SPEED_MS = const(150)  # ... up to this long, is its ball's
_TAIL_MS = const(40)  # after the drop beam clears, the ball stays in view this long at most
_LONGEST_MS = const(600)  # a ball in the collar longer than this is stuck: judge what was seen
_BG_MS = const(25)  # an empty pocket's background is read every this often, one pocket a time
_DIP = const(55)  # a hump ends when the signal falls under this share (%) of its peak ...
# ... and a second one starts when it climbs back to twice the dip (a darker
# ball after a bright one climbs less than the first fell).
# counts: a fall or rise smaller than this is the chip's noise (+-1 count a channel)
_NOISE = const(6)
_BALL = const(24)  # 16x counts: the least peak a ball gives (the black, far side: ~45)
_SKEW_MS = const(2)  # how far the brightest read strays from the brightest moment: a tick
# The sums per pocket: two humps (balls) of five: weight, clear, red, green,
# blue, in 16x counts.  A window's weight is its clear above the background
# (at most 4096), and the colour sums take weight x count / 16, so a sum stays
# under 4096 x 4096 / 16 x 255 samples, inside a small integer.
_SUMS = const(5)
_DIAMETER_UM = const(52500)  # a ball's diameter (WPBSA: 52.5 mm)
# Either side of one diameter's travel the sensor's cone (some 40 degrees off
# its axis, docs/POCKET-MODEL.md) sees both of two touching balls: a quarter
# of a diameter.
_BOTH_UM = const(13000)


class Pockets:
    debounce_ms = 9  # shortest break that is a ball: 43 mm of chord at 3 m/s is 14 ms
    merge_ms = 3  # restore-then-break within this is chatter of the same ball

    def __init__(self, pins, ring, broken_level, i2c, mux_addr, channels, speed=None):
        """pins: the six drop beams' inputs; speed: the speed beams' one
        input, or None; channels: the multiplexer's channel of each pocket's
        colour sensor (fewer than six: the rest have none)."""
        self.broken = broken_level
        self.low = bytearray(_N)  # the beam is broken now
        self.start = array("i", bytes(4 * _N))  # when the current break began (ms)
        self.restored = array("i", [-1] * _N)  # when the last counted ball left the beam
        # Per pocket: when the beam was last restored (any break), when the
        # first hump's peak was read, when the gain last changed.
        self.times = array("i", [-1] * (3 * _N))
        self.counted = bytearray(_N)  # the current break has been reported as a ball
        self.balls = array("H", bytes(2 * _N))  # since the app last took them
        self.glitches = array("H", bytes(2 * _N))
        for p in range(_N):
            ring.watch(pins[p], p)
        self.speed = speed is not None
        if speed is not None:
            ring.watch(speed, _N + 2)  # inputs.EDGE_SPEED
        # drop beam to speed beam (ms), -1: not seen, 0: not known
        self.fall = array("h", [-1] * _N)
        self.speed_at = 0  # when the speed beams' input went dark ...
        self.speed_to = -1  # ... and the pocket that break went to
        # The colour sampling: 1 while a ball is in the collar, its sums, its humps.
        self.busy = bytearray(_N)
        self.sums = array("i", bytes(4 * _N * 2 * _SUMS))
        # The current hump's highest signal; from _N, the lowest since.
        self.peak = array("H", bytes(4 * _N))
        # 1 + the humps that ended before this one; 3: the second set is by
        # time, after the first ball's diameter (the speed beam's, sample())
        self.humps = bytearray(_N)
        self.samples = bytearray(_N)
        self.clipped = bytearray(_N)
        self.prev = array("H", bytes(2 * _N))  # the last window's clear: a window is read once
        # 1: the sensor is at 4x (this passage), 2: since it changed (times)
        self.gain = bytearray(_N)
        self.bg = array("H", bytes(8 * _N))  # the empty pocket's c, r, g, b, x16
        self.bg_at = 0
        self.bg_next = 0
        self.i2c = i2c
        self.mux = mux_addr
        self.channels = channels
        self.sensors = len(channels)
        self.channel = -1  # the multiplexer's channel now
        self.raw = bytearray(8)
        self.one = bytearray(1)
        self.rgbc = array("H", (0, 0, 0, 0))
        self.ok = 0  # bit per pocket: its sensor answered at boot
        for p in range(self.sensors):
            try:
                self._write(p, _ENABLE, _PON)
                # TCS34725: 2.4 ms warm-up after PON before AEN; the first reading
                # comes an integration time later, long before a ball arrives.
                self._write(p, _ATIME, _ATIME_2_4_MS)
                self._write(p, _CONTROL, _GAIN_16X)
                self._write(p, _ENABLE, _PON | _AEN)
                self.ok |= 1 << p
            except OSError:
                pass  # absent or unwired: pots from this pocket come as 'unknown'

    # -- the beams ------------------------------------------------------------------
    def edge(self, p, level, t):
        """One edge of pocket p's drop beam at monotonic time t; True when it
        completes a new ball."""
        if level == self.broken:
            if self.low[p]:
                return False
            self.low[p] = 1
            if self.counted[p] and self.restored[p] >= 0 and t - self.restored[p] < self.merge_ms:
                return False  # chatter: the same ball is still in the beam
            if not self.busy[p] or not self.counted[p]:
                # A new passage (what a glitch before it left is no ball's).
                self.busy[p] = 1
                s = self.sums
                for i in range(p * 2 * _SUMS, (p + 1) * 2 * _SUMS):
                    s[i] = 0
                self.peak[p] = 0
                self.peak[_N + p] = 0
                self.humps[p] = 1
                self.samples[p] = 0
                self.clipped[p] = 0
                # No window of this passage has been read: the same ball in
                # the same pocket can read as the last passage's last window.
                self.prev[p] = 0xFFFF
            self.start[p] = t
            self.counted[p] = 0
            self.fall[p] = -1
            return False
        if not self.low[p]:
            return False
        self.low[p] = 0
        self.times[p] = t
        if self.counted[p]:
            self.restored[p] = t
            return False
        if t - self.start[p] >= self.debounce_ms:
            self.counted[p] = 1
            self.restored[p] = t
            self.balls[p] += 1
            return True
        self.glitches[p] += 1
        return False

    def poll(self, p, now, level=-1):
        """True when pocket p's beam has been broken long enough to count a
        ball now; level: its pin's level read now (-1: not read)."""
        # The beam not what its edges said: an edge was lost (a storm of the
        # table's vibration filled the ring, or two edges came closer than
        # the interrupt's latency).  The pin is the truth; the edge is taken
        # as now.
        lost = level >= 0 and (level == self.broken) != (self.low[p] == 1)
        if lost and self.edge(p, level, now):
            return True
        if self.low[p] and not self.counted[p] and now - self.start[p] >= self.debounce_ms:
            self.counted[p] = 1
            self.balls[p] += 1
            return True
        return False

    def speed_edge(self, level, t):
        """An edge of the speed beams' input.  A break belongs to the pocket
        whose ball is in its collar and broke the drop beam 10-150 ms before
        (40 mm at 4 m/s to 40 mm at 0.3 m/s); one shorter than a ball's (the
        table shaking a beam) is taken back when it ends.  Two such pockets:
        nobody can tell whose it is, so neither gets a speed (their counts go
        by the colour, or the referee)."""
        if level != self.broken:
            p = self.speed_to
            if p >= 0 and t - self.speed_at < self.debounce_ms and self.fall[p] > 0:
                self.fall[p] = -1
            return
        self.speed_at = t
        self.speed_to = -1
        best = -1
        for p in range(_N):
            d = t - self.start[p]
            if self.fall[p] < 0 and self.busy[p] and _SOONEST_MS <= d <= _SPEED_MS:
                if best >= 0:
                    self.fall[best] = 0
                    self.fall[p] = 0
                    return
                best = p
        if best >= 0:
            self.fall[best] = t - self.start[best]
            self.speed_to = best

    def balls_seen(self, p):
        """How many balls pocket p's last break held: 2 when the speed beam
        says its shadow was too long for one, or the colour saw two humps
        (saw_nothing says when the sensor saw no ball at all)."""
        n = self.humps[p] if self.samples[p] else 1
        if n == 3:
            n = 1  # cut by time, not by a dip: the shadow's length decides (below)
        start = self.start[p]
        shadow = self.restored[p] - start
        f = self.fall[p]
        # Without a speed only (with one, the shadow's length says it better:
        # a fast lone ball's few windows can place its peak early).
        if f <= 0 and n == 1 and self.peak[p] >= _BALL and shadow > 0 and self.samples[p] >= 4:
            # The sensor sits at the drop beam's height, so one ball is
            # brightest about halfway through its shadow: a little after, as
            # it speeds up falling (up to 2.8 times longer before its peak
            # than after, in the model; never 1.2 times shorter).  Brightest
            # early, or very late: the shadow is two balls, one of them dark
            # (a black behind the white makes no second hump of its own).  It
            # takes a few windows to place the peak (a ball gives 8 or more).
            a = self.times[_N + p] - 1 - start  # the window ended up to 2.4 ms before its read
            b = shadow - a
            if b * 20 > a * 27 + _SKEW_MS * 20 or a * 10 > b * 26 + _SKEW_MS * 10:
                n = 2
        if f > 0 and self.restored[p] >= 0 and self.travelled(p, shadow) > 71000:
            # While the beam was dark the ball fell further than one ball
            # shadows (at most its diameter and the beam's width, ~56 mm) and
            # no less than two touching ones do (twice the shortest chord, ~86 mm).
            n = 2 if n < 2 else n
        return n

    def travelled(self, p, ms):
        """How far (um) pocket p's ball has fallen ms after breaking the drop
        beam, from the speed beam's delay and gravity (g t^2 / 2); 0 without
        a speed."""
        f = self.fall[p]
        if f <= 0:
            return 0
        v = _SPEED_MM * 1000 // f - 49 * f // 10  # um/ms at the drop beam
        return v * ms + 49 * ms * ms // 10

    # -- the colour, through the whole passage -----------------------------------------
    def sample(self, p, now):
        """Read pocket p's sensor while a ball is in the collar; False once
        the passage is over (the app then judges it)."""
        if not self.busy[p]:
            return False
        if not self.low[p]:
            gone = now - self.times[p] if self.times[p] >= self.start[p] else 0
            if gone >= _TAIL_MS or (gone > 0 and self.samples[p] and self.peak[p] and
                                    self.peak[_N + p] * 8 < self.peak[p]):  # fmt: skip
                return self._end(p)
        elif now - self.start[p] >= _LONGEST_MS:
            return self._end(p)
        g = self.gain[p]
        if g == 2:
            # The gain changes at the end of the window in progress: the
            # registers hold the new gain's counts two windows (4.8 ms) on.
            if now - self.times[2 * _N + p] < 5:
                return True
            self.gain[p] = g = 1
        c = self.rgbc
        if not self.read(p, c):
            return True  # no sensor: its pots are asked
        if c[0] == self.prev[p]:
            # The same window again (the main loop runs faster than the chip;
            # a new window with the same clear is dropped too: no harm done).
            return True
        self.prev[p] = c[0]
        if self.fall[p] > 0 and self.humps[p] == 1:
            # The speed is known: a second ball right behind the first (one
            # shadow, no dip where a bright ball hides a dark one) is in
            # view once the first has travelled a diameter.  The windows
            # from then on are the second set's (a lone ball's are its
            # tail, which balls_seen then leaves out).  Those while the
            # sensor's cone sees both balls are nobody's, and in that time
            # the sensor goes back to 16x: a dark ball behind the white
            # would give it too few counts at 4x.
            d = self.travelled(p, now - 2 - self.start[p])  # at the window's middle
            if d > _DIAMETER_UM - _BOTH_UM:
                if d < _DIAMETER_UM + _BOTH_UM:
                    if g:
                        self._gain(p, _GAIN_16X, 0, 0)
                    return True
                self.humps[p] = 3  # (the peak stays the first ball's: the tail ends the passage)
        if c[0] >= _CLIPPED or c[1] >= _CLIPPED or c[2] >= _CLIPPED or c[3] >= _CLIPPED:
            self.clipped[p] += 1 if self.clipped[p] < 255 else 0
            if not g:
                self._gain(p, _GAIN_4X, 2, now)
            return True
        m = 4 if g else 1  # a 4x window counts four times (rgbc keeps what was read)
        if not g and c[0] >= _HIGH:
            self._gain(p, _GAIN_4X, 2, now)
        b = self.bg
        w = c[0] * m - b[4 * p] // 16
        if w <= 0:
            w = 0
        # Humps: the signal falls under _DIP % of its peak and climbs back
        # (both by more than the chip's noise): a second ball.
        pk = self.peak[p]
        dip = self.peak[_N + p]
        fell = dip and pk - dip >= _NOISE and dip * 100 < _DIP * pk
        if fell and self.humps[p] < 2 and w - dip >= 2 * _NOISE and w >= 2 * dip:
            if pk >= _BALL:
                self.humps[p] = 2
            else:  # that "hump" was the room's light flickering before the ball came: forget it
                i = p * 2 * _SUMS
                for k in range(i, i + _SUMS):
                    self.sums[k] = 0
            self.peak[p] = w
            self.peak[_N + p] = 0
        elif w > pk and not fell:
            self.peak[p] = w
            self.peak[_N + p] = 0
            if self.humps[p] == 1:
                self.times[_N + p] = now
        elif w < pk and (dip == 0 or w < dip):
            self.peak[_N + p] = w
        if self.samples[p] < 255:
            self.samples[p] += 1
        s = self.sums
        i = (p * 2 + (self.humps[p] > 1)) * _SUMS
        s[i] += w
        for k in range(4):
            v = c[k] * m - b[4 * p + k] // 16
            s[i + 1 + k] += w * (v if v > 0 else 0) >> 4
        return True

    def _end(self, p):
        self.busy[p] = 0
        if self.humps[p] == 2 and self.peak[p] < _BALL:
            self.humps[p] = 1  # the second "hump" was the tail's noise, no ball
        if self.gain[p]:
            self._gain(p, _GAIN_16X, 0, 0)
        return False

    def _gain(self, p, code, state, now):
        try:
            self._write(p, _CONTROL, code)
            self.gain[p] = state
            self.times[2 * _N + p] = now
        except OSError:
            pass  # the next read fails too: the pocket's pots are asked

    def background(self, now):
        """Read one empty pocket's sensor now and then: its running mean is
        the background a ball's windows are measured against."""
        if now - self.bg_at < _BG_MS or not self.sensors:
            return
        self.bg_at = now
        p = self.bg_next
        self.bg_next = (p + 1) % self.sensors
        if self.busy[p] or self.low[p] or not self.read(p, self.rgbc):
            return
        c = self.rgbc
        b = self.bg
        first = b[4 * p] == 0
        for k in range(4):
            # x16 fixed point; a new pocket takes its first reading whole, then 1/8 of each.
            v = c[k] * 16
            b[4 * p + k] = v if first else b[4 * p + k] + (v - b[4 * p + k]) // 8

    def saw_nothing(self, p):
        """True when pocket p's sensor watched its last passage and never saw
        a ball's light (the darkest ball gives twice _BALL; windows that did
        not change at all are not even samples)."""
        return p < self.sensors and self.humps[p] == 1 and self.peak[p] < _BALL

    def features(self, p, h, out):
        """out[0:4] = the ball's r, g, b per 1024 of its clear and its mean
        clear above the background, from hump h (0, 1) of pocket p's last
        passage; False when that hump saw no ball."""
        s = self.sums
        i = (p * 2 + h) * _SUMS
        if s[i] <= 0 or s[i + 1] <= 0:
            return False
        c = s[i + 1]
        for k in range(3):
            # x 1024 / clear, kept in small integers (MicroPython's are 31-bit).
            out[k] = s[i + 2 + k] * 1024 // c if c < 0x100000 else s[i + 2 + k] // (c >> 10)
        w = s[i]
        out[3] = (c << 4) // w if c < 0x2000000 else c // (w >> 4)
        return True

    # -- the multiplexer and the colour sensors ---------------------------------------
    def select(self, ch):
        """Open the multiplexer's channel ch (the display may sit on one too)."""
        if ch != self.channel:
            self.one[0] = 1 << ch
            self.i2c.writeto(self.mux, self.one)
            self.channel = ch

    def _write(self, p, reg, value):
        self.select(self.channels[p])
        self.one[0] = value
        self.i2c.writeto_mem(_ADDR, _CMD | reg, self.one)

    def read(self, p, out):
        """Fill out[0:4] with pocket p's clear, red, green, blue; False when
        it has no sensor or the sensor is unreachable."""
        if p >= self.sensors:
            return False
        try:
            self.select(self.channels[p])
            self.i2c.readfrom_mem_into(_ADDR, _CMD | _AUTO | _CDATAL, self.raw)
        except OSError:
            return False
        r = self.raw
        out[0] = r[0] | (r[1] << 8)
        out[1] = r[2] | (r[3] << 8)
        out[2] = r[4] | (r[5] << 8)
        out[3] = r[6] | (r[7] << 8)
        return True
