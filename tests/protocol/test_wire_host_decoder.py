"""Fuzzing the host decoder: nothing raises out of it, memory stays bounded,
and garbage between frames costs only that garbage."""

from __future__ import annotations

import tracemalloc
from typing import Any

import cbor2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baulk.protocol import frame, host_codec
from baulk.protocol import host_catalogue as C
from baulk.protocol import messages as M

from .wire_strategies import message, subset_values

GOOD = frame.encode_frame(M.EVENT, 1, 5, M.event_body({"ev": "pot", "ball": "red"}, [1, 0]))


def _well_formed_cbor() -> st.SearchStrategy[bytes]:
    # bodies cbor2 can write, including what the subset forbids
    weird = st.one_of(
        st.floats(allow_nan=True),
        st.builds(cbor2.CBORTag, st.integers(0, 2**64 - 1), st.integers()),
        st.just(cbor2.undefined),
        st.builds(cbor2.CBORSimpleValue, st.sampled_from([0, 16, 19, 32, 255])),
    )
    vals = st.recursive(
        st.one_of(subset_values(8), weird),
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(st.integers(-30, 30), inner, max_size=4)
        ),
        max_leaves=10,
    )
    return vals.map(lambda v: cbor2.dumps(v))


def _framed(body: bytes, mtype: int, flags: int, seq: int) -> bytes:
    import binascii

    from baulk.protocol import cobs

    raw = bytes((frame.VERSION_BYTE, mtype, flags, seq & 0xFF, seq >> 8)) + body
    return cobs.encode(raw + binascii.crc32(raw).to_bytes(4, "little"))


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2000))
def test_random_bytes_never_raise(data: bytes) -> None:
    f = host_codec.decode_frame(data)
    assert f.error is not None or f.mtype in C.TYPES
    s = host_codec.StreamDecoder()
    for g in s.feed(data):
        assert isinstance(g, host_codec.Frame)
    assert s.pending() < frame.MAX_WIRE


@pytest.mark.slow
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(
    _well_formed_cbor(),
    st.integers(0, 255),
    st.integers(0, 3),
    st.integers(0, 0xFFFF),
)
def test_crc_valid_frames_with_any_body_never_raise(
    body: bytes, mtype: int, flags: int, seq: int
) -> None:
    wire = _framed(body, mtype, flags, seq)
    f = host_codec.decode_frame(wire)
    if f.error is None:
        assert M.check(f.mtype, f.body) is None
    else:
        assert f.error in ("body", "oversize", "unknown_type")
        if f.error == "body" or f.error == "unknown_type":
            assert f.mtype == mtype and f.seq == seq  # header kept for the session


@pytest.mark.slow
@settings(max_examples=300)
@given(message(), st.integers(0, 10**6))
def test_single_bit_flips_are_caught(m: tuple[int, int, int, dict[Any, Any]], where: int) -> None:
    wire = bytearray(frame.encode_frame(*m))
    i = where % (len(wire) - 1)
    wire[i] ^= 1 << (where % 8)
    f = host_codec.decode_frame(bytes(wire))
    assert f.error is not None


@pytest.mark.slow
@settings(max_examples=300)
@given(st.lists(st.binary(max_size=300), max_size=6), st.lists(message(), min_size=1, max_size=6))
def test_garbage_between_frames_costs_only_the_garbage(
    garbage: list[bytes], msgs: list[tuple[int, int, int, dict[Any, Any]]]
) -> None:
    stream = bytearray()
    for i, m in enumerate(msgs):
        g = garbage[i] if i < len(garbage) else b""
        stream += g + b"\x00" + frame.encode_frame(*m)
    s = host_codec.StreamDecoder()
    good = [f for f in s.feed(bytes(stream)) if f.error is None]
    assert [(f.mtype, f.seq, f.body) for f in good] == [(m[0], m[2], m[3]) for m in msgs]
    # and byte by byte, the same
    s2 = host_codec.StreamDecoder()
    good2 = []
    for b in stream:
        good2 += [f for f in s2.feed(bytes([b])) if f.error is None]
    assert len(good2) == len(msgs)


def test_garbage_without_a_delimiter_is_dropped_and_the_next_frame_decodes() -> None:
    s = host_codec.StreamDecoder()
    for _ in range(100):
        assert s.feed(b"\x55" * 1000) == []
        assert s.pending() < frame.MAX_WIRE
    out = s.feed(b"\x00" + GOOD)
    assert [f.error for f in out] == ["oversize", None]
    assert s.garbage == 100_000 + 1


