# A physical model of the table's three stroke sensors: the strike sensor (a
# piezo disc under the slate near the baulk end, through an LM393 comparator),
# the rest sensor (an SW-420 / 801S vibration module on the slate, high while
# the bed vibrates) and the cushion-rail microswitches (all in parallel), as
# hardware/wiring.md describes them.  A stroke is played as a few balls rolling
# on the bed (straight lines, cushions, one collision, perhaps a pot or a ball
# off the table); its impacts and its rolling make the bed vibrate, and the
# sensors' outputs follow, with the nuisances of a real room.  Every figure
# below, with its unit and where it comes from, is in docs/TABLE-SENSORS.md;
# nothing here is tuned to make the firmware's job easier.
#
# Coordinates: mm on the bed, x from the baulk cushion towards the black,
# y from the left cushion (seen from baulk); times in ms; speeds in mm/ms
# (= m/s).  Outputs are lists of (on, off) intervals of the input's active
# level (comparator high, module high, switch closed), in whole ms, merged,
# for SimBoard.pulse().
#
# Pure Python that runs under MicroPython as well as CPython: no dataclasses,
# no typing at run time, no random.gauss.

import math

# -- the table (WPBSA 12 ft table: playing area) -------------------------------------
L = 3569.0  # mm, baulk cushion to top cushion
W = 1778.0  # mm
R = 26.25  # ball radius, mm
POCKET_XY = ((L, 0.0), (L, W), (L / 2, 0.0), (L / 2, W), (0.0, 0.0), (0.0, W))  # names.POCKETS
CAPTURE = 60.0  # a ball aimed at a pocket is in once its centre is this near the pocket's point

# -- balls on the cloth ------------------------------------------------------------------
ROLL_DECEL = 1.6e-4  # mm/ms^2 (0.16 m/s^2): a lag at 1.5 m/s covers two lengths (~7 m)
CUSHION_E = 0.75  # speed kept through a cushion (restitution of the rubber, assumed)
DT = 10  # ms, the motion's time step
STOP_V = 0.005  # mm/ms: slower than this, a ball has stopped (rolls < 0.1 mm more)

# -- vibration through the bed -----------------------------------------------------------
ATT_MM = 2000.0  # amplitude falls by e over this distance in the slate (assumed)
PIEZO_XY = (400.0, W / 2)  # "near the baulk end" (wiring.md); 400 mm assumed
REST_XY = (400.0, W / 2 - 150.0)  # the module beside it, by the board (assumed)

# -- the strike sensor: piezo into LM393, output high while the signal > threshold ---
F_BED = 150.0  # Hz, the bed's low plate modes that carry the ringing (assumed, 100-300)
TAU_IMPACT = 15.0  # ms, the ringing's decay after a sharp impact (assumed)
TAU_SOFT = 40.0  # ms, after a soft, slow load (a lean, a step through the legs)
F_SOFT = 40.0  # Hz, the frame's sway a lean or a step excites (assumed)
# Source amplitudes: mV at the comparator input if the source sat over the disc.
K_TIP = 120.0  # mV per m/s of cue-ball speed: the tip's blow through ball and bridge (assumed)
K_CUSHION = 90.0  # mV per m/s of a ball's speed into a cushion (assumed)
K_COLLIDE = 15.0  # mV per m/s: ball-ball impacts are horizontal, little goes into the bed
K_DROP = 100.0  # mV per m/s of a ball's fall into the drop (assumed)
DROP_V = 1.7  # m/s: a ball falling ~150 mm into the collar's drop (physics: sqrt(2 g h))
# The fitter sets the potentiometer so a soft stroke triggers it (wiring.md):
# a 0.7 m/s stroke on the blue spot, with 20 % to spare.
SOFT_V = 0.7
THRESHOLD = 0.8 * K_TIP * SOFT_V * math.exp(-(L / 2 - PIEZO_XY[0]) / ATT_MM)  # mV

# -- the rest sensor: SW-420 spring switch + LM393 ----------------------------------------
# It feels the bed's vibration: impacts, and a rolling ball's rumble on the cloth.
K_ROLL = 1.0  # rumble per m/s of a rolling ball, in units of the module's threshold
ROLL_SEEN_V = 0.5  # m/s: a ball rolling this fast 1 m from the module is just felt (assumed)
REST_K_IMPACT = 6.0  # an impact's rest amplitude per m/s, in thresholds, at 1 m (assumed)
REST_TAU = 60.0  # ms: the spring keeps chattering this long per e of amplitude (assumed)
CHATTER_ON = (3, 25)  # ms: the output's high spells while it chatters (assumed)
CHATTER_OFF = (2, 30)  # ms: ... and its low gaps

