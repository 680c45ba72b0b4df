"""The device code type-checks against the MicroPython stubs from PyPI (Pico and
ESP32), with the configurations in firmware/mypy-device*.ini, run by plain
mypy (it finds ``baulk.*`` in the editable install's tree, as Python does)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = {
    "rp2": ("firmware/mypy-device.ini", "micropython-rp2-rpi-pico-stubs"),
    "esp32": ("firmware/mypy-device-esp32.ini", "micropython-esp32-stubs"),
}


def mypy(config: str, *files: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            config,
            "--no-incremental",
            *files,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def stubs_present(port: str) -> bool:
    return (ROOT / ".venv" / "mpy-stubs" / port / "machine.pyi").exists()


@pytest.mark.parametrize("port", sorted(CONFIGS))
def test_device_code_checks_against_the_micropython_stubs(port: str) -> None:
    config, package = CONFIGS[port]
    assert stubs_present(port), f"pip install --target .venv/mpy-stubs/{port} {package}"
    done = mypy(config)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout


@pytest.mark.parametrize("port", sorted(CONFIGS))
def test_the_stubs_really_are_micropython(port: str, tmp_path: Path) -> None:
    config, package = CONFIGS[port]
    assert stubs_present(port), f"pip install --target .venv/mpy-stubs/{port} {package}"
    probe = tmp_path / "probe.py"
    # CPython has time.perf_counter and no machine; MicroPython the other way round
    probe.write_text("import time\nimport machine\ntime.perf_counter()\nmachine.Pin(2)\n")
    done = mypy(config, str(probe))
    assert done.returncode == 1
    assert 'Module has no attribute "perf_counter"' in done.stdout
    assert "import-not-found" not in done.stdout  # machine is known
