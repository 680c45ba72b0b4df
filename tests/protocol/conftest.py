"""Shared helpers for the wire protocol tests."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from baulk.host.sim import micropython

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
VECTORS = ROOT / "protocol" / "vectors" / "vectors.json"


def run_mp(
    script: str, *args: str, files: tuple[Path, ...] = ()
) -> subprocess.CompletedProcess[bytes]:
    """Run a tests/protocol script under real MicroPython; fail on a bad exit."""
    try:
        r = micropython.run(
            HERE / script,
            args=list(args),
            files=[HERE / "mp_common.py", *files],
            timeout=120,
        )
    except micropython.MicroPythonUnavailable as e:  # pragma: no cover - setup problem
        pytest.fail(f"MicroPython is required for this test: {e}")
    if r.returncode != 0:
        pytest.fail(
            f"{script} failed under MicroPython ({r.returncode}):\n"
            + r.stdout.decode(errors="replace")[-4000:]
            + r.stderr.decode(errors="replace")[-4000:]
        )
    return r


def load_vectors() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(VECTORS.read_text(encoding="utf-8"))
    return data
