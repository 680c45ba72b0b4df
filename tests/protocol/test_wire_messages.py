"""The catalogue: conversions between engine dicts and wire maps, the body
check, and the size budget of a pot event."""

from __future__ import annotations

import json
from typing import Any

import cbor2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baulk.firmware import names
from baulk.protocol import cbor, frame, host_codec
from baulk.protocol import host_catalogue as C
from baulk.protocol import messages as M

from . import samples
from .wire_strategies import body_for

ENGINE_EVENTS: list[dict[str, Any]] = [
    {"ev": "match", "players": ["Ali", "Reza"], "best_of": 7, "breaker": 0, "reds": 15},
    {"ev": "match", "players": [["A1", "A2"], ["B1", "B2"]], "best_of": 3},
    {"ev": "strike"},
    {"ev": "pot", "ball": "red", "pocket": "tl"},
    {"ev": "pot", "ball": "black"},
    {"ev": "off", "ball": "blue"},
    {"ev": "rest"},
    {"ev": "foul", "kind": "push", "ball": "blue"},
    {"ev": "foul", "kind": "foul_before_nomination"},
    {"ev": "miss", "clear": True},
    {"ev": "miss"},
    {"ev": "free_ball"},
    {"ev": "nominate", "ball": "green"},
    {"ev": "play_again"},
    {"ev": "replace"},
    {"ev": "concede"},
    {"ev": "concede", "match": True},
    {"ev": "award", "side": 1},
    {"ev": "rerack"},
    {"ev": "toss", "side": 0},
    {"ev": "undo"},
    {"ev": "spots", "occupied": ["black", "pink"]},
    {"ev": "claim"},
    {"ev": "edge_replace"},
    {"ev": "order", "side": 1, "first": 1},
    {"ev": "pot", "ball": "red", "pocket": "br", "t": 1_767_225_600_123},
]


def test_every_engine_event_name_is_exercised() -> None:
    assert {e["ev"] for e in ENGINE_EVENTS} == set(names.EVENTS)


@pytest.mark.parametrize("ev", ENGINE_EVENTS, ids=lambda e: e["ev"])
def test_engine_event_round_trips_with_integer_keys(ev: dict[str, Any]) -> None:
    wire = M.event_to_wire(ev)
    assert all(isinstance(k, int) for k in wire)
    assert M.check(M.COMMAND, wire) is None
    back = M.wire_to_event(cbor.loads(cbor.dumps(wire)))
    assert back == ev


@pytest.mark.parametrize(
    "ev",
    [
        {"ev": "pot", "ball": "purple"},  # a name outside the table
        {"ev": "dance"},  # an event this catalogue does not know
        {"ev": "pot", "ball": 5},  # a value of the wrong type
        {"ev": "award", "side": -1},
        {"ev": "miss", "clear": 1},
        {"ev": "foul", "kind": None},
        {"ev": "pot", "ball": "red", "spin": ["top", 2], "note": {"a": 1}},
    ],
)
def test_unexpected_input_travels_untouched(ev: dict[str, Any]) -> None:
    wire = M.event_to_wire(ev)
    assert M.check(M.EVENT, {**wire, -1: [0, 0]}) is None
    assert M.wire_to_event(cbor.loads(cbor.dumps(wire))) == ev


# Names as text that fail their integer key's check (SPEC.md 7.3): over 32
# bytes, or a list of names with one such among them.
TOO_LONG: list[dict[str, Any]] = [
    {"ev": "pot", "ball": "x" * 40},
    {"ev": "pot", "ball": "red", "pocket": "p" * (M._NAME_TEXT_BYTES + 1)},
    {"ev": "foul", "kind": "k" * 40, "ball": "blue"},
    {"ev": "e" * 40},
    {"ev": "spots", "occupied": ["black", "x" * 40]},
]


def integer_keys_pass_their_check(wire: dict[Any, Any]) -> None:
    schema = C.SCHEMA[M.EVENT]
    for k, v in wire.items():
        if isinstance(k, int) and k >= 0:
            _, kind, a, b, _ = schema[k]
            assert M._check_value(kind, a, b, v) is None, (k, v)


