"""Writes protocol/vectors/vectors.json: test frames for every message type,
valid and invalid, with their decoded meaning.

The frames are built here from cbor2 (canonical mode), binascii.crc32 and a
COBS encoder of this file's own, not from the device codec, so checking both
implementations against them is a real cross-check.  test_wire_vectors.py
regenerates the file in memory and fails if the committed copy differs.

    .venv/bin/python -m tests.protocol.make_vectors
"""

from __future__ import annotations

import binascii
import hashlib
import hmac
import json
import struct
import sys
from pathlib import Path
from typing import Any

import cbor2

from baulk.protocol import cbor, frame
from baulk.protocol import host_catalogue as C
from baulk.protocol import host_codec as H
from baulk.protocol import messages as M
from tests.protocol.samples import POT, STATE

OUT = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "vectors.json"
# The key of the checkpoint vector: the simulated boards' known key
# (firmware/sim/board.py SIM_KEY), b"baulk simulator key, not secret!".
CHECKPOINT_KEY = b"baulk simulator key, not secret!"
VERSION = frame.VERSION_BYTE  # 1.5
REL = 1


def cobs_encode(raw: bytes) -> bytes:
    # Built block by block from the definition: each block is a code byte n
    # and n-1 data bytes; a code below 0xFF stands for those bytes and a zero
    # (except at the end of the frame); 0xFF stands for 254 bytes, no zero.
    out = bytearray()
    i = 0
    n = len(raw)
    while True:
        j = i
        while j < n and raw[j] != 0 and j - i < 254:
            j += 1
        if j - i == 254:
            out.append(0xFF)
            out += raw[i:j]
            i = j
            if i == n:
                break
            continue
        out.append(j - i + 1)
        out += raw[i:j]
        if j >= n:
            break
        i = j + 1  # skip the zero this block stands for
    return bytes(out) + b"\x00"


def build(mtype: int, flags: int, seq: int, body_bytes: bytes, ver: int = VERSION) -> bytes:
    raw = bytes((ver, mtype, flags, seq & 0xFF, (seq >> 8) & 0xFF)) + body_bytes
    raw += binascii.crc32(raw).to_bytes(4, "little")
    return raw


def to_json(v: Any) -> Any:
    """CBOR value -> JSON with types kept: maps become {"map": [[k, v], ...]}."""
    if isinstance(v, dict):
        keys = sorted(v, key=cbor.key_rank)  # wire order
        return {"map": [[to_json(k), to_json(v[k])] for k in keys]}
    if isinstance(v, list):
        return [to_json(x) for x in v]
    if isinstance(v, bytes):
        return {"bytes": v.hex()}
    return v


def meaning(mtype: int, body: dict[Any, Any]) -> dict[str, Any]:
    schema = C.SCHEMA[mtype]
    if mtype in (M.EVENT, M.COMMAND, M.SETUP_MATCH):
        # a setup_match's match: the keys of its table alone (SPEC.md 7.6)
        table = schema if mtype == M.SETUP_MATCH else None
        out: dict[str, Any] = {"input": M.wire_to_event(body, table)}
        for k, v in body.items():
            if isinstance(k, int) and k < 0:
                out[schema[k][0]] = v
        return out
    if mtype == M.STATE:
        at, st = C.wire_to_state(body)
        return {"at": at, "state": st}
    return {schema[k][0]: to_json(v) for k, v in body.items() if k in schema}


def checkpoint_vector() -> dict[str, Any]:
    """A checkpoint over two events from the chain's start, built here from
    hashlib, hmac and zlib's CRC-32 as SPEC.md "Checkpoints" says, with the
    events' bytes and the key, so another implementation can redo it."""
    events = [
        cbor2.dumps(M.event_body(POT, [1, 0], boot=7), canonical=True),
        cbor2.dumps(
            M.event_body({"ev": "pot", "ball": "black", "pocket": "br"}, [8, 0], boot=7),
            canonical=True,
        ),
    ]
    head = bytes(32)
    marks = b""
    for e in events:
        head = hashlib.sha256(head + e).digest()
        marks += binascii.crc32(e).to_bytes(4, "big")
    at, boot = 2, 7
    msg = at.to_bytes(4, "big") + boot.to_bytes(4, "big") + head + marks
    mac = hmac.new(CHECKPOINT_KEY, msg, hashlib.sha256).digest()
    v = valid(
        "checkpoint",
        M.CHECKPOINT,
        {0: at, 1: boot, 2: head, 3: marks, 4: mac},
        3,
        "the chain's head after events 1 and 2 (chain_events) from 32 zero bytes, "
        "their CRC-32 marks, HMAC-SHA256 under chain_key",
    )
    v["chain_events"] = [e.hex() for e in events]
    v["chain_key"] = CHECKPOINT_KEY.hex()
    return v


# The money chain's head the anchor vectors carry: after three rows (SPEC.md 7.8).
MONEY_N = 3
MONEY_HEAD = hashlib.sha256(b"the host's money chain after 3 rows").digest()


