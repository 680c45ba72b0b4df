# A physical model of one pocket's collar: the balls falling through it, the
# two IR beams they break and the light the TCS34725 colour sensor receives
# from its own white LED, the black far wall and the room.  Every figure below
# is written, with its unit and where it comes from, in docs/POCKET-MODEL.md;
# nothing here is tuned to make the firmware's job easier.
#
# Coordinates (mm, ms): z is the height of a ball's centre relative to beam A's
# plane, positive downwards; the colour sensor sits at z = 0 and looks
# horizontally (its axis is "y") at the ball.  Speeds are in mm/ms (= m/s).
#
# Pure Python that runs under MicroPython (the npm WebAssembly port) as well as
# CPython: no dataclasses, no typing at run time, no random.gauss.

import math

BALLS = ("red", "yellow", "green", "brown", "blue", "pink", "black", "white")
EMPTY = -1

# -- the collar's geometry ------------------------------------------------------
R = 26.25  # ball radius, mm (52.5 mm ball, WPBSA)
G = 9.81e-3  # gravity, mm/ms^2
BED = 20.0  # beam A (and the sensor) below the bed's surface, mm
BEAM_B = 40.0  # beam B below beam A, mm
BEAM_WIDTH = 3.0  # the beams' effective width, mm (assumed emitter/receiver aperture)
GAP = 12.0  # sensor window to the ball's surface at closest approach, mm
WALL = 70.0  # sensor to the matte black far wall, mm
WALL_RHO = 0.03  # the far wall's diffuse reflectance (matte black paint)
Z_TOP = -(BED + R)  # a ball's centre while it is still on the bed (jaws)
Z_GONE = 300.0  # a ball this far below beam A is in the net: out of the model
DROP_RADIUS = 33.3  # the collar's 56 x 62 mm slot as a circle of its area (hardware/wiring.md)

# -- the sensor's view --------------------------------------------------------------
FOV_IN = 20.0  # degrees: full response inside
FOV_OUT = 40.0  # degrees: no response outside (half response at 30 degrees)
RAYS = 24  # the view is sampled on RAYS x RAYS directions (about 450 inside the cone)
Z_VIEW = 90.0  # a ball further than this from the sensor's level is out of view

# -- light ---------------------------------------------------------------------------
# Bands: 0 blue (~465 nm), 1 green (~525 nm), 2 red (~625 nm).
LED_FLUX = 20000.0  # the LED's radiant flux, uW (20 mA neutral white, ~6 lm)
LED_BANDS = (0.22, 0.36, 0.42)  # its radiant flux per band (pc-LED, ~4000-4500 K)
AMBIENT_BANDS = (0.22, 0.36, 0.42)  # room light (fluorescent or LED, ~4000 K)
LUX_UW_CM2 = 0.33  # uW/cm^2 per lux for white light (~300 lm/W)
FRESNEL = 0.053  # normal-incidence reflectance of phenolic resin (n ~ 1.6)
AMBIENT_TOP = 0.5  # share of the room's light a ball's side facing the sensor gets
CHALK = (0.70, 0.55, 0.40)  # blue chalk's diffuse reflectance per band (assumed)
RHO_FLOOR = 0.02  # no dye absorbs a whole band: the resin's own scatter (assumed)

# Estimated sRGB of a new Aramith snooker set under white light (our estimates
# from product photographs, not measurements), linearised into reflectances.
SRGB = (
    (180, 22, 28),  # red
    (248, 205, 30),  # yellow
    (0, 112, 62),  # green
    (120, 62, 34),  # brown
    (0, 78, 168),  # blue
    (242, 140, 170),  # pink
    (26, 26, 28),  # black
    (238, 236, 226),  # white
)

