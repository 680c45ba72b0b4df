"""The score path isolated, shared by tests/chaos/test_isolation.py (short)
and bench/chaos_isolation.py (full).  Two tables play into the real daemon,
a device peer and a simulated table (the real firmware, autoplaying), while
every other kind of row the store writes fails, in turn and together:

* in SQL, as a broken schema or a full table would (a trigger aborts every
  write of that kind): links, hello frames, operator actions, name
  corrections, table sessions, bill corrections, sensor health, and every
  projection written beside the events (matches, frames, breaks, frame
  play, the players and their figures, the ball accounting, the sensors'
  disagreements);
* in Python, as a bug would: another part's own row kind whose write raises
  (an activity log), the statistics' writer raising now and then, the desk's
  session hook and the handset's names raising;
* in value: a correction of 1e308, a link row beyond 64 bits.

Meanwhile the desk and the console act (open, correct, close, a command, a
name correction): each answers, refused or not, and never hangs.  At the end
the failures stop and each table's events must be in the store exactly
once, in order, every one acknowledged; ``baulk rebuild`` then makes the
dropped projections again."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from baulk.host.club import tariffs
from baulk.host.referee.rebuild import rebuild as rebuild_store
from baulk.host.sim.matches import generate_match
from baulk.host.sim.table import SimulatedTable
from baulk.host.store import LinkRow, StoreRefused
from baulk.host.store import writer as store_writer
from tests.chaos.kit import JournalTap, compare, settled, stop_play, stored_events, wait_until
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, make_config

# What fails, by the kind of row: its table, and which inserts and updates.
SQL_KINDS: dict[str, tuple[str, str, str]] = {
    # A link row never moves `delivered`: that is the score path's own column.
    "link": ("links", "NEW.delivered = 0", "NEW.delivered IS OLD.delivered"),
    "hello frame": ("raw_frames", "NEW.mtype = 1", "0"),
    "operator action": ("commands", "1", "1"),
    "name correction": ("name_fixes", "1", "1"),
    "table session": ("table_sessions", "1", "1"),
    "bill correction": ("bill_corrections", "1", "1"),
    "sensor health": ("sensor_health", "1", "1"),
    "projection: match": ("matches", "1", "1"),
    "projection: frame": ("frames", "1", "1"),
    "projection: break": ("breaks", "1", "1"),
    "projection: frame play": ("frame_play", "1", "1"),
    "projection: player": ("players", "1", "1"),
    "projection: player figures": ("player_frames", "1", "1"),
    "projection: ball accounting": ("frame_accounts", "1", "1"),
    "projection: sensor disagreement": ("sensor_disagreements", "1", "1"),
}


class ActivityEntry:
    """Another part of the host's own row kind, whose write has a bug."""

    KIND: ClassVar[str] = "activity entry"

    def __init__(self, text: str) -> None:
        self.text = text

    def write(self, db: sqlite3.Connection) -> None:
        raise TypeError(f"a bug in the activity log ({self.text})")


def _post(url: str, body: dict[str, Any]) -> tuple[int, Any, float]:
    """A desk or console action: its status (0: no answer), its reply and
    how long it took."""
    req = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        method="POST",
    )
    start = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=15) as r:
            status, reply = r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        status, reply = e.code, json.loads(e.read() or b"null")
    except OSError:
        status, reply = 0, None
    return status, reply, time.monotonic() - start


