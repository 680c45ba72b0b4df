"""Messages the protocol benchmarks share: one of each type, and a realistic
stream of frames as a table sends them during play."""

from __future__ import annotations

import base64
import random
import sys
from pathlib import Path
from typing import Any

from baulk.host.handset.sync import name_bitmap
from baulk.protocol import frame
from baulk.protocol import host_catalogue as C
from baulk.protocol import messages as M
from baulk.protocol.host_codec import body_of

# The sample pot and state are the ones the test vectors pin down.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.protocol.samples import POT, STATE

BAUD = 115200


def one_of_each() -> list[tuple[str, int, int, dict[Any, Any], dict[str, Any]]]:
    """(label, type, seq, body, the same content as named JSON fields)."""
    hello = {0: "baulk-fw 0.1.0", 1: "table-3", 2: 0x5EED1234, 3: 41, 4: 40, 5: 7, 6: 8, 7: 64}
    welcome = {0: "baulk 0.1.0", 1: 39, 2: 8, 3: 9, 5: 8}
    setup = {**M.event_to_wire({"players": ["Ali", "Reza"], "best_of": 7, "breaker": 1}), -1: "op"}
    foul = {"ev": "foul", "kind": "push", "ball": "blue"}
    rows: list[tuple[str, int, int, dict[Any, Any], dict[str, Any]]] = [
        ("hello", M.HELLO, 0, hello, {}),
        ("welcome", M.WELCOME, 0, welcome, {}),
        ("event (pot)", M.EVENT, 41, M.event_body(POT, [45, 120]), {}),
        ("event (foul, keypad)", M.EVENT, 42, M.event_body(foul, [45, 125], src=1), {}),
        ("state", M.STATE, 0, M.state_to_wire(STATE, 42), {}),
        ("ack", M.ACK, 0, {0: 41}, {}),
        ("heartbeat", M.HEARTBEAT, 0, {0: 41, 1: 3_600_000}, {}),
        ("setup_match", M.SETUP_MATCH, 9, setup, {}),
        ("command (undo)", M.COMMAND, 10, {**M.event_to_wire({"ev": "undo"}), -1: "op"}, {}),
        ("time", M.TIME, 0, {0: 1767225600000, 1: 210}, {}),
        ("snapshot_request", M.SNAPSHOT_REQUEST, 0, {}, {}),
        ("log", M.LOG, 0, {0: 2, 1: "pocket ml colour sensor: low confidence", 2: 81234}, {}),
        ("error", M.ERROR, 0, {0: 5, 1: "no match is set up: send setup_match first", 2: 8}, {}),
        ("settings (handset in Persian)", M.SETTINGS, 11, {0: 1}, {}),
        # a name as host/handset/sync.py draws it for the handset: "Reza", 25 x 16 pixels
        ("name_bitmap (a name)", M.NAME_BITMAP, 12, body_of(name_bitmap("Reza", 1, 0)), {}),
    ]
    out = []
    for label, mtype, seq, body, _ in rows:
        out.append((label, mtype, seq, body, named(mtype, seq, body)))
    return out


def named(mtype: int, seq: int, body: dict[Any, Any]) -> dict[str, Any]:
    """The same content with names instead of codes, as a JSON protocol would."""
    d: dict[str, Any] = {"type": M.type_name(mtype)}
    if M.is_reliable(mtype):
        d["seq"] = seq
    schema = C.SCHEMA[mtype]
    if mtype in (M.EVENT, M.COMMAND, M.SETUP_MATCH):
        d.update(M.wire_to_event(body))
        for k, v in body.items():
            if isinstance(k, int) and k < 0:
                d[schema[k][0]] = v
    elif mtype == M.STATE:
        at, st = C.wire_to_state(body)
        d["at"] = at
        d.update(st)
    else:
        for k, v in body.items():
            # bytes as a JSON protocol would carry them: base64 text
            d[schema[k][0]] = base64.b64encode(v).decode() if isinstance(v, bytes) else v
    return d


def stream(n: int, seed: int = 1) -> list[bytes]:
    """n frames as a table sends them in play: mostly events, then acks,
    heartbeats and a state after each event now and then."""
    rng = random.Random(seed)
    evs = [
        (POT, 60),
        ({"ev": "strike"}, 15),
        ({"ev": "rest"}, 15),
        ({"ev": "foul", "kind": "in_off"}, 3),
        ({"ev": "pot", "ball": "black", "pocket": "tr"}, 7),
    ]
    pop = [e for e, w in evs for _ in range(w)]
    frames = []
    seq = 0
    w = frame.FrameWriter()
    for i in range(n):
        r = rng.random()
        if r < 0.6:
            seq += 1
            body = M.event_body(rng.choice(pop), [rng.randrange(150), rng.randrange(150)])
            frames.append(bytes(w.build(M.EVENT, frame.FLAG_REL, seq, body)))
        elif r < 0.8:
            frames.append(bytes(w.build(M.ACK, 0, 0, {0: i})))
        elif r < 0.9:
            frames.append(bytes(w.build(M.HEARTBEAT, 0, 0, {0: i, 1: i * 7})))
        else:
            frames.append(bytes(w.build(M.STATE, 0, 0, M.state_to_wire(STATE, seq))))
    return frames
