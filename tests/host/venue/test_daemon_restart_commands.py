"""Operator actions after the daemon restarts while the table stays plugged
in: the host's stream to the device starts again at seq 1, and the device must
take it as a new stream, not as repeats of what the last daemon sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, make_config, wait_for

pytestmark = pytest.mark.slow


def test_actions_reach_the_table_after_a_quick_daemon_restart(tmp_path: Path) -> None:
    peer = DevicePeer("t1", link_path=tmp_path / "ttyTABLE1").start()
    cfg = make_config(tmp_path, {"t1": tmp_path / "ttyTABLE1"})
    try:
        first = DaemonThread(cfg).start()
        try:
            wait_for(lambda: first.board("t1")["status"]["link"] == "online", what="online")
            for best_of in (3, 5):
                status, reply = http(
                    first.url + "/api/tables/t1/match",
                    {"players": ["Ali", "Reza"], "best_of": best_of},
                    token=TOKEN,
                )
                assert status == 200 and reply["status"] == "done", reply
        finally:
            first.stop()
        # Back at once: the table never notices its link was dead.
        second = DaemonThread(cfg).start()
        try:
            wait_for(lambda: second.board("t1")["status"]["link"] == "online", what="online")
            status, reply = http(
                second.url + "/api/tables/t1/match",
                {"players": ["Sara", "Mina"], "best_of": 7},
                token=TOKEN,
            )
            assert status == 200 and reply["status"] == "done", reply
            assert peer.engine.state()["players"] == ["Sara", "Mina"]
        finally:
            second.stop()
    finally:
        peer.stop()