def anchored_checkpoint_vector(plain: dict[str, Any]) -> dict[str, Any]:
    """The checkpoint vector's checkpoint again, made when the device took
    the anchor: the same place (at, boot, head), no marks since, and the
    money head under an anchor MAC of its own (SPEC.md 7.8, "Anchors")."""
    at, boot = 2, 7
    head = bytes.fromhex(plain["body"]["map"][2][1]["bytes"])
    place = at.to_bytes(4, "big") + boot.to_bytes(4, "big") + head
    mac = hmac.new(CHECKPOINT_KEY, place, hashlib.sha256).digest()
    money_mac = hmac.new(
        CHECKPOINT_KEY, place + MONEY_N.to_bytes(4, "big") + MONEY_HEAD, hashlib.sha256
    ).digest()
    v = valid(
        "checkpoint_anchored",
        M.CHECKPOINT,
        {0: at, 1: boot, 2: head, 3: b"", 4: mac, 5: MONEY_N, 6: MONEY_HEAD, 7: money_mac},
        4,
        "since 1.4: the checkpoint the device makes on taking the anchor vector's head, "
        "no event since the checkpoint vector; money_mac is HMAC-SHA256 under chain_key of "
        "at, boot, head, money_n (4 bytes each but head) and money",
    )
    v["chain_key"] = CHECKPOINT_KEY.hex()
    return v


# The firmware update's stream (SPEC.md 7.9): its length, where a chunk of it
# starts, and the chunk, 1024 bytes: update_data's longest.
UPDATE_SIZE = 123_456
UPDATE_AT = 65_536
UPDATE_CHUNK = b"".join(hashlib.sha256(b"a release, bytes %d" % i).digest() for i in range(32))


# A trace's records (SPEC.md 7.6 `trace`): bl's drop beam broken, the speed
# beams broken and restored, bl's beam restored; two windows of bl.
TRACE_EDGES = b"".join(
    struct.pack("<BBH", src, level, dt)
    for src, level, dt in ((4, 0, 1), (8, 0, 15), (8, 1, 19), (4, 1, 19))
)
TRACE_WINDOWS = struct.pack("<BBH4H", 4, 0, 3, 212, 131, 52, 31) + struct.pack(
    "<BBH4H", 4, 1, 8, 130, 80, 33, 19
)


def valid(
    name: str, mtype: int, body: Any, seq: int = 0, note: str = "", ver: int = VERSION
) -> dict[str, Any]:
    flags = REL if M.is_reliable(mtype) else 0
    body_bytes = cbor2.dumps(body, canonical=True)
    raw = build(mtype, flags, seq, body_bytes, ver)
    wire = cobs_encode(raw)
    v: dict[str, Any] = {
        "name": name,
        "hex": wire.hex(),
        "wire_bytes": len(wire),
        "version": ver,
        "type": mtype,
        "type_name": M.type_name(mtype),
        "flags": flags,
        "seq": seq & 0xFFFF,
    }
    if flags:
        v["seq_full"] = seq
    v["body_hex"] = body_bytes.hex()
    v["body"] = to_json(body)
    v["meaning"] = meaning(mtype, body)
    if mtype == M.STATE:
        again = M.state_to_wire(v["meaning"]["state"], v["meaning"]["at"])
        if again != body:  # it carried keys the snapshot does not know
            v["state_encodes_to"] = to_json(again)
    if note:
        v["note"] = note
    return v


def invalid(name: str, wire: bytes, error: str, why: str) -> dict[str, Any]:
    return {"name": name, "hex": wire.hex(), "error": error, "why": why}


def encoded(
    name: str, mtype: int, seq: int, engine_input: dict[str, Any], body: Any, why: str
) -> dict[str, Any]:
    """An invalid frame with the engine input it is encoded from
    (messages.event_to_wire, SPEC.md 7.3): `body`, written out here, is what
    every encoder must make of `input`; the frame is refused at its check."""
    body_bytes = cbor2.dumps(body, canonical=True)
    v = invalid(name, cobs_encode(build(mtype, REL, seq, body_bytes)), "body", why)
    v["type"] = mtype
    v["input"] = engine_input
    v["body_hex"] = body_bytes.hex()
    v["body"] = to_json(body)
    return v


