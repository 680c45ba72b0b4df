"""Operator actions: stored before they are sent, each with an id the table
echoes; at most IN_FLIGHT waiting for their answer; after a restart the
daemon sends again, with their ids, those no stored event answers.  (The
kill -9 and power-cut runs are tests/chaos/test_exactly_once.py.)"""

from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from baulk.host.store import Store
from baulk.host.store.schema import SCHEMA_VERSION
from baulk.host.venue.actions import IN_FLIGHT
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, make_config, wait_for

pytestmark = pytest.mark.slow


def actions(store: Path) -> list[tuple[int, int]]:
    """(action id, events answering it) of every stored action."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        return [
            (a, n)
            for a, n in db.execute(
                "SELECT c.action, (SELECT count(*) FROM events e WHERE e.action = c.action) "
                "FROM commands c ORDER BY c.id"
            )
        ]
    finally:
        db.close()


def test_an_action_for_a_table_offline_is_stored_and_sent_after_a_restart(
    tmp_path: Path,
) -> None:
    link = tmp_path / "ttyTABLE1"
    cfg = make_config(tmp_path, {"t1": link})
    store = cfg.store_path
    first = DaemonThread(cfg).start()
    try:
        status, reply = http(
            first.url + "/api/tables/t1/match",
            {"players": ["Ali", "Reza"], "best_of": 5},
            token=TOKEN,
        )
        assert status == 202 and reply["status"] == "queued", reply
        assert reply["action"] and reply["seq"] is None  # stored, not sent: no table
    finally:
        first.stop()  # what it held in memory is gone; its store is not
    assert actions(store) == [(reply["action"], 0)]
    peer = DevicePeer("t1", link_path=link).start()
    try:
        second = DaemonThread(cfg).start()
        try:
            wait_for(lambda: peer.engine.state()["players"] == ["Ali", "Reza"], what="sent")
            second.flush()
            wait_for(lambda: actions(store) == [(reply["action"], 1)], what="answer stored")
        finally:
            second.stop()
        third = DaemonThread(cfg).start()  # answered: nothing goes out again
        try:
            wait_for(lambda: third.board("t1")["status"]["link"] == "online", what="online")
            status, again = http(
                third.url + "/api/tables/t1/command", {"ev": "toss", "side": 1}, token=TOKEN
            )
            assert status in (200, 409), again
            third.flush()
        finally:
            third.stop()
        matches = [c for t, _, c in peer.commands if t == 7]
        assert len(matches) == 1  # the set-up went to the table once
        ids = [a for a, _ in actions(store)]
        assert len(set(ids)) == 2 and ids[1] != ids[0]  # a new id, never one used before
        assert [n for _, n in actions(store)] == [1, 1]
    finally:
        peer.stop()


class HoldingPeer(DevicePeer):
    """A table that takes the host's messages in but answers only when let."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.hold = True
        self.held_commands: list[tuple[int, int, dict[Any, Any]]] = []

    def _from_host(self, mtype: int, seq: int, body: dict[Any, Any]) -> None:
        if self.hold:
            self.held_commands.append((mtype, seq, body))
            return
        super()._from_host(mtype, seq, body)

    def let_go(self) -> None:
        with self.lock:
            self.hold = False
            held, self.held_commands = self.held_commands, []
            for m in held:
                super()._from_host(*m)