@pytest.mark.parametrize("ev", TOO_LONG, ids=lambda e: next(k for k in e if len(str(e[k])) > 30))
def test_a_name_that_fails_its_keys_check_goes_under_its_text_name(ev: dict[str, Any]) -> None:
    """SPEC.md 7.3 (since 1.3): a value goes under its integer key only when
    it passes that key's check; a 40-byte ball name goes under "ball", where
    the same check refuses it, naming the key it came under."""
    wire = M.event_to_wire(ev)
    integer_keys_pass_their_check(wire)
    (long,) = [n for n in ev if len(str(ev[n])) > 30]
    assert long in wire and wire[long] == ev[long]
    assert M.wire_to_event(cbor.loads(cbor.dumps(wire))) == ev  # still lossless
    reason = M.check(M.COMMAND, wire)
    said = "key 0 (ev) is missing" if long == "ev" else f"key '{long}' must be"
    assert reason is not None and said in reason
    assert host_codec.check_body(M.COMMAND, wire) == reason
    event = M.event_body(ev, [0, 0])  # the device's event: the host refuses it alike
    assert host_codec.check_body(M.EVENT, event) == C.check(M.EVENT, event) is not None
    assert host_codec.body_of(host_codec.Command(input=ev)) == wire  # the host's encoder


def test_a_snapshot_leaves_out_a_name_that_fails_its_check() -> None:
    """state_to_wire sends no value that does not fit its key (a ball on of
    40 bytes would make the host refuse the whole snapshot)."""
    wire = M.state_to_wire({"ball_on": "x" * 40, "reds": 15}, 3)
    assert 8 not in wire
    assert M.check(M.STATE, wire) is None


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63), st.text(max_size=8)),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=6,
)


@pytest.mark.slow
@settings(max_examples=200)
@given(
    st.dictionaries(
        st.sampled_from([*C.RAW, "extra", "t2"]),
        st.one_of(json_values, st.sampled_from(names.BALLS + names.POCKETS + names.FOUL_KINDS)),
        max_size=6,
    ).map(lambda d: {"ev": "pot", **d})
)
def test_any_json_like_input_round_trips(ev: dict[str, Any]) -> None:
    wire = M.event_to_wire(ev)
    assert M.wire_to_event(cbor2.loads(cbor2.dumps(wire))) == ev


def test_floats_are_not_carried() -> None:
    with pytest.raises(cbor.EncodeError):
        cbor.dumps(M.event_to_wire({"ev": "pot", "t": 1.5}))


def test_unknown_codes_decode_to_a_name_the_engine_refuses() -> None:
    assert M.wire_to_event({0: 2, 1: 200}) == {"ev": "pot", "ball": "#200"}


def test_event_body_carries_result_under_negative_keys() -> None:
    body = M.event_body(
        {"ev": "pot", "ball": "red"}, [1, 0], rejected="no", boot=9, src=M.SRC_HOST, cmd=4
    )
    assert {k for k in body if k < 0} == {-1, -2, -3, -4, -5}
    assert C.event_result(body) == ([1, 0], "no", 9, M.SRC_HOST, 4)
    assert M.wire_to_event(body) == {"ev": "pot", "ball": "red"}
    assert C.event_result(M.event_body({"ev": "rest"}, [3, 4])) == ([3, 4], None, 0, 0, 0)


@pytest.mark.parametrize("scores", [[0, 0], [23, 23], [147, 255], [255, 255]])
@pytest.mark.parametrize("seq", [1, 255, 256, 65535, 70000])
def test_a_pot_event_fits_the_24_byte_budget(scores: list[int], seq: int) -> None:
    for ball in names.BALLS:
        for pocket in names.POCKETS:
            body = M.event_body({"ev": "pot", "ball": ball, "pocket": pocket}, scores)
            assert len(frame.encode_frame(M.EVENT, frame.FLAG_REL, seq, body)) <= 24