def valid_vectors() -> list[dict[str, Any]]:
    ev = M.event_body
    w = M.event_to_wire
    long_names = [["Ali" + "a" * 45, "Bahram" + "b" * 42], ["Cyrus" + "c" * 43, "Dara" + "d" * 44]]
    out = [
        valid(
            "hello",
            M.HELLO,
            {0: "baulk-fw 0.1.0", 1: "table-3", 2: 0x5EED1234, 3: 41, 4: 40, 5: 7, 6: 8, 7: 64},
        ),
        valid(
            "hello_newer_minor",
            M.HELLO,
            {0: "baulk-fw 0.2.0", 1: "table-3", 2: 7, 3: 0, 4: 1, 5: 0, 9: "a key added in 1.3"},
            ver=0x13,
            note="minor 3 and a key this catalogue lacks: accepted, the key ignored",
        ),
        valid(
            "hello_minor_1",
            M.HELLO,
            {0: "baulk-fw 0.1.0", 1: "table-3", 2: 7, 3: 0, 4: 1, 5: 0},
            ver=0x11,
            note="a 1.1 device: accepted",
        ),
        valid(
            "hello_older_minor",
            M.HELLO,
            {0: "baulk-fw 0.1.0", 1: "table-3", 2: 7, 3: 0, 4: 1, 5: 0},
            ver=0x10,
            note="a 1.0 device: accepted",
        ),
        valid("welcome", M.WELCOME, {0: "baulk 0.1.0", 1: 39, 2: 8, 3: 9, 5: 8}),
        valid(
            "welcome_refusal",
            M.WELCOME,
            {0: "baulk 0.1.0", 1: 0, 2: 1, 3: 0, 4: "table-9 is not configured on this host"},
        ),
        valid("event_pot", M.EVENT, ev(POT, [45, 120]), 41, "the 24-byte budget"),
        valid("event_pot_early", M.EVENT, ev(POT, [1, 0]), 1),
        valid("event_pot_no_pocket", M.EVENT, ev({"ev": "pot", "ball": "pink"}, [53, 7]), 42),
        valid(
            "event_pot_seq_over_16_bits",
            M.EVENT,
            ev({"ev": "pot", "ball": "black", "pocket": "br"}, [60, 7]),
            70000,
            "the header carries the low 16 bits; the receiver extends them",
        ),
        valid("event_strike", M.EVENT, ev({"ev": "strike", "t": 123456}, [45, 120]), 43),
        valid("event_rest", M.EVENT, ev({"ev": "rest"}, [45, 120]), 44),
        valid("event_off", M.EVENT, ev({"ev": "off", "ball": "blue"}, [45, 125]), 45),
        valid(
            "event_foul",
            M.EVENT,
            ev({"ev": "foul", "kind": "push", "ball": "blue"}, [45, 125], src=M.SRC_KEYPAD),
            46,
        ),
        valid("event_miss", M.EVENT, ev({"ev": "miss", "clear": True}, [45, 125], src=1), 47),
        valid("event_free_ball", M.EVENT, ev({"ev": "free_ball"}, [45, 125], src=1), 48),
        valid(
            "event_nominate", M.EVENT, ev({"ev": "nominate", "ball": "green"}, [45, 125], src=1), 49
        ),
        valid("event_play_again", M.EVENT, ev({"ev": "play_again"}, [45, 125], src=1), 50),
        valid("event_replace", M.EVENT, ev({"ev": "replace"}, [45, 125], src=1), 51),
        valid(
            "event_concede_match",
            M.EVENT,
            ev({"ev": "concede", "match": True}, [45, 125], src=1),
            52,
        ),
        valid("event_award", M.EVENT, ev({"ev": "award", "side": 1}, [0, 0], src=1), 53),
        valid("event_rerack", M.EVENT, ev({"ev": "rerack"}, [0, 0], src=1), 54),
        valid("event_toss", M.EVENT, ev({"ev": "toss", "side": 0}, [60, 60], src=1), 55),
        valid("event_undo", M.EVENT, ev({"ev": "undo"}, [60, 53], src=1), 56),
        valid(
            "event_spots",
            M.EVENT,
            ev({"ev": "spots", "occupied": ["black", "pink"]}, [60, 53], src=1),
            57,
        ),
        valid("event_claim", M.EVENT, ev({"ev": "claim"}, [70, 53], src=1), 58),
        valid("event_edge_replace", M.EVENT, ev({"ev": "edge_replace"}, [70, 53], src=1), 59),
        valid(
            "event_order", M.EVENT, ev({"ev": "order", "side": 1, "first": 1}, [0, 0], src=1), 60
        ),
        valid(
            "event_match",
            M.EVENT,
            ev(
                {"ev": "match", "players": ["Ali", "Reza"], "best_of": 7, "breaker": 0, "reds": 15},
                [0, 0],
                src=M.SRC_HOST,
                cmd=3,
            ),
            61,
        ),
        valid(
            "event_match_doubles",
            M.EVENT,
            ev(
                {"ev": "match", "players": [["A1", "A2"], ["B1", "B2"]], "best_of": 3, "reds": 6},
                [0, 0],
                src=M.SRC_KEYPAD,
            ),
            62,
        ),
        valid(
            "event_rejected",
            M.EVENT,
            ev(
                {"ev": "pot", "ball": "yellow", "pocket": "ml"},
                [12, 0],
                rejected="yellow is not on the table",
            ),
            63,
        ),
        valid(
            "event_earlier_boot",
            M.EVENT,
            ev(POT, [8, 0], boot=0x0BADCAFE),
            64,
            "recorded before a reset, sent again from the journal",
        ),
        valid(
            "event_name_and_key_not_in_catalogue",
            M.EVENT,
            ev(
                {"ev": "pot", "ball": "purple", "spin": "top"},
                [8, 0],
                rejected="unknown ball purple",
            ),
            65,
            "names outside the tables travel as text; unknown input keys by name",
        ),
        valid("state", M.STATE, M.state_to_wire(STATE, 64)),
        valid(
            "state_match_over",
            M.STATE,
            M.state_to_wire(
                {
                    "frame": 7,
                    "frames": [4, 3],
                    "scores": [71, 40],
                    "ball_on": None,
                    "frame_over": True,
                    "match_over": True,
                    "frame_winner": 0,
                    "match_winner": 0,
                    "colours": [],
                    "respot": [],
                    "reds": 0,
                },
                900,
            ),
        ),
        valid("ack", M.ACK, {0: 41}),
        valid("ack_large", M.ACK, {0: 70000}),
        valid("heartbeat", M.HEARTBEAT, {0: 41, 1: 3_600_000}),
        valid(
            "setup_match",
            M.SETUP_MATCH,
            {**w({"players": ["Ali", "Reza"], "best_of": 7, "breaker": 1}), -1: "operator"},
            9,
        ),
        valid(
            "setup_match_long_names",
            M.SETUP_MATCH,
            {**w({"players": long_names, "best_of": 35, "breaker": 1, "reds": 15}), -1: "o" * 48},
            0x0101,
            "longer than one 254-byte COBS block",
        ),
        valid(
            "setup_match_persian", M.SETUP_MATCH, w({"players": ["علی", "رضا"], "best_of": 5}), 10
        ),
        valid("command_undo", M.COMMAND, {**w({"ev": "undo"}), -1: "operator"}, 11),
        valid(
            "command_with_action",
            M.COMMAND,
            {**w({"ev": "award", "side": 1}), -1: "operator", -6: (0x5EED << 32) | 41},
            13,
            "-6: the action's id; the device applies each id once",
        ),
        valid(
            "setup_match_with_action",
            M.SETUP_MATCH,
            {**w({"players": ["Ali", "Reza"], "best_of": 3}), -6: (0x5EED << 32) | 40},
            12,
        ),
        valid(
            "event_answering_an_action",
            M.EVENT,
            ev(
                {"ev": "award", "side": 1},
                [0, 0],
                boot=7,
                src=M.SRC_HOST,
                cmd=13,
                act=(0x5EED << 32) | 41,
            ),
            66,
            "-5 the host seq and -6 the id of the action it answers",
        ),
        valid("command_foul", M.COMMAND, w({"ev": "foul", "kind": "touch", "ball": "red"}), 12),
        valid("settings_fa", M.SETTINGS, {0: 1}, 13, "the handset in Persian"),
        valid(
            "settings_newer_lang",
            M.SETTINGS,
            {0: 9},
            14,
            "a language code from a newer minor: well formed; the device refuses it (error 5)",
        ),
        valid(
            "name_bitmap",
            M.NAME_BITMAP,
            {0: 1, 1: 0, 2: 10, 3: 3, 4: bytes.fromhex("ffc0 8040 ffc0")},
            15,
            "side 1's name, 10 x 3 pixels: rows of 2 bytes, the first pixel in the high bit",
        ),
        valid(
            "name_bitmap_largest",
            M.NAME_BITMAP,
            {0: 0, 1: 1, 2: 128, 3: 16, 4: bytes(range(256))},
            16,
            "the largest: 128 x 16 pixels, 256 bytes (doubles: the second partner)",
        ),
        valid(
            "command_foul_last_kind",
            M.COMMAND,
            w({"ev": "foul", "kind": "foul_before_nomination"}),
            20,
            "foul kind 23, the last code of FOUL_KINDS (SPEC.md 7.2)",
        ),
        valid(
            "state_colours_array",
            M.STATE,
            {0: 65, 7: [6, 1]},
            note="colours out of value order travel as an array of codes into BALLS"
            " (not COLOURS): 6 black, 1 yellow",
        ),
        valid(
            "command_text_name_32_bytes",
            M.COMMAND,
            {0: 2, 1: "p" * M._NAME_TEXT_BYTES},
            21,
            "a ball name outside the table, as text, at its 32-byte limit",
        ),
        valid(
            "command_text_key_value_of_another_form",
            M.COMMAND,
            {0: 2, "ball": 5},
            22,
            "under its text name a value of another type travels unchecked",
        ),
        valid(
            "command_310_bytes",
            M.COMMAND,
            {0: 1, "zz": "q" * 292},
            25,
            "310 bytes unstuffed, the most a device takes in a command or setup_match",
        ),
        valid(
            "command_text_key_list_not_names",
            M.COMMAND,
            {0: 16, "occupied": [6, 5]},
            26,
            "a list that is not of names (text) under occupied: not held to key 11, it travels"
            " as it came (the engine refuses it)",
        ),
        valid(
            "command_text_key_not_a_name_unchecked",
            M.COMMAND,
            {0: 4, "side": 300, "players": [1, 2]},
            27,
            "text keys other than the names and occupied are not held to their integer key's"
            " check: the engine judges them",
        ),
        valid(
            "setup_match_keys_outside_its_table",
            M.SETUP_MATCH,
            {7: ["Ali", "Reza"], 8: 3, 1: 0, 0: 2, "reds": 10, "ball": "x" * 40},
            28,
            "keys its table does not list, integer or text, are ignored: the match is set up"
            " from keys 7-10 alone",
        ),
        valid(
            "state_colours_all",
            M.STATE,
            {0: 66, 7: 63},
            note="the bitmask's largest value: every colour on the table",
        ),
        valid(
            "state_colour_twice",
            M.STATE,
            {0: 67, 7: [1, 1]},
            note="a colour twice is not in value order (each must be above the one before):"
            " the array carries it, which a bitmask cannot",
        ),
        valid(
            "state_last_foul_extra_key",
            M.STATE,
            {0: 68, 15: {0: 1, 1: 4, 2: 13, 3: "a newer minor's"}},
            note="last_foul needs keys 0, 1 and 2; any other key in it is ignored",
        ),
        valid(
            "checkpoint_no_marks",
            M.CHECKPOINT,
            {0: 0, 1: 7, 2: bytes(32), 3: b"", 4: bytes(32)},
            4,
            "no marks (0 bytes is a multiple of 4); the MAC is not the decoder's to check",
        ),
        valid(
            "ack_text_key",
            M.ACK,
            {0: 3, "note": "x"},
            note="a text key outside the raw-input messages: ignored",
        ),
        valid("time", M.TIME, {0: 1767225600000, 1: 210}),
        valid("snapshot_request", M.SNAPSHOT_REQUEST, {}),
        valid("light_on", M.LIGHT, {0: True}, 13, "the table light on: a session opened"),
        valid("light_off", M.LIGHT, {0: False}, 14),
        valid(
            "log", M.LOG, {0: M.LOG_WARN, 1: "pocket ml colour sensor: low confidence", 2: 81234}
        ),
        valid(
            "health",
            H.HEALTH,
            {
                0: [412, 388, 131, 129, 405, 397],
                1: [0, 3, 0, 0, 71, 0],
                2: [2, 1, 0, 0, 9, 1],
                3: [1, 0, 0, 0, 6, 0],
                4: 2,
                5: 0b010000,
            },
            note="pocket bl: 71 beam glitches, 9 unclear colours, 6 corrections; faulty at the "
            "last check",
        ),
        valid(
            "health_checking",
            H.HEALTH,
            {0: [0] * 6, 1: [0] * 6, 2: [0] * 6, 3: [0] * 6, 7: True, 8: 21},
            note="a pocket check is running, started by the host's check_request 21",
        ),
        valid(
            "pocket_check",
            H.POCKET_CHECK,
            {
                0: [0, 0, 1, 0, 2, 0],
                1: [0, 0, 8, 0, 1, 0],
                2: [16, 15, 17, 14, 0, 15],
                3: [97, 95, 52, 98, 0, 96],
                4: [7, 7, 7, 7, C.NO_BALL, 7],
                5: 21,
                6: 5012345,
            },
            57,
            "ml weak (low confidence), bl faulty (the beam saw no ball); the check "
            "check_request 21 asked for",
        ),
        valid(
            "check_request",
            H.CHECK_REQUEST,
            {0: "desk"},
            21,
            "start a pocket check; the device refuses it mid-frame (error 5)",
        ),
        valid(
            "capture_request",
            H.CAPTURE_REQUEST,
            {0: True, 2: 300, 3: 40, 4: "desk"},
            22,
            "start a sensor capture of 300 s or 40 passages; refused during a match (error 5)",
        ),
        valid(
            "capture_request_stop",
            H.CAPTURE_REQUEST,
            {0: False},
            23,
            "stop the capture running",
        ),
        valid(
            "trace",
            H.TRACE,
            {0: 22, 1: 3, 2: 81200, 3: TRACE_EDGES, 4: TRACE_WINDOWS, 5: bytes((1, 2, 30, 0))},
            note="frame 3 of capture 22: pocket bl's drop beam broken at 81201 ms, the speed "
            "beams at 81215, restored at 81219; two windows of bl at 16x, the second at 4x; "
            "the referee asked about bl at 81230",
        ),
        valid(
            "trace_last",
            H.TRACE,
            {0: 22, 1: 4, 2: 81300, 3: b"", 4: b"", 6: 5, 7: 2},
            note="capture 22's last frame: its time was up; 5 records found the buffer full",
        ),
        valid(
            "error",
            M.ERROR,
            {
                0: M.ERR_REFUSED,
                1: "no match is set up: send setup_match first",
                2: M.COMMAND,
                3: 11,
            },
        ),
        checkpoint_vector(),
        valid(
            "anchor",
            H.ANCHOR,
            {0: MONEY_N, 1: MONEY_HEAD},
            24,
            "since 1.4: the host's money chain after 3 rows; the device signs it into a "
            "checkpoint at once (checkpoint_anchored)",
        ),
    ]
    out.append(anchored_checkpoint_vector(out[-2]))
    status = {3: 4, 4: "1.4.0", 5: False, 6: "confirmed", 7: "1.4.0"}  # 4 chunks; the boot record
    out += [
        valid(
            "update_request",
            H.UPDATE_REQUEST,
            {0: H.OP_STAGE, 1: UPDATE_SIZE, 2: "owner"},
            25,
            "since 1.5: leave the match for the update mode and take a release, a stream "
            "(tag and bundle) of 123456 bytes; refused (error 5) while a frame is in play, a pot "
            "waits for the referee or events wait for the host's ack",
        ),
        valid(
            "update_request_confirm",
            H.UPDATE_REQUEST,
            {0: H.OP_CONFIRM, 2: "owner"},
            26,
            "the trial that runs shook hands and sent health: make it the active version",
        ),
        valid(
            "update_status",
            H.UPDATE_STATUS,
            {0: H.UPDATE_RECEIVING, 1: UPDATE_AT + len(UPDATE_CHUNK), **status},
            note="the update mode has the stream up to byte 66560 (after the update_data "
            "vector's chunk) and takes 4 chunks in flight; 1.4.0 runs, confirmed",
        ),
        valid(
            "update_status_refused",
            H.UPDATE_STATUS,
            {0: H.UPDATE_REFUSED, 1: 0, 2: "downgrade", **status},
            note="the release is below the boot record's version floor: nothing changed on "
            "flash, and the stream starts again from byte 0",
        ),
        valid(
            "update_data",
            H.UPDATE_DATA,
            {0: UPDATE_AT, 1: UPDATE_CHUNK},
            note="1024 bytes of the stream from byte 65536: 1044 bytes unstuffed, over "
            "MAX_FRAME, which only the update mode's reader takes (a match's: oversize)",
        ),
        valid(
            "update_data_commit",
            H.UPDATE_DATA,
            {0: UPDATE_SIZE, 2: True},
            note="the whole stream, 123456 bytes, is sent: check it from flash and commit it",
        ),
    ]
    return out


