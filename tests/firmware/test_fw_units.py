"""The device modules one at a time, under CPython: colour classifier, beam
filter, keypad debounce, journal."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from baulk.firmware.engine import LOG_EVENTS, Engine
from baulk.firmware.hw import colour
from baulk.firmware.hw.inputs import EdgeRing, Keypad, Monotonic, diff
from baulk.firmware.hw.pockets import Pockets
from baulk.firmware.journal import IMAGE_EVERY, KEEP_ACKED, MAX_SEGMENTS, SEG_RECORDS, Journal
from baulk.firmware.sim.board import nearest
from baulk.firmware.sim.devices import SimI2C, SimPin
from baulk.host.sim.matches import generate_match
from baulk.protocol import messages


# -- colour ---------------------------------------------------------------------------
# The classifier on features (r, g, b per 1024 of clear, brightness): the
# pocket's sampling that makes them is tested in test_fw_detector.py.
def centroid(ball: int) -> list[int]:
    d = [int(x) for x in colour.DEFAULTS.split()]
    return d[ball * 8 : ball * 8 + 4]


@pytest.mark.parametrize("ball", range(8))
def test_each_calibrated_ball_is_recognised(ball: int) -> None:
    cl = colour.Classifier()
    for p in range(6):
        assert cl.classify(p, centroid(ball)) == ball
        assert cl.confidence >= 90


@pytest.mark.parametrize("a", range(8))
def test_between_two_balls_the_classifier_asks_before_it_changes_its_mind(a: int) -> None:
    """Walking from a ball's centroid to its nearest neighbour's, the answer
    goes a, then unknown, then b: never straight from one ball to another."""
    cl = colour.Classifier()
    b = nearest(a)
    ca, cb = centroid(a), centroid(b)
    seen = []
    for share in range(0, 101, 5):
        f = [(ca[k] * (100 - share) + cb[k] * share) // 100 for k in range(4)]
        got = cl.classify(0, f)
        if not seen or seen[-1] != got:
            seen.append(got)
    assert seen == [a, colour.UNKNOWN, b]


def test_a_reading_like_no_ball_is_unknown() -> None:
    cl = colour.Classifier()
    assert cl.classify(0, [0, 0, 0, 0]) == colour.UNKNOWN
    assert cl.classify(0, [1024, 0, 0, 400]) == colour.UNKNOWN  # pure red light: no ball of ours
    assert cl.confidence == 0


def test_calibration_file_is_loaded_and_a_bad_or_old_one_ignored(tmp_path: Path) -> None:
    good = tmp_path / "cal.json"
    cents = [[[500 + i, 300, 200, 10 * i + p] for i in range(8)] for p in range(6)]
    spread = [[30, 30, 30, 5] for _ in range(8)]
    body = {"version": 2, "centroids": cents, "spread": spread, "threshold": 60, "white": 70}
    good.write_text(json.dumps(body | {"empty": [1, 2, 3, 4, 5, 6]}))  # the pocket check's
    cl = colour.load(str(good))
    # kept in bytes: chromaticity in 4ths and its spread in halves, brightness in 8ths
    assert list(cl.means[4 * 32 + 3 * 4 : 4 * 32 + 3 * 4 + 4]) == [
        503 // 4,
        300 // 4,
        200 // 4,
        34 // 8,
    ]
    assert list(cl.spread[0:4]) == [15, 15, 15, 0] and cl.threshold == 60 and cl.white == 70
    defaults = list(colour.Classifier().means)
    old = tmp_path / "old.json"  # the held-still calibration of old: its features differ
    old.write_text(json.dumps({"centroids": cents[0], "white": 5000, "threshold": 50}))
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 2, "centroids": [[1, 2, 3, 4]]}')
    for path in (old, bad, tmp_path / "none.json"):
        cl = colour.load(str(path))
        assert list(cl.means) == defaults and cl.white == 0


# -- pocket beam ----------------------------------------------------------------------
POCKET = 2  # the pocket whose beam the tests below break


def pockets(ring: EdgeRing | None = None) -> Pockets:
    pins = [SimPin(8 + p, 0) for p in range(6)]
    return Pockets(pins, ring or EdgeRing(lambda: 0), 1, SimI2C(), 0x70, ())


def beam() -> Pockets:
    return pockets()


def feed(b: Pockets, edges: list[tuple[int, int]]) -> int:
    return sum(1 for level, t in edges if b.edge(POCKET, level, t))


def test_a_ball_breaks_the_beam_once() -> None:
    b = beam()
    assert feed(b, [(1, 100), (0, 115)]) == 1
    assert list(b.balls) == [0, 0, 1, 0, 0, 0]  # that pocket's only


def test_a_glitch_shorter_than_the_debounce_is_nothing() -> None:
    b = beam()
    assert feed(b, [(1, 100), (0, 100 + Pockets.debounce_ms - 1)]) == 0
    assert b.glitches[POCKET] == 1 and not b.poll(POCKET, 500)


def test_two_balls_thirty_ms_apart_are_two() -> None:
    assert feed(beam(), [(1, 100), (0, 115), (1, 130), (0, 145)]) == 2


def test_edge_chatter_inside_one_ball_is_one() -> None:
    edges = [(1, 100), (0, 100), (1, 101), (0, 115), (1, 116), (0, 117)]
    assert feed(beam(), edges) == 1


def test_a_ball_resting_in_the_beam_counts_once_by_polling() -> None:
    b = beam()
    assert feed(b, [(1, 100)]) == 0
    assert not b.poll(POCKET, 102)
    assert b.poll(POCKET, 100 + Pockets.debounce_ms)
    assert not b.poll(POCKET, 400) and feed(b, [(0, 900)]) == 0
    assert not any(b.poll(p, 900) for p in range(6))


def test_a_lost_edge_is_read_back_from_the_pin() -> None:
    """A storm of edges can fill the ring, or two edges come closer than the
    interrupt: the main loop's look at the pin puts the beam right."""
    b = beam()
    # The restore was lost: the beam reads clear again, so the break ends
    # at the look (a glitch, since it was short) and no ball is counted.
    assert feed(b, [(1, 100)]) == 0
    assert not b.poll(POCKET, 103, 0) and not b.low[POCKET] and b.glitches[POCKET] == 1
    # The break was lost: the beam reads dark, so the look starts it, and
    # a ball is counted once it has been dark the debounce time.
    assert not b.poll(POCKET, 200, 1) and b.low[POCKET]
    assert b.poll(POCKET, 200 + Pockets.debounce_ms, 1)
    assert not b.poll(POCKET, 300, 0) and list(b.balls) == [0, 0, 1, 0, 0, 0]
    # A pin that agrees with the edges changes nothing; -1 is "not read".
    assert not b.poll(POCKET, 400, 0) and not b.poll(POCKET, 500, -1)


