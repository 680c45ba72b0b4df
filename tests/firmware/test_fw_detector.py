"""The pockets' detector (firmware/hw/pockets.py, hw/colour.py, calibrate.py)
on the simulated board, fed by the pocket model (firmware/sim/pocket_model.py):
the colour sampled through the whole passage, the background, the humps of
two balls, the speed beam, calibration by drops.  The whole benchmark is
bench/pockets.py; its short form is test_pockets_bench.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from baulk.firmware import keypad_flow as kf
from baulk.firmware.calibrate import Calibration
from baulk.firmware.hw import colour
from baulk.firmware.sim import pocket_model as model
from baulk.firmware.sim.board import Config, SimBoard, reading_for

# mm either way: the collar's 56 mm slot across the sensor's axis (hardware/wiring.md)
GAP_PLAY = 1.75


def board(tmp_path: Path, **cfg: object) -> SimBoard:
    b = SimBoard(flash=str(tmp_path), cfg=Config(**cfg) if cfg else None)
    b.boot()
    b.settle(600)  # the background of every pocket read
    return b


def drop(b: SimBoard, pocket: int, ball: int, v: float = 1.5, e: float = 0.0, **kw: object) -> None:
    b.roll(pocket, model.Passage(ball, b.clock.now + 5, v, offset=e, gap=model.GAP + e, **kw))
    b.advance(300)


def features(b: SimBoard, pocket: int, hump: int = 0) -> list[int] | None:
    f = [0, 0, 0, 0]
    return f if b.app.hw.pockets.features(pocket, hump, f) else None


def test_the_board_programs_settings_that_never_clip(tmp_path: Path) -> None:
    """One 2.4 ms step at 16x, and 4x from the first bright window on: the
    white with a strong highlight, as close to the window as the collar lets
    it pass, stays under the chip's cap; the black still gives real counts."""
    b = board(tmp_path)
    chip = b.colour[0]
    assert chip.atime == 0xFF and chip.gain == 0x02 and model.full_scale(0xFF) == 1024
    worst = model.ideal_reading(7, 4.0, 0xFF, highlight=3.0)
    assert max(worst) < 1000, worst
    assert model.ideal_reading(6, 16.0, 0xFF)[0] >= 40
    for v in (0.5, 2.5):
        drop(b, 0, 7, v=v, e=-GAP_PLAY, highlight=3.0)
        assert b.app.hw.pockets.clipped[0] == 0
        assert chip.gain == 0x02  # back to 16x for the next ball


@pytest.mark.parametrize("v", [0.5, 1.0, 1.5, 2.5])
def test_every_ball_reads_alike_at_every_speed(tmp_path: Path, v: float) -> None:
    """The passage's weighted features hardly move with the speed: at 0.5 m/s
    the ball gives some twenty-five windows before it has travelled three
    quarters of a diameter, at 2.5 m/s six, and both are judged by the
    windows that saw it best (the rest are its tail, where a ball right
    behind it would be)."""
    b = board(tmp_path)
    cl = colour.Classifier()
    for ball in range(8):
        drop(b, 1, ball, v)
        f = features(b, 1)
        assert f is not None
        assert cl.classify(1, f) == ball, (ball, f, cl.confidence)
        assert b.app.hw.pockets.samples[1] >= 5


