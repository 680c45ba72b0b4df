"""Operator actions exactly once, short forms (bench/chaos_exactly_once.py is
the full one): ``baulk run`` killed with SIGKILL between an action and its
acknowledgement, the table's power cut in the same window; and the firmware
on a tearing flash with a host that restarts (tests/chaos/exactly_once.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.chaos.exactly_once import run_host_crash, run_power_cuts

pytestmark = pytest.mark.slow


def test_kill_9_between_an_action_and_its_answer_loses_and_doubles_none(tmp_path: Path) -> None:
    f = run_host_crash(tmp_path, seed=11, rounds=8)
    assert f["sim_error"] is None and f["kills"] == 8
    assert f["actions"] >= 3, f  # actions were stored, then the daemon died
    assert f["lost"] == 0 and f["doubled"] == 0 and f["unknown"] == 0, f
    assert f["unanswered_in_store"] == 0 and f["told_but_not_stored"] == 0, f
    assert f["setups_doubled"] == 0, f
    ev = f["events"]
    assert ev["lost"] == 0 and ev["doubled"] == 0 and ev["differing"] == 0, ev
    assert f["integrity"] == "ok" and f["clean_exit"] == 0
    v = f["verify"]  # the record still verifies (a match may be in play)
    assert v["tampered"] == 0 and v["verified"] >= 1 and v["uncovered"] <= 1, v
    assert f["log_errors"] == [], f["log_errors"]


def test_power_cuts_and_host_restarts_in_the_window_lose_and_double_none() -> None:
    f = run_power_cuts(seed=1, cuts=150)
    assert f["cuts"] == 150 and f["host_restarts"] > 10 and f["actions"] > 30, f
    assert f["lost"] == 0 and f["doubled"] == 0 and f["unknown"] == 0, f
    assert f["answered"] == f["actions"], f
    assert f["events_lost"] == 0 and f["events_doubled"] == 0, f
