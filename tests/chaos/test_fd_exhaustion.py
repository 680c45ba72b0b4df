"""File-descriptor exhaustion, short form (bench/chaos_fds.py is the full
one): the boards stay served, the table reconnects, nothing is lost, and the
log does not fill the disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.chaos import fd_exhaustion

pytestmark = pytest.mark.slow


def test_exhausting_connections_leaves_the_boards_served_and_the_table_connected(
    tmp_path: Path,
) -> None:
    f = fd_exhaustion.run(tmp_path, seconds=15, addresses=12)
    # Twelve addresses asked for 64 connections each, against 256 open files.
    assert f["attack_connections"] > 256, f
    assert f["viewer_served"] >= 3 and f["viewer_failed"] == 0, f
    assert f["stored_once_in_order"], f
    assert f["log_tracebacks"] == 0 and f["log_bytes"] < 20_000, f
    assert f["clean_exit"] == 0, f