def invalid_vectors(valid_list: list[dict[str, Any]]) -> list[dict[str, Any]]:
    pot = next(v for v in valid_list if v["name"] == "event_pot")
    pot_raw = build(M.EVENT, REL, 41, bytes.fromhex(pot["body_hex"]))
    bad_crc = bytearray(pot_raw)
    bad_crc[-1] ^= 0x40
    flipped = bytearray(pot_raw)
    flipped[7] ^= 0x01
    wire = cobs_encode(pot_raw)
    # truncations: inside a block (the code overruns the end) and at a block edge
    codes = []
    i = 0
    while i < len(wire) - 1:
        codes.append(i)
        i += wire[i]
    cut_inside = wire[: len(wire) - 4] + b"\x00"
    edge = codes[-1]
    cut_edge = wire[:edge] + b"\x00"
    # a zero in the middle of the longest block: the run up to it ends there
    # with its block overrunning; what follows is read as a frame of its own
    longest = max(codes, key=lambda c: wire[c])
    zero_at = longest + wire[longest] // 2
    rest = wire[zero_at + 1 :]
    rest_error = C.outcome(frame.decode_frame(rest))
    # an update_data one byte over its own bound (SPEC.md 2): 1024 bytes of
    # data and 8 more under a key it does not list
    over = build(H.UPDATE_DATA, 0, 0, cbor2.dumps({0: 0, 1: bytes(1024), 3: bytes(8)}))
    assert len(over) == H.MAX_UPDATE_FRAME + 1
    over_update = cobs_encode(over)
    assert len(over_update) <= H.MAX_UPDATE_WIRE  # refused by its length unstuffed
    evb = cbor2.dumps({0: 2, 1: 0, -1: [1, 0]}, canonical=True)
    big = {0: 3, 1: "x" * 600}
    return [
        invalid("bad_crc", cobs_encode(bytes(bad_crc)), "crc", "last CRC byte changed"),
        invalid("bit_flip", cobs_encode(bytes(flipped)), "crc", "one body bit flipped in transit"),
        invalid(
            "truncated", cut_inside, "cobs", "cut 3 bytes before its end: the last block overruns"
        ),
        invalid(
            "truncated_at_block", cut_edge, "crc", "cut at a block boundary: stuffing fine, CRC not"
        ),
        invalid("short", cobs_encode(bytes((VERSION, M.ACK, 0, 0, 0, 0xA0))), "short", "6 bytes"),
        invalid(
            "oversize",
            cobs_encode(build(M.LOG, 0, 0, cbor2.dumps(big, canonical=True))),
            "oversize",
            "over MAX_FRAME",
        ),
        invalid(
            "zero_inside",
            wire[:zero_at] + b"\x00",
            "cobs",
            "event_pot with a 0x00 in place of a byte in its longest block: the frame"
            " ends at that zero, and its block runs past the end",
        ),
        invalid(
            "zero_inside_rest",
            rest,
            rest_error,
            "the bytes after that zero, which a stream reader takes as the next frame",
        ),
        invalid(
            "unknown_type",
            cobs_encode(build(200, REL, 5, cbor2.dumps({0: 1}))),
            "unknown_type",
            "type 200: ignored, and acked since it is reliable",
        ),
        invalid(
            "unknown_type_float",
            cobs_encode(build(200, REL, 6, cbor2.dumps({0: 1.5}))),
            "body",
            "type 200 with a float in its body: outside the subset before its type is looked"
            " at, so acked and answered with error 2, not 3",
        ),
        invalid(
            "wrong_major",
            cobs_encode(
                build(M.HELLO, 0, 0, cbor2.dumps({0: "fw 9", 1: "t", 2: 1, 3: 0, 4: 1, 5: 0}), 0x20)
            ),
            "version",
            "protocol 2.0: refused with a message",
        ),
        invalid(
            "trailing",
            cobs_encode(build(M.EVENT, REL, 1, evb + b"\x00")),
            "body",
            "a byte after the body",
        ),
        invalid(
            "float",
            cobs_encode(build(M.EVENT, REL, 1, cbor2.dumps({0: 2, 1: 1.5, -1: [1, 0]}))),
            "body",
            "floats are not in the subset",
        ),
        invalid(
            "float_under_unknown_key",
            cobs_encode(build(M.ACK, 0, 0, cbor2.dumps({0: 3, 7: 0.5}))),
            "body",
            "not even where the key is unknown",
        ),
        invalid(
            "indefinite_map",
            cobs_encode(build(M.ACK, 0, 0, b"\xbf\x00\x03\xff")),
            "body",
            "indefinite lengths are refused",
        ),
        invalid(
            "tag",
            cobs_encode(build(M.TIME, 0, 0, b"\xa1\x00\xc1\x1a\x65\x00\x00\x00")),
            "body",
            "tags are refused",
        ),
        invalid(
            "missing_key",
            cobs_encode(build(M.EVENT, REL, 1, cbor2.dumps({0: 2, 1: 0}))),
            "body",
            "event without its scores",
        ),
        invalid(
            "duplicate_key",
            cobs_encode(build(M.ACK, 0, 0, b"\xa2\x00\x01\x00\x02")),
            "body",
            "key 0 twice",
        ),
        invalid("not_a_map", cobs_encode(build(M.ACK, 0, 0, b"\x81\x00")), "body", "an array"),
        invalid(
            "bad_utf8",
            cobs_encode(build(M.LOG, 0, 0, b"\xa2\x00\x01\x01\x62\xc3\x28")),
            "body",
            "text that is not UTF-8",
        ),
        invalid(
            "too_deep",
            cobs_encode(build(M.ACK, 0, 0, b"\xa2\x00\x01\x09\x81\x81\x81\x81\x00")),
            "body",
            "five nested containers",
        ),
        invalid(
            "too_deep_empty",
            cobs_encode(build(M.ACK, 0, 0, b"\xa2\x00\x01\x09\x81\x81\x81\x80")),
            "body",
            "five nested containers, the fifth empty: {0: 1, 9: [[[[]]]]}",
        ),
        invalid(
            "text_key_occupied_nine",
            cobs_encode(build(M.COMMAND, REL, 25, cbor2.dumps({0: 16, "occupied": ["black"] * 9}))),
            "body",
            "nine balls under occupied by name: key 11 takes at most 8",
        ),
        invalid(
            "text_key_beside_its_key",
            cobs_encode(
                build(M.COMMAND, REL, 26, cbor2.dumps({0: 2, "ev": "foul"}, canonical=True))
            ),
            "body",
            "ev under key 0 and under its name: one key twice",
        ),
        invalid(
            "players_mixed",
            cobs_encode(
                build(
                    M.SETUP_MATCH,
                    REL,
                    27,
                    cbor2.dumps({7: ["Ali", ["Reza", "Sara"]], 8: 3}, canonical=True),
                )
            ),
            "body",
            "a name beside a team: two names, or two teams, not one of each",
        ),
        invalid(
            "state_colours_64",
            cobs_encode(build(M.STATE, 0, 0, cbor2.dumps({0: 69, 7: 64}))),
            "body",
            "a colours bitmask above 63: COLOURS has six bits",
        ),
        invalid(
            "state_last_foul_without_kind",
            cobs_encode(build(M.STATE, 0, 0, cbor2.dumps({0: 70, 15: {0: 1, 1: 4}}))),
            "body",
            "last_foul without its key 2 (kind): keys 0, 1 and 2 are all required",
        ),
        invalid(
            "checkpoint_marks_not_whole",
            cobs_encode(
                build(
                    M.CHECKPOINT,
                    REL,
                    5,
                    cbor2.dumps({0: 1, 1: 7, 2: bytes(32), 3: bytes(5), 4: bytes(32)}),
                )
            ),
            "body",
            "5 bytes of marks: marks are 4 bytes each",
        ),
        invalid(
            "light_not_bool",
            cobs_encode(build(M.LIGHT, REL, 13, cbor2.dumps({0: 1}))),
            "body",
            "light on must be true or false, not 1",
        ),
        invalid(
            "pocket_check_five_pockets",
            cobs_encode(
                build(
                    H.POCKET_CHECK,
                    REL,
                    58,
                    cbor2.dumps(
                        {0: [0] * 5, 1: [0] * 5, 2: [15] * 5, 3: [90] * 5, 4: [7] * 5},
                        canonical=True,
                    ),
                )
            ),
            "body",
            "a verdict for 5 pockets: a table has 6",
        ),
        invalid(
            "health_negative_count",
            cobs_encode(
                build(
                    H.HEALTH,
                    0,
                    0,
                    cbor2.dumps({0: [-1, 0, 0, 0, 0, 0], 1: [0] * 6, 2: [0] * 6, 3: [0] * 6}),
                )
            ),
            "body",
            "a count below 0",
        ),
        invalid(
            "capture_request_zero_seconds",
            cobs_encode(build(H.CAPTURE_REQUEST, REL, 24, cbor2.dumps({0: True, 2: 0}))),
            "body",
            "a capture of 0 s: seconds is 1-900",
        ),
        invalid(
            "trace_too_many_windows",
            cobs_encode(
                build(
                    H.TRACE,
                    0,
                    0,
                    cbor2.dumps({0: 22, 1: 0, 2: 0, 3: b"", 4: bytes(12 * 25)}),
                )
            ),
            "body",
            "25 windows: a trace holds at most 24",
        ),
        invalid(
            "out_of_range",
            cobs_encode(build(M.LOG, 0, 0, cbor2.dumps({0: 9, 1: "x"}))),
            "body",
            "log level 9",
        ),
        *(
            invalid(
                "key_" + label,
                cobs_encode(build(M.ACK, 0, 0, cbor2.dumps({key: 41}))),
                "body",
                "a top-level key that is neither an integer nor text: not an ack of 41",
            )
            for label, key in (
                ("false", False),
                ("true", True),
                ("float", 1.0),
                ("null", None),
                ("bytes", b"\x00"),
                ("array", (0,)),
            )
        ),
        invalid(
            "nested_key_false",
            cobs_encode(build(M.STATE, 0, 0, cbor2.dumps({0: 7, 15: {False: 1, 1: 4, 2: 5}}))),
            "body",
            "a key false inside last_foul",
        ),
        invalid(
            "text_name_33_bytes",
            cobs_encode(build(M.COMMAND, REL, 23, cbor2.dumps({0: 2, 1: "p" * 33}))),
            "body",
            "a ball name as text over its 32-byte limit",
        ),
        invalid(
            "text_key_name_33_bytes",
            cobs_encode(build(M.COMMAND, REL, 24, cbor2.dumps({0: 2, "ball": "p" * 33}))),
            "body",
            "the same name under its text key: the same limit",
        ),
        encoded(
            "text_name_40_bytes_from_input",
            M.COMMAND,
            29,
            {"ev": "pot", "ball": "x" * 40},
            {0: 2, "ball": "x" * 40},
            "since 1.3 a ball name that fails key 1's check is encoded under its text name"
            " (1.2 put it under key 1): refused there all the same, naming 'ball'",
        ),
        invalid(
            "name_bitmap_too_wide",
            cobs_encode(
                build(
                    M.NAME_BITMAP,
                    REL,
                    17,
                    cbor2.dumps({0: 0, 1: 0, 2: 129, 3: 1, 4: bytes(17)}, canonical=True),
                )
            ),
            "body",
            "129 pixels wide: the display has 128",
        ),
        invalid(
            "name_bitmap_too_many_bytes",
            cobs_encode(
                build(
                    M.NAME_BITMAP,
                    REL,
                    18,
                    cbor2.dumps({0: 0, 1: 0, 2: 128, 3: 16, 4: bytes(257)}, canonical=True),
                )
            ),
            "body",
            "257 bytes of pixels: at most 256",
        ),
        invalid(
            "name_bitmap_text_pixels",
            cobs_encode(
                build(
                    M.NAME_BITMAP,
                    REL,
                    19,
                    cbor2.dumps({0: 0, 1: 0, 2: 8, 3: 1, 4: "x"}, canonical=True),
                )
            ),
            "body",
            "the pixels as text, not bytes",
        ),
        invalid(
            "checkpoint_short_head",
            cobs_encode(
                build(
                    M.CHECKPOINT,
                    REL,
                    3,
                    cbor2.dumps({0: 2, 1: 7, 2: bytes(31), 3: b"", 4: bytes(32)}, canonical=True),
                )
            ),
            "body",
            "a head of 31 bytes",
        ),
        invalid(
            "anchor_short_head",
            cobs_encode(build(H.ANCHOR, REL, 3, cbor2.dumps({0: 3, 1: bytes(31)}, canonical=True))),
            "body",
            "a money head of 31 bytes",
        ),
        invalid(
            "anchor_no_rows",
            cobs_encode(build(H.ANCHOR, REL, 3, cbor2.dumps({0: 0, 1: bytes(32)}, canonical=True))),
            "body",
            "an anchor is sent once a row is chained: n is at least 1",
        ),
        invalid(
            "update_data_1025_bytes",
            cobs_encode(build(H.UPDATE_DATA, 0, 0, cbor2.dumps({0: 0, 1: bytes(1025)}))),
            "body",
            "1025 bytes of data: a chunk is 1 to 1024 bytes (its frame is not too long)",
        ),
        invalid("update_data_over_its_frame", over_update, "oversize", "over MAX_UPDATE_FRAME"),
        invalid(
            "update_request_op_2",
            cobs_encode(build(H.UPDATE_REQUEST, REL, 27, cbor2.dumps({0: 2}))),
            "body",
            "op 2: the ops are 0 stage and 1 confirm",
        ),
        invalid(
            "update_status_state_6",
            cobs_encode(build(H.UPDATE_STATUS, 0, 0, cbor2.dumps({0: 6, 1: 0}))),
            "body",
            "state 6: the states are 0 ready to 5 confirmed",
        ),
        invalid(
            "action_zero",
            cobs_encode(build(M.COMMAND, REL, 3, cbor2.dumps({0: 15, -6: 0}, canonical=True))),
            "body",
            "action ids start at 1",
        ),
    ]


