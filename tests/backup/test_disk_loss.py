"""The venue PC's disk dies mid-match, short form (bench/chaos_backup.py is
the longer one): replicated by ``baulk backup``, destroyed, ``baulk restore``d,
and the table's journal fills the gap the backup had not caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.backup.disk_loss import run

pytestmark = pytest.mark.slow


def test_a_dead_disk_loses_no_event_and_no_bill(tmp_path: Path) -> None:
    f = run(tmp_path, seed=21, rounds=2, lag=(10, 30))
    assert f["sim_error"] is None and f["rounds"] == 2
    assert f["restore_errors"] == []
    assert f["integrity_restored"] == ["ok", "ok"] and f["integrity_at_end"] == "ok"
    assert f["restored_events"] == [0, 0]  # the restore gives exactly what the backup held
    assert all(n >= 10 for n in f["behind_at_loss"]), f  # a real gap each time ...
    assert f["lost"] == 0 and f["doubled"] == 0 and f["out_of_order"] == 0, f  # ... filled
    assert f["differing"] == 0 and f["unknown"] == 0, f
    assert f["sessions_told"] == 2 and f["bills_checked"] == 2  # one opened each round
    print(f)
    assert f["desk_problems"] == [], f["desk_problems"]
    assert f["frames_dropped_from_bill"] == 0, f
    assert f["clean_exit"] == 0 and f["backup_exit"] == 0
    assert f["log_errors"] == [], f["log_errors"]