# -- the rail switches: Omron SS-5GL / D2F-L lever microswitches, normally open ------------
BOUNCE_MAX = 3  # bounces at make and at break (datasheet: bounce within 5 ms)
OFF_SEEN = 0.9  # a ball forced off lands on or crosses a rail section (assumed)


def att(d):
    return math.exp(-d / ATT_MM)


def dist(a, b):
    return math.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2)


def merge(intervals, gap=0):
    """Sorted, overlapping (or touching within `gap` ms) intervals merged."""
    out = []  # type: list[list[float]]
    for a, b in sorted(intervals):
        if out and a <= out[-1][1] + gap:
            if b > out[-1][1]:
                out[-1][1] = b
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def _whole(intervals):
    out = []
    for a, b in intervals:
        a = int(a)
        b = int(b + 0.5)
        out.append((a, b if b > a else a + 1))
    return merge(out)


# -- the comparator ----------------------------------------------------------------------------
def ring(t, amp, thr, f=F_BED, tau=TAU_IMPACT):
    """The comparator's high spells for a ringing A e^(-t/tau) sin(2 pi f t)
    that starts at t: one spell a cycle while the envelope is above thr."""
    out = []  # type: list[tuple[float, float]]
    if amp <= thr:
        return out
    period = 1000.0 / f
    k = 0
    while True:
        peak = amp * math.exp(-(k + 0.25) * period / tau)
        if peak <= thr:
            return out
        r = thr / peak
        w = (math.pi - 2.0 * math.asin(r)) / (2.0 * math.pi) * period
        mid = t + (k + 0.25) * period
        out.append((mid - w / 2, mid + w / 2))
        k += 1


def _chatter(t0, t1, rng):
    """The vibration module's output while it feels the bed: not a level but
    spells of high and low as its spring opens and closes."""
    out = []
    t = t0
    while t < t1:
        on = rng.uniform(*CHATTER_ON)
        out.append((t, min(t1, t + on)))
        t += on + rng.uniform(*CHATTER_OFF)
    return out


def _closure(t0, t1, rng):
    """A microswitch closed from t0 to t1, with contact bounce at both ends."""
    out = []
    t = t0
    for _ in range(rng.randint(0, BOUNCE_MAX)):  # make: closes, opens again, ...
        w = rng.uniform(0.3, 1.5)
        out.append((t, t + w))
        t += w + rng.uniform(0.3, 1.5)
    if t1 > t:
        out.append((t, t1))
    t = max(t, t1)
    for _ in range(rng.randint(0, BOUNCE_MAX)):  # break: opens, closes again, ...
        t += rng.uniform(0.3, 1.5)
        w = rng.uniform(0.3, 1.5)
        out.append((t, t + w))
        t += w
    return out


# -- a ball rolling ------------------------------------------------------------------------------
class Ball:
    """One ball rolling in a straight line, off the cushions, slowing down."""

    def __init__(self, x, y, angle, v, t, target=-1):
        self.x = x
        self.y = y
        self.dx = math.cos(angle)
        self.dy = math.sin(angle)
        self.v = v
        self.t = t
        self.target = target  # pocket it is aimed at, or -1
        self.travel = 0.0
        self.track = []  # (t, x, y, v) every DT
        self.end = None  # "stop", "pot" or "off"
        self.end_t = t


def aim(x, y, p):
    px, py = POCKET_XY[p]
    return math.atan2(py - y, px - x)


