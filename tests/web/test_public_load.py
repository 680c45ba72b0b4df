"""The public reads come after the score path (host/web/public_reads.py): a
heavy read is worked out off the event loop and once per store version,
public reads take turns round the addresses, and an address that asks too
much at once is answered 429.  How fast the tables are acknowledged under a
flood is bench/ack_under_load.py's figure, not a test's."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from baulk.host.sentences import say
from baulk.host.store import Batch, Changes, LinkRow, Store
from baulk.host.web import public_reads
from baulk.host.web.public_reads import COMPUTING_PER_ADDRESS, READS_KEY, Answer, Lane
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, make_config, wait_for

MATCH = [{"ev": "match", "players": ["Ali", "Reza"], "best_of": 3}]


def test_a_heavy_read_is_worked_out_off_the_loop_once_per_store_version(
    daemon: DaemonThread, peer: DevicePeer
) -> None:
    peer.play(MATCH)
    wait_for(lambda: peer.acked() == 1, what="the match acked")
    daemon.flush()
    assert daemon.web is not None
    reads = daemon.web.runner.app[READS_KEY]
    first = http(daemon.url + "/api/matches?limit=1000")
    assert first[0] == 200 and len(first[1]["matches"]) == 1
    assert reads.worker.thread is not None and reads.worker.thread is not daemon.thread
    worked = reads.computed
    assert http(daemon.url + "/api/matches?limit=1000") == first  # kept: the store is as it was
    assert reads.computed == worked
    match_id = first[1]["matches"][0]["match_id"]
    for path in (f"/report/{match_id}", f"/api/matches/{match_id}"):
        assert http(daemon.url + path)[0] == 200
        assert http(daemon.url + path)[0] == 200
    assert reads.computed == worked + 2

    peer.play([{"ev": "strike"}])  # the store moves on: never the answer from before it
    wait_for(lambda: peer.acked() == 2, what="the strike acked")
    daemon.flush()
    assert http(daemon.url + f"/api/matches/{match_id}")[0] == 200
    assert reads.computed == worked + 3  # worked out again, from the store as it is now


def test_turns_go_one_at_a_time_round_the_addresses() -> None:
    async def run() -> list[str]:
        lane = Lane(share=1.0, overhead_s=0.0)  # no pause between turns: the order alone
        order: list[str] = []

        async def read(address: str, n: int) -> None:
            await lane.enter(address)
            order.append(f"{address}{n}")
            await asyncio.sleep(0)  # others are waiting meanwhile, none enters
            assert lane.busy
            lane.leave()

        await lane.enter("x")  # a turn held while the others queue
        tasks = [asyncio.ensure_future(read("a", n)) for n in range(3)]
        tasks.append(asyncio.ensure_future(read("b", 0)))
        tasks.append(asyncio.ensure_future(read("c", 0)))
        await asyncio.sleep(0)
        assert lane.queued("a") == 3 and order == []
        lane.leave()
        await asyncio.gather(*tasks)
        return order

    assert asyncio.run(run()) == ["a0", "b0", "c0", "a1", "a2"]


def test_a_turn_leaves_the_loop_in_proportion_to_its_cost() -> None:
    async def run() -> tuple[float, float]:
        lane = Lane(share=0.25, overhead_s=0.2)
        await lane.enter("a")
        before = time.perf_counter()
        lane.leave()  # a turn of about 0.2 s as counted: 0.6 s of the loop left to others
        after = time.perf_counter()
        return lane.free_at - after, lane.free_at - before  # the rest lies between

    least, most = asyncio.run(run())
    assert least < public_reads.REST_MOST_S and most >= 0.6


def test_a_slow_turn_holds_the_next_reads_back_a_second_at_most() -> None:
    # The turn's cost is what it took the loop: its thread's CPU time.  A
    # turn whose wall time a busy machine stretched costs only that, and even
    # a turn that cost the loop 10 s leaves it for REST_MOST_S, not 190 s.
    async def run(overhead_s: float) -> float:
        lane = Lane(share=0.05, overhead_s=overhead_s)
        await lane.enter("a")
        await asyncio.sleep(0.3)  # the turn waits on something: the loop is free meanwhile
        lane.leave()
        return lane.free_at - time.perf_counter()

    assert asyncio.run(run(0.0)) < 0.3 * 19 / 2  # not charged for the wall time it waited
    assert asyncio.run(run(10.0)) <= public_reads.REST_MOST_S


@pytest.mark.slow  # a daemon loaded for a second: make test runs it, make check does not
def test_an_address_with_too_many_heavy_reads_at_once_is_told_to_wait(tmp_path: Path) -> None:
    release = threading.Event()

    def slow(_: Any, n: int) -> Answer:
        release.wait(30)
        return Answer(str(n).encode(), "text/plain")

    async def heavy(request: web.Request) -> web.StreamResponse:
        n = int(request.match_info["n"])
        found = await request.app[READS_KEY].answer(request, ("slow", n), slow, n)
        return found.response()

    async def run() -> None:
        app = web.Application(middlewares=[public_reads.lane])
        reads = public_reads.install(app, tmp_path / "no-store.sqlite")
        app.router.add_get("/slow/{n}", heavy)
        async with TestClient(TestServer(app)) as client:
            waiting = [
                asyncio.ensure_future(client.get(f"/slow/{n}"))
                for n in range(COMPUTING_PER_ADDRESS)
            ]
            while sum(reads.computing.values()) < COMPUTING_PER_ADDRESS:
                await asyncio.sleep(0.01)
            r = await client.get("/slow/99?lang=fa")
            assert r.status == 429 and r.headers["Retry-After"]
            body = await r.json()
            assert body["error"] == str(public_reads.TOO_MANY)
            assert body["message"] == say(public_reads.TOO_MANY, "fa") != body["error"]
            release.set()
            answers = await asyncio.gather(*waiting)
            assert [await a.text() for a in answers] == [str(n) for n in range(len(waiting))]

    asyncio.run(run())


def test_json_in_pieces_is_json_dumps_to_the_character() -> None:
    data = {
        "schema": 1,
        "report": {"match": {"names": ["Ali", "رضا"]}, "frames": [[1, 2.5], (3, None)]},
        "n": {1: "a"},  # keys that are not text: as json.dumps has them
        "deep": [[[["x", {"y": True}]]]],
    }
    assert public_reads.dumps_in_pieces(data) == json.dumps(data, ensure_ascii=False)


@pytest.mark.slow  # a daemon loaded for a second: make test runs it, make check does not
def test_a_table_streaming_leaves_the_other_tables_answers_kept(tmp_path: Path) -> None:
    """The versions are per venue table: t2's events leave t1's report and
    t1's match list kept, while what reads every table (the whole list) and
    t1's own events, a name correction or another process's commit move."""
    cfg = make_config(tmp_path, {"t1": tmp_path / "ttyT1", "t2": tmp_path / "ttyT2"})
    one = DevicePeer("t1", link_path=tmp_path / "ttyT1").start()
    two = DevicePeer("t2", link_path=tmp_path / "ttyT2").start()
    d = DaemonThread(cfg).start()
    try:
        for t in ("t1", "t2"):
            wait_for(lambda: d.board(t)["status"]["link"] == "online", what="online")  # noqa: B023
        for p in (one, two):
            p.play(MATCH)
        wait_for(lambda: one.acked() == two.acked() == 1, what="the matches acked")
        d.flush()
        assert d.web is not None
        reads = d.web.runner.app[READS_KEY]
        (match,) = http(d.url + "/api/matches?table=t1")[1]["matches"]
        t1_reads = [f"/report/{match['match_id']}", f"/api/matches/{match['match_id']}",
                    "/api/matches?table=t1", "/api/tables/t1/sensors"]  # fmt: skip
        every = ["/api/matches", "/api/players?q=ali"]

        def worked(paths: list[str]) -> int:
            before = reads.computed
            for path in paths:
                assert http(d.url + path)[0] == 200, path
            return int(reads.computed - before)

        assert worked(t1_reads + every) == 5  # once each (t1's list was read above)
        two.play([{"ev": "strike"}] * 3)  # t2 streams
        wait_for(lambda: two.acked() == 4, what="t2's strikes acked")
        d.flush()
        hits = reads.hits
        assert worked(t1_reads) == 0 and reads.hits == hits + 4  # t1's: from memory
        assert worked(every) == 2  # of every table: worked out again
        one.play([{"ev": "strike"}])  # t1's own rows move
        wait_for(lambda: one.acked() == 2, what="t1's strike acked")
        d.flush()
        assert worked(t1_reads) == 4
        # a name correction is of no one table's rows: everything moves
        status, body = http(d.url + "/api/tables/t1/names", {"players": ["Ali", "Reza Two"]}, TOKEN)
        assert status == 200, body
        d.flush()
        assert worked(t1_reads) == 4
        # another process writes the file (as baulk users does): everything moves
        db = sqlite3.connect(cfg.store_path)
        try:
            db.execute("INSERT INTO meta (key, value) VALUES ('outside', '1')")
            db.commit()
        finally:
            db.close()
        assert worked(t1_reads[:1]) == 1
    finally:
        d.stop()
        one.stop()
        two.stop()


def test_the_writer_sees_another_process_commit_beside_its_own(tmp_path: Path) -> None:
    """Changes.watch: data_version on the writer's own connection moves with
    another connection's commit, never with the writer's own."""
    store = Store(tmp_path / "venue.sqlite")
    changes = Changes()
    try:
        changes.watch(store.db)
        store.commit(Batch(links=[LinkRow("t1", name="Table 1")]))
        changes.watch(store.db)
        assert (changes.venue, changes.any) == (0, 0)  # its own commit moves nothing here
        other = sqlite3.connect(tmp_path / "venue.sqlite")
        try:
            other.execute("INSERT INTO meta (key, value) VALUES ('outside', '1')")
            other.commit()
        finally:
            other.close()
        changes.watch(store.db)
        assert (changes.venue, changes.any) == (1, 1)  # another's moves every version
    finally:
        store.close()