class Injector:
    """Turns the failures on and off on the daemon, on the writer's own
    thread for SQL and on the event loop for Python."""

    def __init__(self, d: DaemonThread, rng: random.Random) -> None:
        assert d.daemon is not None
        self.d = d
        self.daemon = d.daemon
        self.rng = rng
        self.on: set[str] = set()
        self.turned_on: dict[str, int] = {}
        self._real = (
            store_writer.project_stats,
            self.daemon.sessions.on_event,
            self.daemon.handsets.on_players,
        )
        self.bugs = 0

    def _sql(self, sql: str) -> None:
        committer = self.daemon.committer

        async def run() -> None:
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(committer.executor, committer.store.db.execute, sql)

        self.d.call(run())

    def fail(self, kind: str) -> None:
        table, on_insert, on_update = SQL_KINDS[kind]
        name = "inject_" + "".join(c if c.isalnum() else "_" for c in kind)
        for op, when in (("INSERT", on_insert), ("UPDATE", on_update)):
            self._sql(
                f"CREATE TRIGGER IF NOT EXISTS {name}_{op.lower()} BEFORE {op} ON {table} "
                f"WHEN {when} BEGIN SELECT RAISE(ABORT, 'injected: {kind}'); END"
            )
        self.on.add(kind)
        self.turned_on[kind] = self.turned_on.get(kind, 0) + 1

    def heal(self, kind: str) -> None:
        name = "inject_" + "".join(c if c.isalnum() else "_" for c in kind)
        for op in ("insert", "update"):
            self._sql(f"DROP TRIGGER IF EXISTS {name}_{op}")
        self.on.discard(kind)

    def bugs_on(self) -> None:
        """Python bugs: the statistics' writer, the desk's hook, the handset."""
        real_stats, real_event, _ = self._real
        rng = self.rng
        injector = self

        def stats(*args: Any) -> None:
            if rng.random() < 0.3:
                injector.bugs += 1
                raise ZeroDivisionError("a bug in the statistics")
            real_stats(*args)

        def on_event(*args: Any) -> None:
            if rng.random() < 0.1:
                injector.bugs += 1
                raise KeyError("a bug in the desk's hook")
            real_event(*args)

        def on_players(*args: Any) -> None:
            injector.bugs += 1
            raise AttributeError("a bug in the handset's names")

        store_writer.project_stats = stats  # type: ignore[assignment]
        self.daemon.sessions.on_event = on_event  # type: ignore[method-assign]
        self.daemon.handsets.on_players = on_players  # type: ignore[method-assign]

    def bugs_off(self) -> None:
        real_stats, real_event, real_players = self._real
        store_writer.project_stats = real_stats
        self.daemon.sessions.on_event = real_event  # type: ignore[method-assign]
        self.daemon.handsets.on_players = real_players  # type: ignore[method-assign]

    def submit(self, make: Callable[[], Any]) -> str:
        """A row submitted as another part of the host would: its outcome."""

        async def run() -> str:
            try:
                await self.daemon.committer.submit(make())
            except StoreRefused as e:
                return f"refused {e.kind.value}"
            except Exception as e:  # StoreFailing
                return type(e).__name__
            return "stored"

        return self.d.call(run())