# -- the chip (TCS3472 family datasheet, ams DS000384) ---------------------------------
# Clear channel irradiance responsivity at 465, 525, 625 nm, counts/(uW/cm^2)
# at AGAIN 16x, ATIME 0xF6 (24 ms): typical; chips spread +-20 %.
CLEAR_RE = (13.8, 17.2, 19.0)
RE_GAIN = 16.0
RE_MS = 24.0
# Red, green, blue as a fraction of clear at 465, 525, 625 nm: (min, max).
RATIOS = (
    ((0.00, 0.15), (0.04, 0.25), (0.64, 1.20)),  # red channel at blue, green, red light
    ((0.10, 0.42), (0.54, 0.85), (0.00, 0.14)),  # green channel
    ((0.57, 1.00), (0.10, 0.45), (0.03, 0.29)),  # blue channel
)
STEP_MS = 2.4  # one integration step
FULL_STEP = 1024  # full-scale counts per step
GAINS = (1.0, 4.0, 16.0, 60.0)  # AGAIN 0..3, nominal
GAIN_TOL = ((1.0, 1.0), (3.8, 4.2), (15.0, 16.8), (58.0, 63.0))  # relative to 1x
DARK_MAX = 3.0  # dark count, counts
# Photo-electrons per count at 1x: full scale (1024 counts in 2.4 ms at 1x) is
# ~0.8 uA of photocurrent, 1.2e10 electrons (docs/POCKET-MODEL.md, "noise").
ELECTRONS_1X = 1.2e7


class Rng:
    """xorshift32: the same numbers under MicroPython and CPython for a seed."""

    def __init__(self, seed=0):
        s = (int(seed) * 2654435761 + 0x9E3779B9) & 0xFFFFFFFF
        self.s = s if s else 0x6D2B79F5  # xorshift's state must not be 0
        for _ in range(4):  # small seeds: let the bits spread first
            self.next32()

    def next32(self):
        x = self.s
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.s = x
        return x

    def random(self):
        """A float in [0, 1)."""
        return self.next32() / 4294967296.0

    def uniform(self, a, b):
        return a + (b - a) * self.random()

    def randint(self, a, b):
        """An int in [a, b], both ends included."""
        return a + self.next32() % (b - a + 1)

    def choice(self, seq):
        return seq[self.randint(0, len(seq) - 1)]

    def gauss(self, mu=0.0, sigma=1.0):
        # Box-Muller; 1 - random() is in (0, 1], so the log is finite.
        u1 = 1.0 - self.random()
        u2 = self.random()
        return mu + sigma * math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


def _linear(c):
    """sRGB 0..255 to linear 0..1 (IEC 61966-2-1)."""
    v = c / 255.0
    if v <= 0.04045:
        return v / 12.92
    return ((v + 0.055) / 1.055) ** 2.4


def reference_rho(ball):
    """A new reference ball's diffuse reflectance per band (blue, green, red)."""
    s = SRGB[ball]
    return [
        max(RHO_FLOOR, _linear(s[2])),
        max(RHO_FLOOR, _linear(s[1])),
        max(RHO_FLOOR, _linear(s[0])),
    ]


class BallSet:
    """A set of balls: the reference set (seed None) or another set whose
    balls differ in brightness (+-15 %) and a few percent in hue, per ball."""

    def __init__(self, seed=None, brightness=0.15, hue=0.04):
        self.rho = [reference_rho(b) for b in range(8)]
        self.gloss = [1.0] * 8
        if seed is not None:
            rng = Rng(seed + 7919)
            for b in range(8):
                k = rng.uniform(1.0 - brightness, 1.0 + brightness)
                self.rho[b] = [
                    min(0.95, r * k * rng.uniform(1.0 - hue, 1.0 + hue)) for r in self.rho[b]
                ]
                self.gloss[b] = rng.uniform(0.85, 1.0)


REFERENCE = BallSet()


