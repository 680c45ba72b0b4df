"""File-descriptor exhaustion, short form (bench/chaos_fds.py is the full
one): idle connections and hostile live feeds that never read, from many
addresses, against 256 open files.  The boards stay served, the viewer's
own feed is not the one pushed out, the table reconnects, nothing is lost,
and the log neither fills the disk nor holds a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.chaos import fd_exhaustion

pytestmark = pytest.mark.slow


def test_exhausting_connections_leaves_the_boards_served_and_the_table_connected(
    tmp_path: Path,
) -> None:
    f = fd_exhaustion.run(tmp_path, seconds=15, idle=384, ws=192)
    # 384 idle and 192 hostile feeds asked for, over 12 + 24 addresses, against 256 files.
    assert f["attack_held_most"] > 256 and f["attack_ws_opened"] > 192, f
    assert f["viewer_served"] >= 3, f
    assert f["viewer_served"] / (f["viewer_served"] + f["viewer_failed"]) >= 0.99, f
    assert f["viewer_feed_messages"] > 0 and f["viewer_feed_drops"] == 0, f
    assert f["stored_once_in_order"], f
    assert f["log_tracebacks"] == 0 and f["log_bytes"] < 20_000, f
    assert f["clean_exit"] == 0, f
