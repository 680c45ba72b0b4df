"""COBS, CRC and the device CBOR codec, checked against cbor2 and each other."""

from __future__ import annotations

import binascii
from typing import Any

import cbor2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baulk.protocol import cbor, cobs, crc, frame
from baulk.protocol import messages as M

from .wire_strategies import depth, subset_values


@given(st.binary(max_size=1200))
def test_cobs_round_trip_and_no_zero(data: bytes) -> None:
    enc = cobs.encode(data)
    assert enc[-1] == 0
    assert 0 not in enc[:-1]
    assert len(enc) <= cobs.max_encoded_len(len(data))
    assert cobs.decode(enc[:-1]) == data


@given(st.binary(max_size=600))
def test_cobs_decodes_in_place(data: bytes) -> None:
    enc = bytearray(cobs.encode(data)[:-1])
    n = cobs.decode_into(enc, len(enc), enc)
    assert bytes(enc[:n]) == data


@given(
    st.one_of(
        st.binary(max_size=frame.MAX_BODY - 5),
        # long runs without a zero: the frames with full 254-byte blocks (a
        # map of one key around bytes takes 5 more bytes: the largest body)
        st.integers(250, frame.MAX_BODY - 5).map(lambda n: b"\x01" * n),
    ),
    st.integers(0, 0xFFFF),
)
def test_the_device_stuffs_a_frame_in_place_as_cobs_would_from_a_copy(
    payload: bytes, seq: int
) -> None:
    # FrameWriter stuffs within one buffer; the result must be the plain
    # encoding of the unstuffed frame, whatever its zeros and its length.
    w = frame.FrameWriter()
    body = {0: payload}
    out = bytes(w.build(M.LOG, 0, seq, body))
    # the unstuffed frame, made apart (the writer's own bytes are stuffed over)
    raw = bytes((frame.VERSION_BYTE, M.LOG, 0, seq & 0xFF, seq >> 8)) + cbor2.dumps(body)
    raw += binascii.crc32(raw).to_bytes(4, "little")
    assert out == cobs.encode(raw)
    assert frame.decode_frame(out).body == body


@pytest.mark.parametrize(
    ("data", "wire"),
    [
        (b"", b"\x01\x00"),
        (b"\x00", b"\x01\x01\x00"),
        (b"\x11\x00\x22", b"\x02\x11\x02\x22\x00"),
        (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255)) + b"\x00"),
        (bytes(range(1, 255)) + b"\x00", b"\xff" + bytes(range(1, 255)) + b"\x01\x01\x00"),
        (bytes(range(1, 256)), b"\xff" + bytes(range(1, 255)) + b"\x02\xff\x00"),
    ],
)
def test_cobs_canonical_examples(data: bytes, wire: bytes) -> None:
    assert cobs.encode(data) == wire


@pytest.mark.parametrize("bad", [b"\x05\x11", b"\x02\x00\x01", b"\x00"])
def test_cobs_rejects_malformed(bad: bytes) -> None:
    assert cobs.decode_into(bad, len(bad), bytearray(10)) == -1


@given(st.binary(max_size=700))
def test_crc_is_binascii_crc32_and_fallback_agrees(data: bytes) -> None:
    assert crc.crc32(data) == binascii.crc32(data)
    assert crc.crc32_slow(data) == binascii.crc32(data)


def test_crc_check_value() -> None:
    assert crc.crc32(b"123456789") == 0xCBF43926  # the catalogue check value of CRC-32


@pytest.mark.slow
@settings(max_examples=400)
@given(subset_values())
def test_device_encoder_matches_cbor2_canonical(v: Any) -> None:
    if depth(v) > cbor.MAX_DEPTH:
        with pytest.raises(cbor.EncodeError):
            cbor.dumps(v, limit=1 << 16)
        return
    ours = cbor.dumps(v, limit=1 << 16)
    assert ours == cbor2.dumps(v, canonical=True)
    assert cbor2.loads(ours) == v


@pytest.mark.slow
@settings(max_examples=400)
@given(subset_values())
def test_device_decoder_reads_cbor2(v: Any) -> None:
    data = cbor2.dumps(v)  # not canonical: any key order must be read
    if depth(v) > cbor.MAX_DEPTH:
        with pytest.raises(cbor.DecodeError):
            cbor.loads(data)
    else:
        assert cbor.loads(data) == v


def test_depth_limit_is_the_same_as_the_host_decoder() -> None:
    ok = b"\xa1\x00\x81\x81\x81\x00"  # map > array > array > array: 4 containers
    deep = b"\xa1\x00\x81\x81\x81\x81\x00"  # 5
    assert cbor.loads(ok) == {0: [[[0]]]}
    assert cbor2.loads(ok, max_depth=4) == {0: [[[0]]]}
    with pytest.raises(cbor.DecodeError):
        cbor.loads(deep)
    with pytest.raises(cbor2.CBORDecodeError):
        cbor2.loads(deep, max_depth=4)


@pytest.mark.parametrize(
    "data",
    [
        b"\xf9\x3c\x00",  # half float
        b"\xfb\x3f\xf8\x00\x00\x00\x00\x00\x00",  # double
        b"\xf7",  # undefined
        b"\xf0",  # simple(16)
        b"\xc1\x00",  # tag 1
        b"\x9f\x00\xff",  # indefinite array
        b"\x5f\x41\x00\xff",  # indefinite bytes
        b"\xa2\x00\x00\x00\x01",  # duplicate key
        b"\xa1\x80\x00",  # array as a key
        b"\xa1\xf5\x00",  # true as a key
        b"\x62\xc3\x28",  # bad UTF-8
        b"\x1c",  # reserved additional information
        b"\x9a\xff\xff\xff\xff",  # array of 4G items
        b"\x7a\xff\xff\xff\xff",  # text of 4 GB
        b"\x00\x00",  # trailing byte
        b"",
        b"\x19\x01",  # truncated argument
    ],
)
def test_device_decoder_refuses_outside_the_subset(data: bytes) -> None:
    with pytest.raises(cbor.DecodeError):
        cbor.loads(data)


@pytest.mark.parametrize("v", [1.5, {1.5: 0}, {(1, 2): 0}, 2**64, -(2**64) - 1, object()])
def test_device_encoder_refuses_outside_the_subset(v: Any) -> None:
    with pytest.raises(cbor.EncodeError):
        cbor.dumps(v)


def test_encoder_stops_at_the_end_of_its_buffer() -> None:
    w = cbor.Writer(bytearray(8))
    with pytest.raises(cbor.EncodeError):
        w.value("x" * 20)
    w = cbor.Writer(bytearray(8))
    w.value([1, 2, 3])
    assert bytes(w.buf[: w.pos]) == b"\x83\x01\x02\x03"
