"""The daemon in a background event loop, for tests that drive it from plain
(blocking) test code, and small helpers around it."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Coroutine
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from baulk.host import config as config_mod
from baulk.host.club.clock import VenueClock
from baulk.host.venue.daemon import Daemon
from baulk.host.web.app import serve

T = TypeVar("T")
TOKEN = "operator-secret-token"


def make_config(tmp: Path, tables: dict[str, Path], token: str | None = TOKEN) -> config_mod.Config:
    return config_mod.Config(
        tables=tuple(
            config_mod.TableConfig(tid, f"Table {tid}", port=str(path))
            for tid, path in tables.items()
        ),
        bind="127.0.0.1",
        port=0,  # a free port
        operator_token=token,
        store_path=tmp / "store.sqlite",
        autodetect=False,
    )


class DaemonThread:
    def __init__(self, cfg: config_mod.Config, **kw: Any) -> None:
        self.cfg = cfg
        self.kw = kw
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.daemon: Daemon | None = None
        self.web: Any = None  # the aiohttp runner
        self._url: str | None = None

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def call(self, coro: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def start(self) -> DaemonThread:
        self.thread.start()

        async def make() -> Daemon:
            d = Daemon(self.cfg, **self.kw)
            await d.start()
            self.web, self._url = await serve(d, self.cfg.bind, self.cfg.port)
            return d

        self.daemon = self.call(make())
        return self

    def stop(self) -> None:
        if self.web is not None:
            self.call(self.web.cleanup())
            self.web = None
        if self.daemon is not None:
            self.call(self.daemon.stop())
            self.daemon = None
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()

    @property
    def url(self) -> str:
        assert self._url is not None
        return self._url

    def board(self, table_id: str) -> dict[str, Any]:
        status, body = http(self.url + f"/api/tables/{table_id}")
        assert status == 200, body
        board: dict[str, Any] = body["board"]
        return board

    def flush(self) -> None:
        assert self.daemon is not None
        self.call(self.daemon.committer.flush())


def http(
    url: str,
    data: Any = None,
    token: str | None = None,
    raw: bytes | None = None,
) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    body = raw if raw is not None else (json.dumps(data).encode() if data is not None else None)
    req = urllib.request.Request(url, data=body, headers=headers, method="POST" if body else "GET")
    try:
        with urllib.request.urlopen(req, timeout=15) as r:
            text = r.read().decode()
            status = r.status
            ctype = r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        text = e.read().decode()
        status = e.code
        ctype = e.headers.get("Content-Type", "")
    return status, json.loads(text) if "json" in ctype else text


# The suite waits for events, never for a fixed time; these bounds only say
# how long a failure takes to be reported, so they are generous: the suite
# must pass while other work keeps both cores busy.
class StillClock(VenueClock):
    """The venue's clocks standing still but for :meth:`advance`: a test that
    reads them twice gets the same moment however busy the machine is."""

    def __init__(self) -> None:
        super().__init__()
        self.wall0 = super().wall_ms() - self.wall_offset_ms
        self.mono0 = super().mono_ms() - self.mono_offset_ms

    def wall_ms(self) -> int:
        return self.wall0 + self.wall_offset_ms

    def mono_ms(self) -> int:
        return self.mono0 + self.mono_offset_ms


def morning(clock: VenueClock, timezone: str) -> None:
    """Set the venue's wall clock to 10:00 of today where the club is, so a
    test that lets hours pass and then reads "today's" report stays within one
    business day whatever hour the suite runs at (a run at 23:00 crossed
    midnight and found the day empty)."""
    zone = ZoneInfo(timezone)
    now = datetime.fromtimestamp(clock.wall_ms() / 1000, zone)
    ten = now.replace(hour=10, minute=0, second=0, microsecond=0)
    clock.wall_offset_ms += round((ten - now).total_seconds() * 1000)


def wait_for(cond: Callable[[], Any], timeout: float = 60.0, what: str = "condition") -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = cond()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def stored_events(store: Path, table: str = "t1") -> list[tuple[int, int, Any]]:
    """(boot_id, seq, event) of the table's events, in the order stored."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=10)
    try:
        rows = db.execute(
            "SELECT boot_id, seq, ev FROM events WHERE table_id = ? ORDER BY id", (table,)
        ).fetchall()
    finally:
        db.close()
    return [(b, s, json.loads(e) if e else None) for b, s, e in rows]