class Desk(threading.Thread):
    """The desk and the console acting all along: every answer is counted,
    with its status, and how long the slowest took."""

    def __init__(self, url: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.stop_at = stop
        self.answers: dict[str, dict[int, int]] = {}
        self.slowest_s = 0.0

    def act(self, what: str, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        status, reply, took = _post(self.url + path, body)
        self.answers.setdefault(what, {})
        self.answers[what][status] = self.answers[what].get(status, 0) + 1
        self.slowest_s = max(self.slowest_s, took)
        return status, reply

    def run(self) -> None:
        sid: int | None = None
        while not self.stop_at.is_set():
            if sid is None:
                status, reply = self.act("open", "/api/tables/t1/session", {})
                if status == 200:
                    sid = reply["bill"]["session_id"]
            if sid is not None:
                path = f"/api/sessions/{sid}"
                self.act("correct", path + "/corrections", {"amount": 5, "reason": "a drink"})
                self.act("correct 1e308", path + "/corrections", {"amount": 1e308, "reason": "x"})
                if self.act("close", path + "/close", {})[0] == 200:
                    sid = None
            self.act("names", "/api/tables/t1/names", {"players": ["Ali Zand", "Reza"]})
            self.act("command", "/api/tables/t2/command", {"ev": "nominate", "ball": "pink"})
            self.stop_at.wait(0.2)


def run(tmp: Path, seconds: float, seed: int = 5, speed: float = 50.0) -> dict[str, Any]:
    rng = random.Random(seed)
    tap = JournalTap().install()
    sim = SimulatedTable("t2", seed=seed, speed=speed, flash_dir=tmp / "flash")
    sim.wait_for_host_s = 0.5
    peer = DevicePeer("t1", link_path=tmp / "ttyT1")
    billing = tariffs.parse(
        {
            "billing": {"timezone": "UTC"},
            "tariff": [{"name": "std", "currency": "GBP", "per_hour": 6, "round_min": 5}],
        },
        {"t1", "t2"},
    )
    figures: dict[str, Any] = {"seconds": seconds, "kinds": len(SQL_KINDS) + 5}
    d: DaemonThread | None = None
    stop = threading.Event()
    try:
        sim.start()
        peer.start()
        cfg = dataclasses.replace(
            make_config(tmp, {"t1": tmp / "ttyT1", "t2": Path(sim.port)}), billing=billing
        )
        d = DaemonThread(cfg).start()
        wait_until(lambda: d is not None and d.board("t1")["status"]["link"] == "online", 30)
        inject = Injector(d, rng)
        desk = Desk(d.url, stop)
        events = generate_match(seed, best_of=35)
        gap_s = 0.9 * seconds / len(events)  # the device peer plays all along
        played = threading.Thread(target=peer.play, args=(events, gap_s), daemon=True)
        played.start()
        desk.start()
        inject.bugs_on()
        outcomes: dict[str, int] = {}
        kinds = list(SQL_KINDS)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            # A few kinds at a time, in turn, and now and then all together.
            everything = rng.random() < 0.2
            chosen = kinds if everything else rng.sample(kinds, 3)
            for kind in chosen:
                inject.fail(kind)
            for make in (
                lambda: ActivityEntry("at a sign-in"),
                lambda: LinkRow("t1", last_seen_ms=1 << 70),
            ):
                what = inject.submit(make)
                outcomes[what] = outcomes.get(what, 0) + 1
            time.sleep(rng.uniform(0.3, 1.0))
            for kind in chosen:
                inject.heal(kind)
        stop.set()
        desk.join(30)
        inject.bugs_off()
        played.join(120)
        stop_play(sim)
        wait_until(lambda: peer.acked() == peer.last_seq(), 60)
        wait_until(settled(tap, {"t2": sim}, cfg.store_path, flush=d.flush), 60, 0.25)
        d.flush()
        assert d.daemon is not None
        c = d.daemon.committer
        figures.update(
            turned_on=sum(inject.turned_on.values()),
            rows_refused=c.refused,
            projections_dropped=c.dropped,
            python_bugs=inject.bugs,
            submitted=outcomes,
            desk=desk.answers,
            desk_slowest_s=round(desk.slowest_s, 2),
            store_failures=c.failures,
            left_out=d.daemon.left_out_count,
        )
        t1 = stored_events(cfg.store_path, "t1")
        figures["t1"] = {
            "sent": peer.last_seq(),
            "acked": peer.acked(),
            "stored": len(t1),
            "stored_once_in_order": [s for _, s, _ in t1] == list(range(1, peer.last_seq() + 1)),
        }
        figures["t2"] = compare(
            tap.of(sim.flash_dir), stored_events(cfg.store_path, "t2")
        ).as_dict()
        figures["t2"]["acked_all"] = sim.app is not None and (
            sim.app.journal.acked >= sim.app.journal.next - 1
        )
        figures["sim_error"] = repr(sim.error) if sim.error else None
    finally:
        stop.set()
        if d is not None:
            d.stop()
        peer.stop()
        sim.stop()
        tap.remove()
    # What was dropped is made again from the events.
    rebuilt = rebuild_store(cfg.store_path)
    db = sqlite3.connect(cfg.store_path)
    try:
        figures["rebuilt_matches"] = db.execute("SELECT count(*) FROM matches").fetchone()[0]
        figures["rebuilt_frames"] = db.execute("SELECT count(*) FROM frames").fetchone()[0]
    finally:
        db.close()
    figures["rebuilt_tables"] = sorted(rebuilt)
    return figures
