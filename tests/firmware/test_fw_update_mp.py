"""The device side of a firmware update under the real MicroPython
(npm WebAssembly port): the same driver as under CPython
(tests/firmware/mp_update.py), the same results, power cuts included."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from baulk.host.sim import micropython

pytestmark = pytest.mark.micropython
HERE = Path(__file__).parent
SCRIPT = HERE / "mp_update.py"


def _mp(*args: str) -> dict[str, Any]:
    done = micropython.run(SCRIPT, args, heap=8 << 20)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def _cpython(tmp_path: Path, name: str, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), name, str(tmp_path / "flash"), *args],
        capture_output=True,
        check=False,
        cwd=HERE,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    out: dict[str, Any] = json.loads(done.stdout)
    return out


@pytest.mark.parametrize("scenario", ["happy", "bad", "rollback"])
def test_the_update_runs_the_same_under_micropython(scenario: str, tmp_path: Path) -> None:
    got = _mp(scenario)
    assert got == _cpython(tmp_path, scenario)
    if scenario == "happy":
        assert got["boots_after2"] == [["b", "1.1.0"]] * 2 and got["checks"] == [None, None]
    if scenario == "rollback":
        assert got["after"] == ["a", "1.0.0", "-", "rolledback", "2.0.0"]
        assert got["after_broken"] == ["a", "-", "rolledback", "2.0.1"]


def test_power_cuts_under_micropython(tmp_path: Path) -> None:
    got = _mp("power", "/flash_upd", "300", "5")
    assert got["cuts"] == 300 and got["broken"] == [], got
    assert got["resumed"] > 50
    assert got == _cpython(tmp_path, "power", "300", "5")  # cut for cut the same