def test_edges_go_through_the_ring_with_their_time() -> None:
    now = [5]
    ring = EdgeRing(lambda: now[0], 8)
    pins = [SimPin(8 + p, 0) for p in range(6)]
    Pockets(pins, ring, 1, SimI2C(), 0x70, ())
    pins[3].drive(1)
    now[0] = 21
    pins[3].drive(0)
    assert [ring.get() for _ in range(2)] == [(3, 1, 5), (3, 0, 21)]
    assert not ring.pending()
    for i in range(10):  # a full ring drops and counts, never grows
        ring.put(0, i & 1, i)
    assert ring.dropped == 3


def test_a_pocket_without_a_colour_sensor_reads_nothing() -> None:
    out = [0, 0, 0, 0]
    assert not beam().read(0, out) and out == [0, 0, 0, 0]


def test_tick_arithmetic_survives_the_wrap() -> None:
    period = 1 << 30
    assert diff(3, period - 2) == 5 and diff(period - 2, 3) == -5
    raw = [period - 10]
    m = Monotonic(lambda: raw[0])
    raw[0] = 15
    assert m.update() == 25


# -- keypad ---------------------------------------------------------------------------
class Matrix:
    def __init__(self) -> None:
        self.rows = [SimPin(i, 1) for i in range(2)]
        self.down: set[tuple[int, int]] = set()
        self.cols = [SimPin(10 + c, 1, self._reader(c)) for c in range(3)]

    def _reader(self, c: int) -> Any:
        return lambda: 0 if any(self.rows[r].level == 0 for r, cc in self.down if cc == c) else 1


