"""Settings for the whole suite.

Property tests have no deadline: the suite must pass on a busy machine, and
speed is measured in bench/, not by tests.  ``make check`` sets BAULK_CHECK=1:
property tests without a count of their own then try fewer examples, so the
day-to-day loop stays fast; ``make test`` runs them at full strength."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from baulk.host.release import bundle
from tests.host.device_peer import DevicePeer
from tests.host.harness import DaemonThread, make_config, wait_for
from tests.host.release import update_line

settings.register_profile("baulk", deadline=None)
settings.register_profile("check", settings.get_profile("baulk"), max_examples=20)
settings.load_profile("check" if os.environ.get("BAULK_CHECK") == "1" else "baulk")


# One table, "t1", on a device peer, and a daemon that has it online: what
# most tests of the web app and the daemon start from.
@pytest.fixture
def peer(tmp_path: Path) -> Iterator[DevicePeer]:
    p = DevicePeer("t1", link_path=tmp_path / "ttyT1").start()
    yield p
    p.stop()


@pytest.fixture
def daemon(tmp_path: Path, peer: DevicePeer) -> Iterator[DaemonThread]:
    d = DaemonThread(make_config(tmp_path, {"t1": tmp_path / "ttyT1"})).start()
    wait_for(lambda: d.board("t1")["status"]["link"] == "online", what="online")
    yield d
    d.stop()


# The real release of this tree for a Pico, as `baulk firmware bundle` makes
# it: built once a worker for every test of the update that sends it.
@pytest.fixture(scope="session")
def release(tmp_path_factory: pytest.TempPathFactory) -> bundle.Bundle:
    return update_line.pico_release(tmp_path_factory.mktemp("release"))
