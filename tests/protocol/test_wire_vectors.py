"""protocol/vectors/vectors.json is current, and both implementations (the
device codec under CPython and under MicroPython, and the host decoder) agree
with every vector."""

from __future__ import annotations

from typing import Any

import cbor2
import pytest

from baulk.protocol import cbor, frame, host_codec
from baulk.protocol import host_catalogue as C
from baulk.protocol import messages as M
from baulk.protocol.session import DEVICE, HOST

from . import make_vectors, mp_session
from .conftest import HERE, VECTORS, load_vectors, run_mp
from .mp_common import to_json

V = load_vectors()


def test_committed_vectors_are_what_the_generator_writes() -> None:
    assert VECTORS.read_text(encoding="utf-8") == make_vectors.render(), (
        "run: .venv/bin/python tests/protocol/make_vectors.py"
    )


def test_every_message_type_has_a_vector() -> None:
    assert {v["type"] for v in V["valid"]} == set(C.TYPES)


def test_every_required_invalid_kind_has_a_vector() -> None:
    kinds = {v["error"] for v in V["invalid"]}
    assert {"crc", "cobs", "short", "oversize", "unknown_type", "version", "body"} <= kinds
    names = {v["name"] for v in V["invalid"]}
    assert {"bad_crc", "truncated", "oversize", "unknown_type", "wrong_major"} <= names
    # the gaps an implementation written from SPEC.md alone found (issue 16)
    assert {
        "zero_inside",
        "zero_inside_rest",
        "key_false",
        "key_float",
        "key_null",
        "key_bytes",
        "key_array",
        "nested_key_false",
        "text_name_33_bytes",
        "text_key_name_33_bytes",
    } <= names
    assert {v["receiver"] for v in V["wrong_direction"]} == {"device", "host"}


def test_every_question_settled_in_1_2_has_its_vector() -> None:
    """Issue 24: what SPEC.md 1.1 left open, each pinned by a vector."""
    valid = {v["name"] for v in V["valid"]}
    invalid = {v["name"] for v in V["invalid"]}
    assert {
        "command_text_key_not_a_name_unchecked",  # other text keys: not checked
        "command_text_key_list_not_names",
        "setup_match_keys_outside_its_table",  # text keys in setup_match: ignored
        "state_colours_all",  # the bitmask's bound
        "state_colour_twice",  # a repeated colour is not in value order
        "state_last_foul_extra_key",  # last_foul's keys
        "checkpoint_no_marks",
        "command_310_bytes",
    } <= valid
    assert {
        "too_deep_empty",  # D1
        "text_key_occupied_nine",  # D2
        "text_key_beside_its_key",
        "players_mixed",
        "state_colours_64",
        "state_last_foul_without_kind",
        "checkpoint_marks_not_whole",
        "unknown_type_float",
    } <= invalid
    wrong_way = {v["name"] for v in V["wrong_direction"]}
    assert {"pocket_check_to_device", "check_request_to_host", "health_to_device"} <= wrong_way


def test_every_vector_is_one_frame_on_a_stream() -> None:
    """Its only 0x00 is the delimiter at its end, so a reader fed the hex as a
    stream sees exactly one frame."""
    for v in V["valid"] + V["invalid"] + V["wrong_direction"] + V["session"]:
        wire = bytes.fromhex(v["hex"])
        assert wire.count(0) == 1 and wire[-1] == 0, v["name"]
        assert len(frame.FrameReader().feed(wire)) == 1, v["name"]
        assert len(frame.FrameReader(host_codec.MAX_UPDATE_WIRE).feed(wire)) == 1, v["name"]
        assert len(host_codec.StreamDecoder().feed(wire)) == 1, v["name"]


def test_the_update_data_vector_is_oversize_to_a_match_and_taken_by_the_update_mode() -> None:
    """SPEC.md 2: update_data alone may be longer than MAX_FRAME; only the
    update mode's reader (MAX_UPDATE_WIRE) takes it, a match's counts it
    oversize, and so does the host's stream (a host never receives one)."""
    v = next(v for v in V["valid"] if v["name"] == "update_data")
    wire = bytes.fromhex(v["hex"])
    assert len(wire) > frame.MAX_WIRE and len(wire) == v["wire_bytes"] <= host_codec.MAX_UPDATE_WIRE
    match = frame.FrameReader()
    assert [f.error for f in match.feed(wire)] == ["oversize"]
    assert match.garbage == len(wire) - 1  # counted, and the next frame decodes
    (got,) = frame.FrameReader(host_codec.MAX_UPDATE_WIRE).feed(wire)
    assert C.outcome(got) is None and to_json(got.body) == v["body"]
    assert [f.error for f in host_codec.StreamDecoder().feed(wire)] == ["oversize"]


