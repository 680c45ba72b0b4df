"""Every public read takes its turn after the score path (host/web/public_reads.py):
not only the boards and the API's reads but the API's description, the
static pages (console, desk, staff), the sensors' and the handset's reads, a
path that is no route; staff go straight; and under a flood of them the
table's events are still acknowledged while the pages still load.  The
acknowledgement rate's ratio under such a flood is bench/ack_under_load.py's
figure (``--reads rest``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from aiohttp import web

from baulk.host.staff import roles
from baulk.host.web.public_reads import READS_KEY, UNLANED
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, wait_for

MATCH = [{"ev": "match", "players": ["Ali", "Reza"], "best_of": 3}]
# What each route's parameters stand for in a request (any value a route
# answers, found or not: a 404 is a read like any other).
PARAMS = {
    "table": "t1",
    "match": "t1-1-1",
    "key": "ali",
    "path": "board.js",
    "fmt": "json",
    "session": "1",
}
# The routes issue 32 found outside the lane, each of which must load.
ONCE_OUTSIDE = (
    "/api/openapi.json",
    "/console",
    "/desk",
    "/staff",
    "/staff/activity",
    "/api/tables/t1/sensors",
    "/api/tables/t1/handset",
)


def public_paths(app: web.Application) -> Iterator[str]:
    """A request path for every GET route that the role table leaves public."""
    for resource in app.router.resources():
        pattern = resource.canonical
        methods = {r.method for r in resource}
        if "GET" not in methods or pattern in UNLANED:
            continue
        if roles.rule_for("GET", pattern) is not None:
            continue  # a staff read: the gate refuses a stranger before any work
        info = resource.get_info()
        if "formatter" in info:
            names = [n.split(":")[0] for n in str(info["formatter"]).split("{")[1:]]
            yield str(resource.url_for(**{n.split("}")[0]: PARAMS[n.split("}")[0]] for n in names}))
        else:
            yield pattern


def stranger(url: str) -> int:
    return http(url)[0]


@pytest.mark.slow  # a daemon loaded for a second: make test runs it, make check does not
def test_every_public_read_takes_a_turn_and_staff_none(daemon: DaemonThread) -> None:
    assert daemon.web is not None
    app = daemon.web.runner.app
    lane = app[READS_KEY].lane
    paths = sorted(set(public_paths(app)) | {"/no/such/page"})
    assert set(ONCE_OUTSIDE) <= set(paths), paths
    for path in paths:
        before = lane.turns
        status = stranger(daemon.url + path)
        assert status < 500, (path, status)
        assert lane.turns > before, f"{path} took no turn"  # a heavy read takes two
    for path in ONCE_OUTSIDE:
        assert stranger(daemon.url + path) == 200, path  # and they load
    before = lane.turns
    status, _ = http(daemon.url + "/api/openapi.json", None, TOKEN)
    assert status == 200 and lane.turns == before  # staff go straight


@pytest.mark.slow  # 30 threads flooding a daemon for seconds: make test runs it
def test_a_flood_of_the_once_outside_reads_leaves_the_acks_and_the_pages(
    daemon: DaemonThread, peer: DevicePeer
) -> None:
    """30 connections from one address load the routes that were outside the
    lane as fast as they are answered, while the table plays: every event
    is acknowledged, the lane held the flood, and a viewer's page loads."""
    assert daemon.web is not None
    lane = daemon.web.runner.app[READS_KEY].lane
    stop = threading.Event()
    answered: dict[int, int] = {}
    lock = threading.Lock()

    def flood(n: int) -> None:
        i = n
        while not stop.is_set():
            status = stranger(daemon.url + ONCE_OUTSIDE[i % len(ONCE_OUTSIDE)])
            i += 1
            with lock:
                answered[status] = answered.get(status, 0) + 1

    turns = lane.turns
    with ThreadPoolExecutor(30) as pool:
        flooding = [pool.submit(flood, n) for n in range(30)]
        try:
            wait_for(lambda: sum(answered.values()) >= 60, what="the flood under way")
            peer.play(MATCH)
            events: list[dict[str, Any]] = [{"ev": "strike"} for _ in range(40)]
            peer.play(events)
            wait_for(lambda: peer.acked() == 1 + len(events), what="every event acked")
            for path in ("/venue", "/console", "/api/tables/t1/sensors"):
                assert stranger(daemon.url + path) == 200, path  # a viewer still gets in
        finally:
            stop.set()
            for f in flooding:
                f.result()
    assert lane.turns - turns >= sum(answered.values())  # each read of the flood took a turn
    assert set(answered) <= {200, 429}, answered  # the only refusal: wait your turn
    assert answered.get(200, 0) > 0