class Sensor:
    """One chip's spectral response: typical (seed None) or another chip's,
    drawn within the datasheet's limits.  resp[ch][band]: counts per ms per
    uW/cm^2 at 1x gain, channels clear, red, green, blue."""

    def __init__(self, seed=None):
        rng = Rng(seed + 104729) if seed is not None else None
        clear = []
        for k in range(3):
            f = rng.uniform(0.8, 1.2) if rng is not None else 1.0
            clear.append(CLEAR_RE[k] * f / (RE_GAIN * RE_MS))
        self.resp = [clear]
        for ch in range(3):
            row = []
            for k in range(3):
                lo, hi = RATIOS[ch][k]
                share = rng.uniform(lo, hi) if rng is not None else (lo + hi) / 2.0
                row.append(share * clear[k])
            self.resp.append(row)

    def counts(self, e):
        """[c, r, g, b] counts/ms at 1x for band irradiances e (uW/cm^2)."""
        out = []
        for row in self.resp:
            out.append(row[0] * e[0] + row[1] * e[1] + row[2] * e[2])
        return out


class Room:
    """The nuisances: led (1.0 new; 0.9 is 10 % dimmer), ambient (lux on the
    collar's walls at the sensor's level, from the room's lamps above the
    pocket), flicker_depth (0..1, modulation at flicker_hz), highlight (scale
    of the balls' specular glint), vibration (beam glitches per second per
    beam)."""

    def __init__(self, led=1.0, ambient=0.0, flicker_depth=0.0, flicker_hz=100.0, highlight=1.0,
                 vibration=0.0):  # fmt: skip
        self.led = led
        self.ambient = ambient
        self.flicker_depth = flicker_depth
        self.flicker_hz = flicker_hz
        self.highlight = highlight
        self.vibration = vibration


# -- the passage -----------------------------------------------------------------------------
def _smooth(s):
    if s <= 0.0:
        return 0.0
    if s >= 1.0:
        return 1.0
    return s * s * (3.0 - 2.0 * s)


class Passage:
    """A potted ball falling through the collar under gravity.

    t0: board-clock ms at which the ball's leading (lowest) edge reaches beam
    A's plane; v: its downward speed then, mm/ms (= m/s); offset: its centre's
    lateral offset from the beams' line, mm; gap: its surface's distance from
    the colour sensor's window at closest approach, mm; highlight: the size of
    its glint (spin, surface); spin (rad/ms) and phase (rad) turn a chalk patch
    through the sensor's view."""

    def __init__(self, ball, t0, v, offset=0.0, ballset=None, chalk=0.0, wear=0.0, gap=GAP,
                 highlight=1.0, spin=0.05, phase=0.0):  # fmt: skip
        self.ball = ball
        self.t0 = t0
        self.v = v
        self.offset = offset
        self.ballset = ballset if ballset is not None else REFERENCE
        self.chalk = chalk
        self.wear = wear
        self.gap = gap
        self.highlight = highlight
        self.spin = spin
        self.phase = phase
        # Before it falls, the ball is on the bed (the parabola's apex or the
        # bed's level, whichever is lower).
        self.z_top = max(Z_TOP, -R - v * v / (2.0 * G))
        self.t_top = self.t_at(self.z_top)
        base = self.ballset.rho[ball]
        dark = 1.0 - 0.2 * wear  # grime
        # A worn surface scatters part of what its gloss reflected, uncoloured.
        self.spec = FRESNEL * self.ballset.gloss[ball] * (1.0 - 0.6 * wear)
        haze = FRESNEL * 0.6 * wear
        self.rho = [r * dark + haze for r in base]

    def z(self, t):
        """The centre's height relative to beam A's plane, mm (positive below)."""
        if t <= self.t_top:
            return self.z_top
        tau = t - self.t0
        return -R + self.v * tau + 0.5 * G * tau * tau

    def speed(self, t):
        if t <= self.t_top:
            return 0.0
        return self.v + G * (t - self.t0)

    def t_at(self, zz):
        """When the centre passes height zz on the way down (ms)."""
        d = self.v * self.v + 2.0 * G * (zz + R)
        if d < 0.0:
            d = 0.0
        return self.t0 + (-self.v + math.sqrt(d)) / G

    def half_chord(self):
        """Half the beam's shadow height: the chord plus half the beam's width."""
        e = abs(self.offset)
        if e >= R:
            return 0.0
        return math.sqrt(R * R - e * e) + BEAM_WIDTH / 2.0

    def breaks(self, plane):
        """[(t_break, t_restore)] of the beam at depth `plane` (mm below A)."""
        h = self.half_chord()
        if h <= 0.0:
            return []
        return [(self.t_at(plane - h), self.t_at(plane + h))]

    def gone(self, t):
        return self.z(t) > Z_GONE

    def chalk_share(self, t):
        """The share of the ball's face toward the sensor that is chalk now."""
        if self.chalk <= 0.0:
            return 0.0
        c = math.cos(self.phase + self.spin * (t - self.t0))
        return min(1.0, 2.0 * self.chalk) * c if c > 0.0 else 0.0

    def rho_at(self, t):
        c = self.chalk_share(t)
        if c <= 0.0:
            return self.rho
        return [(1.0 - c) * self.rho[k] + c * CHALK[k] for k in range(3)]


