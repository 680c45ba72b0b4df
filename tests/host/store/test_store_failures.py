"""The store failing under the daemon: a full disk is said in its own words,
once, with a line when it is over, and on the boards and the API; nothing is
acknowledged meanwhile, nothing is lost or doubled after; stopping while it
fails does not hang; a store folder that cannot be made is a clear error."""

from __future__ import annotations

import asyncio
import logging
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from baulk.host.sim.matches import generate_match
from baulk.host.store import Store, StoreError
from tests.host.device_peer import DevicePeer
from tests.host.harness import DaemonThread, http, make_config, stored_events, wait_for

pytestmark = pytest.mark.slow


@pytest.fixture
def peer(tmp_path: Path) -> Iterator[DevicePeer]:
    p = DevicePeer("t1", link_path=tmp_path / "ttyTABLE1").start()
    yield p
    p.stop()


def fill_the_disk(d: DaemonThread, pages: int | None) -> None:
    """SQLite's own limit on the file's size: past it, a commit fails with
    SQLITE_FULL, "database or disk is full", as on a full disk.  None: as
    many pages as the file has now."""
    assert d.daemon is not None
    committer = d.daemon.committer
    db = d.daemon.store.db

    def limit() -> None:  # on the writer's own thread, between two commits
        n = pages or db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {n}")

    async def run() -> None:
        await asyncio.get_running_loop().run_in_executor(committer.executor, limit)

    d.call(run())


def errors(caplog: pytest.LogCaptureFixture, text: str) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "baulk.store" and text in r.getMessage() and r.levelno >= logging.WARNING
    ]


def test_a_full_disk_is_told_once_shown_and_nothing_is_lost(
    tmp_path: Path, peer: DevicePeer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="baulk.store")
    events = generate_match(3, best_of=3)[:400]
    d = DaemonThread(make_config(tmp_path, {"t1": tmp_path / "ttyTABLE1"})).start()
    try:
        wait_for(lambda: d.board("t1")["status"]["link"] == "online", what="table online")
        d.flush()
        fill_the_disk(d, None)
        peer.play(events)
        wait_for(lambda: not d.board("t1")["store"]["ok"], what="the board says the store fails")
        board = d.board("t1")["store"]
        assert board["error"] == "database or disk is full" and board["since_ms"] > 0
        assert http(d.url + "/api")[1]["store"]["error"] == "database or disk is full"
        assert d.daemon is not None
        committer = d.daemon.committer
        wait_for(lambda: committer.failures >= 4, timeout=60, what="four failed tries")
        assert peer.acked() < len(events)  # nothing past the full disk is acknowledged
        told = errors(caplog, "cannot commit")
        assert told == [told[0]] and "database or disk is full" in told[0], told
        assert not errors(caplog, "rollback")  # the real error is not hidden any more
        fill_the_disk(d, 1 << 30)
        wait_for(lambda: peer.acked() == len(events), timeout=60, what="every event acked")
        wait_for(lambda: d.board("t1")["store"]["ok"], what="the board says the store is back")
        assert errors(caplog, "commits again")
    finally:
        d.stop()
    rows = stored_events(tmp_path / "store.sqlite")
    assert [s for _, s, _ in rows] == list(range(1, len(events) + 1))


def test_stopping_while_the_store_fails_does_not_hang_and_loses_nothing(
    tmp_path: Path, peer: DevicePeer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="baulk.store")
    events = generate_match(4, best_of=3)[:200]
    cfg = make_config(tmp_path, {"t1": tmp_path / "ttyTABLE1"})
    d = DaemonThread(cfg).start()
    wait_for(lambda: d.board("t1")["status"]["link"] == "online", what="table online")
    d.flush()
    fill_the_disk(d, None)
    peer.play(events)
    assert d.daemon is not None
    committer = d.daemon.committer
    wait_for(lambda: committer.failing is not None, what="the store failing")
    d.stop()  # SIGTERM's path: it used to wait in the group commit for ever
    assert errors(caplog, "not stored")
    again = DaemonThread(cfg).start()  # the device sends what was never acked
    try:
        wait_for(lambda: peer.acked() == len(events), timeout=60, what="every event acked")
    finally:
        again.stop()
    rows = stored_events(tmp_path / "store.sqlite")
    assert [s for _, s, _ in rows] == list(range(1, len(events) + 1))