def test_a_bouncing_key_is_one_press() -> None:
    m = Matrix()
    kp = Keypad(m.rows, m.cols, bytes(range(6)))
    pattern = [1, 0, 1, 1, 0, 1] + [1] * 10 + [0, 1, 0] + [0] * 10
    for closed in pattern:
        if closed:
            m.down.add((1, 2))
        else:
            m.down.discard((1, 2))
        kp.scan()
    assert kp.get() == 5 and kp.get() == -1


def test_two_keys_held_together_are_two_presses() -> None:
    m = Matrix()
    kp = Keypad(m.rows, m.cols, bytes((10, 11, 12, 13, 14, 15)))
    m.down |= {(0, 0), (1, 1)}
    for _ in range(Keypad.debounce_scans):
        kp.scan()
    assert sorted([kp.get(), kp.get()]) == [10, 14]


# -- journal --------------------------------------------------------------------------
def body(ev: dict[str, Any], engine: Engine, boot: int = 1) -> dict[Any, Any]:
    return messages.event_body(ev, (engine.s0, engine.s1), None, boot, 0, 0)


def record(j: Journal, engine: Engine, events: list[dict[str, Any]]) -> None:
    for i, ev in enumerate(events):
        ev = dict(ev, t=1000 + i)
        engine.apply(ev)
        j.append(body(ev, engine), ev["t"])
        if j.image_due():
            j.write_image(engine)


def apply_body(engine: Engine, b: dict[Any, Any]) -> None:
    engine.apply(messages.wire_to_event(b))


def test_journal_restores_the_exact_engine_undo_depth_included(tmp_path: Path) -> None:
    events = generate_match(5, best_of=3)
    j = Journal(str(tmp_path))
    j.open()
    e = Engine()
    record(j, e, events)
    assert j.image_seq > 0 and j.image_seq % IMAGE_EVERY == 0
    again = Journal(str(tmp_path))
    assert again.open() == 2  # a new boot
    r = Engine()
    replayed = again.restore(r, apply_body)
    assert replayed == len(events) - again.image_seq < IMAGE_EVERY
    assert r.to_json() == e.to_json()
    assert again.next == len(events) + 1 and again.last_t == 1000 + len(events) - 1
    for _ in range(12):  # undo reaches exactly as far back on both
        results = []
        for eng in (e, r):
            try:
                eng.apply({"ev": "undo"})
                results.append(eng.to_json())
            except Exception as why:
                results.append(str(why))
        assert results[0] == results[1]


def test_a_torn_write_leaves_the_last_good_version(tmp_path: Path) -> None:
    j = Journal(str(tmp_path))
    j.open()
    e = Engine()
    record(j, e, generate_match(3, best_of=1)[:20])
    (tmp_path / "tmp").write_bytes(b"\x05\x00\xa1\x00")  # the cut hit mid-write
    again = Journal(str(tmp_path))
    again.open()
    assert "tmp" not in os.listdir(tmp_path)
    r = Engine()
    again.restore(r, apply_body)
    assert r.to_json() == e.to_json()


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
def test_the_journal_stays_bounded(tmp_path: Path) -> None:
    j = Journal(str(tmp_path))
    j.open()
    e = Engine()
    events = generate_match(7, best_of=7)
    record(j, e, events)
    # nothing acknowledged: everything since the oldest unacked is kept, up to the bound
    segs = [n for n in os.listdir(tmp_path) if n.startswith("s")]
    assert len(segs) == len(j.segs) <= MAX_SEGMENTS + 1
    j.ack(j.next - 1)
    segs = [n for n in os.listdir(tmp_path) if n.startswith("s")]
    # acknowledged and covered by the image: only the segments since the image stay
    assert len(segs) <= IMAGE_EVERY // SEG_RECORDS + 2
    # and the newest KEEP_ACKED acknowledged records, for a host whose store is
    # restored from a backup (SPEC.md "Handshake")
    assert j.oldest() <= j.next - KEEP_ACKED
    assert [seq for seq, _, _ in j.records(j.next - KEEP_ACKED, KEEP_ACKED)] == list(
        range(j.next - KEEP_ACKED, j.next)
    )


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
@pytest.mark.parametrize("extra", [0, 1, 31, 32, 33, 95, 128, 129])
def test_the_newest_acknowledged_records_stay_on_flash(tmp_path: Path, extra: int) -> None:
    """Wherever the last engine image and segment boundary fall, a host that
    lost up to KEEP_ACKED acknowledged records gets every one of them again."""
    j = Journal(str(tmp_path))
    j.open()
    e = Engine()
    e.apply({"ev": "match", "players": ["A", "B"], "best_of": 35})
    for i in range(IMAGE_EVERY * 2 + extra):
        ev = {"ev": "strike" if i % 2 == 0 else "rest", "t": i}
        e.apply(ev)
        j.append(body(ev, e), i)
        if j.image_due():
            j.write_image(e)
        j.ack(j.next - 1)
    newest = j.next - 1
    assert j.oldest() <= newest - KEEP_ACKED + 1
    assert len(list(j.records(newest - KEEP_ACKED + 1, KEEP_ACKED))) == KEEP_ACKED


