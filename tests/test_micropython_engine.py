"""The engine under real MicroPython (npm WebAssembly port) prints exactly what CPython prints."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from baulk.host.sim import micropython

from .engine_driver import SCENARIOS, scenario_files

pytestmark = pytest.mark.micropython

HERE = Path(__file__).parent
SCRIPT = HERE / "mp_scenarios.py"


def cpython_output(paths: list[Path]) -> bytes:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, paths)], capture_output=True, check=True
    )
    return done.stdout


def test_whole_scenario_suite_is_byte_identical_under_micropython() -> None:
    paths = [p.resolve() for p in scenario_files()]
    assert paths, "no scenarios to compare"
    expected = cpython_output(paths)
    done = micropython.run(SCRIPT, [str(p) for p in paths], files=paths)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.count(b"\n== ") + 1 == len(paths)
    assert done.stdout == expected


@pytest.mark.parametrize("each", [False, True])
def test_replay_command_engine_micropython_matches_cpython(each: bool, tmp_path: Path) -> None:
    scenario = tmp_path / "mixed.jsonl"
    scenario.write_text(
        "\n".join(
            [
                '{"ev":"match","players":["Ali","Rez\\u0101"],"best_of":3}',
                '{"ev":"strike"}',
                '{"ev":"pot","ball":"red","pocket":"tl"}',
                '{"ev":"rest"}',
                '{"ev":"pot","ball":"purple"}',
                '{"ev":"strike"}',
                '{"ev":"pot","ball":"white"}',
                '{"ev":"rest"}',
            ]
        )
        + "\n"
    )
    flags = ["--each"] if each else []
    base = [sys.executable, "-m", "baulk.host.cli.main", "replay", str(scenario), *flags]
    cp = subprocess.run(base, capture_output=True, check=False)
    mp = subprocess.run([*base, "--engine", "micropython"], capture_output=True, check=False)
    assert cp.returncode == mp.returncode == 3
    assert cp.stdout == mp.stdout
    assert cp.stdout.count(b"\n") == (8 if each else 1)


def test_scenarios_directory_exists() -> None:
    assert SCENARIOS.is_dir()