def test_memory_stays_bounded_under_hostile_input() -> None:
    hostile = [
        b"\x9b" + b"\xff" * 8,  # array of 2**64 items
        b"\x5b" + b"\xff" * 8,  # byte string of 2**64 bytes
        b"\xbb" + b"\x7f" * 8,  # map of 2**63 pairs
        b"\x81" * 400,  # deep nesting
        b"\xc2\x59\x01\xf0" + b"\xff" * 400,  # bignum tag
    ]
    frames = [_framed(h, M.ACK, 0, 0) for h in hostile]
    s = host_codec.StreamDecoder()
    tracemalloc.start()
    try:
        for _ in range(50):
            for w in frames:
                assert host_codec.decode_frame(w).error is not None
                s.feed(w[:200])
                s.feed(w[200:] + b"\x33" * 5000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 256 * 1024


def test_parse_raises_only_frame_error() -> None:
    for data in [b"", b"\x00", b"\x01\x00", GOOD[:-3], bytes(range(256))]:
        try:
            host_codec.parse(data)
        except host_codec.FrameError as e:
            assert e.code in ("cobs", "short", "crc", "oversize", "body", "version", "unknown_type")
        else:
            raise AssertionError("accepted garbage")
    assert host_codec.parse(GOOD).body[-1] == [1, 0]


def test_the_reused_cbor2_decoder_is_sound_after_thousands_of_failures() -> None:
    failing = [
        b"\xa1\x00" + b"\x81" * 50 + b"\x00",  # too deep
        b"\xa1\x00\xc1\x00",  # tag
        b"\xbf\x00\x00\xff",  # indefinite
        b"\xa2\x00\x00\x00\x00",  # duplicate
        b"\xa1\x00\x9a\xff\xff\xff\xff",  # truncated huge array
    ]
    for _ in range(1000):
        for body in failing:
            assert host_codec.decode_frame(_framed(body, M.ACK, 0, 0)).error == "body"
    ok = host_codec.decode_frame(_framed(b"\xa2\x00\x01\x09\x81\x81\x81\x00", M.ACK, 0, 0))
    assert ok.error is None and ok.body == {0: 1, 9: [[[0]]]}
    deep = host_codec.decode_frame(_framed(b"\xa2\x00\x01\x09\x81\x81\x81\x81\x00", M.ACK, 0, 0))
    assert deep.error == "body"


# Keys the device's decoder refuses (protocol/cbor.py: "map keys are integers
# or text").  In Python False == 0 and 1.0 == 1, so a decoder that looked keys
# up without checking their type took {false: 41} for an ack of 41.
NOT_INT_OR_TEXT = [False, True, 0.0, 1.0, None, b"\x00", (0,), cbor2.undefined]


def _both(wire: bytes) -> tuple[str | None, str | None]:
    """(host decoder, device decoder with the catalogue check) verdicts."""
    return host_codec.decode_frame(wire).error, C.outcome(frame.decode_frame(wire))


@pytest.mark.parametrize("key", NOT_INT_OR_TEXT, ids=repr)
def test_top_level_keys_that_are_neither_integers_nor_text_are_refused(key: Any) -> None:
    wire = _framed(cbor2.dumps({key: 41}), M.ACK, 0, 0)
    assert _both(wire) == ("body", "body")
    assert host_codec.decode_frame(wire, check=False).error == "body"


def test_false_is_not_taken_for_key_0() -> None:
    wire = _framed(cbor2.dumps({False: 41}), M.ACK, 0, 0)
    with pytest.raises(host_codec.FrameError) as e:
        host_codec.parse(wire)
    assert e.value.code == "body"
    assert "key" in e.value.detail


@pytest.mark.parametrize("key", NOT_INT_OR_TEXT, ids=repr)
def test_nested_keys_that_are_neither_integers_nor_text_are_refused(key: Any) -> None:
    under_known = {0: 7, 15: {key: 0, 1: 4, 2: 5}}  # state: last_foul
    under_unknown = {0: 7, 40: [{key: 1}]}
    for body in (under_known, under_unknown):
        if key in (False, 0.0) and body is under_known:
            body = {0: 7, 15: {key: 1, 1: 4, 2: 5}}  # not a duplicate of key 0
        assert _both(_framed(cbor2.dumps(body), M.STATE, 0, 0)) == ("body", "body")


def test_values_outside_the_subset_inside_a_known_map_are_refused() -> None:
    body = {0: 7, 15: {0: 1, 1: 4, 2: 5, 3: 0.5}}
    assert _both(_framed(cbor2.dumps(body), M.STATE, 0, 0)) == ("body", "body")


_any_key = st.one_of(
    st.integers(-30, 30),
    st.text(max_size=3),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False),
    st.binary(max_size=2),
    st.tuples(st.integers(0, 3)),
)
_any_value = st.recursive(
    st.one_of(subset_values(4), st.floats(allow_nan=False), st.just(cbor2.undefined)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(_any_key, inner, max_size=3)
    ),
    max_leaves=8,
)


@pytest.mark.slow
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_any_key, _any_value, max_size=5), st.sampled_from(sorted(C.TYPES)))
def test_the_host_and_the_device_decoders_agree_on_any_body(body: Any, mtype: int) -> None:
    try:
        data = cbor2.dumps(body)
    except (ValueError, TypeError, cbor2.CBOREncodeError):
        return  # keys cbor2 itself cannot write
    host, device = _both(_framed(data, mtype, 0, 1))
    assert host == device, (body, host, device)


@pytest.mark.slow
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(_well_formed_cbor(), st.binary(max_size=6), st.sampled_from(sorted(C.TYPES))),
        min_size=2,
        max_size=12,
    )
)
def test_one_reused_decoder_leaves_nothing_of_a_body_for_the_next(
    bodies: list[tuple[bytes, bytes, int]],
) -> None:
    """Good bodies, bad ones and ones with bytes after the item, one after the
    other through the same thread's decoder: each verdict and each body is
    the one the device's decoder gives that frame alone."""
    for body, tail, mtype in bodies:
        wire = _framed(body + tail, mtype, 0, 1)
        got = host_codec.decode_frame(wire)
        alone = frame.decode_frame(wire)
        assert got.error == C.outcome(alone)
        if got.error is None:
            assert got.body == alone.body