def test_every_change_of_1_5_has_its_vector() -> None:
    valid = {v["name"] for v in V["valid"]}
    assert {"update_request", "update_request_confirm", "update_status"} <= valid
    assert {"update_status_refused", "update_data", "update_data_commit"} <= valid
    invalid = {v["name"] for v in V["invalid"]}
    assert {"update_data_1025_bytes", "update_request_op_2", "update_status_state_6"} <= invalid
    assert "update_data_over_its_frame" in invalid
    wrong_way = {v["name"] for v in V["wrong_direction"]}
    assert {"update_request_to_host", "update_status_to_device"} <= wrong_way


@pytest.mark.parametrize("v", V["wrong_direction"] + V["session"], ids=lambda v: v["name"])
def test_session_vector_gets_its_answer(v: dict[str, Any]) -> None:
    """Frames good in themselves that the receiving session refuses (the
    wrong direction, REL set or missing against the type's stream, a command
    over 310 bytes), and the frames beside them that it takes."""
    wire = bytes.fromhex(v["hex"])
    role = DEVICE if v["receiver"] == "device" else HOST
    assert C.outcome(frame.decode_frame(wire)) is None  # a good frame in itself, ...
    assert host_codec.decode_frame(wire).error is None
    decode = frame.decode_frame if role == DEVICE else host_codec.decode_frame
    assert mp_session.answer(role, wire, decode) == v["answer"]  # ... and what its receiver does
    if v in V["wrong_direction"] and v["flags"] & frame.FLAG_REL:
        s = mp_session.opened(role, decode)
        s.on_frame(decode(wire), 30)
        (error,) = [m[3] for m in s.poll(40) if m[0] == M.ERROR]
        assert "is not sent to the" in error[1]


def test_every_stream_refusal_has_a_session_vector() -> None:
    """SPEC.md 3: REL set on an unreliable type, missing on a reliable one."""
    names = {v["name"] for v in V["session"]}
    assert {"time_rel_to_device", "command_undo_no_rel_to_device"} <= names
    assert {"command_311_bytes_to_device", "command_310_bytes_rel_to_device"} <= names
    assert {v["answer"] for v in V["wrong_direction"] + V["session"]} == {
        "error 2, acked",
        "dropped, counted",
        "delivered",
        "taken",
    }


def device_encoded(mtype: int, flags: int, seq: int, body: Any) -> bytes:
    """The device codec's frame: encode_frame's, or for update_data's longer
    frames, which a device never sends, a writer as long as the update mode's."""
    try:
        return frame.encode_frame(mtype, flags, seq, body)
    except cbor.EncodeError:
        assert mtype == host_codec.UPDATE_DATA
        return bytes(frame.FrameWriter(host_codec.MAX_UPDATE_FRAME).build(mtype, flags, seq, body))


@pytest.mark.parametrize("v", V["valid"], ids=lambda v: v["name"])
def test_valid_vector_device_codec(v: dict[str, Any]) -> None:
    wire = bytes.fromhex(v["hex"])
    f = frame.decode_frame(wire)
    assert C.outcome(f) is None
    assert (f.ver, f.mtype, f.flags, f.seq) == (v["version"], v["type"], v["flags"], v["seq"])
    assert to_json(f.body) == v["body"]
    if v["version"] == frame.VERSION_BYTE:
        assert device_encoded(v["type"], v["flags"], v["seq"], f.body) == wire


@pytest.mark.parametrize("v", V["valid"], ids=lambda v: v["name"])
def test_valid_vector_host_decoder(v: dict[str, Any]) -> None:
    wire = bytes.fromhex(v["hex"])
    f = host_codec.parse(wire)
    assert (f.ver, f.mtype, f.flags, f.seq) == (v["version"], v["type"], v["flags"], v["seq"])
    assert f.body == cbor2.loads(bytes.fromhex(v["body_hex"]))
    assert to_json(f.body) == v["body"]
    assert len(wire) == v["wire_bytes"]
    if v["version"] == frame.VERSION_BYTE:
        assert host_codec.encode_frame(v["type"], v["flags"], v["seq"], f.body) == wire


