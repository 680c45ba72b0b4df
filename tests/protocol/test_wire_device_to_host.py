"""Whatever the device journals, its host takes.

An event the device journals is on its flash for good and goes to the host;
a body the host then refuses is an event recorded on the table that never
reaches the store.  These tests drive the simulated board (the real firmware,
its real Session on a simulated UART) with any command a host may send and
any sequence of keys, and hold every body it journals, and every frame it
puts on the line, to the host's own decoder.
"""

from __future__ import annotations

import tempfile
from typing import Any

import cbor2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baulk.firmware import names
from baulk.firmware.keypad_flow import KEY_NAMES
from baulk.firmware.sim.board import SimBoard
from baulk.protocol import frame, host_codec
from baulk.protocol import host_catalogue as C
from baulk.protocol import messages as M
from baulk.protocol.session import HOST, Session

from .wire_strategies import body_for


class _Host:
    """The host's end of the simulated serial line: the real Session, and the
    real host decoder on every byte the device sends."""

    def __init__(self, board: SimBoard) -> None:
        self.board = board
        self.session = Session(HOST, board.clock.now, {0: "test-host"}, 64, 8)
        self.decoder = host_codec.StreamDecoder()
        self.writer = frame.FrameWriter()
        self.refused: list[tuple[int, str]] = []  # (type, why) of frames the decoder refused
        board.on_tick = self.pump

    def pump(self) -> None:
        b = self.board
        now = b.clock.now
        for f in self.decoder.feed(b.serial.take()):
            if f.error is not None:
                self.refused.append((f.mtype, f"{f.error}: {f.detail}"))
            self.session.on_frame(f, now)
        self.session.drain()
        for m in self.session.poll(now):
            b.serial.inject(bytes(self.writer.build(m[0], m[1], m[2], m[3])))


def _started(flash: str) -> tuple[SimBoard, _Host]:
    b = SimBoard(flash=flash, tick_ms=5)
    b.boot()
    host = _Host(b)
    b.settle(1500)  # hello, welcome
    host.session.send(M.SETUP_MATCH, {7: ["Ali", "Reza"], 8: 3})
    b.settle(300)
    return b, host


def _journaled(b: SimBoard) -> list[dict[Any, Any]]:
    j = b.app.journal
    # events only (kind 1: pocket checks, 2: checkpoints)
    return [body for _, kind, body in j.records(1, j.next) if kind == 0]


def _host_verdicts(bodies: list[dict[Any, Any]]) -> list[tuple[dict[Any, Any], str]]:
    """The bodies the host decoder refuses as event frames, with the reason."""
    out = []
    for seq, body in enumerate(bodies, 1):
        f = host_codec.decode_frame(frame.encode_frame(M.EVENT, frame.FLAG_REL, seq, body))
        if f.error is not None:
            out.append((body, f"{f.error}: {f.detail}"))
    return out


# A name: a table's own, one just over the limit, long ones, odd ones.
_name = st.one_of(
    st.sampled_from(names.BALLS + names.POCKETS + names.FOUL_KINDS + names.EVENTS),
    st.text(min_size=30, max_size=60),
    st.just("x" * (M._NAME_TEXT_BYTES + 1)),
    st.just("é" * 17),  # 34 bytes, 17 characters
    st.integers(0, 300),
)
_value = st.one_of(
    _name,
    st.text(min_size=100, max_size=480),  # bodies up to a full frame
    st.booleans(),
    st.integers(-5, 2**40),
    st.lists(_name, max_size=9),
    st.lists(st.text(max_size=60), min_size=2, max_size=2),
)
_raw_key = st.one_of(
    st.sampled_from(sorted(C.RAW_BY_KEY)),  # its integer key
    st.sampled_from(sorted(C.RAW)),  # its text name
    st.text(min_size=1, max_size=40),  # a newer minor's, or junk
)
_command = st.dictionaries(_raw_key, _value, max_size=5).map(
    lambda d: {**d, 0: d.get(0, "pot")} if "ev" not in d else d
)


def _fits(body: dict[Any, Any]) -> bool:
    # The host can only send what one frame carries.
    return len(cbor2.dumps(body)) <= frame.MAX_BODY


def _all_taken_by_the_host(messages: list[tuple[int, dict[Any, Any]]]) -> list[dict[Any, Any]]:
    """Send each message to a board with a match set up; every event it
    journals, and every event frame it sends, the host decoder must take.
    Returns the bodies journaled."""
    with tempfile.TemporaryDirectory() as flash:
        b, host = _started(flash)
        for mtype, body in messages:
            host.session.send(mtype, body)
            b.settle(200)
        b.settle(300)
        bodies = _journaled(b)
        assert _host_verdicts(bodies) == []
        assert [r for r in host.refused if r[0] == M.EVENT] == []
        assert b.app.link.up
        return bodies


@pytest.mark.slow
@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_command.filter(_fits), min_size=1, max_size=6))
def test_every_event_journaled_from_a_command_is_one_the_host_accepts(
    commands: list[dict[Any, Any]],
) -> None:
    for body in _all_taken_by_the_host([(M.COMMAND, body) for body in commands]):
        reason = body.get(-2)
        assert reason is None or len(reason.encode()) <= C.SCHEMA[M.EVENT][-2][2]


_setup = st.dictionaries(_raw_key, _value, max_size=4).map(
    lambda d: {**d, 7: ["Ali", "Reza"], 8: 3}
)


@pytest.mark.slow
@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_setup.filter(_fits), min_size=1, max_size=4))
def test_every_event_journaled_from_a_setup_match_is_one_the_host_accepts(
    setups: list[dict[Any, Any]],
) -> None:
    """Keys a setup_match's table does not list, integer or text, never reach
    the engine (SPEC.md 7.3): a key 1 with a 40-byte name beside the players
    once made a match event the host refused."""
    _all_taken_by_the_host([(M.SETUP_MATCH, body) for body in setups])


