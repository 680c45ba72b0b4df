"""The score path isolated, short form (bench/chaos_isolation.py is the full
one): every other kind of row the store writes fails, in SQL, in Python and
in value, while a device peer and a simulated table play, and the desk and
the console act.  The events keep being stored and acknowledged, each once
and in order; the refused rows are refused to their callers, who hear at
once; baulk rebuild makes the dropped projections again."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.chaos import isolation

pytestmark = pytest.mark.slow


def test_failing_rows_of_every_kind_never_stop_the_score(tmp_path: Path) -> None:
    f = isolation.run(tmp_path, seconds=20)
    assert f["sim_error"] is None, f
    t1, t2 = f["t1"], f["t2"]
    assert t1["sent"] > 500 and t1["acked"] == t1["sent"] and t1["stored_once_in_order"], f
    assert t2["journaled"] > 20 and t2["acked_all"], f
    assert t2["lost"] == t2["doubled"] == t2["out_of_order"] == t2["differing"] == 0, f
    assert f["rows_refused"] > 10 and f["projections_dropped"] > 0 and f["python_bugs"] > 0, f
    # The activity log's bug refused by the writer (failed), the link row at its edge (bad input).
    submitted = f["submitted"]
    assert submitted.get("refused failed", 0) > 0 and submitted.get("refused bad input", 0) > 0, f
    assert f["store_failures"] == 0, f  # no row ever stopped the store
    assert 0 not in {s for answers in f["desk"].values() for s in answers}, f["desk"]
    assert f["desk_slowest_s"] < 5, f
    assert set(f["desk"]["correct 1e308"]) <= {400, 404, 409}, f["desk"]
    assert f["rebuilt_matches"] >= 1 and f["rebuilt_frames"] >= 1, f
