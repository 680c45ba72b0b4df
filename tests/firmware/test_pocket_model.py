"""The pocket model (firmware/sim/pocket_model.py) and the simulated TCS34725
(firmware/sim/devices.py) against the datasheet's limits and the physics:
docs/POCKET-MODEL.md says where each figure comes from."""

from __future__ import annotations

import itertools
import json
import math
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from baulk.firmware.sim import pocket_model as pm
from baulk.firmware.sim.devices import SimTcs34725, VirtualClock

WHITE, BLACK, RED, BROWN, PINK, YELLOW = 7, 6, 0, 3, 5, 1


class Steady:
    """A scene of constant rates (counts/ms at 1x)."""

    def __init__(self, rates: list[float]) -> None:
        self.r = rates

    def rates(self, t: float) -> list[float]:
        return self.r


class Ramp:
    """Rates that grow with time: a window's counts tell which window it was."""

    def rates(self, t: float) -> list[float]:
        return [t, t / 2, t / 4, t / 8]


def chip(scene: Any, seed: int = 1, atime: int = 0xFF, again: int = 0) -> SimTcs34725:
    clock = VirtualClock(1000)
    dev = SimTcs34725(clock, seed)
    dev.scene = scene
    one = bytearray(1)
    one[0] = atime
    dev.write_mem(0x80 | 0x01, bytes(one))
    dev.write_mem(0x80 | 0x0F, bytes((again,)))
    dev.write_mem(0x80 | 0x00, b"\x01")  # PON
    dev.write_mem(0x80 | 0x00, b"\x03")  # PON | AEN
    return dev


def read(dev: SimTcs34725) -> list[int]:
    buf = bytearray(8)
    dev.read_mem(0x80 | 0x20 | 0x14, buf)
    return [buf[2 * i] | (buf[2 * i + 1] << 8) for i in range(4)]


def at(dev: SimTcs34725, t: float) -> list[int]:
    assert dev.clock is not None
    dev.clock.now = t
    return read(dev)


# -- the chip ----------------------------------------------------------------------------
def test_a_static_reading_is_clipped_at_the_full_scale_of_atime() -> None:
    dev = SimTcs34725()
    dev.rgbc = [5000, 800, 70000, 2047]  # as read at 4x
    dev.write_mem(0x80, b"\x03")
    dev.write_mem(0x8F, b"\x01")
    for atime, cap in ((0xFF, 1024), (0xFE, 2048), (0xC0, 65535), (0x00, 65535)):
        dev.write_mem(0x81, bytes((atime,)))
        assert read(dev) == [min(v, cap) for v in (5000, 800, 65535, 2047)]
    dev.write_mem(0x8F, b"\x02")  # 16x: four times what 4x reads, capped
    assert read(dev) == [20000, 3200, 65535, 8188]
    dev.write_mem(0x8F, b"\x00")  # 1x: a quarter
    assert read(dev) == [1250, 200, 17500, 511]
    dev.write_mem(0x80, b"\x01")  # AEN off: no data
    assert read(dev) == [0, 0, 0, 0]


def test_registers_id_status_and_other_registers() -> None:
    dev = chip(Steady([100.0, 50.0, 30.0, 20.0]))
    one = bytearray(1)
    dev.read_mem(0x80 | 0x12, one)
    assert one[0] == 0x44
    dev.read_mem(0x80 | 0x13, one)
    assert one[0] & 1 == 0  # no window completed yet (2.4 ms warm-up, then 2.4 ms)
    assert at(dev, 1004.7) == [0, 0, 0, 0]
    dev.read_mem(0x80 | 0x13, one)
    assert one[0] & 1 == 0
    at(dev, 1004.8)
    dev.read_mem(0x80 | 0x13, one)
    assert one[0] & 1 == 1
    dev.read_mem(0x80 | 0x05, one)
    assert one[0] == 0
    dev.write_mem(0x80, b"\x03")  # AEN again (unchanged): the windows go on
    dev.write_mem(0x80, b"\x01")
    dev.write_mem(0x80, b"\x03")
    dev.read_mem(0x80 | 0x13, one)
    assert one[0] & 1 == 0  # a new AEN clears AVALID


def test_the_data_change_only_at_window_ends_every_2_4_ms() -> None:
    dev = chip(Ramp())
    seen = []
    last = None
    for k in range(400):
        t = 1000.0 + k / 10.0
        r = at(dev, t)
        if r != last:
            seen.append(round(t, 1))
            last = r
    # the first window ends 2.4 ms (warm-up) + 2.4 ms after AEN, then every 2.4 ms
    ends = [round(1004.8 + 2.4 * k, 1) for k in range(15)]
    assert seen == [1000.0, *ends]  # 1000.0: the registers' reset value, 0