class Bounce(Passage):
    """A ball thrown back up from the net: a free parabola with its apex at
    z_apex (mm below beam A) at t_apex (ms).  With z_apex between beam A's
    shadow zone and beam B it comes back through beam B only."""

    def __init__(self, ball, t_apex, z_apex, offset=0.0, ballset=None, gap=GAP, highlight=1.0):
        Passage.__init__(self, ball, t_apex, 0.0, offset, ballset, gap=gap, highlight=highlight)
        self.t_apex = t_apex
        self.z_apex = z_apex
        self.span = math.sqrt(2.0 * max(0.0, Z_GONE - z_apex) / G)

    def z(self, t):
        tau = t - self.t_apex
        if abs(tau) > self.span:
            return Z_GONE
        return self.z_apex + 0.5 * G * tau * tau

    def speed(self, t):
        return G * (t - self.t_apex)

    def breaks(self, plane):
        h = self.half_chord()
        if h <= 0.0 or self.z_apex >= plane + h:
            return []
        t1 = math.sqrt(2.0 * (plane + h - self.z_apex) / G)
        if self.z_apex > plane - h:  # it turns inside the beam: one break
            return [(self.t_apex - t1, self.t_apex + t1)]
        t2 = math.sqrt(2.0 * (plane - h - self.z_apex) / G)
        return [(self.t_apex - t1, self.t_apex - t2), (self.t_apex + t2, self.t_apex + t1)]

    def gone(self, t):
        return t > self.t_apex + self.span


def touching(first, ball, offset=None, ballset=None, **kw):
    """The ball right behind `first`, in contact, falling with it (both fall
    freely, so they keep their distance).  Their centres are 2R apart; with
    different lateral offsets the vertical distance is shorter."""
    off = first.offset if offset is None else offset
    dl = abs(off - first.offset)
    dz = math.sqrt(max(0.0, 4.0 * R * R - dl * dl))
    t0 = first.t_at(-R + dz)
    return Passage(ball, t0, first.speed(t0), off, ballset, **kw)


def after(first, ball, gap_ms, v=None, offset=None, ballset=None, **kw):
    """A ball whose leading edge reaches beam A gap_ms after `first`'s."""
    vv = first.v if v is None else v
    off = first.offset if offset is None else offset
    return Passage(ball, first.t0 + gap_ms, vv, off, ballset, **kw)


# -- the beams -------------------------------------------------------------------------------
def glitches(t_from, t_to, rate_per_s, rng):
    """Short false breaks of a beam knocked out of line when the table is
    bumped: a Poisson process at rate_per_s, each 0.3-3 ms long (assumed)."""
    out = []  # type: list[tuple[float, float]]
    if rate_per_s <= 0.0:
        return out
    t = t_from
    while True:
        t += -math.log(1.0 - rng.random()) * 1000.0 / rate_per_s
        if t >= t_to:
            return out
        out.append((t, t + rng.uniform(0.3, 3.0)))


