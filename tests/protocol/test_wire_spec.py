"""protocol/SPEC.md and the code agree: the catalogue tables, the limits, the
timers and the budget."""

from __future__ import annotations

import re

from baulk.protocol import (
    cbor,
    cobs,
    frame,
    host_catalogue,
    host_codec,
    messages,
    reliability,
    session,
)

from . import spec_tables

TEXT = spec_tables.SPEC.read_text(encoding="utf-8")
FLAT = re.sub(r"\s+", " ", TEXT)  # prose is wrapped; compare it unwrapped


def test_catalogue_tables_are_generated_from_the_code() -> None:
    assert spec_tables.splice(TEXT) == TEXT, "run: .venv/bin/python tests/protocol/spec_tables.py"


def test_catalogue_overview_lists_every_type_with_its_id_and_stream() -> None:
    for mtype, (name, _sender, reliable) in host_catalogue.TYPES.items():
        row = re.search(
            rf"^\| {mtype} \| `{name}` \| \w+ \| (\*\*reliable\*\*|unreliable) \|", TEXT, re.M
        )
        assert row, name
        assert (row.group(1) == "**reliable**") == reliable


def test_limits_and_timers_in_the_text_are_the_code_constants() -> None:
    assert f"at most **{frame.MAX_FRAME} bytes** (`MAX_FRAME`)" in FLAT
    assert f"at most {frame.MAX_BODY} (`MAX_BODY`)" in FLAT
    assert f"**{frame.MAX_WIRE} bytes** with the delimiter (`MAX_WIRE`)" in FLAT
    # update_data's longer frames (since 1.5), and the arithmetic the text gives
    assert f"at most **{host_codec.MAX_UPDATE_BODY} bytes** (`MAX_UPDATE_BODY`)" in FLAT
    upd = host_codec.MAX_UPDATE_FRAME
    assert (
        f"at most **{upd} bytes** (`MAX_UPDATE_FRAME`: 5 + {host_codec.MAX_UPDATE_BODY} + 4)"
        in FLAT
    )
    assert (
        f"at most **{host_codec.MAX_UPDATE_WIRE} bytes** (`MAX_UPDATE_WIRE`: {upd}, one code"
        in FLAT
    )
    assert f"and 4 more for its {upd // 254} whole runs of 254, and the delimiter)" in FLAT
    assert host_codec.MAX_UPDATE_WIRE == upd + 1 + upd // 254 + 1 == cobs.max_encoded_len(upd)
    assert f"**{cbor.MAX_DEPTH} nested containers**" in FLAT
    assert f"`0x{frame.VERSION_BYTE:02x}` for {frame.VERSION_MAJOR}.{frame.VERSION_MINOR}" in FLAT
    assert f"for **{reliability.HEARTBEAT_MS} ms**" in FLAT
    assert f"dead after {reliability.DEAD_MS} ms without a valid frame" in FLAT
    # noticed at most DEAD_MS after the last good frame; one lost heartbeat is no death
    assert reliability.DEAD_MS < 3000 and 2 * reliability.HEARTBEAT_MS <= reliability.DEAD_MS
    assert f"{reliability.RTO_MS} ms, then 500, 1000, capped at {reliability.RTO_MAX_MS} ms" in FLAT
    assert f"`hello` every {session.HELLO_MS} ms" in FLAT
    assert "bit 0 `REL`, bit 1 `RETX`" in FLAT and (frame.FLAG_REL, frame.FLAG_RETX) == (1, 2)


def test_error_codes_in_the_text() -> None:
    for code, words in [
        (messages.ERR_VERSION, "another major version"),
        (messages.ERR_BODY, "a body failed its check"),
        (messages.ERR_UNSUPPORTED, "a reliable message of a"),
        (messages.ERR_JOURNAL_FULL, "the device journal is full"),
        (messages.ERR_REFUSED, "refused (the text says why)"),
        (messages.ERR_NOT_READY, "no handshake yet"),
    ]:
        assert f"{code} {words}" in FLAT


def test_name_codes_in_the_text_are_the_tables() -> None:
    from baulk.firmware import names

    assert ", ".join(f"{i} {n}" for i, n in enumerate(names.BALLS)) + "." in FLAT
    assert ", ".join(f"{i} {n}" for i, n in enumerate(names.POCKETS)) + "." in FLAT
    events = ", ".join(f"{i} {n}" for i, n in enumerate(names.EVENTS))
    assert events in FLAT


def test_pot_example_in_the_text_is_what_the_code_sends() -> None:
    body = messages.event_body({"ev": "pot", "ball": "red", "pocket": "tl"}, [45, 120])
    assert body == {0: 2, 1: 0, 2: 0, -1: [45, 120]}
    assert len(cbor.dumps(body)) == 13
    assert len(frame.encode_frame(messages.EVENT, 1, 41, body)) == 24
    assert "| **total** | **24** |" in TEXT
    foul = messages.event_to_wire({"ev": "foul", "kind": "push", "ball": "blue"})
    assert foul == {0: 5, 1: 4, 3: 14} and "is `{0: 5, 1: 4, 3: 14}`" in TEXT
