"""Statistics and ball accounting end to end: the hand-worked match
(tests/host/hand_worked_match.py) from a device peer over a pty, each event
with its source on the wire, into the real daemon, which restarts in the
middle of frame 1; the figures read back through the web API; then ``baulk
rebuild`` and the same figures again."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from baulk.host.referee.rebuild import rebuild
from tests.host.device_peer import DevicePeer
from tests.host.hand_worked_match import (
    ALI_FIGURES,
    EVENTS,
    FRAME1_ACCOUNT,
    REZA,
    REZA_FIGURES,
    figures_as_worked,
)
from tests.host.harness import DaemonThread, http, make_config, wait_for
from tests.host.referee.test_stats import dump_stats

pytestmark = pytest.mark.slow

# Frame 1 is cut after the console's pot for tl and the next rest (seq 26):
# the restarted daemon must know which of the pots before it were keyed.
CUT = 26


def play(peer: DevicePeer, daemon: DaemonThread, events: list[tuple[dict[str, Any], int]]) -> None:
    start = peer.acked()
    for ev, src in events:
        peer.inject(ev, src)
    wait_for(lambda: peer.acked() == start + len(events), what="every event acked")
    daemon.flush()


def read_back(url: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("alireza", quote(REZA)):
        status, body = http(f"{url}/api/players/{key}")
        assert status == 200, body
        out[key] = body
    status, matches = http(f"{url}/api/matches?table=t1")
    assert status == 200 and len(matches["matches"]) == 1, matches
    status, report = http(f"{url}/api/matches/{matches['matches'][0]['match_id']}")
    assert status == 200, report
    out["report"] = report["report"]
    status, found = http(f"{url}/api/players?q=ali")
    assert status == 200, found
    out["search"] = found["players"]
    return out


def test_figures_through_the_daemon_a_restart_and_a_rebuild(tmp_path: Path) -> None:
    peer = DevicePeer("t1", link_path=tmp_path / "ttyTABLE1").start()
    cfg = make_config(tmp_path, {"t1": tmp_path / "ttyTABLE1"})
    store = tmp_path / "store.sqlite"
    try:
        first = DaemonThread(cfg).start()
        try:
            wait_for(lambda: first.board("t1")["status"]["link"] == "online", what="online")
            play(peer, first, EVENTS[:CUT])
        finally:
            first.stop()
        second = DaemonThread(cfg).start()
        try:
            wait_for(lambda: second.board("t1")["status"]["link"] == "online", what="online")
            play(peer, second, EVENTS[CUT:])
            live = read_back(second.url)
        finally:
            second.stop()
        assert figures_as_worked(live["alireza"]["statistics"]) == ALI_FIGURES
        assert figures_as_worked(live[quote(REZA)]["statistics"]) == REZA_FIGURES
        report = live["report"]
        assert report["frames"][0]["accounting"] == FRAME1_ACCOUNT
        assert [figures_as_worked(p) for p in report["statistics"]] == [ALI_FIGURES, REZA_FIGURES]
        assert [p["key"] for p in live["search"]] == ["alireza"]

        tables = dump_stats(store)
        rebuild(store)
        assert dump_stats(store) == tables
        third = DaemonThread(cfg).start()
        try:
            assert read_back(third.url) == live
        finally:
            third.stop()
    finally:
        peer.stop()