@pytest.mark.slow
def test_a_journal_full_of_unacked_events_drops_the_oldest_and_counts(tmp_path: Path) -> None:
    j = Journal(str(tmp_path))
    j.open()
    e = Engine()
    e.apply({"ev": "match", "players": ["A", "B"], "best_of": 35})
    n = (MAX_SEGMENTS + 4) * SEG_RECORDS
    for i in range(n):
        ev = {"ev": "strike" if i % 2 == 0 else "rest", "t": i}
        e.apply(ev)
        j.append(body(ev, e), i)
        if j.image_due():
            j.write_image(e)
    assert len(j.segs) <= MAX_SEGMENTS + 1
    assert j.lost > 0 and j.acked == j.lost  # the host will see the gap
    r = Engine()
    again = Journal(str(tmp_path))
    again.open()
    again.restore(r, apply_body)
    assert r.to_json() == e.to_json()


def test_the_largest_engine_image_streams_to_flash_and_back(tmp_path: Path) -> None:
    """write_image streams the undo log from the engine's own buffer and
    encodes the rest in a small buffer: the largest rest (doubles with four
    48-byte names, every frame score of a best-of-35 at its top, a full undo
    log) must still fit and come back exactly."""
    name = "é" * 24  # 48 bytes of UTF-8, the limit
    e = Engine()
    e.apply({"ev": "match", "players": [[name, name], [name, name]], "best_of": 35})
    for i in range(2000):  # fills the undo log past its end (it rolls forward)
        e.apply({"ev": "strike" if i % 2 == 0 else "rest", "t": i})
    for i in range(len(e.history)):
        e.history[i] = 0xFFFF
    assert e.log_len > 2 * LOG_EVENTS  # most of its 3 bytes an event
    j = Journal(str(tmp_path))
    j.open()
    j.write_image(e)
    r = Engine()
    again = Journal(str(tmp_path))
    again.open()
    again.restore(r, apply_body)
    assert r.image() == e.image()
    assert r.to_json() == e.to_json()


# -- calibration ----------------------------------------------------------------------
def test_a_rewind_below_what_the_journal_keeps_says_hello_again() -> None:
    """SPEC.md "Handshake": the host's ack is older than the oldest event the
    journal still keeps (it let one go between the hello and the welcome):
    the device starts from what it keeps and says hello again, announcing it,
    so the host counts the gap instead of waiting for an event that is gone."""
    from baulk.firmware.link import Link
    from baulk.protocol import messages

    class Port:
        def any(self) -> int:
            return 0

        def write(self, data: bytes) -> int:
            return len(data)

    link = Link(Port(), 0, "fw", "t1", 7, 40, 0, newest=40)
    link.session.open = True
    assert link.rewind(30, 21) == 30  # the journal keeps 21..40: from 31
    assert link.session.open and link.session.sender.base == 31
    assert link.rewind(10, 21) == 20  # it keeps 21.. only: from 21, and hello again
    assert not link.session.open
    hello = [m for m in link.session.poll(5) if m[0] == messages.HELLO]
    assert hello and hello[0][3][4] == 21 and hello[0][3][3] == 40