# The sample snapshot, with the values a round trip could lose set: a warning,
# two balls to re-spot, ball in hand, and the keys that are not sent.
STATE: dict[str, Any] = {
    **samples.STATE,
    "warning": "third_miss_forfeits",
    "respot": ["black", "pink"],
    "in_hand": True,
    "rejected": [{"line": 3, "reason": "yellow is not on the table"}],
    "history": [{"frame": 1, "scores": [70, 20], "winner": 0}],
}


def test_state_round_trips_without_growing_keys() -> None:
    wire = M.state_to_wire(STATE, 77)
    assert M.check(M.STATE, wire) is None
    assert all(isinstance(k, int) for k in wire)
    at, back = C.wire_to_state(cbor.loads(cbor.dumps(wire)))
    assert at == 77
    assert back == {k: v for k, v in STATE.items() if k not in ("rejected", "history")}
    size = len(cbor.dumps(wire))
    assert size < len(json.dumps(back)) / 3


@pytest.mark.parametrize(
    "colours", [[], ["black"], ["yellow", "black"], ["black", "yellow"], ["pink", "purple"]]
)
def test_state_colours_round_trip(colours: list[str]) -> None:
    _, back = C.wire_to_state(M.state_to_wire({"colours": colours}, 1))
    assert back == {"colours": colours}


def test_state_values_that_do_not_fit_are_left_out() -> None:
    wire = M.state_to_wire({"frame": -3, "scores": [1], "reds": 5, "future_key": 1}, 1)
    assert wire == {0: 1, 6: 5}


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
@pytest.mark.parametrize("mtype", sorted(C.SCHEMA))
@settings(max_examples=30)
@given(data=st.data())
def test_generated_bodies_pass_the_check(mtype: int, data: st.DataObject) -> None:
    body = data.draw(body_for(mtype))
    assert M.check(mtype, body) is None


@pytest.mark.parametrize(
    ("mtype", "body", "words"),
    [
        (M.EVENT, {0: 2}, "key -1 (scores) is missing"),
        (M.EVENT, {0: 2, -1: [1, 2, 3]}, "scores"),
        (M.ACK, {0: -1}, "ack"),
        (M.ACK, [0], "must be a map"),
        (M.LOG, {0: 1, 1: "x" * 201}, "text of at most 200 bytes"),
        (M.NAME_BITMAP, {0: 0, 1: 0, 2: 200, 3: 8, 4: b""}, "width"),
        (M.NAME_BITMAP, {0: 0, 1: 0, 2: 8, 3: 17, 4: b""}, "height"),
        (M.NAME_BITMAP, {0: 0, 1: 0, 2: 8, 3: 8, 4: bytes(257)}, "0 to 256 bytes"),
        (M.NAME_BITMAP, {0: 2, 1: 0, 2: 8, 3: 8, 4: b""}, "side"),
        (M.NAME_BITMAP, {0: 0, 1: 0, 2: 8, 3: 8}, "bits"),
        (M.SETTINGS, {0: [1]}, "lang"),
        (M.HELLO, {0: "fw", 1: "t", 2: 0, 3: 0, 4: 1, 5: 0}, "boot"),
        (M.STATE, {0: 1, 4: True}, "striker"),
        (M.STATE, {0: 1, 15: {0: 1, 1: 4}}, "last_foul"),
        (99, {}, "unknown message type 99"),
    ],
)
def test_check_names_the_problem(mtype: int, body: Any, words: str) -> None:
    reason = M.check(mtype, body)
    assert reason is not None
    assert words in reason


def test_unknown_integer_keys_are_ignored() -> None:
    assert M.check(M.ACK, {0: 5, 1: "newer minor", 99: [1, 2]}) is None


