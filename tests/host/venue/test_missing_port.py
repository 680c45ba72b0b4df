"""``baulk run`` with a table whose port is missing says so by name, and the
table's board says it is waiting for the table controller."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests.host.harness import DaemonThread, make_config, wait_for

pytestmark = pytest.mark.slow


def test_a_missing_port_is_named_and_the_board_waits(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    missing = tmp_path / "ttyACM7"
    caplog.set_level(logging.WARNING, logger="baulk.daemon")
    daemon = DaemonThread(make_config(tmp_path, {"t9": missing})).start()
    try:
        wait_for(
            lambda: daemon.board("t9")["status"].get("reason", "").startswith("waiting"),
            what="the board's waiting status",
        )
        board = daemon.board("t9")
        assert board["status"]["link"] == "offline"
        assert board["status"]["reason"] == (
            f"waiting for the table controller (port {missing} is not present)"
        )
    finally:
        daemon.stop()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(
        "table t9 (Table t9)" in w and f"port {missing} is not present" in w for w in warnings
    ), warnings
