"""No frame on the wire can end the device's loop: random frames whose CRC
holds (any header, any body bytes, every message type, with REL and without)
go through the device's receive path, firmware/link.py, both before and
after the handshake, under the real MicroPython (npm WebAssembly port) and
under CPython.  None raises out of the link, and each gets what SPEC.md says,
worked out here from the spec with the host's decoder as the judge of each
body: before the handshake nothing but a good welcome counts; after it, a
reliable frame is acknowledged and, when it is the next of the stream,
delivered or answered with error 2 (or 3, a type the device does not know),
and an unreliable one is taken or dropped."""

from __future__ import annotations

import binascii
import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import cbor2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baulk.host.sim import micropython
from baulk.protocol import cobs, host_codec
from baulk.protocol import frame as fr
from baulk.protocol import host_catalogue as C
from baulk.protocol import messages as M
from baulk.protocol.reliability import extend
from tests.protocol.wire_strategies import body_for, subset_values

pytestmark = [pytest.mark.micropython, pytest.mark.slow]

SCRIPT = Path(__file__).with_name("mp_link_frames.py")
CASES = 1500
# What a board's catalogue holds: host_catalogue, loaded in this process,
# adds health, trace and update_status, which only a device sends and so a
# device never lists.
DEVICE_TYPES = set(C.TYPES) - {host_codec.HEALTH, host_codec.TRACE, host_codec.UPDATE_STATUS}
Case = tuple[bool, bytes]


def framed(ver: int, mtype: int, flags: int, seq: int, body: bytes) -> bytes:
    """One frame whose CRC holds, whatever its header and body (SPEC.md 3)."""
    raw = bytes((ver, mtype, flags, seq & 0xFF, seq >> 8)) + body
    return bytes(cobs.encode(raw + binascii.crc32(raw).to_bytes(4, "little")))


def _cbor(v: Any) -> bytes:
    try:
        return bytes(cbor2.dumps(v, canonical=True))
    except (ValueError, TypeError, cbor2.CBOREncodeError):
        return b"\xa0"


def _catalogue_body(mtype: int) -> st.SearchStrategy[bytes]:
    # a body that fits the type, sometimes with one key changed to anything
    good = body_for(mtype)
    changed = st.tuples(good, st.integers(-8, 24), subset_values(6)).map(
        lambda t: {**t[0], t[1]: t[2]}
    )
    return st.one_of(good, changed).map(_cbor)


_weird = st.one_of(
    st.floats(allow_nan=False),
    st.builds(cbor2.CBORTag, st.integers(0, 300), st.integers()),
    st.just(cbor2.undefined),
)
_any_value = st.recursive(
    st.one_of(subset_values(6), _weird),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.integers(-30, 30), inner, max_size=4)
    ),
    max_leaves=10,
)


@st.composite
def case(draw: st.DrawFn) -> Case:
    if draw(st.integers(0, 3)) == 0:
        # as a peer would send it: the type's stream, the next seq, its body
        mtype = draw(st.sampled_from(sorted(C.SCHEMA)))
        flags = (fr.FLAG_REL if M.is_reliable(mtype) else 0) | draw(st.sampled_from([0, 2]))
        body = draw(body_for(mtype).map(_cbor))
        return draw(st.booleans()), framed(fr.VERSION_BYTE, mtype, flags, 1, body)
    mtype = draw(st.one_of(st.sampled_from(sorted(C.SCHEMA)), st.integers(0, 255)))
    ver = draw(
        st.one_of(
            st.just(fr.VERSION_BYTE), st.sampled_from([0x10, 0x11, 0x1F]), st.integers(0, 255)
        )
    )
    flags = draw(st.one_of(st.sampled_from([0, fr.FLAG_REL, 3]), st.integers(0, 255)))
    seq = draw(st.one_of(st.just(1), st.integers(0, 0xFFFF)))
    schema_body = _catalogue_body(mtype) if mtype in C.SCHEMA else st.just(b"\xa0")
    body = draw(
        st.one_of(
            st.binary(max_size=48),  # any bytes at all
            _any_value.map(lambda v: bytes(cbor2.dumps(v))),  # CBOR, inside the subset or not
            schema_body,  # what the type carries, or nearly
            st.binary(min_size=290, max_size=330),  # around the bound of a command
            st.integers(280, 320).map(lambda n: _cbor({0: 1, "zz": "q" * n})),
        )
    )
    return draw(st.booleans()), framed(ver, mtype, flags, seq, body)