def test_type_ids_are_unique_and_frozen() -> None:
    assert (M.HELLO, M.WELCOME, M.ERROR) == (1, 2, 12)  # frozen across majors
    assert len({t[0] for t in C.TYPES.values()}) == len(C.TYPES)
    assert set(C.TYPES) == set(C.SCHEMA)
    assert {t for t in C.TYPES if M.is_reliable(t)} == {
        M.EVENT,
        M.SETUP_MATCH,
        M.COMMAND,
        M.LIGHT,
        M.SETTINGS,
        M.NAME_BITMAP,
        17,  # pocket_check (host_codec.POCKET_CHECK: private in messages.py)
        18,  # check_request
        M.CHECKPOINT,
        20,  # capture_request (host_codec.CAPTURE_REQUEST; 21 trace is unreliable)
        22,  # anchor (host_codec.ANCHOR, since 1.4)
        23,  # update_request (host_codec.UPDATE_REQUEST, since 1.5; 24 and 25 are unreliable)
    }


# The catalogue is text read a line at a time (messages.py): its words and
# its layout are held to the codes here.


def test_a_kinds_word_is_its_code() -> None:
    words = M._KINDS.split()
    kinds = [
        "UINT",
        "INT",
        "TEXT",
        "BOOL",
        "NAME",
        "NAMES",
        "UINTS",
        "PLAYERS",
        "FOUL",
        "BALL_ON",
        "COLOURS",
        "WARNING",
        "BYTES",
    ]
    assert [getattr(M, k) for k in kinds] == list(range(len(kinds)))
    assert words[: len(kinds)] == [k.lower() for k in kinds]
    assert words[C.MARKS] == "marks"
    for code, word in enumerate(words):
        assert M._entry(["x", "0", word, "0", "0", "-"])[1] == code
    assert [M._index(" - req nul ", p) for p in ("-", "req", "nul")] == [0, M.REQ, M.NUL]
    senders = [M._index(" - device host both ", s) for s in ("device", "host", "both")]
    assert senders == [M.DEVICE, M.HOST, M.BOTH]


def test_bounds_read_as_numbers_tables_and_lists() -> None:
    assert [M._bound(w) for w in ("u8", "u16", "u32", "u63")] == [M.U8, M.U16, M.U32, M.U63]
    assert (M._bound("-1440"), M._bound("256")) == (-1440, 256)
    assert M._bound("BALLS") is names.BALLS
    assert M._bound("6,0,u32") == (6, 0, M.U32)


def test_raw_keys_are_their_lines_in_order() -> None:
    # messages._raw_at finds a key by its line
    assert list(C.RAW_BY_KEY) == list(range(len(C.RAW_BY_KEY)))
    for k, n in C.RAW_BY_KEY.items():
        assert M._raw_at(k) == (n, *C.RAW[n][1:], M.REQ if n == "ev" else 0)
        assert M._raw(n) == (k, M._raw_at(k))
    assert M._raw_at(len(C.RAW)) is None
    assert M._raw_at(-1) is None
    assert M._raw_at("ball") is None


@pytest.mark.parametrize(
    "name", ["", " ", "ev 0", "ball ", "ball\n  pocket", "  ball", "bal", "balls", "BALL", 1, None]
)
def test_only_a_whole_raw_name_is_a_raw_key(name: Any) -> None:
    assert M._raw(name) is None


def test_a_type_is_found_by_its_whole_id() -> None:
    assert M.type_of(1)[0] == "hello"
    assert M.type_of(17)[0] == "pocket_check"
    assert M.type_of(20)[0] == "capture_request"  # since 1.3
    assert M.type_of(22)[0] == "anchor"  # since 1.4
    assert M.type_of(23) == ("update_request", M.HOST, True)  # since 1.5
    assert M.type_of(25) == ("update_data", M.HOST, False)
    for mtype in (0, 26, 99, 255, -1):
        assert M.type_of(mtype) is None
        assert M.schema(mtype) is None
    assert M.type_of(16) == ("health", M.DEVICE, False)  # host_catalogue, loaded here, adds it
    assert M.type_of(21) == ("trace", M.DEVICE, False)  # ... and trace
    assert M.type_of(24) == ("update_status", M.DEVICE, False)  # ... and update_status