class Stroke:
    """One stroke: the cue ball struck at t (ms) at speed v (m/s), and what
    follows.  kind: the nuisance this stroke carries (NUISANCES)."""

    def __init__(self, rng, t, kind="none"):
        self.rng = rng
        self.t = t
        self.kind = kind
        self.impacts = []  # (t, x, y, what, speed m/s)
        self.pots = []  # (t, pocket)
        self.offs = []  # (t, x, y) a ball leaving the table
        self.rail_touch = []  # (t, x, y) a ball on the rail that comes back (jump)
        cx, cy = self._where()
        v = self._speed()
        if kind == "break_off":
            cx, cy, v = (
                737.0 + rng.uniform(-20, 20),
                W / 2 + rng.uniform(100, 290),
                rng.uniform(5.0, 8.0),
            )
        self.cue = (cx, cy, v)
        self.impacts.append((t, cx, cy, "tip", v))
        balls = [Ball(cx, cy, rng.uniform(0, 2 * math.pi), v, t)]
        first = rng.uniform(150.0, 1500.0)  # mm to the object ball
        hit = False
        self.balls = []
        while balls:
            b = balls.pop()
            self._roll(b, None if hit else first)
            self.balls.append(b)
            if not hit and b.end == "hit":
                hit = True
                balls.extend(self._collide(b))
        self.stop = t
        for b in self.balls:
            self.stop = max(self.stop, b.end_t)

    def _where(self):
        rng = self.rng
        # Half the strokes are played at the top end (the black's area), the
        # rest anywhere (assumed, from the run of a frame).
        x = rng.uniform(L * 2 / 3, L - 150) if rng.random() < 0.5 else rng.uniform(150, L - 150)
        return x, rng.uniform(150, W - 150)

    def _speed(self):
        # Cue-ball speed: log-normal, median 1.3 m/s, most between 0.5 and 3.5 (assumed).
        v = 1.3 * math.exp(0.6 * self.rng.gauss())
        return min(8.0, max(0.3, v))

    def _roll(self, b, hit_at):
        kind = self.kind
        while b.v > STOP_V:
            b.track.append((b.t, b.x, b.y, b.v))
            step = b.v * DT
            b.x += b.dx * step
            b.y += b.dy * step
            b.travel += step
            b.t += DT
            b.v -= ROLL_DECEL * DT
            if b.target >= 0 and dist((b.x, b.y), POCKET_XY[b.target]) < CAPTURE:
                b.end = "pot"
                b.end_t = b.t
                self.pots.append((b.t, b.target))
                self.impacts.append(
                    (b.t + 60, POCKET_XY[b.target][0], POCKET_XY[b.target][1], "drop", DROP_V)
                )
                return
            if hit_at is not None and b.travel >= hit_at:
                b.end = "hit"
                b.end_t = b.t
                return
            wall = None
            if b.x < R or b.x > L - R:
                b.dx = -b.dx
                b.x = R if b.x < R else L - R
                wall = abs(b.dx)
            elif b.y < R or b.y > W - R:
                b.dy = -b.dy
                b.y = R if b.y < R else W - R
                wall = abs(b.dy)
            if wall is not None:
                vn = b.v * wall
                self.impacts.append((b.t, b.x, b.y, "cushion", vn))
                if kind == "ball_off" and not self.offs and b.v > 1.0:
                    b.end = "off"
                    b.end_t = b.t
                    self.offs.append((b.t, b.x, b.y))
                    return
                if kind == "jump_back" and not self.rail_touch and b.v > 0.8:
                    self.rail_touch.append((b.t, b.x, b.y))
                b.v *= 1.0 - (1.0 - CUSHION_E) * wall
        b.end = "stop"
        b.end_t = b.t

    def _collide(self, b):
        """The cue ball meets an object ball: equal masses, a cut of angle a."""
        rng = self.rng
        kind = self.kind
        cut = rng.uniform(-1.2, 1.2)  # rad
        v = b.v
        self.impacts.append((b.t, b.x, b.y, "collide", v))
        angle = math.atan2(b.dy, b.dx)
        ox, oy = b.x + b.dx * 2 * R, b.y + b.dy * 2 * R
        ox = min(L - R, max(R, ox))
        oy = min(W - R, max(R, oy))
        target = -1
        ov = v * math.cos(cut)
        oa = angle + cut
        if kind in ("pot", "slow_pot", "ball_off") or (kind != "none" and rng.random() < 0.25):
            if kind == "ball_off":
                ov = max(ov, rng.uniform(2.5, 4.5))  # a ball forced off leaves fast
            else:
                if kind == "slow_pot":  # the far pockets, barely reaching them
                    target = rng.choice((0, 1))
                    ox, oy = rng.uniform(L / 2, L - 600), rng.uniform(300, W - 300)
                else:
                    target = rng.randint(0, 5)
                d = dist((ox, oy), POCKET_XY[target])
                need = math.sqrt(2 * ROLL_DECEL * d)
                extra = 0.02 if kind == "slow_pot" else rng.uniform(0.1, 1.5)
                ov = math.sqrt(need * need + extra * extra)
                oa = aim(ox, oy, target)
        obj = Ball(ox, oy, oa, ov, b.t, target)
        cue = Ball(b.x, b.y, angle - (1.5708 if cut > 0 else -1.5708), abs(v * math.sin(cut)), b.t)
        return [obj, cue]

    def moving_until(self):
        """When the last ball stopped (or dropped, or left the table)."""
        return self.stop