def _draw(n: int) -> list[Case]:
    got: list[Case] = []

    @settings(max_examples=n, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(case())
    def collect(c: Case) -> None:
        got.append(c)

    collect()
    return got


# ---------------------------------------------------------------- the spec's answer
Answer = dict[str, Any]  # {"inbox": [[what, type, seq]], "sent": [(type, body-summary)]}


def _subset_ok(wire: bytes) -> bool:
    f = host_codec.decode_frame(wire, check=False)
    if f.error not in (None, host_codec.E_UNKNOWN_TYPE):
        return False
    return host_codec.check_body(256, f.body) is None  # a type without a schema: the subset


def expected(opened: bool, wire: bytes) -> Answer:
    raw = cobs.decode(wire[:-1])
    ver, mtype, flags = raw[0], raw[1], raw[2]
    seq16 = raw[3] | raw[4] << 8
    rel = flags & fr.FLAG_REL
    inbox: list[list[Any]] = []
    sent: list[tuple[int, Any]] = []
    if len(wire) > fr.MAX_WIRE or len(raw) > fr.MAX_FRAME:
        # §2: the link of a match keeps MAX_WIRE, so an update_data's longer
        # frame is oversize to it, as any other: dropped and counted
        return {"inbox": inbox, "sent": sent}
    if ver >> 4 != fr.VERSION_MAJOR:  # §11: refused, with error 1 to a welcome
        if mtype == M.WELCOME:
            sent.append((M.ERROR, (M.ERR_VERSION, mtype, None)))
        return {"inbox": [["refused", 0, 0]], "sent": sent}
    if mtype not in DEVICE_TYPES:  # §6 step 7, §7.1: health too
        verdict = "unknown" if _subset_ok(wire) else "bad"
        body = None
    else:
        f = host_codec.decode_frame(wire)
        body = f.body
        _name, sender, reliable = C.TYPES[mtype]
        verdict = "ok" if f.error is None else "bad"
        if sender == M.DEVICE or bool(rel) != reliable:  # §7.1, §3
            verdict = "bad"
        if mtype in (M.COMMAND, M.SETUP_MATCH) and len(raw) > host_codec.RAW_MOST:  # §7.3
            verdict = "bad"
    if mtype == M.WELCOME:  # §3, §8: the handshake's, in no stream, REL or not
        if verdict == "ok" and 4 in body:
            inbox.append(["refused", 0, 0])
        elif verdict == "ok" and not opened:
            inbox.append(["open", 0, 0])
            sent.append((M.ACK, body[2] - 1))  # §8: the host's stream goes on from its base
        return {"inbox": inbox, "sent": sent}
    if not opened:  # §8: nothing but a welcome counts before the handshake
        return {"inbox": inbox, "sent": sent}
    if rel:  # §9: acked whatever it is; used when it is the next of the stream
        if extend(seq16, 1) != 1:
            return {"inbox": [], "sent": [(M.ACK, 0)]}
        if verdict == "unknown":
            return {
                "inbox": [["ignored", mtype, 1]],
                "sent": [(M.ERROR, (M.ERR_UNSUPPORTED, mtype, 1)), (M.ACK, 1)],
            }
        if verdict == "ok":
            return {"inbox": [["deliver", mtype, 1]], "sent": [(M.ACK, 1)]}
        return {
            "inbox": [["invalid", mtype, 1]],
            "sent": [(M.ERROR, (M.ERR_BODY, mtype, 1)), (M.ACK, 1)],
        }
    if verdict == "ok" and mtype != M.ACK:
        inbox.append(["message", mtype, 0])
    return {"inbox": inbox, "sent": sent}


def summary(sent_hex: list[str]) -> list[tuple[int, Any]]:
    """What the device put on the line, read by the host's decoder."""
    out: list[tuple[int, Any]] = []
    for h in sent_hex:
        f = host_codec.parse(bytes.fromhex(h))
        if f.mtype == M.ERROR:
            out.append((M.ERROR, (f.body[0], f.body.get(2), f.body.get(3))))
        elif f.mtype == M.ACK:
            out.append((M.ACK, f.body[0]))
        else:
            out.append((f.mtype, None))
    return out


# ---------------------------------------------------------------- the runs
@cache
def cases() -> list[Case]:
    got = _draw(CASES)
    assert len({c[1][1] for c in got}) > 40  # many message types, known and not
    return got


def _job(tmp: Path) -> Path:
    path = tmp / "job.json"
    path.write_text(json.dumps({"cases": [[o, w.hex()] for o, w in cases()]}))
    return path


def run_micropython(job: Path) -> list[dict[str, Any]]:
    done = micropython.run(SCRIPT, [str(job)], files=[job], timeout=600)
    assert done.returncode == 0, done.stderr.decode()[-4000:]
    out: list[dict[str, Any]] = json.loads(done.stdout)
    return out


def run_cpython(job: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(job)], capture_output=True, check=False, timeout=600
    )
    assert done.returncode == 0, done.stderr.decode()[-4000:]
    out: list[dict[str, Any]] = json.loads(done.stdout)
    return out


def _check(results: list[dict[str, Any]]) -> None:
    assert len(results) == len(cases())
    kinds: set[str] = set()
    for (opened, wire), got in zip(cases(), results, strict=True):
        assert got["raised"] is None, (opened, wire.hex(), got["raised"])
        want = expected(opened, wire)
        assert got["inbox"] == want["inbox"], (opened, wire.hex(), got, want)
        assert summary(got["sent"]) == want["sent"], (opened, wire.hex(), got, want)
        kinds.update(x[0] for x in got["inbox"])
        kinds.update(f"error {s[1][0]}" for s in want["sent"] if s[0] == M.ERROR)
    # every answer the spec gives came up
    assert {"deliver", "message", "invalid", "ignored", "open", "refused"} <= kinds, kinds
    assert {"error 1", "error 2", "error 3"} <= kinds, kinds


def test_random_frames_through_the_devices_link_under_micropython(tmp_path: Path) -> None:
    _check(run_micropython(_job(tmp_path)))


def test_random_frames_through_the_devices_link_under_cpython(tmp_path: Path) -> None:
    _check(run_cpython(_job(tmp_path)))