def generate() -> dict[str, Any]:
    v = valid_vectors()
    return {
        "protocol": "baulk wire protocol 1.5",
        "spec": "protocol/SPEC.md",
        "body_notation": (
            "maps are {'map': [[key, value], ...]} in wire order; byte strings {'bytes': hex}"
        ),
        "valid": v,
        "invalid": invalid_vectors(v),
        "wrong_direction": wrong_direction_vectors(v),
        "session": session_vectors(v),
    }


def wrong_direction_vectors(valid_list: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Good frames that arrive at the peer that never receives their type
    (SPEC.md 7.1): a reliable one is acked and answered with error 2, an
    unreliable one dropped and counted."""
    by_name = {v["name"]: v for v in valid_list}
    out = []
    for name, receiver, seq in (
        ("event_pot", "device", 1),
        ("command_undo", "host", 1),
        ("state", "device", 0),
        ("time", "host", 0),
        ("hello", "device", 0),
        ("pocket_check", "device", 1),
        ("check_request", "host", 1),
        ("health", "device", 0),
        ("trace", "device", 0),
        ("capture_request", "host", 1),
        ("anchor", "host", 1),
        ("update_request", "host", 1),
        ("update_status", "device", 0),
        ("update_data_commit", "host", 0),
    ):
        v = by_name[name]
        body = cbor2.loads(bytes.fromhex(v["body_hex"]))
        raw = build(v["type"], v["flags"], seq, bytes.fromhex(v["body_hex"]))
        out.append(
            {
                "name": f"{name}_to_{receiver}",
                "hex": cobs_encode(raw).hex(),
                "type": v["type"],
                "flags": v["flags"],
                "seq": seq,
                "receiver": receiver,
                "answer": "error 2, acked" if v["flags"] else "dropped, counted",
                "body": to_json(body),
            }
        )
    return out


def session_vectors(valid_list: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Good frames that their receiver's session still refuses (SPEC.md 3,
    7.3): REL set on an unreliable type or missing on a reliable one, and a
    command over 310 bytes; and the frames next to them it takes.  Each is
    sent after the handshake, as the next number of the sender's stream."""
    by_name = {v["name"]: v for v in valid_list}
    out = []
    for name, flags, receiver, answer, why in (
        ("time", REL, "device", "error 2, acked", "REL set on an unreliable type"),
        ("ack", REL, "device", "error 2, acked", "an ack sent reliably: acked, not applied"),
        ("event_pot", 0, "host", "dropped, counted", "a reliable type without REL"),
        ("command_undo", 0, "device", "dropped, counted", "a reliable type without REL"),
        ("command_310_bytes", REL, "device", "delivered", "at the bound"),
        ("time", 0, "device", "taken", "an unreliable message as it should come"),
    ):
        v = by_name[name]
        body_bytes = bytes.fromhex(v["body_hex"])
        seq = 1 if flags else 0
        out.append(
            {
                "name": f"{name}_{'rel' if flags else 'no_rel'}_to_{receiver}",
                "hex": cobs_encode(build(v["type"], flags, seq, body_bytes)).hex(),
                "type": v["type"],
                "flags": flags,
                "seq": seq,
                "receiver": receiver,
                "answer": answer,
                "why": why,
            }
        )
    big = cbor2.dumps({0: 1, "zz": "q" * 293})  # 311 bytes framed
    out.append(
        {
            "name": "command_311_bytes_to_device",
            "hex": cobs_encode(build(M.COMMAND, REL, 1, big)).hex(),
            "type": M.COMMAND,
            "flags": REL,
            "seq": 1,
            "receiver": "device",
            "answer": "error 2, acked",
            "why": "311 bytes unstuffed: over the 310 a device takes, so that the event it"
            " journals from it still fits a frame",
        }
    )
    return out


def render() -> str:
    return json.dumps(generate(), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    OUT.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {OUT}\n")