# update_request leaves the match for the update mode, or restarts the board
# into a confirmed trial (SPEC.md 7.9): none is a message a match goes on after.
_HOST_SENT = sorted(
    t for t in C.SCHEMA if C.TYPES[t][1] != M.DEVICE and t != host_codec.UPDATE_REQUEST
)


@pytest.mark.slow
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from(_HOST_SENT).flatmap(
            lambda t: st.tuples(st.just(t), body_for(t).filter(_fits))
        ),
        min_size=1,
        max_size=8,
    )
)
def test_any_good_host_message_is_handled_without_an_exception(
    messages: list[tuple[int, dict[Any, Any]]],
) -> None:
    """Every message a host may send, with any body its schema allows, through
    the whole firmware (its handlers too: the engine, the journal, the
    handset's files, the light, a pocket check).  The simulator calls App.tick
    itself, outside App.run's guard, so an exception fails here; and every
    event it journals is one the host takes."""
    _all_taken_by_the_host(messages)


def test_a_setup_match_is_made_from_the_keys_of_its_table_alone() -> None:
    with tempfile.TemporaryDirectory() as flash:
        b, host = _started(flash)
        body = {7: ["Sara", "Dara"], 8: 5, 10: 6, 1: "x" * 40, 0: 2, "reds": 10, "best_of": 9}
        host.session.send(M.SETUP_MATCH, body)
        b.settle(300)
        match = _journaled(b)[-1]
        assert M.wire_to_event(match) == {
            "ev": "match",
            "players": ["Sara", "Dara"],
            "best_of": 5,
            "reds": 6,
            "t": match[13],
        }
        assert -2 not in match  # taken: nothing else reached the engine
        assert b.app.engine.state()["players"] == ["Sara", "Dara"]


@pytest.mark.slow
@settings(max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(KEY_NAMES.split()), min_size=1, max_size=40))
def test_every_event_journaled_from_the_keypad_is_one_the_host_accepts(keys: list[str]) -> None:
    with tempfile.TemporaryDirectory() as flash:
        b, host = _started(flash)
        b.keys(*keys)
        b.settle(300)
        assert _host_verdicts(_journaled(b)) == []
        assert [r for r in host.refused if r[0] == M.EVENT] == []


def test_a_text_ball_name_over_32_bytes_is_refused_at_the_check() -> None:
    """Under its integer key or its text name, the same limit: the device
    refuses the command (error 2) and journals nothing."""
    long = "r" * (M._NAME_TEXT_BYTES + 1)
    for body in ({0: 3, 1: long}, {0: 3, "ball": long}, {"ev": "pot", "ball": long}):
        assert M.check(M.COMMAND, body) is not None, body
        assert host_codec.check_body(M.COMMAND, body) is not None, body
    ok = {0: 3, "ball": "r" * M._NAME_TEXT_BYTES}
    assert M.check(M.COMMAND, ok) is None
    assert host_codec.check_body(M.COMMAND, ok) is None


def test_values_of_another_form_travel_under_a_text_key_unchecked() -> None:
    for body in ({0: 3, "ball": 5}, {0: 3, "side": -1}, {0: 3, "k" * 40: "x" * 40}):
        assert M.check(M.COMMAND, body) is None, body
        assert host_codec.check_body(M.COMMAND, body) is None, body
    long = ["red", "x" * 33]
    assert M.check(M.COMMAND, {0: 16, "occupied": long}) is not None


def test_a_long_reason_is_cut_to_its_bound_on_a_character() -> None:
    assert C.SCHEMA[M.EVENT][-2][2] == M._REASON_BYTES  # the device's bound is the host's
    reason = "ب" * 100  # 200 bytes
    body = M.event_body({"ev": "pot"}, (0, 0), reason)
    assert body[-2] == "ب" * 80
    assert host_codec.check_body(M.EVENT, body) is None


def test_a_command_the_device_refuses_leaves_nothing_in_its_journal() -> None:
    with tempfile.TemporaryDirectory() as flash:
        b, host = _started(flash)
        before = b.app.journal.next
        host.session.send(M.COMMAND, {0: 3, "ball": "x" * 40})
        b.settle(300)
        assert b.app.journal.next == before
        host.session.send(M.COMMAND, {0: 3, "ball": "x" * 20})  # unknown ball: rejected, journaled
        b.settle(300)
        assert b.app.journal.next == before + 1
        (body,) = _journaled(b)[-1:]
        assert body[-2] == "unknown ball '%s'" % ("x" * 20)
        assert _host_verdicts([body]) == []


def test_a_command_whose_event_would_not_fit_a_frame_is_refused_at_the_check() -> None:
    """A command near a full frame, with a key the engine does not know: its
    event (the input and the result keys) would be too big to send, and the
    firmware raised EncodeError putting it on the line.  It is refused with
    error 2; the next command is journaled and reaches the host."""
    with tempfile.TemporaryDirectory() as flash:
        b, host = _started(flash)
        before = b.app.journal.next
        big = {0: 3, "zz": "q" * 485}
        assert len(cbor2.dumps(big)) <= frame.MAX_BODY
        host.session.send(M.COMMAND, big)
        b.settle(300)
        assert b.app.journal.next == before
        host.session.send(M.COMMAND, {0: 1})
        b.settle(600)
        assert b.app.journal.next == before + 1
        assert host.session.receiver.delivered == before  # the match's event, then this one's
        assert _host_verdicts(_journaled(b)) == []
