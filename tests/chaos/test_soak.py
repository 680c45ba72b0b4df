"""Soak, short form (bench/soak_host.py and bench/soak_device_heap.py are the
full ones: 16 tables x 200 frames)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.chaos import soak

pytestmark = pytest.mark.slow


def test_host_serves_many_tables_without_loss_or_errors(tmp_path: Path) -> None:
    f = soak.host_rss(tmp_path, tables=4, frames=6, seed=5)
    assert f["lost"] == 0 and f["doubled"] == 0, f
    assert f["alerts"] == 0 and f["integrity"] == "ok" and f["clean_exit"] == 0, f
    assert f["log_errors"] == [], f["log_errors"]
    # no leak the size of the traffic: far less than 1 KB per event stored
    assert f["rss_kb"]["max"] - f["rss_kb"]["first"] < f["events"], f["rss_kb"]


def test_device_heap_does_not_grow_frame_after_frame() -> None:
    f = soak.device_heap(frames=8, seed=2)
    assert f["frames"] >= 8 and f["journal_lost"] == 0
    assert f["host_events"] == f["events"]  # every event, and every checkpoint, acked
    assert f["host_events"] + f["host_checkpoints"] == f["journal_acked"], f
    assert f["host_checkpoints"] >= f["frames"] - 1  # a frame's end is signed
    heap = f["heap_at_frame_start"]
    # Against the frames after the warm-up quarter (the first frame still
    # builds up the link's and the journal's steady state): the spread from
    # frame to frame is a few hundred bytes, a leak would climb past 2 KB.
    assert heap["late_max"] - heap["early_median"] < 2048, heap