def test_a_window_integrates_the_scene_over_its_own_span() -> None:
    dev = chip(Ramp(), atime=0xFE)  # 4.8 ms windows
    dev.electrons = 1e30  # no shot noise
    # the window [1002.4, 1007.2]: the integral of t dt is 4.8 x 1004.8
    r = at(dev, 1007.3)
    assert 4.8 * 1004.8 > 2048 and r[0] == 2048  # clipped at 2 x 1024
    assert abs(r[3] - 4.8 * 1004.8 / 8) <= 4  # 603 counts of the blue: not clipped
    dev.scene = Steady([100.0, 50.0, 10.0, 1.0])
    r = at(dev, 1012.1)  # [1007.2, 1012.0]
    assert abs(r[1] - 240) <= 4 and abs(r[2] - 48) <= 4 and abs(r[3] - 4.8) <= 4


def test_atime_and_gain_take_effect_from_the_next_window() -> None:
    dev = chip(Steady([10.0, 5.0, 2.0, 1.0]))
    at(dev, 1006.0)  # inside the second window [1004.8, 1007.2]
    dev.write_mem(0x81, b"\xfe")  # 4.8 ms from the next window
    dev.write_mem(0x8F, b"\x02")  # 16x too
    r = at(dev, 1007.3)
    assert 22 <= r[0] <= 28  # the second window: 2.4 ms at 1x
    r = at(dev, 1011.9)
    assert 22 <= r[0] <= 28  # the third window [1007.2, 1012.0] has not ended
    r = at(dev, 1012.0)
    assert 48 * 15 <= r[0] <= 48 * 16.8 + 4


def test_gain_ratios_are_within_the_datasheets_tolerance_and_fixed_per_chip() -> None:
    spread = set()
    for seed in range(40):
        g = SimTcs34725(seed=seed).gains
        assert g[0] == 1.0
        assert 3.8 <= g[1] <= 4.2 and 15.0 <= g[2] <= 16.8 and 58.0 <= g[3] <= 63.0
        spread.add(round(g[3], 2))
        assert SimTcs34725(seed=seed).gains == g
    assert len(spread) > 30


def test_the_dark_offset_is_0_to_3_counts() -> None:
    for seed in range(10):
        dev = chip(Steady([0.0, 0.0, 0.0, 0.0]), seed=seed, again=3)
        for k in range(20):
            r = at(dev, 1010.0 + 2.4 * k)
            assert all(0 <= v <= 4 for v in r)  # 0-3 plus the ADC's last count


def test_shot_noise_grows_with_the_square_root_of_the_signal() -> None:
    def spread(rate: float, electrons: float, again: int = 0) -> tuple[float, float]:
        dev = chip(Steady([rate, 0.0, 0.0, 0.0]), seed=3, again=again)
        dev.electrons = electrons
        vals = [at(dev, 1005.0 + 2.4 * k)[0] for k in range(1, 400)]
        m = sum(vals) / len(vals)
        return m, math.sqrt(sum((v - m) ** 2 for v in vals) / len(vals))

    # A chip with few electrons a count shows the Poisson law: sd ~ sqrt(signal).
    m1, s1 = spread(20.0, 0.5)
    m2, s2 = spread(320.0, 0.5)
    assert abs(m2 / m1 - 16.0) < 0.5
    assert 3.0 < s2 / s1 < 5.0  # sqrt(16) = 4, not 16 and not 1
    # and with the gain: the same light at 4x has 4x the counts, 2x the relative sd
    m4, s4 = spread(20.0, 0.5, again=1)
    assert 1.5 < (s4 / m4) / (s1 / m1) * 2.0 < 2.6
    # The real chip (~1.2e7 electrons a count at 1x): the ADC's last count only.
    _, s = spread(300.0, pm.ELECTRONS_1X, again=0)
    assert s < 0.8


def test_counts_never_pass_the_full_scale_even_for_a_glint_at_60x() -> None:
    pocket = pm.Pocket(pm.Room(highlight=5.0))
    pocket.add(pm.Passage(WHITE, 1000.0, 0.5, gap=2.0))
    dev = chip(pocket, again=3)
    top = 0
    for k in range(60):
        r = at(dev, 1000.0 + 2.4 * k)
        assert all(v <= 1024 for v in r)
        top = max(top, r[0])
    assert top == 1024


