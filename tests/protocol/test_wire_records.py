"""The host's named records (protocol/host_codec.py): one per message type,
with exactly the field names of the catalogue, and lossless both ways over
every valid test vector."""

from __future__ import annotations

import dataclasses
from typing import Any

import cbor2
import pytest

from baulk.protocol import host_catalogue as C
from baulk.protocol import host_codec as H
from baulk.protocol import messages as M

from .conftest import load_vectors

VALID = load_vectors()["valid"]


def schema_fields(mtype: int) -> list[tuple[str, bool]]:
    """(name, required) of a type's record, from the catalogue."""
    if mtype == M.STATE:
        return [("at", True), ("state", True)]
    schema = C.SCHEMA[mtype]
    fields = []
    if mtype in C.RAW_INPUT:
        fields.append(("input", True))
    for key in sorted(schema, key=lambda k: (k < 0, abs(k))):
        name, _, _, _, presence = schema[key]
        if mtype in C.RAW_INPUT and name in C.RAW:
            continue
        fields.append((name, bool(presence & M.REQ)))
    return fields


@pytest.mark.parametrize("mtype", sorted(C.TYPES), ids=M.type_name)
def test_each_type_has_a_record_named_from_its_schema(mtype: int) -> None:
    record = H.RECORDS[mtype]
    assert mtype == record.TYPE
    got = {f.name: f.default is dataclasses.MISSING for f in dataclasses.fields(record)}
    want = dict(schema_fields(mtype))
    assert got == want, f"{record.__name__}: {got} != {want}"
    for f in dataclasses.fields(record):
        if f.default is not dataclasses.MISSING:
            assert f.default is None, f"{record.__name__}.{f.name}: optional fields are None"


def known(mtype: int, body: dict[Any, Any]) -> dict[Any, Any]:
    """The body without keys a newer minor added (records leave them out)."""
    if mtype == M.STATE:
        return {k: v for k, v in body.items() if k == 0 or k in C.STATE_BY_KEY}
    schema = C.SCHEMA[mtype]
    by_name = mtype in M.TEXT_KEYS_ALLOWED  # engine keys by name (SPEC.md 7.3); else ignored
    return {k: v for k, v in body.items() if k in schema or (by_name and isinstance(k, str))}


@pytest.mark.parametrize("v", VALID, ids=lambda v: v["name"])
def test_every_valid_vector_round_trips_through_its_record(v: dict[str, Any]) -> None:
    body = cbor2.loads(bytes.fromhex(v["body_hex"]))
    record = H.record_of(v["type"], body)
    assert isinstance(record, H.RECORDS[v["type"]])
    again = H.body_of(record)
    if v["type"] == M.STATE:  # the snapshot's own encoding decides the colours' form
        assert C.wire_to_state(again) == C.wire_to_state(body)
    else:
        assert again == known(v["type"], body)
    assert M.check(v["type"], again) is None


def test_records_read_by_name() -> None:
    hello = H.record_of(M.HELLO, {0: "fw 1", 1: "t1", 2: 7, 3: 12, 4: 1, 5: 0})
    assert isinstance(hello, H.Hello)
    assert (hello.table, hello.boot, hello.last, hello.window) == ("t1", 7, 12, None)
    pot = M.event_body({"ev": "pot", "ball": "red"}, (1, 0), boot=7, src=M.SRC_KEYPAD, cmd=3)
    event = H.record_of(M.EVENT, pot)
    assert isinstance(event, H.Event)
    assert event.input == {"ev": "pot", "ball": "red"} and event.scores == [1, 0]
    assert (event.boot, event.source, event.cmd, event.rejected) == (7, M.SRC_KEYPAD, 3, None)
    setup = H.SetupMatch(players=["Ali", "Reza"], best_of=5, reds=10, who="desk")
    assert H.body_of(setup) == {7: ["Ali", "Reza"], 8: 5, 10: 10, -1: "desk"}
    assert H.body_of(H.Command(input={"ev": "undo"}, who="desk")) == {0: 15, -1: "desk"}