def merge(intervals):
    out = []  # type: list[list[float]]
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1][1] = b
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def beam_intervals(passages, beam, rng=None, vibration=0.0, span=None):
    """Sorted, merged [(t_break, t_restore)] in ms of beam "a" (beam A's
    plane) or "b" (BEAM_B below it).  With vibration (glitches per second)
    and an rng, glitches over span (t_from, t_to), or the passages' own
    span widened by 200 ms, are added."""
    plane = 0.0 if beam == "a" else BEAM_B
    ivs = []
    for p in passages:
        ivs.extend(p.breaks(plane))
    if vibration > 0.0 and rng is not None:
        if span is None:
            if ivs:
                span = (min(a for a, _ in ivs) - 200.0, max(b for _, b in ivs) + 200.0)
            else:
                span = (0.0, 0.0)
        ivs.extend(glitches(span[0], span[1], vibration, rng))
    return merge(ivs)


# -- the optics ------------------------------------------------------------------------------
_rays = None  # type: list[tuple[float, float, float, float]] | None
_tables = {}  # type: dict[int, tuple[list[float], list[float], list[float]]]


def _view(theta_deg):
    """The sensor's angular response inside its aperture (1 on the axis)."""
    return 1.0 - _smooth((theta_deg - FOV_IN) / (FOV_OUT - FOV_IN))


