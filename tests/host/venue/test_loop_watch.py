"""No request handler may do unbounded work on the event loop; when one
does anyway, the daemon's log says for how long and where (host/cli/
service.py LoopWatch).  And what the web side is handed is bounded before a
handler sees it: a JSON number no field needs is refused at the body."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import pytest

from baulk.host.cli import service
from baulk.host.cli.service import LoopWatch
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http


@pytest.mark.slow  # holds the loop for real: make test
def test_a_held_loop_is_told_with_where_it_was_held(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.WARNING, logger="baulk")
    seen = threading.Event()  # the watch has found the loop held, and where
    where = service._where

    def found_where(frame: Any) -> str:
        place = where(frame)
        seen.set()
        return place

    monkeypatch.setattr(service, "_where", found_where)

    def hog() -> None:
        # as a handler doing unbounded work would: here, until the watch has
        # seen it held, however long a busy machine takes to look
        assert seen.wait(60)

    async def run() -> LoopWatch:
        watch = LoopWatch(stall_s=1.0)  # a busy machine never holds a free loop this long
        watch.CHECK_S = 0.05
        watch.start()
        await asyncio.sleep(4 * watch.CHECK_S)  # a free loop, looked at a few times
        assert watch.stalls == 0
        for n in (1, 2):
            seen.clear()
            hog()
            while watch.stalls < n:  # told once the loop answers again
                await asyncio.sleep(watch.CHECK_S)
        watch.stop()
        return watch

    watch = asyncio.run(run())
    assert watch.stalls == 2
    told = [r.getMessage() for r in caplog.records if "event loop was held" in r.getMessage()]
    assert len(told) == 1, told  # once per place, then counted
    assert "test_loop_watch.py" in told[0] and "in hog" in told[0]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (b'{"best_of": 1e999}', "1e999 is not a finite number"),
        (b'{"best_of": -1e999}', "is not a finite number"),
        (b'{"best_of": NaN}', "NaN is not a number"),
        (b'{"best_of": Infinity}', "Infinity is not a number"),
        (b'{"best_of": ' + b"1" * 41 + b"}", "a number is longer than 40 characters"),
        (b'{"best_of": 1.' + b"0" * 40 + b"}", "a number is longer than 40 characters"),
    ],
)
def test_a_number_no_field_needs_is_refused_at_the_body(
    daemon: DaemonThread, peer: DevicePeer, raw: bytes, why: str
) -> None:
    status, reply = http(daemon.url + "/api/tables/t1/match?lang=fa", token=TOKEN, raw=raw)
    assert status == 400 and why in reply["error"], reply
    assert reply["error"].startswith("the body must be a JSON object: ")
    # the number's bound said in Persian too (its message, host/web/http.py)
    assert reply["message"].startswith("درخواست ساختار درستی ندارد: ")
    assert reply["id"] == "the body must be a JSON object: {reason}"
    assert peer.last_seq() == 0
