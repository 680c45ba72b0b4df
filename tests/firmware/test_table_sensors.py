"""The stroke sensors' model (firmware/sim/table_model.py), the rail filter's
widths (hw/inputs.py PulseFilter) and a short form of bench/table_sensors.py."""

from __future__ import annotations

import itertools
import math
import sys
from pathlib import Path

import pytest

from baulk.firmware.hw.inputs import PulseFilter, RestSensor
from baulk.firmware.sim import table_model as tm
from baulk.firmware.sim.pocket_model import Rng

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))


def test_the_comparator_rings_once_a_cycle_above_its_threshold() -> None:
    thr = 30.0
    assert tm.ring(0, thr, thr) == []  # at the threshold: nothing
    spells = tm.ring(0, 4 * thr, thr)
    # A e^(-t/tau) falls to thr after tau ln 4 = 20.8 ms: 3 cycles at 150 Hz.
    assert len(spells) == 3
    period = 1000 / tm.F_BED
    widths = [b - a for a, b in spells]
    assert widths == sorted(widths, reverse=True)  # each narrower than the last
    assert widths[0] < period / 2
    # The first peak is at a quarter period; its width is where sin > thr / peak.
    r = thr / (4 * thr * math.exp(-0.25 * period / tm.TAU_IMPACT))
    assert widths[0] == pytest.approx((math.pi - 2 * math.asin(r)) / (2 * math.pi) * period)


def test_the_threshold_is_the_fitters_soft_stroke_on_the_blue_spot() -> None:
    blue = tm.K_TIP * tm.SOFT_V * tm.att(tm.L / 2 - tm.PIEZO_XY[0])
    assert pytest.approx(0.8 * blue) == tm.THRESHOLD
    assert tm.ring(0, blue, tm.THRESHOLD)  # it triggers there
    # ... and a soft stroke on the black spot (324 mm from the top) does not.
    black = tm.K_TIP * tm.SOFT_V * tm.att(tm.L - 324 - tm.PIEZO_XY[0])
    assert not tm.ring(0, black, tm.THRESHOLD)


def test_a_microswitch_bounces_for_a_few_ms_at_make_and_break() -> None:
    rng = Rng(3)
    for _ in range(50):
        spells = tm._closure(100.0, 140.0, rng)
        assert spells[0][0] == 100.0
        assert spells[-1][1] <= 140.0 + 2 * tm.BOUNCE_MAX * 3.0
        main = max(spells, key=lambda s: s[1] - s[0])
        assert main[1] - main[0] > 25
        for a, b in spells:
            assert b > a
            if (a, b) != main:
                assert b - a <= 1.5


def test_a_stroke_ends_when_its_last_ball_stops() -> None:
    rng = Rng(5)
    st = tm.Stroke(rng, 1000, "none")
    assert st.stop == max(b.end_t for b in st.balls) > 1000
    assert [b.end for b in st.balls].count("hit") == 1  # the cue ball meets the object ball
    for b in st.balls:
        if b.end != "stop":
            continue
        _t, _x, _y, v = b.track[-1]
        assert v - tm.ROLL_DECEL * tm.DT <= tm.STOP_V
    # A lag at 1.5 m/s rolls about two lengths: v^2 / 2a.
    assert pytest.approx(7031, rel=0.01) == 1.5**2 / (2 * tm.ROLL_DECEL)


def test_a_pot_is_in_its_pocket_and_thumps_the_bed() -> None:
    rng = Rng(7)
    potted = 0
    for _ in range(40):
        st = tm.Stroke(rng, 0, "pot")
        assert len(st.pots) <= 1
        if not st.pots:
            continue  # the cue ball stopped short, or the ball hit the jaws
        potted += 1
        t, p = st.pots[0]
        drops = [i for i in st.impacts if i[3] == "drop"]
        assert drops and drops[0][0] == t + 60
        assert (drops[0][1], drops[0][2]) == tm.POCKET_XY[p]
    assert potted >= 20


def test_the_rest_module_does_not_feel_a_slow_ball_far_away() -> None:
    ep = tm.Episode(Rng(1), 0, "none")
    far = (tm.L - 300, tm.W / 2)
    near = (tm.REST_XY[0] + 500, tm.REST_XY[1])
    slow = tm.K_ROLL * 0.4 / tm.ROLL_SEEN_V
    assert ep.rest_amp(far[0], far[1], slow) < 1.0
    assert ep.rest_amp(near[0], near[1], tm.K_ROLL * 0.6 / tm.ROLL_SEEN_V) > 1.0


def test_pulses_on_one_input_never_overlap() -> None:
    rng = Rng(11)
    t = 0
    for kind in tm.NUISANCES:
        ep = tm.Episode(rng, t, kind)
        for ivs in (ep.strike_pulses(), ep.rest_pulses(), ep.rail_pulses()):
            for (a, b), (c, _d) in itertools.pairwise(ivs):
                assert a < b < c
            assert all(type(a) is int and type(b) is int for a, b in ivs)
        t = ep.end


def test_the_rail_filter_counts_a_ball_not_a_hand() -> None:
    f = PulseFilter(0, 300, 250)  # closed = 0
    # A ball across the rail: 40 ms closed, bouncing at both ends.
    for level, t in ((0, 1000), (1, 1001), (0, 1002)):
        assert not f.edge(level, t)
    assert f.edge(1, 1042)  # counted as it opens
    assert not f.edge(0, 1043) and not f.edge(1, 1044)  # its bounce is the same ball
    # A bridge on the rail for 3 s: never a ball.
    for level, t in ((0, 5000), (1, 5001), (0, 5002), (1, 8002), (0, 8003), (1, 8004)):
        assert not f.edge(level, t)
    # Two balls within the hold-off are one.
    assert not f.edge(0, 9000)
    assert f.edge(1, 9030)
    assert not f.edge(0, 9100)
    assert not f.edge(1, 9130)
    # Without a width: every closing edge, as the strike sensor needs.
    g = PulseFilter(1, 400)
    assert g.edge(1, 0) and not g.edge(0, 2) and not g.edge(1, 100) and g.edge(1, 500)


def test_the_rest_sensor_waits_longer_than_a_bouncing_module() -> None:
    assert RestSensor.quiet_ms == 1500


@pytest.mark.slow
def test_the_bench_short_form_before_and_after() -> None:
    import table_sensors as bench

    n = 130  # ten strokes of each nuisance
    res = bench.run(1, n, ["before", "after"])
    b = bench.total(res["before"])
    a = bench.total(res["after"])
    print(bench.report(res, 1, n))
    assert a["strokes"] == b["strokes"] == n
    # The rail: hands, bridges and sitting players no longer ask.
    assert a["question"] <= b["question"] // 2
    assert res["after"]["sit"]["question"] <= 1 and res["after"]["lean"]["question"] <= 1
    # No ball off lost to the filter (those missed flew clean over the rail).
    assert a["off_missed"] == b["off_missed"] <= a["offs"] // 5
    # Rest: fewer strokes closed under a rolling ball that then mattered; none left open.
    assert a["early_mattered"] <= b["early_mattered"]
    assert a["early"] < b["early"]
    assert a["never"] == 0
    # The strike sensor is left as it was: the same strikes missed.
    assert a["missed"] == b["missed"]
