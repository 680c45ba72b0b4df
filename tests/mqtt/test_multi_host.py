"""The whole thing, as a venue runs it: simulated tables (the real firmware on
ptys), ``baulk run`` processes publishing to a real Mosquitto, and one
``baulk board --mqtt`` process serving every host's tables."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from baulk.host.mqtt.wire import Position
from tests.mqtt.broker import Broker
from tests.mqtt.helpers import VENUE, Process, get_json, wait_for

pytestmark = pytest.mark.broker

SPEED = 25.0  # the simulated tables play fast, so a test sees many events


def start_host(folder: Path, host_id: str, ports: dict[str, str], url: str) -> Process:
    """``baulk run --mqtt URL`` with the given tables."""
    folder.mkdir(parents=True, exist_ok=True)
    tables = "".join(f'\n[[table]]\nid = "{t}"\nport = "{p}"\n' for t, p in ports.items())
    config = folder / "baulk.toml"
    config.write_text(
        f'[server]\nport = 0\n[store]\npath = "{folder}/store.sqlite"\n'
        f'[autodetect]\nenabled = false\n[mqtt]\nvenue = "{VENUE}"\nhost_id = "{host_id}"\n'
        + tables
    )
    return Process(["run", "--config", str(config), "--mqtt", url])


def start_board(url: str) -> Process:
    return Process(
        ["board", "--mqtt", url, "--venue", VENUE, "--port", "0", "--client-id", "venue-board"]
    )


@contextlib.contextmanager
def simulated_tables(*table_ids: str, seed: int = 1) -> Iterator[dict[str, Any]]:
    from baulk.host.sim.table import SimulatedTable

    sims = {t: SimulatedTable(t, seed=seed + i, speed=SPEED) for i, t in enumerate(table_ids)}
    try:
        for s in sims.values():
            s.start()
        yield sims
    finally:
        for s in sims.values():
            with contextlib.suppress(Exception):
                s.stop()


def stored_positions(store: Path, table: str) -> set[Position]:
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT boot_id, seq FROM events WHERE table_id = ?", (table,))
        return {Position(b, s) for b, s in rows}
    finally:
        db.close()


def board_positions(info: dict[str, Any], table: str) -> set[Position]:
    out: set[Position] = set()
    for boot, ranges in info["tables"][table]["seen"].items():
        for lo, hi in ranges:
            out.update(Position(int(boot), q) for q in range(lo, hi + 1))
    return out


async def follow_live_feed(url: str, seconds: float) -> dict[str, list[dict[str, Any]]]:
    """Every board message per table that the live feed sends in ``seconds``."""
    seen: dict[str, list[dict[str, Any]]] = {}
    ws_url = url.replace("http://", "ws://") + "/api/live"
    async with aiohttp.ClientSession() as session, session.ws_connect(ws_url) as ws:
        hello = json.loads((await ws.receive(timeout=10)).data)
        assert hello["type"] == "hello"
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while (left := end - loop.time()) > 0:
            try:
                msg = await ws.receive(timeout=left)
            except TimeoutError:
                break
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            data = json.loads(msg.data)
            if data.get("type") == "board":
                seen.setdefault(data["table"], []).append(data["board"])
    return seen


def test_two_hosts_one_board(broker: Broker, tmp_path: Path) -> None:
    board = start_board(broker.url)
    hosts: list[Process] = []
    try:
        board_url = board.url()
        with simulated_tables("t1", "t2", "t3", "t4") as sims:
            hosts.append(
                start_host(
                    tmp_path / "pc-a", "pc-a", {t: sims[t].port for t in ("t1", "t2")}, broker.url
                )
            )
            hosts.append(
                start_host(
                    tmp_path / "pc-b", "pc-b", {t: sims[t].port for t in ("t3", "t4")}, broker.url
                )
            )
            for h in hosts:
                h.url()

            def all_four() -> bool:
                return bool(get_json(f"{board_url}/api")["tables"] == ["t1", "t2", "t3", "t4"])

            wait_for(all_four, "both hosts' tables on the board", 60)
            # Live: through the board's own live feed, every table's board keeps
            # changing as its table plays.
            feed = asyncio.run(follow_live_feed(board_url, 6.0))
            for t, owner in (("t1", "pc-a"), ("t2", "pc-a"), ("t3", "pc-b"), ("t4", "pc-b")):
                boards = feed.get(t, [])
                assert len(boards) >= 2, f"{t} did not move on the live feed"
                assert boards[-1]["mqtt"]["host"] == owner
                assert boards[-1]["status"]["link"] == "online"
                counts = [b["mqtt"]["received"] for b in boards]
                print(t, counts, [b.get("events") for b in boards], boards[-1]["status"])
                print("HOSTERR", hosts[0].err[-3000:])
                assert counts[-1] > counts[0], f"{t}: no new events on the live feed"
                assert boards[-1]["match"]["names"] == ["Player A", "Player B"]
        # The tables are gone: nothing new is stored from here on.  The board
        # ends with what each host stored, each event once.
        for h, owner in zip(hosts, ("pc-a", "pc-b"), strict=True):
            store = tmp_path / owner / "store.sqlite"
            for t in ("t1", "t2") if owner == "pc-a" else ("t3", "t4"):

                def complete(t: str = t, store: Path = store) -> bool:
                    info = get_json(f"{board_url}/api/mqtt")
                    return board_positions(info, t) == stored_positions(store, t)

                wait_for(complete, f"{t}'s events on the board", 30)
                info = get_json(f"{board_url}/api/mqtt")["tables"][t]
                assert info["received"] == len(stored_positions(store, t))
                assert info["gaps_open"] == 0
            assert h.stop() == 0
        wait_for(
            lambda: (
                not any(h["online"] for h in get_json(f"{board_url}/api/mqtt")["hosts"].values())
            ),
            "both hosts offline after they stopped",
        )
        t1 = get_json(f"{board_url}/api/tables/t1")["board"]
        assert t1["status"]["link"] == "offline"
        assert "host pc-a is offline (stopped)" in t1["status"]["reason"]
    finally:
        for h in hosts:
            h.stop()
        assert board.stop() == 0


def test_broker_restart_mid_match(broker: Broker, tmp_path: Path) -> None:
    """The broker restarts while two tables play: host and board reconnect by
    themselves, and the board ends with every stored event exactly once."""
    board = start_board(broker.url)
    host: Process | None = None
    try:
        board_url = board.url()
        with simulated_tables("t1", "t2", seed=7) as sims:
            host = start_host(
                tmp_path / "pc-a", "pc-a", {t: s.port for t, s in sims.items()}, broker.url
            )
            host.url()

            def events_on_board(n: int) -> bool:
                info = get_json(f"{board_url}/api/mqtt")
                tables = info["tables"]
                return all(tables.get(t, {}).get("received", 0) >= n for t in ("t1", "t2"))

            wait_for(lambda: events_on_board(10), "the match under way", 60)
            broker.restart(down_for=1.5)  # the tables go on scoring meanwhile
            before = get_json(f"{board_url}/api/mqtt")["stats"]["events"]
            wait_for(
                lambda: get_json(f"{board_url}/api/mqtt")["stats"]["events"] > before + 10,
                "events flowing again after the restart",
                60,
            )
        store = tmp_path / "pc-a" / "store.sqlite"
        for t in ("t1", "t2"):

            def complete(t: str = t) -> bool:
                info = get_json(f"{board_url}/api/mqtt")
                return board_positions(info, t) == stored_positions(store, t)

            wait_for(complete, f"{t}: every stored event on the board", 30)
            info = get_json(f"{board_url}/api/mqtt")
            assert info["tables"][t]["received"] == len(stored_positions(store, t))
            assert info["tables"][t]["gaps_open"] == 0
        info = get_json(f"{board_url}/api/mqtt")
        assert info["connects"] >= 2
        assert "lost the broker" in board.err
        assert host.proc.poll() is None
        assert "lost the broker" in host.err
    finally:
        if host is not None:
            host.stop()
        assert board.stop() == 0


def test_run_with_wrong_credentials_exits_with_a_clear_error(
    secured_broker: Broker, tmp_path: Path
) -> None:
    host = start_host(tmp_path / "pc-a", "pc-a", {}, secured_broker.url_for("scorer", "bad"))
    assert host.wait(30) == 2
    assert "baulk run:" in host.err and "refused the user name or password" in host.err