def test_no_more_than_in_flight_actions_wait_for_their_answer(tmp_path: Path) -> None:
    link = tmp_path / "ttyTABLE1"
    peer = HoldingPeer("t1", link_path=link).start()
    daemon = DaemonThread(make_config(tmp_path, {"t1": link})).start()
    try:
        wait_for(lambda: daemon.board("t1")["status"]["link"] == "online", what="online")
        http(daemon.url + "/api/tables/t1/match", {"players": ["A", "B"], "best_of": 3}, TOKEN)
        n = IN_FLIGHT + 4

        def undo(_: int) -> tuple[int, Any]:
            return http(daemon.url + "/api/tables/t1/command", {"ev": "undo"}, token=TOKEN)

        with ThreadPoolExecutor(n) as pool:
            replies = list(pool.map(undo, range(n)))
        assert all(s == 202 for s, _ in replies), replies  # none answered yet
        rt = daemon.daemon.tables["t1"] if daemon.daemon else None
        assert rt is not None
        wait_for(lambda: len(peer.held_commands) == IN_FLIGHT, what="in flight")
        assert len(rt.actions.sent) == IN_FLIGHT and len(rt.actions.queue) == n + 1 - IN_FLIGHT
        peer.let_go()
        wait_for(lambda: len(actions(daemon.cfg.store_path)) == n + 1, what="all stored")

        def all_answered() -> bool:
            daemon.flush()
            return [c for _, c in actions(daemon.cfg.store_path)] == [1] * (n + 1)

        wait_for(all_answered, what="each answered once")
        assert len(rt.actions) == 0
    finally:
        daemon.stop()
        peer.stop()


SCHEMA_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema', '1');
CREATE TABLE events (id INTEGER PRIMARY KEY, table_id TEXT NOT NULL, boot_id INTEGER NOT NULL,
    seq INTEGER NOT NULL, rx_ms INTEGER NOT NULL, src INTEGER NOT NULL DEFAULT 0,
    cmd INTEGER NOT NULL DEFAULT 0, name TEXT, ev TEXT, scores TEXT, rejected TEXT,
    invalid TEXT, match_id TEXT, frame INTEGER, UNIQUE (table_id, boot_id, seq));
CREATE TABLE commands (id INTEGER PRIMARY KEY, table_id TEXT NOT NULL, seq INTEGER NOT NULL,
    mtype INTEGER NOT NULL, body TEXT NOT NULL, who TEXT, created_ms INTEGER NOT NULL);
INSERT INTO events (table_id, boot_id, seq, rx_ms, ev) VALUES ('t1', 1, 1, 0, '{"ev":"rest"}');
INSERT INTO commands (table_id, seq, mtype, body, created_ms) VALUES ('t1', 1, 8, '{}', 0);
"""


def test_a_store_of_the_first_schema_gains_the_new_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(SCHEMA_1)
    db.close()
    Store(path).close()
    db = sqlite3.connect(path)
    try:
        cols = {
            t: {r[1] for r in db.execute(f"PRAGMA table_info({t})")} for t in ("events", "commands")
        }
        assert {"action", "body"} <= cols["events"] and "action" in cols["commands"]
        assert db.execute("SELECT count(*) FROM checkpoints").fetchone()[0] == 0
        assert db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == str(
            SCHEMA_VERSION
        )
        # the old rows are all there; an old action has no id and is never resent
        assert db.execute("SELECT count(*) FROM events").fetchone()[0] == 1
        assert db.execute("SELECT action FROM commands").fetchone()[0] is None
    finally:
        db.close()


def test_a_refused_action_draws_its_id_again_with_its_row(tmp_path: Path) -> None:
    from baulk.host.store import Batch, CommandRow

    store = Store(tmp_path / "s.sqlite")
    try:
        row = CommandRow("t1", 0, 8, {"input": {"ev": "undo"}}, None, 0, epoch=5)
        store.db.execute(
            "CREATE TRIGGER boom AFTER UPDATE ON commands BEGIN SELECT RAISE(ABORT, 'disk'); END"
        )
        written = store.write(Batch(commands=[row]))
        assert [(r, why) for r, why in written.refused] == [(row, "disk")]
        assert row.action == 0  # rolled back: the id it had is no one's
        assert store.db.execute("SELECT count(*) FROM commands").fetchone() == (0,)
        store.db.execute("DROP TRIGGER boom")
        store.write(Batch(commands=[row]))
        assert row.action == (5 << 32) | 1
    finally:
        store.close()