def test_a_store_folder_with_a_missing_parent_is_refused_not_made(tmp_path: Path) -> None:
    where = tmp_path / "no-such-dir" / "var" / "store.sqlite"
    with pytest.raises(StoreError, match="no-such-dir does not exist"):
        Store(where)
    assert not (tmp_path / "no-such-dir").exists()
    Store(tmp_path / "var" / "store.sqlite").close()  # its own folder is made


def test_baulk_run_says_why_the_store_cannot_be_made_without_a_traceback(
    tmp_path: Path,
) -> None:
    config = tmp_path / "baulk.toml"
    config.write_text('[store]\npath = "/proc/baulk/store.sqlite"\n[server]\nport = 0\n')
    done = subprocess.run(
        [sys.executable, "-m", "baulk.host.cli.main", "run", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("baulk run: cannot make the store's folder /proc/baulk")
    assert "Traceback" not in done.stderr


def test_a_second_signal_while_stopping_ends_the_process(tmp_path: Path) -> None:
    # A command stuck on its way out (as baulk run was, in its group commit)
    # must still go when the service manager says so again.
    script = (
        "import asyncio, sys\n"
        "from baulk.host.cli.service import wait_for_stop_signal\n"
        "async def main():\n"
        "    waiting = asyncio.create_task(wait_for_stop_signal())\n"
        "    await asyncio.sleep(0)  # the task has set its signal handlers\n"
        "    print('running', flush=True)\n"
        "    await waiting\n"
        "    print('stopping', flush=True)\n"
        "    await asyncio.Event().wait()  # never done\n"
        "asyncio.run(main())\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "running\n"
        proc.send_signal(signal.SIGTERM)
        assert proc.stdout.readline() == "stopping\n"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 128 + signal.SIGTERM
        assert proc.stderr is not None
        assert "SIGTERM again while stopping: stopping now" in proc.stderr.read()
    finally:
        proc.kill()


def test_while_the_store_cannot_write_desk_and_console_actions_fail_fast(
    tmp_path: Path, peer: DevicePeer
) -> None:
    import dataclasses

    from tests.host.club.test_sessions import billing
    from tests.host.harness import TOKEN

    cfg = dataclasses.replace(
        make_config(tmp_path, {"t1": tmp_path / "ttyTABLE1"}), billing=billing()
    )
    d = DaemonThread(cfg).start()
    try:
        wait_for(lambda: d.board("t1")["status"]["link"] == "online", what="table online")
        assert http(d.url + "/api/tables/t1/session", {}, token=TOKEN)[0] == 200
        match = {"players": ["Ali", "Reza"], "best_of": 3}
        assert http(d.url + "/api/tables/t1/match", match, token=TOKEN)[0] == 200
        d.flush()
        fill_the_disk(d, None)
        events = generate_match(4, best_of=3)[1:300]
        peer.play(events)
        wait_for(lambda: not d.board("t1")["store"]["ok"], what="the store failing")
        for path, body in [
            ("/api/sessions/1/close", {}),
            ("/api/sessions/1/corrections", {"amount": "5", "reason": "a drink"}),
            ("/api/tables/t1/session", {}),
            ("/api/tables/t1/command?lang=fa", {"ev": "undo"}),
            ("/api/tables/t1/names?lang=fa", {"players": ["Ali Zand", "Reza"]}),
            ("/api/tables/t1/match", match),
        ]:
            # At once, not after the disk: the sentence is the store's state,
            # said before anything waits (a wait for the store or the table
            # that ran out says otherwise; one without end meets the client's
            # timeout); no two readings of the clock, which a busy machine slows.
            status, reply = http(d.url + path, body, token=TOKEN)
            assert status == 503, (path, reply)
            assert reply["error"] == (
                "the store cannot write: database or disk is full; nothing was changed"
            ), path
            if "lang=fa" in path:
                assert reply["message"].startswith("رایانه‌ی باشگاه اکنون نمی‌تواند ذخیره کند")
        # What writes nothing to the store still works: the handset's language.
        assert http(d.url + "/api/tables/t1/handset", {"lang": "fa"}, token=TOKEN)[0] in (200, 202)
        assert peer.acked() < peer.last_seq()  # nothing past the full disk is acknowledged
        fill_the_disk(d, 1 << 30)
        wait_for(lambda: d.board("t1")["store"]["ok"], what="the store back")
        wait_for(lambda: peer.acked() == peer.last_seq(), what="every event acked")
        status, reply = http(d.url + "/api/sessions/1/close", {}, token=TOKEN)
        assert status == 200 and not reply["bill"]["open"], reply
    finally:
        d.stop()