def test_an_empty_pocket_is_its_background_and_a_glitch_is_nothing(tmp_path: Path) -> None:
    b = board(tmp_path)
    pk = b.app.hw.pockets
    assert [pk.bg[4 * p] // 16 for p in range(6)] == [b.colour[p].data[0] for p in range(6)]
    b.beam(2, width=3)  # a shaken beam
    b.advance(200)
    assert not pk.busy[2] and pk.glitches[2] == 0  # taken by the health counts
    assert b.app.health.c[6 + 2] == 1 and b.app.queue == []


def test_a_window_is_read_once_and_a_clipped_one_not_at_all(tmp_path: Path) -> None:
    """A static reading (the chip's every window the same) counts once; a
    window at the cap is left out, not averaged in."""
    b = board(tmp_path)
    pk = b.app.hw.pockets
    b.pot(3, 0, rgbc=reading_for(0), width=40)
    b.advance(200)
    assert pk.samples[3] == 1 and features(b, 3) is not None
    b.pot(3, 7, rgbc=[1024, 600, 400, 300], width=40)
    b.advance(200)
    assert pk.clipped[3] >= 1 and features(b, 3) is None  # nothing but the cap: unknown


def test_two_touching_balls_make_two_humps(tmp_path: Path) -> None:
    b = board(tmp_path, SPEED_BEAMS=None)
    pk = b.app.hw.pockets
    first = model.Passage(7, b.clock.now + 5, 1.2)
    b.roll(4, first, model.touching(first, 5))
    b.advance(400)
    assert pk.humps[4] == 2 and pk.balls_seen(4) == 2
    cl = colour.Classifier()
    f0, f1 = features(b, 4, 0), features(b, 4, 1)
    assert f0 is not None and f1 is not None
    assert (cl.classify(4, f0), cl.classify(4, f1)) == (7, 5)


@pytest.mark.parametrize("ball", [6, 7])
def test_a_passage_never_names_one_colour_twice(tmp_path: Path, ball: int) -> None:
    """A set has one of each ball but the reds: a passage whose two humps
    both read as the black (a lone black's humps split, near the empty
    pocket's own reading) names the first and asks about the second, never
    records two.  Two touching balls of one colour make such humps."""
    b = board(tmp_path, SPEED_BEAMS=None)
    pk = b.app.hw.pockets
    first = model.Passage(ball, b.clock.now + 5, 1.2)
    b.roll(4, first, model.touching(first, ball))
    b.advance(400)
    assert pk.humps[4] == 2 and pk.balls_seen(4) == 2
    cl = colour.Classifier()
    f0, f1 = features(b, 4, 0), features(b, 4, 1)
    assert f0 is not None and f1 is not None
    assert cl.classify(4, f0) == cl.classify(4, f1) == ball  # the humps alone say two
    # the first is named (gone from the queue), the second asked on the handset
    assert [(it[0], it[1], it[3]) for it in b.app.queue] == [(0, 4, -4)]
    assert b.app.flow.step == kf.ASK_POT


@pytest.mark.parametrize("v", [0.6, 1.5, 2.5])
def test_the_speed_beam_tells_one_ball_from_two_touching(tmp_path: Path, v: float) -> None:
    b = board(tmp_path)
    pk = b.app.hw.pockets
    drop(b, 5, 0, v)
    assert 0 < pk.fall[5] < 150 and pk.balls_seen(5) == 1
    first = model.Passage(6, b.clock.now + 5, v)
    b.roll(5, first, model.touching(first, 6))
    b.advance(500)
    assert pk.balls_seen(5) == 2


def test_a_speed_beam_break_nobody_can_place_gives_no_speed(tmp_path: Path) -> None:
    """The six speed beams share one input: a break goes to the one pocket
    whose ball can have made it; two balls in two pockets at once leave both
    without a speed, never with the other's."""
    b = board(tmp_path)
    pk = b.app.hw.pockets
    t = b.clock.now + 5
    b.roll(0, model.Passage(1, t, 1.0))
    b.roll(1, model.Passage(2, t + 300, 1.0))
    b.advance(600)
    assert pk.fall[0] > 10 and abs(pk.fall[0] - pk.fall[1]) <= 3  # each its own ball's
    t = b.clock.now + 5
    b.roll(0, model.Passage(1, t, 1.0))
    b.roll(1, model.Passage(2, t + 12, 1.0))
    b.advance(400)
    assert pk.fall[0] == 0 and pk.fall[1] == 0
    assert pk.balls_seen(0) == 1 and pk.balls_seen(1) == 1


def calibrated(b: SimBoard, rng: model.Rng, drops: int) -> Calibration:
    """calibrate.py fed as the tool feeds it: each ball dropped `drops` times
    through each pocket, at random speeds, anywhere in the collar's slot."""
    cal = Calibration()
    for ball in range(8):
        for p in range(6):
            for _ in range(drops):
                e = rng.uniform(-GAP_PLAY, GAP_PLAY)
                b.roll(p, model.Passage(ball, b.clock.now + 5, rng.uniform(0.5, 2.5), offset=e,
                                        gap=model.GAP + e))  # fmt: skip
                b.advance(300)
                f = features(b, p)
                assert f is not None
                cal.add(p, ball, f)
    return cal


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
def test_calibration_by_drops_learns_a_brighter_table(tmp_path: Path) -> None:
    """calibrate.py's arithmetic on the detector's own features: a table
    whose LEDs are a third brighter than the defaults assume, calibrated by
    three drops of each ball through each pocket, names every ball again,
    and the file it writes is the one the firmware loads."""
    b = board(tmp_path)
    b.room = model.Room(led=1.35)
    rng = model.Rng(3)
    cal = calibrated(b, rng, 3)
    for p in range(6):
        cal.empty[p] = b.app.hw.pockets.bg[4 * p] // 16
    cal.save(str(tmp_path / "calibration.json"))
    b.reset()
    b.settle(600)
    cl = b.app.hw.classifier
    assert cl.white > 0 and cl.white == cal.result()["white"]
    for ball in range(8):
        drop(b, 2, ball, rng.uniform(0.5, 2.5))
        f = features(b, 2)
        assert f is not None and cl.classify(2, f) == ball, (ball, f)


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
def test_the_defaults_are_the_model_calibrated(tmp_path: Path) -> None:
    """colour.DEFAULTS is what calibrate.py makes of the reference set in a new
    collar: calibrated again here, every mean within a spread of the text."""
    b = board(tmp_path)
    rng = model.Rng(11)
    cal = calibrated(b, rng, 2)
    d = [int(x) for x in colour.DEFAULTS.split()]
    cents = cal.centroids()
    for ball in range(8):
        for k in range(4):
            mean = sum(cents[p][ball][k] for p in range(6)) / 6
            assert abs(mean - d[ball * 8 + k]) <= d[ball * 8 + 4 + k], (ball, k, mean)


@pytest.mark.parametrize("v", [0.5, 1.5, 2.5])
def test_a_pot_is_on_the_wire_soon_after_the_ball_leaves_the_beam(tmp_path: Path, v: float) -> None:
    """The passage is judged once the ball has left the sensor's view, so the
    pot is journaled (and sent) well within 150 ms of the drop beam clearing,
    whatever the speed: the board shows it a frame later."""
    b = board(tmp_path)
    pk = b.app.hw.pockets
    journaled: list[int] = []
    before = b.app.journal.next

    def watch() -> None:
        if not journaled and b.app.journal.next != before:
            journaled.append(b.clock.now)

    b.on_tick = watch
    passage = model.Passage(0, b.clock.now + 5, v)
    b.roll(0, passage)
    b.advance(600)
    [(_, cleared)] = model.beam_intervals([passage], "a")
    assert journaled and pk.restored[0] > 0
    assert 0 < journaled[0] - cleared <= 60, (journaled, cleared)


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
@pytest.mark.parametrize(("first", "second"), [(7, 6), (7, 2), (6, 7), (1, 3)])
def test_the_speed_beam_parts_a_touching_pair_by_time(
    tmp_path: Path, first: int, second: int
) -> None:
    """A dark ball right behind a bright one makes no dip of its own; with
    the speed known, the windows after the first ball's diameter are the
    second's, read back at 16x, and both are named."""
    b = board(tmp_path)
    pk = b.app.hw.pockets
    lead = model.Passage(first, b.clock.now + 5, 1.3)
    b.roll(4, lead, model.touching(lead, second))
    b.advance(500)
    assert pk.fall[4] > 0 and pk.balls_seen(4) == 2
    cl = colour.Classifier()
    f0, f1 = features(b, 4, 0), features(b, 4, 1)
    assert f0 is not None and f1 is not None
    assert (cl.classify(4, f0), cl.classify(4, f1)) == (first, second), (f0, f1)


def test_a_break_the_sensor_saw_no_ball_in_is_the_next_balls(tmp_path: Path) -> None:
    """A bumped table runs glitches into one long break with nothing in the
    sensor's view: when a ball the sensor sees follows it through the same
    pocket, that was the one ball, and nothing is asked; alone, it is asked
    once the pocket has been quiet."""
    b = board(tmp_path)
    app = b.app
    b.beam(2, width=20)  # no ball: the sensor reads the empty pocket
    b.advance(80)
    b.roll(2, model.Passage(0, b.clock.now + 5, 1.5))
    b.advance(600)
    assert app.flow.step != kf.ASK_POT
    assert app.health.c[6 + 2] == 1  # counted as the beam's glitch
    b.beam(3, width=20)
    b.advance(300)
    assert app.flow.step != kf.ASK_POT  # not yet: a ball may still come
    b.advance(300)
    assert app.flow.step == kf.ASK_POT and app.flow.pocket == 3


def test_breaks_with_nothing_in_view_in_two_pockets_at_once_are_a_shaken_table(
    tmp_path: Path,
) -> None:
    """A bump reaches every beam at once; two balls into two pockets would
    each be seen by their own sensor.  Two breaks with nothing in view, 30 ms
    apart in two pockets, are glitches; 200 ms apart, each is asked."""
    b = board(tmp_path)
    app = b.app
    b.beam(1, width=20)
    b.beam(4, width=20, at=b.clock.now + 30)
    b.advance(800)
    assert app.flow.step != kf.ASK_POT and app.queue == []
    assert (app.health.c[6 + 1], app.health.c[6 + 4]) == (1, 1)
    b.beam(1, width=20)
    b.beam(4, width=20, at=b.clock.now + 200)
    b.advance(800)
    assert app.flow.step == kf.ASK_POT and app.flow.pocket == 1


def test_which_balls_are_on_for_the_sensors_question() -> None:
    """Engine.pot_is_on, the sensors' question chooser: the red while reds
    are on (R3.4), any colour after a red, the one colour in order once the
    reds are gone, any colour for a free ball (R3.11.5), never the white, and
    everything when no match is in play."""
    from baulk.firmware.engine import Engine

    e = Engine()
    assert all(e.pot_is_on(b) for b in range(8))  # no match yet
    e.apply({"ev": "match", "players": ["Ali", "Reza"], "best_of": 3, "reds": 6})
    on = lambda: [b for b in range(8) if e.pot_is_on(b)]  # noqa: E731
    assert on() == [0]
    e.apply({"ev": "strike"})
    for _ in range(6):
        e.apply({"ev": "pot", "ball": "red"})
        assert on() == [0]  # in the stroke, as it was struck: more reds
    e.apply({"ev": "rest"})
    assert on() == [1, 2, 3, 4, 5, 6]
    e.apply({"ev": "strike"})
    e.apply({"ev": "pot", "ball": "black"})
    e.apply({"ev": "rest"})
    assert on() == [1]  # the colours in order: the yellow
    e.apply({"ev": "strike"})
    e.apply({"ev": "rest"})
    e.apply({"ev": "foul", "kind": "wrong_ball_first", "ball": "pink"})
    e.apply({"ev": "free_ball"})
    assert on() == [0, 1, 2, 3, 4, 5, 6]  # a free ball: any colour stands for the yellow
