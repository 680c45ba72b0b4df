"""update_data's longer frames (SPEC.md 2, since 1.5): only a reader made for
the update mode takes one, and of that type alone; a match's reader, and the
host's stream, count one oversize; the host encodes one and no other type
that long."""

from __future__ import annotations

import binascii
from typing import Any

import cbor2
import pytest

from baulk.protocol import cobs, frame, host_codec
from baulk.protocol import host_catalogue as C
from baulk.protocol import messages as M

UPDATE = host_codec.UPDATE_DATA


def raw_frame(mtype: int, body: Any) -> bytes:
    """The unstuffed frame, made apart from both codecs."""
    raw = bytes((frame.VERSION_BYTE, mtype, 0, 0, 0)) + cbor2.dumps(body, canonical=True)
    return raw + binascii.crc32(raw).to_bytes(4, "little")


def test_the_bounds_are_what_the_longest_chunk_needs() -> None:
    longest = {0: 2**32 - 1, 1: bytes(1024), 2: True}  # u32 offset, 1024 bytes, commit
    assert len(cbor2.dumps(longest, canonical=True)) == 1037 <= host_codec.MAX_UPDATE_BODY
    assert (
        host_codec.MAX_UPDATE_FRAME == frame.HEADER_LEN + host_codec.MAX_UPDATE_BODY + frame.CRC_LEN
    )
    assert cobs.max_encoded_len(host_codec.MAX_UPDATE_FRAME) == host_codec.MAX_UPDATE_WIRE
    # the worst stuffing: no zero at all, so 4 whole runs of 254 and the rest
    worst = cobs.encode(b"\x01" * host_codec.MAX_UPDATE_FRAME)
    assert len(worst) == host_codec.MAX_UPDATE_WIRE == host_codec.MAX_UPDATE_FRAME + 1 + 4 + 1
    assert C.SCHEMA[UPDATE][1][2:4] == (1, 1024)  # data: 1 to 1024 bytes


def test_the_host_encodes_a_long_body_for_update_data_alone() -> None:
    pad = host_codec.MAX_UPDATE_BODY - len(cbor2.dumps({0: 0, 1: bytes(1024), 3: b""}))
    body = {0: 0, 1: bytes(1024), 3: bytes(pad)}  # key 3 is no key of update_data's
    assert len(cbor2.dumps(body, canonical=True)) == host_codec.MAX_UPDATE_BODY
    wire = host_codec.encode_frame(UPDATE, 0, 0, body)
    assert host_codec.decode_frame(wire).error is None
    with pytest.raises(ValueError, match="over 1040"):
        host_codec.encode_frame(UPDATE, 0, 0, {**body, 3: bytes(pad + 1)})
    for mtype in (host_codec.UPDATE_REQUEST, M.LOG):  # every other type keeps MAX_BODY
        big = {0: 0, 1: "x" * (frame.MAX_BODY - 6)}
        assert len(cbor2.dumps(big)) == frame.MAX_BODY + 1
        with pytest.raises(ValueError, match="over 503"):
            host_codec.encode_frame(mtype, 0, 0, big)


def test_a_match_reader_counts_an_update_frame_just_over_max_frame_oversize() -> None:
    """Zeros make it short on the line, so it fits a match's buffer: its
    length unstuffed decides, and a match takes no frame over MAX_FRAME."""
    raw = raw_frame(UPDATE, {0: 0, 1: bytes(497)})
    assert len(raw) == frame.MAX_FRAME + 1
    wire = cobs.encode(raw)
    assert len(wire) <= frame.MAX_WIRE
    good = frame.encode_frame(M.TIME, 0, 0, {0: 5})
    match = frame.FrameReader()
    assert [f.error for f in match.feed(wire + good)] == ["oversize", None]
    assert [f.error for f in host_codec.StreamDecoder().feed(wire + good)] == ["oversize", None]
    update = frame.FrameReader(host_codec.MAX_UPDATE_WIRE)
    (got, after) = update.feed(wire + good)
    assert C.outcome(got) is None and got.body == {0: 0, 1: bytes(497)}
    assert after.error is None and after.mtype == M.TIME
    # held whole, as the vectors are: both decoders take it
    assert C.outcome(frame.decode_frame(wire)) is None
    assert host_codec.decode_frame(wire).error is None


def test_the_update_reader_takes_no_other_type_over_max_frame() -> None:
    for body in ({0: 1, 1: "x" * 600}, {0: 1, 1: "x" * 1000}):
        wire = cobs.encode(raw_frame(M.LOG, body))
        assert frame.MAX_WIRE < len(wire) <= host_codec.MAX_UPDATE_WIRE
        (got,) = frame.FrameReader(host_codec.MAX_UPDATE_WIRE).feed(wire)
        assert got.error == "oversize"
        assert frame.decode_frame(wire).error == "oversize"
        assert host_codec.decode_frame(wire).error == "oversize"


def test_an_update_frame_over_its_own_bound_is_oversize_everywhere() -> None:
    over = cobs.encode(raw_frame(UPDATE, {0: 0, 1: bytes(1024), 3: bytes(8)}))
    longer = cobs.encode(raw_frame(UPDATE, {0: 0, 1: b"\x01" * 1024, 3: b"\x01" * 20}))
    assert len(longer) > host_codec.MAX_UPDATE_WIRE
    good = frame.encode_frame(M.TIME, 0, 0, {0: 5})
    for wire in (over, longer):
        reader = frame.FrameReader(host_codec.MAX_UPDATE_WIRE)
        assert [f.error for f in reader.feed(wire + good)] == ["oversize", None]
        assert frame.decode_frame(wire).error == "oversize"
        assert host_codec.decode_frame(wire).error == "oversize"


@pytest.mark.parametrize("fill", [b"\x01", b"\x00", b"\x07\x00\x09"])
def test_the_update_modes_writer_stuffs_the_longest_frame_in_place(fill: bytes) -> None:
    """FrameWriter stuffs within one buffer; as long as the update mode's
    (firmware/update/mode.py writes its update_status with it), it still
    makes the plain encoding of frames with whole 254-byte runs."""
    w = frame.FrameWriter(host_codec.MAX_UPDATE_FRAME)
    data = (fill * 1024)[:1024]
    body = {0: 2**32 - 1, 1: data, 2: True}
    out = bytes(w.build(UPDATE, 0, 0, body))
    assert out == cobs.encode(raw_frame(UPDATE, body))
    (got,) = frame.FrameReader(host_codec.MAX_UPDATE_WIRE).feed(out)
    assert got.error is None and got.body == body