# -- the nuisances -------------------------------------------------------------------------------
NUISANCES = (
    "none", "lean", "sit", "bump", "footsteps", "bridge_rail", "hand_on_bed", "wobble",
    "pot", "slow_pot", "ball_off", "jump_back", "break_off",
)  # fmt: skip


def _edge_point(rng):
    """A random point on the cushion line."""
    s = rng.uniform(0, 2 * (L + W))
    if s < L:
        return s, 0.0
    if s < L + W:
        return L, s - L
    if s < 2 * L + W:
        return s - L - W, W
    return 0.0, s - 2 * L - W


class Episode:
    """The time between two strokes and the stroke that ends it: the player's
    thinking time, the stroke at `strike`, the balls until they stop, with
    its nuisance.  t_from: when the last stroke's balls had all stopped."""

    def __init__(self, rng, t_from, kind="none"):
        self.rng = rng
        self.kind = kind
        self.t_from = t_from
        # thinking, walking, aiming (assumed)
        self.strike = t_from + int(rng.uniform(3500.0, 9000.0))
        self.stroke = Stroke(rng, self.strike, kind)
        self.end = int(self.stroke.stop) + 1
        self.strike_src = []  # (t, x, y, amp mV at the source, f, tau)
        self.rest_src = []  # (t, x, y, amp in thresholds at 1 m... see rest_amp, dur)
        self.rail_src = []  # (t0, t1): a switch closed
        self.off_balls = len(self.stroke.offs)
        self.questions_ok = len(self.stroke.offs)
        self._sources()

    def _sources(self):
        rng = self.rng
        st = self.stroke
        for t, x, y, what, v in st.impacts:
            k = {"tip": K_TIP, "cushion": K_CUSHION, "collide": K_COLLIDE, "drop": K_DROP}[what]
            self.strike_src.append((t, x, y, k * v, F_BED, TAU_IMPACT))
            kr = REST_K_IMPACT * (0.3 if what == "collide" else 1.0)
            self.rest_src.append((t, x, y, kr * v, REST_TAU))
        for t, x, y in st.offs:
            if rng.random() < OFF_SEEN:
                w = rng.uniform(15, 60)  # ms on the rail: 50 mm at 1-3 m/s
                self.rail_src.append((t, t + w))
                if rng.random() < 0.3:  # it bounces on the rail once more
                    t2 = t + w + rng.uniform(80, 250)
                    self.rail_src.append((t2, t2 + rng.uniform(10, 40)))
                elif rng.random() < 0.2:  # it rides along the rail top, section to section
                    t2 = t + w
                    for _ in range(rng.randint(1, 3)):
                        t2 += rng.uniform(300, 700)
                        self.rail_src.append((t2, t2 + rng.uniform(20, 80)))
            # and it lands on the floor beside the table
            self.strike_src.append((t + 350, x, y, rng.uniform(20, 60), F_SOFT, TAU_SOFT))
        for t, _x, _y in st.rail_touch:
            if rng.random() < OFF_SEEN:
                self.rail_src.append((t, t + rng.uniform(10, 40)))
        k = self.kind
        lo = self.t_from + 300
        hi = self.strike - 300
        if k == "lean":
            # The player leans on the cushion to get down on the shot: his weight
            # comes on over ~0.5 s, and he may press the rail's edge.
            t = self.strike - rng.uniform(800, 4000)
            x, y = _edge_point(rng)
            self.strike_src.append((t, x, y, 25.0 * math.exp(0.8 * rng.gauss()), F_SOFT, TAU_SOFT))
            self.rest_src.append((t, x, y, 2.0 * math.exp(0.6 * rng.gauss()), 250.0))
            if rng.random() < 0.3:
                self.rail_src.append((t, self.strike + rng.uniform(200, 900)))
        elif k == "sit":
            t = rng.uniform(lo, hi)
            x, y = _edge_point(rng)
            self.strike_src.append((t, x, y, 70.0 * math.exp(0.7 * rng.gauss()), F_SOFT, TAU_SOFT))
            self.rest_src.append((t, x, y, 4.0 * math.exp(0.6 * rng.gauss()), 300.0))
            if rng.random() < 0.8:
                self.rail_src.append((t, t + rng.uniform(1500, 6000)))
        elif k == "bump":
            t = rng.uniform(lo, self.end + 2000)
            x, y = _edge_point(rng)
            self.strike_src.append((t, x, y, 200.0 * math.exp(0.6 * rng.gauss()), F_SOFT, TAU_SOFT))
            self.rest_src.append((t, x, y, 10.0 * math.exp(0.6 * rng.gauss()), 400.0))
        elif k == "footsteps":
            # Someone walks past on a wooden floor: steps at ~1.8 Hz, into the legs.
            t = rng.uniform(lo - 2000, hi)
            x, y = _edge_point(rng)
            heavy = math.exp(0.7 * rng.gauss())
            for _ in range(rng.randint(4, 10)):
                self.strike_src.append(
                    (t, x, y, 12.0 * heavy * math.exp(0.3 * rng.gauss()), F_SOFT, TAU_SOFT)
                )
                self.rest_src.append((t, x, y, 0.8 * heavy, 80.0))
                t += rng.uniform(480, 620)
        elif k == "bridge_rail":
            # A bridge on the rail for a ball near the cushion: placed while
            # aiming, lifted after the follow-through; the hand's weight may
            # hover at the switch's operating force (feathering).
            t0 = self.strike - rng.uniform(1500, 5000)
            t1 = self.strike + rng.uniform(200, 800)
            x, y = _edge_point(rng)
            self.strike_src.append((t0, x, y, 15.0 * math.exp(0.6 * rng.gauss()), F_SOFT, TAU_SOFT))
            if rng.random() < 0.6:
                if rng.random() < 0.3:
                    t = t0
                    while t < t1:
                        w = rng.uniform(50, 400)
                        self.rail_src.append((t, min(t1, t + w)))
                        t += w + rng.uniform(100, 800)
                else:
                    self.rail_src.append((t0, t1))
        elif k == "hand_on_bed":
            # The next player's bridge hand on the bed as the balls come to rest.
            t = self.end + rng.uniform(-1500, 2500)
            x, y = rng.uniform(150, L - 150), rng.uniform(150, W - 150)
            self.strike_src.append((t, x, y, 30.0 * math.exp(0.6 * rng.gauss()), F_SOFT, TAU_SOFT))
            self.rest_src.append((t, x, y, 2.0 * math.exp(0.5 * rng.gauss()), 150.0))
        elif k == "wobble":
            # A ball settling on the nap as it stops: a tiny rocking.
            b = st.balls[-1]
            self.rest_src.append((b.end_t, b.x, b.y, 0.5 * math.exp(0.5 * rng.gauss()), 400.0))

    # -- the three inputs --------------------------------------------------------------------
    def strike_pulses(self, thr=THRESHOLD):
        out = []
        for t, x, y, amp, f, tau in self.strike_src:
            out.extend(ring(t, amp * att(dist((x, y), PIEZO_XY)), thr, f, tau))
        return _whole(out)

    def rest_amp(self, x, y, a):
        # Amplitudes are given at 1 m from the module.
        return a * att(dist((x, y), REST_XY)) / att(1000.0)

    def rest_pulses(self):
        rng = self.rng
        felt = []
        for t, x, y, a, tau in self.rest_src:
            amp = self.rest_amp(x, y, a)
            if amp > 1.0:
                felt.append((t, t + tau * math.log(amp)))
        for b in self.stroke.balls:
            on = None
            for t, x, y, v in b.track:
                seen = self.rest_amp(x, y, K_ROLL * v / ROLL_SEEN_V) > 1.0
                if seen and on is None:
                    on = t
                elif not seen and on is not None:
                    felt.append((on, t))
                    on = None
            if on is not None:
                felt.append((on, b.end_t))
        out = []
        for a, b in merge(felt):
            out.extend(_chatter(a, b, rng))
        return _whole(out)

    def rail_pulses(self):
        out = []
        for a, b in self.rail_src:
            out.extend(_closure(a, b, self.rng))
        return _whole(out)


def schedule(board, intervals, pin, active):
    """Put one input's intervals on the simulated board."""
    for a, b in intervals:
        board.pulse(pin, active, b - a, a)