# -- the passage and the beams -----------------------------------------------------------
def test_the_fall_follows_gravity() -> None:
    p = pm.Passage(RED, 500.0, 0.5)
    assert p.z(500.0) == pytest.approx(-pm.R)
    assert p.z(540.0) == pytest.approx(-pm.R + 0.5 * 40 + 0.5 * 9.81e-3 * 1600)
    assert p.speed(540.0) == pytest.approx(0.5 + 9.81e-3 * 40)
    assert p.z(p.t_at(33.0)) == pytest.approx(33.0)
    # Before it falls it is held where its parabola turns (at 0.5 m/s it came
    # down a sloping fall, not from rest on the bed: -39 mm, not -46 mm).
    assert p.z(0.0) == pytest.approx(max(-pm.BED - pm.R, -pm.R - 0.25 / (2 * 9.81e-3)))
    assert pm.Passage(RED, 500.0, 2.5).z(0.0) == pytest.approx(-pm.BED - pm.R)


@pytest.mark.parametrize("v", [0.5, 1.0, 2.5])
@pytest.mark.parametrize("offset", [0.0, 10.0, 15.0])
def test_a_beam_break_lasts_the_chord_over_the_speed_with_gravity(v: float, offset: float) -> None:
    p = pm.Passage(BLACK, 100.0, v, offset)
    h = math.sqrt(pm.R**2 - offset**2) + pm.BEAM_WIDTH / 2
    for beam, plane in (("a", 0.0), ("b", pm.BEAM_B)):
        ((ta, tb),) = pm.beam_intervals([p], beam)
        assert p.z(ta) == pytest.approx(plane - h) and p.z(tb) == pytest.approx(plane + h)
        # mean speed over the chord: the speed halfway through the break
        mid = p.speed((ta + tb) / 2)
        assert tb - ta == pytest.approx(2 * h / mid, rel=1e-9)
    if v == 0.5 and offset == 0.0:
        ((ta, tb),) = pm.beam_intervals([p], "a")
        assert 50.0 < tb - ta < 2 * h / v  # gravity shortens it from 111 ms


def test_touching_balls_merge_into_one_break_unless_the_offset_leaves_a_gap() -> None:
    first = pm.Passage(RED, 100.0, 1.0, 0.0)
    second = pm.touching(first, BLACK)
    assert second.z(150.0) == pytest.approx(first.z(150.0) - 2 * pm.R)
    assert second.speed(150.0) == pytest.approx(first.speed(150.0))
    assert len(pm.beam_intervals([first, second], "a")) == 1
    first = pm.Passage(RED, 100.0, 1.0, 15.0)
    ivs = pm.beam_intervals([first, pm.touching(first, BLACK)], "a")
    assert len(ivs) == 2 and 2.0 < ivs[1][0] - ivs[0][1] < 8.0
    apart = pm.after(first, WHITE, 40.0)
    assert len(pm.beam_intervals([first, apart], "b")) == 2


def test_a_bounce_from_the_net_breaks_beam_b_only() -> None:
    b = pm.Bounce(RED, 1000.0, 35.0)
    assert pm.beam_intervals([b], "a") == []
    assert len(pm.beam_intervals([b], "b")) == 1
    b = pm.Bounce(RED, 1000.0, 60.0)
    assert len(pm.beam_intervals([b], "b")) == 1
    b = pm.Bounce(RED, 1000.0, 12.0)  # up through beam B and back: two breaks of B
    assert len(pm.beam_intervals([b], "b")) == 2


def test_vibration_adds_short_glitches() -> None:
    rng = pm.Rng(5)
    ivs = pm.beam_intervals([], "a", rng, vibration=20.0, span=(0.0, 10000.0))
    assert 100 < len(ivs) < 300
    raw = pm.glitches(0.0, 10000.0, 20.0, pm.Rng(5))
    assert all(0.3 <= b - a <= 3.0 for a, b in raw)
    assert pm.beam_intervals([], "a", rng) == []  # no vibration, no glitches


