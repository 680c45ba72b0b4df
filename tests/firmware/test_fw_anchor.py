"""The device signs the host's money head (SPEC.md 7.8, "Anchors") the same
under MicroPython as under CPython: a checkpoint at once, after the newest
event, its plain MAC as before and the anchor under a MAC of its own, which
the host's verifier checks (host/referee/verify.py anchor_mac_of)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from baulk.firmware.sim.board import SIM_KEY
from baulk.host.referee.verify import anchor_mac_of, mac_of
from baulk.host.sim import micropython

pytestmark = pytest.mark.micropython
HERE = Path(__file__).parent
SCRIPT = HERE / "mp_anchor.py"


def _check(out: dict[str, Any]) -> None:
    assert out["errors"] == []
    (cp,) = [c for c in out["checkpoints"] if "5" in c]
    key = bytes.fromhex(SIM_KEY)
    at, boot, head, marks = cp["0"], cp["1"], bytes.fromhex(cp["2"]), bytes.fromhex(cp["3"])
    assert at == out["newest_event"]
    assert (cp["5"], cp["6"]) == (3, bytes(range(32)).hex())
    assert cp["4"] == mac_of(key, at, boot, head, marks).hex()
    assert cp["7"] == anchor_mac_of(key, at, boot, head, 3, bytes(range(32))).hex()


def test_the_anchor_is_signed_under_micropython() -> None:
    done = micropython.run(SCRIPT, files=[HERE / "mp_firmware.py"], heap=64 << 20)
    assert done.returncode == 0, done.stderr.decode()
    _check(json.loads(done.stdout))


def test_the_anchor_is_signed_under_cpython(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, check=False, cwd=HERE
    )
    assert done.returncode == 0, done.stderr.decode()
    _check(json.loads(done.stdout))
