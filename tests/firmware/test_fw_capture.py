"""The sensor capture (firmware/capture.py) in the whole firmware on the
simulated board: under CPython, and under the real MicroPython (npm
WebAssembly port), which must give the very same traces."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from baulk.firmware import capture
from baulk.host.sim import micropython
from baulk.protocol import frame
from baulk.protocol import host_catalogue as C

HERE = Path(__file__).parent
SCRIPT = HERE / "mp_capture.py"


def on_cpython(name: str, flash: Path) -> Any:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), name, "-", str(flash)],
        capture_output=True,
        check=False,
        cwd=HERE,
    )
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


@cache
def on_micropython(name: str) -> Any:
    done = micropython.run(SCRIPT, [name], files=[HERE / "mp_firmware.py"], heap=64 << 20)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


def test_the_device_layout_is_the_catalogue_s() -> None:
    assert capture._EDGES == C.TRACE_EDGES and capture._WINDOWS == C.TRACE_WINDOWS
    assert capture._MARKS == C.TRACE_MARKS and capture._EDGE_SPEED == C.EDGE_SPEED
    assert capture._W_AT == C.TRACE_EDGES * C.EDGE_BYTES
    assert capture._M_AT == capture._W_AT + C.TRACE_WINDOWS * C.WINDOW_BYTES
    assert capture._SIZE == capture._M_AT + C.TRACE_MARKS * C.MARK_BYTES
    assert C.CAPTURE_MARKS[capture._ASKED] == "asked"
    ends = (capture._END_STOPPED, capture._END_TIME, capture._END_PASSAGES, capture._END_MATCH)
    assert [C.CAPTURE_ENDS[e] for e in ends] == ["stopped", "time", "passages", "match"]


def test_a_full_trace_fits_one_frame() -> None:
    # the fullest trace the device can send, its numbers at their widest
    body = {
        0: 0xFFFFFFFF,
        1: 0xFFFF,
        2: 0xFFFFFFFF,
        3: bytes(capture._W_AT),
        4: bytes(capture._M_AT - capture._W_AT),
        5: bytes(capture._SIZE - capture._M_AT),
        6: 0xFFFF,
        7: 4,
    }
    assert C.check(21, body) is None
    wire = frame.encode_frame(21, 0, 0, body)
    assert len(wire) <= 493 <= frame.MAX_WIRE  # the figure SPEC.md 7.6 gives


def test_passages_are_captured_and_the_capture_ends_by_itself(tmp_path: Path) -> None:
    out = on_cpython("passages", tmp_path)
    assert out["before"] is False and out["running"] is True and out["after"] is False
    traces = out["traces"]
    assert traces[0]["1"] == 0 and traces[0]["3"] == "" and traces[0]["4"] == ""  # at once
    assert [t["1"] for t in traces] == list(range(len(traces)))  # none lost
    assert all(t["0"] == out["seq"] for t in traces)
    assert traces[-1]["7"] == 3  # its passages
    assert all("7" not in t for t in traces[:-1])
    # every pocket's drop beam broke and was restored, and the speed beams
    drops = [(src, level) for src, level, _ in out["edges"] if src < 6]
    assert drops == [(0, 1), (0, 0), (3, 1), (3, 0), (5, 1), (5, 0)]
    assert any(src == 8 for src, _, _ in out["edges"])
    pockets = sorted({w[0] for w in out["windows"]})
    assert pockets == [0, 3, 5]
    # the white is bright: its passage switched to 4x, the black's did not
    assert {w[1] for w in out["windows"] if w[0] == 5} == {0, 1, 2}
    assert {w[1] for w in out["windows"] if w[0] == 3} == {0, 2}
    # each passage's background first, once
    assert [w[0] for w in out["windows"] if w[1] == 2] == [0, 3, 5]
    firsts = [out["windows"][i + 1] for i, w in enumerate(out["windows"]) if w[1] == 2]
    assert all(f[1] == 0 for f in firsts)
    # the windows lie inside their passages, in time order
    times = [w[2] for w in out["windows"]]
    assert times == sorted(times)
    assert [e["ball"] for e in out["events"]] == ["red", "black", "white"]
    assert out["errors"] == []


def test_refused_during_a_match_unless_asked_and_stopped_by_the_host(tmp_path: Path) -> None:
    out = on_cpython("refused", tmp_path)
    assert out["refused"] == [
        "no sensor capture during a match: ask for one with during (--during-match)"
    ]
    assert out["loaded_after_refusal"] is False
    assert out["during"] is True and out["stopped"] is True
    assert out["ends"][0] == 0 and out["ends"][-1] == 1  # stopped by the host
    assert out["windows_during"] > 0


def test_a_match_set_up_ends_a_capture(tmp_path: Path) -> None:
    out = on_cpython("match_ends_it", tmp_path)
    assert out == {"ends": [0, 4], "loaded": False, "capture": False}


@pytest.mark.micropython
@pytest.mark.parametrize("name", ["passages", "refused", "match_ends_it"])
def test_micropython_and_cpython_agree(name: str, tmp_path: Path) -> None:
    assert on_micropython(name) == on_cpython(name, tmp_path)
