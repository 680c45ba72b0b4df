"""Every scenario in tests/scenarios/ replays to its hand-worked expected state."""

from __future__ import annotations

from pathlib import Path

import pytest

from baulk.firmware import replay

from .engine_driver import load_expectation, scenario_files


def replay_file(path: Path) -> tuple[int, dict[str, object]]:
    import json

    lines: list[str] = []
    status = replay.run(replay.read_scenario(str(path)), False, lines.append)
    state: dict[str, object] = json.loads("".join(lines))
    return status, state


@pytest.mark.parametrize("path", scenario_files(), ids=lambda p: p.stem)
def test_scenario(path: Path) -> None:
    expect = load_expectation(path)
    status, state = replay_file(path)
    rejected = state["rejected"]
    assert isinstance(rejected, list)
    got_lines = [r["line"] for r in rejected]
    assert got_lines == expect.get("rejected_lines", []), [r["reason"] for r in rejected]
    assert status == expect.get("exit", 0)
    for key, value in expect["state"].items():
        assert state[key] == value, f"{key}: expected {value!r}, got {state[key]!r}"


def test_every_scenario_has_an_expectation_and_cites_rules() -> None:
    files = scenario_files()
    assert len(files) >= 40
    for path in files:
        assert path.with_suffix(".expect.json").is_file(), f"{path.name} has no expectation"
        header = [line for line in path.read_text().splitlines() if line.startswith("# rules:")]
        assert len(header) == 1, f"{path.name} must have one '# rules:' line"