def rays():
    """The sampled view: (ux, uy, uz, weight), ux >= 0 only (the geometry is
    symmetric across the sensor's axis: each weight counts both halves).
    weight = angular response x cos(theta) x solid angle."""
    global _rays
    if _rays is None:
        out = []
        t = math.tan(math.radians(FOV_OUT))
        h = 2.0 * t / RAYS
        for i in range(RAYS // 2, RAYS):
            tx = (i + 0.5) * h - t
            for j in range(RAYS):
                tz = (j + 0.5) * h - t
                n = math.sqrt(1.0 + tx * tx + tz * tz)
                uy = 1.0 / n
                theta = math.degrees(math.acos(uy))
                if theta < FOV_OUT:
                    dw = h * h * uy * uy * uy
                    out.append((tx / n, uy, tz / n, 2.0 * _view(theta) * uy * dw))
        _rays = out
    return _rays


def _hit(ray, d, z):
    """Distance along a ray to a ball at (0, d, z), and cos(incidence); None on a miss."""
    b = ray[1] * d + ray[2] * z
    disc = b * b - (d * d + z * z - R * R)
    if disc <= 0.0 or b <= 0.0:
        return None
    s = math.sqrt(disc)
    return b - s, s / R


def _wall(ray):
    """Radiance factor of the far wall per unit reflectance and LED intensity:
    cos(LED angle) x cos(incidence) / (pi distance^2)."""
    uy = ray[1]
    return uy * uy * uy * uy / (math.pi * WALL * WALL)


def _trace(balls):
    """balls: [(d, z)].  Returns per ball (diffuse, wall hidden, view share)
    and the whole view's (wall, view): factors in 1/mm^2 (or sr for views)."""
    per = [[0.0, 0.0, 0.0] for _ in balls]
    wall = 0.0
    whole = 0.0
    for ray in rays():
        w = ray[3]
        whole += w
        best = None
        bi = -1
        for i in range(len(balls)):
            hit = _hit(ray, balls[i][0], balls[i][1])
            if hit is not None and (best is None or hit[0] < best[0]):
                best = hit
                bi = i
        wf = w * _wall(ray)
        wall += wf
        if best is not None:
            p = per[bi]
            p[0] += w * ray[1] * best[1] / (math.pi * best[0] * best[0])
            p[1] += wf
            p[2] += w
    return per, wall, whole


def _table(gap):
    """One ball at this gap: (diffuse, wall hidden, view) every 1 mm of |z|."""
    key = int(gap * 2.0 + 0.5)
    t = _tables.get(key)
    if t is None:
        d = key / 2.0 + R
        dif, hid, vie = [], [], []
        for zi in range(int(Z_VIEW) + 2):
            per = _trace([(d, float(zi))])[0][0]
            dif.append(per[0])
            hid.append(per[1])
            vie.append(per[2])
        t = (dif, hid, vie)
        _tables[key] = t
    return t


def single(gap, z):
    """Interpolated (diffuse, wall hidden, view) for one ball (symmetric in z)."""
    t = _table(gap)
    a = abs(z)
    i = int(a)
    if i >= int(Z_VIEW):
        return 0.0, 0.0, 0.0
    f = a - i
    return (
        t[0][i] + (t[0][i + 1] - t[0][i]) * f,
        t[1][i] + (t[1][i + 1] - t[1][i]) * f,
        t[2][i] + (t[2][i + 1] - t[2][i]) * f,
    )


_empty = None  # type: tuple[float, float] | None


def empty_view():
    """(wall factor, view share) of the empty collar."""
    global _empty
    if _empty is None:
        r = _trace([])
        _empty = (r[1], r[2])
    return _empty


def glint(d, z):
    """The specular image of the LED in a ball at (0, d, z): irradiance factor
    at the detector per unit Fresnel reflectance and LED intensity (1/mm^2).
    A convex mirror of focal length R/2 images the LED (beside the sensor) at
    s_i behind its surface; that image has intensity (s_i/s)^2 of the LED's."""
    lc = math.sqrt(d * d + z * z)
    s = lc - R
    if s <= 0.0:
        return 0.0
    f = R / 2.0
    si = s * f / (s + f)
    cos_t = d / lc
    theta = math.degrees(math.acos(cos_t))
    if theta >= FOV_OUT:
        return 0.0
    # LED intensity toward the glint (Lambertian) x image / distance^2 x the
    # detector's cosine and angular response.
    return cos_t * (si * si) / (s * s * (s + si) * (s + si)) * cos_t * _view(theta)


def _block(z):
    """How much of the room's light a ball at z shuts out of the collar at the
    sensor's level: a ball above the sensor covers its share of the drop."""
    share = (R / DROP_RADIUS) ** 2
    if z < Z_TOP:
        return 0.0
    return share * _smooth((R - z) / (2.0 * R))


class Pocket:
    """One pocket's collar as its colour sensor sees it: passages go in with
    add(); rates(t) is what the chip's four photodiodes integrate at t."""

    def __init__(self, room=None, sensor=None, seed=0):
        self.room = room if room is not None else Room()
        self.sensor = sensor if sensor is not None else Sensor()
        self.rng = Rng(seed)
        self.passages = []  # type: list[Passage]
        self.flicker_phase = self.rng.uniform(0.0, 2.0 * math.pi)
        self.latest = -1.0e18

    def add(self, passage):
        self.passages.append(passage)
        return passage

    def _prune(self, t):
        if t > self.latest:
            self.latest = t
            keep = [p for p in self.passages if not p.gone(t)]
            if len(keep) != len(self.passages):
                self.passages = keep

    def ambient(self, t):
        """Room light on the collar's walls at t, uW/cm^2 (all bands)."""
        room = self.room
        if room.ambient <= 0.0:
            return 0.0
        m = room.flicker_depth
        f = 1.0 + m * math.cos(2.0 * math.pi * room.flicker_hz * t / 1000.0 + self.flicker_phase)
        return room.ambient * LUX_UW_CM2 * f

    def irradiance(self, t):
        """Band irradiances (blue, green, red) at the detector, uW/cm^2."""
        self._prune(t)
        i0 = LED_FLUX * self.room.led / math.pi  # uW/sr on the LED's axis
        seen = []
        for p in self.passages:
            if t < p.t_top:
                continue  # still on the bed, rolling toward the pocket: not in the collar
            z = p.z(t)
            if abs(z) < Z_VIEW:
                seen.append((p, z))
        wall_all, view_all = empty_view()
        diffuse = [0.0, 0.0, 0.0]  # sum of rho x factor, per band
        hidden = 0.0
        ball_view = [0.0, 0.0, 0.0]  # rho x view share, for the room's light
        view_hidden = 0.0
        spec = 0.0
        if len(seen) == 1:
            p, z = seen[0]
            parts = [(p, single(p.gap, z), z)]
        elif seen:
            per = _trace([(p.gap + R, z) for p, z in seen])[0]
            parts = [(seen[i][0], per[i], seen[i][1]) for i in range(len(seen))]
        else:
            parts = []
        for p, f, z in parts:
            rho = p.rho_at(t)
            for k in range(3):
                diffuse[k] += rho[k] * f[0]
                ball_view[k] += rho[k] * f[2]
            hidden += f[1]
            view_hidden += f[2]
            g = glint(p.gap + R, z)
            if g > 0.0 and len(parts) > 1 and self._glint_hidden(p, z, parts):
                g = 0.0
            spec += p.spec * p.highlight * g
        spec *= self.room.highlight
        wall = max(0.0, wall_all - hidden) * WALL_RHO
        e = []
        for k in range(3):
            led = i0 * LED_BANDS[k] * (diffuse[k] + spec + wall) * 100.0  # per mm^2 -> per cm^2
            e.append(led)
        amb = self.ambient(t)
        if amb > 0.0:
            block = 0.0
            for p in self.passages:
                if t >= p.t_top:
                    block += _block(p.z(t))
            lit = max(0.0, 1.0 - block)
            for k in range(3):
                seen_k = WALL_RHO * max(0.0, view_all - view_hidden) + AMBIENT_TOP * ball_view[k]
                e[k] += amb * AMBIENT_BANDS[k] * lit * seen_k / math.pi
        return e

    def _glint_hidden(self, p, z, parts):
        d = p.gap + R
        lc = math.sqrt(d * d + z * z)
        ray = (0.0, d / lc, z / lc, 0.0)
        s = lc - R
        for q, _, zq in parts:
            if q is not p:
                hit = _hit(ray, q.gap + R, zq)
                if hit is not None and hit[0] < s:
                    return True
        return False

    def rates(self, t):
        """[c, r, g, b]: photo-counts per ms at 1x gain at time t (ms)."""
        return self.sensor.counts(self.irradiance(t))

    def beam_intervals(self, beam, span=None):
        return beam_intervals(self.passages, beam, self.rng, self.room.vibration, span)


# -- readings for tests ------------------------------------------------------------------------
def full_scale(atime):
    return min(65535, FULL_STEP * (256 - atime))


def centred(ball, highlight=1.0):
    """A pocket with the reference set's ball held centred in view (ball -1: empty)."""
    pocket = Pocket()
    if ball >= 0:
        pocket.add(_Held(ball, highlight))
    return pocket


class _Held(Passage):
    """A ball held still with its centre at the sensor's level."""

    def __init__(self, ball, highlight=1.0):
        Passage.__init__(self, ball, 0.0, 1.0, highlight=highlight)

    def z(self, t):
        return 0.0

    def gone(self, t):
        return False


def ideal_rates(ball, highlight=1.0):
    """[c, r, g, b] counts/ms at 1x, the reference ball centred (-1: empty)."""
    return centred(ball, highlight).rates(0.0)


def ideal_reading(ball, gain_x, atime=0xFF, highlight=1.0):
    """What a typical chip reads, noise-free, in one window at nominal gain
    gain_x (1, 4, 16, 60) and ATIME, the reference ball centred (-1: empty),
    clipped as the chip clips."""
    ms = STEP_MS * (256 - atime)
    cap = full_scale(atime)
    out = []
    for r in ideal_rates(ball, highlight):
        v = int(r * ms * gain_x)
        out.append(v if v < cap else cap)
    return out


def empty_reading(gain_x, atime=0xFF):
    return ideal_reading(EMPTY, gain_x, atime)