@pytest.mark.parametrize("v", V["invalid"], ids=lambda v: v["name"])
def test_invalid_vector_both_decoders(v: dict[str, Any]) -> None:
    wire = bytes.fromhex(v["hex"])
    assert C.outcome(frame.decode_frame(wire)) == v["error"]
    assert host_codec.decode_frame(wire).error == v["error"]
    if v["error"] != "unknown_type":
        with pytest.raises(host_codec.FrameError) as e:
            host_codec.parse(wire)
        assert e.value.code == v["error"]


ENCODED = [v for v in V["invalid"] if "input" in v]


def test_every_change_of_1_3_has_its_vector() -> None:
    assert "text_name_40_bytes_from_input" in {v["name"] for v in ENCODED}


@pytest.mark.parametrize("v", ENCODED, ids=lambda v: v["name"])
def test_encoded_vector_both_encoders(v: dict[str, Any]) -> None:
    """The engine input of the vector, encoded by the device (an event's and
    a command's raw input) and by the host (a Command record), is the body
    of its frame; both checks refuse that body, for the same reason."""
    body = cbor2.loads(bytes.fromhex(v["body_hex"]))
    assert to_json(body) == v["body"]
    device = M.event_to_wire(v["input"])
    assert device == body and cbor.dumps(device) == bytes.fromhex(v["body_hex"])
    assert {k: x for k, x in M.event_body(v["input"], [0, 0]).items() if k != -1} == body
    host = host_codec.body_of(host_codec.Command(input=v["input"]))
    record = host_codec.record_of(M.COMMAND, host)
    assert host == body and isinstance(record, host_codec.Command)
    assert record.input == v["input"]
    reason = M.check(v["type"], body)
    assert reason is not None and host_codec.check_body(v["type"], body) == reason
    assert any(f"key '{k}' must be" in reason for k in body if isinstance(k, str))


def test_pot_vector_is_within_budget() -> None:
    pot = next(v for v in V["valid"] if v["name"] == "event_pot")
    assert pot["wire_bytes"] <= 24
    assert pot["meaning"]["input"] == {"ev": "pot", "ball": "red", "pocket": "tl"}


def test_long_vector_crosses_a_full_cobs_block() -> None:
    v = next(v for v in V["valid"] if v["name"] == "setup_match_long_names")
    wire = bytes.fromhex(v["hex"])
    codes = []
    i = 0
    while i < len(wire) - 1:
        codes.append(wire[i])
        i += wire[i]
    assert 0xFF in codes


@pytest.mark.micropython
def test_vectors_under_micropython() -> None:
    r = run_mp("mp_vectors.py", str(VECTORS), files=(VECTORS, HERE / "mp_vectors.py"))
    out = r.stdout.decode()
    assert f"checked {len(V['valid']) + len(V['invalid'])}" in out
    assert "FAIL" not in out


@pytest.mark.micropython
def test_session_vectors_under_micropython() -> None:
    """The device's and the host's Session under MicroPython, the device's
    with its own catalogue alone (no host_catalogue loaded), as on a board."""
    r = run_mp("mp_session.py", str(VECTORS), files=(VECTORS, HERE / "mp_session.py"))
    out = r.stdout.decode()
    assert f"checked {len(V['wrong_direction']) + len(V['session'])}" in out
    assert "FAIL" not in out


def test_checkpoint_vector_is_what_device_and_verifier_make() -> None:
    """The chain, marks and MAC of the checkpoint vector, again by the
    device's journal code and by the host's verifier."""
    from baulk.firmware.journal import hmac_sha256
    from baulk.host.referee import verify

    v = next(v for v in V["valid"] if v["name"] == "checkpoint")
    body = cbor2.loads(bytes.fromhex(v["body_hex"]))
    key = bytes.fromhex(v["chain_key"])
    head = verify.GENESIS
    for e in v["chain_events"]:
        head = verify.chain(head, bytes.fromhex(e))
    assert head == body[2]
    msg = body[0].to_bytes(4, "big") + body[1].to_bytes(4, "big") + body[2] + body[3]
    assert hmac_sha256(key, msg) == body[4] == verify.mac_of(key, body[0], body[1], head, body[3])
    record = host_codec.record_of(M.CHECKPOINT, body)
    assert isinstance(record, host_codec.Checkpoint) and record.at == 2 and record.boot == 7
