"""`baulk replay` behaves exactly as docs/ENGINE.md says."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

BAULK = [sys.executable, "-m", "baulk.host.cli.main"]


def replay(path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*BAULK, "replay", str(path), *flags], capture_output=True, text=True, check=False
    )


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_text(text)
    return path


GOOD = """# a comment, then a blank line

{"ev":"match","players":["Ali","Reza"],"best_of":3}
{"ev":"strike"}
{"ev":"pot","ball":"red","pocket":"tl"}
{"ev":"rest"}
"""


def test_all_accepted_prints_final_state_and_exits_0(tmp_path: Path) -> None:
    done = replay(write(tmp_path, GOOD))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    state = json.loads(lines[0])
    assert state["scores"] == [1, 0]
    assert state["ball_on"] == "colour"
    assert state["rejected"] == []


def test_each_prints_one_state_per_event(tmp_path: Path) -> None:
    done = replay(write(tmp_path, GOOD), "--each")
    assert done.returncode == 0
    states = [json.loads(line) for line in done.stdout.splitlines()]
    assert [s["scores"] for s in states] == [[0, 0], [0, 0], [0, 0], [1, 0]]
    assert [s["stroke_open"] for s in states] == [False, True, True, False]


def test_rejected_event_exit_3_with_line_number_and_reason(tmp_path: Path) -> None:
    done = replay(write(tmp_path, GOOD + '{"ev":"pot","ball":"purple"}\n{"ev":"undo"}\n'))
    assert done.returncode == 3
    state = json.loads(done.stdout)
    assert state["rejected"] == [{"line": 7, "reason": "unknown ball 'purple'"}]
    assert state["scores"] == [0, 0], "the undo after the rejection took back the stroke"


def test_rejections_survive_a_new_match_and_undo(tmp_path: Path) -> None:
    text = (
        '{"ev":"strike"}\n'
        '{"ev":"match","players":["A","B"],"best_of":1}\n'
        '{"ev":"undo"}\n'
        '{"ev":"match","players":["C","D"],"best_of":1}\n'
    )
    done = replay(write(tmp_path, text))
    assert done.returncode == 3
    state = json.loads(done.stdout)
    assert [r["line"] for r in state["rejected"]] == [1, 3]
    assert state["players"] == ["C", "D"]


def test_line_that_is_not_an_object_exits_2_naming_the_line(tmp_path: Path) -> None:
    done = replay(write(tmp_path, GOOD + "[1, 2]\n"))
    assert done.returncode == 2
    assert done.stdout == ""
    assert "line 7" in done.stderr


def test_line_that_is_not_json_exits_2(tmp_path: Path) -> None:
    done = replay(write(tmp_path, '{"ev":"match",\n'))
    assert done.returncode == 2
    assert "line 1" in done.stderr and "JSON" in done.stderr


def test_missing_file_exits_2(tmp_path: Path) -> None:
    done = replay(tmp_path / "nope.jsonl")
    assert done.returncode == 2
    assert "cannot read" in done.stderr


@pytest.mark.micropython
def test_micropython_engine_reports_the_same_bad_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD + "42\n")
    cp = replay(path)
    mp = replay(path, "--engine", "micropython")
    assert cp.returncode == mp.returncode == 2
    assert cp.stderr == mp.stderr
