"""A frame whose CRC holds but whose body lies outside the subset (SPEC.md 6)
reaches the device's session as what it is, a body that fails its check:
acknowledged and answered with error 2 when REL is set, dropped when not.
Before the fix the device's Session read an attribute only the host's
Frame has and raised AttributeError out of the link."""

from __future__ import annotations

import binascii
from typing import Any

import pytest

from baulk.protocol import cobs, frame
from baulk.protocol import messages as M
from baulk.protocol.session import DEVICE

from . import mp_session
from .conftest import load_vectors

V = load_vectors()
BODY_VECTORS = [v for v in V["invalid"] if v["error"] == "body"]
# A light command with key 2 twice, REL, seq 1: the frame that stopped a table.
DUPLICATE_KEY_LIGHT = bytes.fromhex("05110d010102a202f506f415254cb300")


def _as(wire: bytes, flags: int, seq: int) -> bytes:
    """The same frame with another flags byte and seq, its CRC made again."""
    raw = bytearray(cobs.decode(wire[:-1]))
    raw[2], raw[3], raw[4] = flags, seq & 0xFF, seq >> 8
    raw[-4:] = binascii.crc32(bytes(raw[:-4])).to_bytes(4, "little")
    return cobs.encode(bytes(raw))


def _receive(wire: bytes) -> tuple[list[Any], list[Any]]:
    s = mp_session.opened(DEVICE, frame.decode_frame)
    s.on_frame(frame.decode_frame(wire), 30)
    return s.drain(), s.poll(40)


def test_the_frame_that_stopped_a_table_is_acked_and_answered_with_error_2() -> None:
    inbox, sent = _receive(DUPLICATE_KEY_LIGHT)
    assert inbox == [("invalid", M.LIGHT, 1, "duplicate map key")]
    assert [(m[0], m[3]) for m in sent] == [
        (M.ERROR, {0: M.ERR_BODY, 1: "duplicate map key", 2: M.LIGHT, 3: 1}),
        (M.ACK, {0: 1}),
    ]


@pytest.mark.parametrize("v", BODY_VECTORS, ids=lambda v: v["name"])
def test_every_body_vector_reaches_the_device_session_as_a_bad_body(v: dict[str, Any]) -> None:
    """Outside the subset (the device's decoder says so) or outside the
    catalogue (its session's check does): the same answer."""
    wire = bytes.fromhex(v["hex"])
    f = frame.decode_frame(wire)
    inbox, sent = _receive(_as(wire, frame.FLAG_REL, 1))
    # health, on a board: a type it does not know
    if f.error is None and M.type_of(f.mtype) is None:
        assert [x[:3] for x in inbox] == [("ignored", f.mtype, 1)]
    else:
        assert [x[:3] for x in inbox] == [("invalid", f.mtype, 1)]
    assert [m[0] for m in sent] == [M.ERROR, M.ACK]
    error = sent[0][3]
    assert error[0] in (M.ERR_BODY, M.ERR_UNSUPPORTED) and (error[2], error[3]) == (f.mtype, 1)
    inbox, sent = _receive(_as(wire, 0, 0))
    assert inbox == [] and list(sent) == []
