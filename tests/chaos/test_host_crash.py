"""Host crash, short form (bench/chaos_host_crash.py is the full one):
``baulk run`` as a real process is killed with SIGKILL at random points of a
match and started again."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.chaos.host_crash import run

pytestmark = pytest.mark.slow


def test_kill_9_loses_and_doubles_nothing_and_the_store_stays_sound(tmp_path: Path) -> None:
    f = run(tmp_path, seed=11, kills=5, gap_s=(0.5, 4.0))
    assert f["sim_error"] is None
    assert f["kills"] == 5
    assert f["integrity_after_kill"] == ["ok"] * 5
    assert f["integrity_at_end"] == "ok"
    assert f["boards_restored"] == 5  # the board came back from the store each time
    assert f["journaled"] > 20  # it really played
    assert f["lost"] == 0 and f["doubled"] == 0 and f["out_of_order"] == 0, f
    assert f["differing"] == 0 and f["unknown"] == 0, f
    assert f["board_equals_table"] and f["alerts"] == 0, f
    assert f["clean_exit"] == 0
    assert f["log_errors"] == [], f["log_errors"]


def test_kill_9_keeps_every_session_and_bill_the_desk_was_told_of(tmp_path: Path) -> None:
    f = run(tmp_path, seed=12, kills=6, gap_s=(0.3, 2.0), desk=True)
    assert f["sim_error"] is None and f["kills"] == 6
    assert f["integrity_after_kill"] == ["ok"] * 6 and f["integrity_at_end"] == "ok"
    assert f["desk_actions"] == 12 and f["sessions_told"] >= 3
    assert f["desk_problems"] == [], f["desk_problems"]
    assert f["lost"] == 0 and f["doubled"] == 0 and f["differing"] == 0, f
    assert f["log_errors"] == [], f["log_errors"]