# -- the light ---------------------------------------------------------------------------
def test_a_balls_brightness_rises_and_falls_with_its_centre_at_the_sensor() -> None:
    pocket = pm.Pocket()
    p = pocket.add(pm.Passage(WHITE, 1000.0, 1.0))
    ts = [p.t_top + 0.5 * k for k in range(200)]
    clear = [pocket.rates(t)[0] for t in ts]
    empty = pm.ideal_rates(pm.EMPTY)[0]
    assert pocket.rates(p.t_top - 1.0)[0] == pytest.approx(empty)  # on the bed: not in the collar
    peak = ts[clear.index(max(clear))]
    assert abs(peak - p.t_at(0.0)) <= 0.5
    assert clear[0] < 0.02 * max(clear) and clear[-1] < 0.02 * max(clear)
    i = clear.index(max(clear))
    assert all(b >= a - 1e-9 for a, b in itertools.pairwise(clear[: i + 1]))
    assert all(b <= a + 1e-9 for a, b in itertools.pairwise(clear[i:]))


def test_between_two_touching_balls_the_light_dips() -> None:
    pocket = pm.Pocket()
    first = pocket.add(pm.Passage(WHITE, 1000.0, 1.0))
    second = pocket.add(pm.touching(first, WHITE))
    t1, t2 = first.t_at(0.0), second.t_at(0.0)
    contact = first.t_at(pm.R)
    c1, c2, cm = (pocket.rates(t)[0] for t in (t1, t2, contact))
    assert cm < 0.7 * min(c1, c2)
    assert cm > 0.05 * min(c1, c2)


def chroma(ball: int) -> list[float]:
    c, r, g, b = pm.ideal_rates(ball)
    return [r / c, g / c, b / c]


def dist(a: list[float], b: list[float]) -> float:
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)))


def test_the_hard_pairs_are_close_but_distinct_in_chromaticity() -> None:
    every = [dist(chroma(a), chroma(b)) for a in range(8) for b in range(a + 1, 8)]
    median = sorted(every)[len(every) // 2]
    for a, b in ((RED, BROWN), (RED, PINK), (WHITE, YELLOW), (WHITE, PINK)):
        d = dist(chroma(a), chroma(b))
        assert 0.02 < d < 1.2 * median, (pm.BALLS[a], pm.BALLS[b], d, median)
    # black and the empty pocket: alike in colour (both mostly the LED's), not in light
    assert pm.ideal_rates(BLACK)[0] > 10 * pm.ideal_rates(pm.EMPTY)[0]


def test_ideal_readings_scale_with_gain_and_clip() -> None:
    w1 = pm.ideal_reading(WHITE, 1)
    w4 = pm.ideal_reading(WHITE, 4)
    assert 30 < w1[0] < 200
    assert abs(w4[0] - 4 * w1[0]) <= 4
    assert pm.ideal_reading(WHITE, 16)[0] == 1024  # the white clips at 16x in 2.4 ms
    assert pm.ideal_reading(WHITE, 60, 0xFF)[0] <= 1024
    assert pm.empty_reading(16)[0] < pm.ideal_reading(BLACK, 16)[0]


def test_a_chip_in_a_pocket_reads_a_passing_ball() -> None:
    pocket = pm.Pocket(pm.Room(ambient=10.0, flicker_depth=0.5), seed=2)
    pocket.add(pm.Passage(YELLOW, 1020.0, 1.5))
    dev = chip(pocket, again=2)
    clear = [at(dev, 1000.0 + 2.4 * k)[0] for k in range(40)]
    assert max(clear) > 300 and clear[3] < 20 and clear[-1] < 20


# -- one model under both interpreters -----------------------------------------------------
SCRIPT = """
import json
from baulk.firmware.sim import pocket_model as pm
r = pm.Rng(12345)
out = [r.next32() for _ in range(5)]
out += [int(r.random() * 2**40) for _ in range(5)]
out += [int(r.uniform(-3.0, 7.0) * 2**30) for _ in range(5)]
out += [r.randint(-5, 5) for _ in range(20)]
out += [r.choice("abcdefgh") for _ in range(10)]
out += [round(r.gauss(1.0, 2.0) * 1e9) for _ in range(10)]
out += [pm.ideal_reading(b, 16) for b in range(-1, 8)]
print(json.dumps(out))
"""


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
def test_the_prng_and_the_readings_are_the_same_under_micropython_and_cpython(
    tmp_path: Path,
) -> None:
    from baulk.host.sim import micropython

    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed (make setup installs it)")
    script = tmp_path / "mp_rng.py"
    script.write_text(SCRIPT)
    done = micropython.run(script, heap=8 << 20, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    mp = json.loads(done.stdout)
    import subprocess

    cp = subprocess.run([sys.executable, str(script)], capture_output=True, check=True)
    assert mp == json.loads(cp.stdout)
    assert len(set(mp[:5])) == 5
