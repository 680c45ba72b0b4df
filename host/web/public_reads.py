"""The public reads come after the score path, however many ask.

A table's events are stored and acknowledged on the daemon's one event loop
(host/link/channel.py, host/store/writer.py); every public page and API read
is served on the same loop.  Left alone, a flood of them from strangers
takes the loop from the tables: 30 connections loading the match list and a
report cut a streaming table's acknowledgements to a third.  Three things
keep the score path first:

* **A lane on the loop.**  A public read (any GET or HEAD the role table
  leaves public, host/staff/roles.py: the boards, the index, the static
  files and pages, the API's reads and its description, the reports and the
  player pages, the sensors' and the handset's reads, a path that is no
  route; anyone without a staff sign-in) waits for its turn, one at a time,
  and the turns leave the
  loop to everything else but ``LOOP_SHARE`` of its time: after a turn that
  took *t*, the next one starts *t* × (1 / LOOP_SHARE − 1) later.  The
  waiting requests cost nothing meanwhile.  Turns go round the addresses
  that wait, so one address cannot hold the lane from the others, and an
  address with ``WAITING_PER_ADDRESS`` waiting already is answered 429.
  Staff (a live sign-in or a right token) never wait in it.  The lane is a
  middleware (:func:`lane`), so a route added later is in it without
  anyone having to remember; only the live feed is not (``UNLANED``).
* **Heavy reads off the loop, in a budget.**  A match list, a report, a
  player's figures are worked out in one worker thread of their own, on a
  read-only connection of its own; the worker rests so that it works at most
  ``WORKER_SHARE`` of the time (its Python holds the interpreter's lock, which
  the loop needs too).  An address may have ``COMPUTING_PER_ADDRESS`` of them
  waiting, and the server ``COMPUTING_MOST`` in all; beyond, 429 and 503.
* **Each answer worked out once per version of what it reads.**  The
  answer is kept, keyed by what was asked, with the version of the rows it
  depends on (:class:`StoreVersion`): the daemon's commits counted by the
  venue table they wrote (host/store/writer.py ``Changes``), so that a
  table streaming its events moves its own version alone, and a report of
  another table's match, or a list of another table's matches, is given
  from memory to everyone who asks while that table's rows are as they
  were; an answer of every table (the match list, a player) moves with any
  table's commit.  A commit of another process (SQLite's ``data_version``
  moving with no commit of the daemon's since) moves them all.  Requests
  for an answer being worked out wait for that one.  An answer is never
  staler than the rows it was asked of.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import sqlite3
import sys
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

from aiohttp import web

from baulk.host.sentences import Message
from baulk.host.staff import roles
from baulk.host.store import Changes, StoreError, StoreReader, connect
from baulk.host.web import auth
from baulk.host.web.doors import BOARDS_KEY
from baulk.host.web.http import DAEMON_KEY, error, lang_of

if TYPE_CHECKING:
    from baulk.host.venue.daemon import Daemon

LOOP_SHARE: Final = 0.05  # of the event loop's time, for public reads at most
WORKER_SHARE: Final = 0.10  # of the time the worker may work out heavy reads
SWITCH_S: Final = 0.0005  # the interpreter's switch interval while it does
# What a request costs the loop outside its turn (its head parsed, the
# answer written), counted into it: about 1 ms on the
# project's 2-core machine at a load average of 5 (bench/ack_under_load.py
# --reads pages cut the acks by 18 % with 0.3 ms counted here).
TURN_OVERHEAD_S: Final = 0.001
# The longest rest after one turn.  A turn that held the loop for long (the
# score path ran in its awaits: a table sending its journal after a restart)
# would otherwise hold every stranger's read back for 19 times as long: in a
# fresh clone beside a busy loop, a board's read waited over 15 s.  Turns
# cost about a millisecond (heavy reads are the worker's), so the bound binds
# only after one of over 50 ms.
REST_MOST_S: Final = 1.0
WAITING_PER_ADDRESS: Final = 64  # requests of one address waiting for a turn
COMPUTING_PER_ADDRESS: Final = 4  # heavy reads of one address waiting or worked on
COMPUTING_MOST: Final = 32  # in all
CACHE_BYTES: Final = 64 * 1024 * 1024  # answers kept, at most
# Public reads that take no turn: the live feed's connection lives for hours
# (a turn held that long would shut the lane); its opening is bounded by the
# connection guard (host/web/guard.py feeds_per_client) and what it carries
# is pushed by the boards' fan-out, not asked for.
UNLANED: Final = frozenset({"/api/live"})

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
_T = TypeVar("_T")

# The refusals (their Persian in the catalogue, host/sentences.py).
TOO_MANY = Message("too many reads at once from this address; try again shortly")
BUSY = Message("the server is busy with other reads; try again shortly")


def refusal(status: int, message: Message, request: web.Request) -> web.Response:
    r = error(status, message, lang_of(request))
    r.headers["Retry-After"] = "2"
    return r


def dumps_in_pieces(data: Any, depth: int = 3) -> str:
    """``json.dumps(data, ensure_ascii=False)``, to the character, made a
    piece at a time: the C encoder holds the interpreter's lock for as long
    as it runs (a match's report with its ledger, 1 MB, held it 60 ms), and
    the loop cannot wake meanwhile; between pieces it can."""
    if depth > 0 and isinstance(data, dict) and all(isinstance(k, str) for k in data):
        inner = (
            json.dumps(k, ensure_ascii=False) + ": " + dumps_in_pieces(v, depth - 1)
            for k, v in data.items()
        )
        return "{" + ", ".join(inner) + "}"
    if depth > 0 and isinstance(data, list | tuple):
        return "[" + ", ".join(dumps_in_pieces(v, depth - 1) for v in data) + "]"
    return json.dumps(data, ensure_ascii=False)


class Refused(Exception):
    """The budget for heavy reads is spent: ``response`` says so (429, 503);
    :func:`public` answers with it."""

    def __init__(self, response: web.Response) -> None:
        super().__init__(response.status)
        self.response = response


@dataclass(frozen=True)
class Answer:
    """A worked-out answer: the body's bytes, ready to send as often as
    asked, and the venue table whose rows alone it was made of (None: it
    may read any table's), when only the work found that out (a match's
    report: the match's table)."""

    body: bytes
    content_type: str
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    table: str | None = None

    def response(self) -> web.Response:
        r = web.Response(body=self.body, status=self.status, content_type=self.content_type)
        if self.content_type.startswith("text/") or self.content_type.endswith("json"):
            r.charset = "utf-8"
        for name, value in self.headers:
            r.headers[name] = value
        return r


# ---------------------------------------------------------------------- the lane
@dataclass
class _Waiter:
    future: asyncio.Future[None]


class Lane:
    """Turns on the loop for public reads: one at a time, round the
    addresses, ``share`` of the loop's time at most."""

    def __init__(self, share: float = LOOP_SHARE, overhead_s: float = TURN_OVERHEAD_S) -> None:
        self.share = share
        self.overhead_s = overhead_s
        self.busy = False
        self.free_at = 0.0  # time.perf_counter() when the next turn may start
        self.waiting: OrderedDict[str, deque[_Waiter]] = OrderedDict()
        self._started_cpu = 0.0  # time.thread_time() when the turn started
        self._timer: asyncio.TimerHandle | None = None
        self.turns = 0  # turns given, for tests and the benchmark

    def queued(self, address: str) -> int:
        return len(self.waiting.get(address, ()))

    async def enter(self, address: str) -> None:
        """Wait for a turn (CancelledError leaves the queue)."""
        now = time.perf_counter()
        if not self.busy and not self.waiting and now >= self.free_at:
            self._start()
            return
        w = _Waiter(asyncio.get_running_loop().create_future())
        self.waiting.setdefault(address, deque()).append(w)
        self._wake_later()
        try:
            await w.future
        except asyncio.CancelledError:
            if w.future.done() and not w.future.cancelled():
                self.leave()  # the turn was given just as the wait was given up
            else:
                self._forget(address, w)
            raise

    def leave(self) -> None:
        """The turn is over: the next one waits in proportion to its cost,
        the loop's own time in it (its thread's CPU time: a machine busy
        with other work stretches a turn's wall time, not what it cost the
        loop), and never longer than ``REST_MOST_S``."""
        now = time.perf_counter()
        cost = time.thread_time() - self._started_cpu + self.overhead_s
        self.busy = False
        self.free_at = now + min(cost * (1 / self.share - 1), REST_MOST_S)
        self._wake_later()

    def _start(self) -> None:
        self.busy = True
        self._started_cpu = time.thread_time()
        self.turns += 1

    def _forget(self, address: str, w: _Waiter) -> None:
        queue = self.waiting.get(address)
        if queue is not None and w in queue:
            queue.remove(w)
            if not queue:
                del self.waiting[address]

    def _wake_later(self) -> None:
        if self.busy or not self.waiting or self._timer is not None:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, self.free_at - time.perf_counter())
        self._timer = loop.call_later(delay, self._next)

    def _next(self) -> None:
        self._timer = None
        if self.busy or not self.waiting:
            return
        now = time.perf_counter()
        if now < self.free_at:
            self._wake_later()
            return
        address, queue = next(iter(self.waiting.items()))
        w = queue.popleft()
        del self.waiting[address]
        if queue:  # to the back of the round
            self.waiting[address] = queue
        self._start()
        w.future.set_result(None)


# ---------------------------------------------------------------------- the worker
class Worker:
    """One thread, its own read-only view of the store, working
    ``share`` of the time at most."""

    def __init__(self, open_reader: Callable[[], Views], share: float = WORKER_SHARE) -> None:
        self.open_reader = open_reader
        self.share = share
        self.executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="baulk-public")
        self._reader: Views | None = None
        self._rest_until = 0.0
        self.thread: threading.Thread | None = None  # the worker's, once it ran
        self.worked_s = 0.0  # time spent working out answers (the benchmark's)

    def _run(self, compute: Callable[..., _T], args: tuple[Any, ...]) -> _T:
        self.thread = threading.current_thread()
        rest = self._rest_until - time.perf_counter()
        if rest > 0:
            time.sleep(rest)  # leaves the interpreter's lock to the loop
        start = time.perf_counter()
        # While the worker's Python runs, the loop waits for the interpreter's
        # lock each time it wakes: at most SWITCH_S, not the default 5 ms.
        usual = sys.getswitchinterval()
        sys.setswitchinterval(min(usual, SWITCH_S))
        try:
            if self._reader is None:
                self._reader = self.open_reader()
            return compute(self._reader, *args)
        finally:
            sys.setswitchinterval(usual)
            took = time.perf_counter() - start
            self.worked_s += took
            self._rest_until = time.perf_counter() + took * (1 / self.share - 1)

    async def run(self, compute: Callable[..., _T], *args: Any) -> _T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, self._run, compute, args)

    async def close(self) -> None:
        def shut() -> None:
            if self._reader is not None:
                self._reader.close()
            self._reader = None

        await asyncio.get_running_loop().run_in_executor(self.executor, shut)
        self.executor.shutdown(wait=True)


# ---------------------------------------------------------------------- answers
@dataclass
class _Turn:
    """A request's place in the lane (None in the request: it has none)."""

    lane: Lane
    address: str
    held: bool = True


TURN_KEY: web.RequestKey[_Turn] = web.RequestKey("public_turn")


@dataclass
class PublicReads:
    """The lane, the worker and the answers kept, for one web app."""

    worker: Worker
    version_of: Callable[[], Versions | None]
    lane: Lane = field(default_factory=Lane)
    cache_bytes: int = CACHE_BYTES
    kept: OrderedDict[Hashable, _Kept] = field(default_factory=OrderedDict)
    # by key: the versions it began from, and the work
    working: dict[Hashable, tuple[Versions | None, asyncio.Future[Any]]] = field(
        default_factory=dict
    )
    computing: dict[str, int] = field(default_factory=dict)  # per address
    computed = 0  # answers worked out (for tests and the benchmark)
    hits = 0  # answers given from memory
    _bytes = 0

    async def answer(
        self,
        request: web.Request,
        key: Hashable,
        compute: Callable[..., _T],
        *args: Any,
        table: str | None = None,
    ) -> _T:
        """``compute(views, *args)``'s answer for ``key`` at the version of
        what it reads (an :class:`Answer`, or data the handler makes its
        answer of; None: there is nothing by that key): kept, being worked
        out, or worked out now in the worker (the request's turn given back
        meanwhile).  ``table``: the venue table whose rows alone it reads,
        when the handler knows it (else the Answer's own ``table``, or
        every table).  :class:`Refused` when the budget for heavy reads is
        spent.  What is kept is shared: the caller never changes it."""
        versions = self.version_of()
        if versions is not None:
            kept = self.kept.get(key)
            if kept is not None and kept.version == versions.of(kept.table):
                self.kept.move_to_end(key)
                self.hits += 1
                found: _T = kept.found  # kept under the key compute made it for
                return found
        # Work under way for the same key: its answer, if what it read has
        # not moved since it began (else this request works it out anew).
        under_way = self.working.get(key)
        if under_way is not None:
            began, job = under_way
            found = await self._wait(request, job)
            scope = _table_of(found, table)
            if versions is None or began is None or began.of(scope) == versions.of(scope):
                return found
        address = request.remote or "?"
        refused = self._refusal(request, address)
        if refused is not None:
            raise Refused(refused)
        job = asyncio.ensure_future(self._work(key, versions, table, address, compute, args))
        self.working[key] = (versions, job)
        return await self._wait(request, job)

    async def _wait(self, request: web.Request, job: asyncio.Future[_T]) -> _T:
        """The job's answer, the request's turn given back meanwhile."""
        turn = request.get(TURN_KEY)
        if turn is None or not turn.held:
            return await asyncio.shield(job)
        turn.lane.leave()  # the loop is not ours while the worker works
        turn.held = False
        try:
            found = await asyncio.shield(job)
        finally:
            await turn.lane.enter(turn.address)
            turn.held = True
        return found

    def _refusal(self, request: web.Request, address: str) -> web.Response | None:
        if self.computing.get(address, 0) >= COMPUTING_PER_ADDRESS:
            return refusal(429, TOO_MANY, request)
        if sum(self.computing.values()) >= COMPUTING_MOST:
            return refusal(503, BUSY, request)
        return None

    async def _work(
        self,
        key: Hashable,
        versions: Versions | None,
        table: str | None,
        address: str,
        compute: Callable[..., _T],
        args: tuple[Any, ...],
    ) -> _T:
        self.computing[address] = self.computing.get(address, 0) + 1
        try:
            found = await self.worker.run(compute, *args)
            self.computed += 1
            answered = not isinstance(found, Answer) or found.status == 200
            if versions is not None and found is not None and answered:
                table = _table_of(found, table)
                # the versions from before the work began: never newer than its rows
                self._keep(key, _Kept(found, table, versions.of(table)))
            return found
        finally:
            under_way = self.working.get(key)
            if under_way is not None and under_way[1] is asyncio.current_task():
                del self.working[key]
            left = self.computing[address] - 1
            if left:
                self.computing[address] = left
            else:
                del self.computing[address]

    def _keep(self, key: Hashable, kept: _Kept) -> None:
        old = self.kept.pop(key, None)
        if old is not None:
            self._bytes -= _size(old.found)
        if _size(kept.found) > self.cache_bytes // 4:
            return  # one answer may not push out most of the others
        self.kept[key] = kept
        self._bytes += _size(kept.found)
        while self._bytes > self.cache_bytes and self.kept:
            _, dropped = self.kept.popitem(last=False)
            self._bytes -= _size(dropped.found)


DATA_BYTES: Final = 32 * 1024  # what data kept as it is (not an Answer's bytes) is counted


def _table_of(found: Any, table: str | None) -> str | None:
    """The venue table whose rows alone an answer reads: as the handler
    said, else as the Answer says (a match's report), else None: any."""
    if table is None and isinstance(found, Answer):
        return found.table
    return table


def _size(kept: Any) -> int:
    return len(kept.body) if isinstance(kept, Answer) else DATA_BYTES


@dataclass(frozen=True)
class Versions:
    """The versions of the store's rows at one moment, as :meth:`of` gives
    them for an answer: of one venue table's rows (with the rows of no one
    table, and other processes' commits), or of every table's (None)."""

    tables: dict[str, int]
    venue: int  # rows of no one table, and other processes' commits
    every: int  # any commit of any of them

    def of(self, table: str | None) -> Hashable:
        if table is None:
            return (self.venue, self.every)
        return (self.venue, table, self.tables.get(table, 0))


@dataclass
class _Kept:
    found: Any
    table: str | None  # the venue table whose rows alone it reads (None: any)
    version: Hashable  # Versions.of(table) before it was worked out


class StoreVersion:
    """The versions of the store's rows as this process sees them; None
    without a store.  In the daemon: the counts of its committer
    (host/store/writer.py ``Changes``), which see another process's commits
    on the writer's connection beside each of the daemon's; and while the
    daemon commits nothing, SQLite's ``data_version`` on the daemon's read
    connection, which moves with every commit of another connection, says
    so here.  A server without a daemon (a board fed by MQTT) has only
    ``data_version``: any commit moves every version."""

    def __init__(self, daemon: Daemon | None, path: Path) -> None:
        self.daemon = daemon
        self.path = path
        self.own: sqlite3.Connection | None = None
        self.seen: int | None = None
        self.commits = -1  # the daemon's commits when data_version moved last
        self.changes: Changes | None = daemon.committer.changes if daemon is not None else None
        self.outside = 0  # without a daemon: every commit

    def _db(self) -> sqlite3.Connection | None:
        if self.daemon is not None:
            return self.daemon.reader.db
        if self.own is None:
            try:
                self.own = connect(self.path, readonly=True)
            except StoreError:
                return None  # no store yet: nothing is kept
        return self.own

    def _data_version(self) -> int | None:
        db = self._db()
        if db is None:
            return None
        try:
            return int(db.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error:
            return None

    def __call__(self) -> Versions | None:
        now = self._data_version()
        if now is None:
            return None
        c = self.changes
        moved = now != self.seen
        self.seen = now
        if c is None:
            self.outside += moved
            return Versions({}, self.outside, self.outside)
        # Moved while the daemon neither committed nor was committing: another
        # process wrote.  (One that wrote beside a commit of the daemon's is
        # seen by the writer, Changes.watch.)
        if moved and c.commits == self.commits and not c.writing:
            c.moved_outside()
        self.commits = c.commits
        return Versions(dict(c.tables), c.venue, c.any)

    def close(self) -> None:
        if self.own is not None:
            self.own.close()
            self.own = None


READS_KEY: web.AppKey[PublicReads] = web.AppKey("public_reads")


class Views:
    """What a heavy read reads in the worker: ``reader``, the store's reads
    (host/store/queries.py) on the worker's own connection, and ``db``, a
    plain read-only connection for the statistics' queries (StoreError
    where there is no store)."""

    def __init__(self, reader: Any, path: Path) -> None:
        self.reader = reader
        self.path = path
        self._db: sqlite3.Connection | None = None

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = connect(self.path, readonly=True)
        return self._db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        if isinstance(self.reader, StoreReader):
            self.reader.close()


def _on_db(views: Views, query: Callable[..., _T], *args: Any) -> _T:
    return query(views.db, *args)


async def read(
    request: web.Request, query: Callable[..., _T], *args: Any, table: str | None = None
) -> _T | None:
    """``query(db, *args)``, a read of the store (host/store/stats_queries.py,
    sensor_queries.py), in the worker, once per version of what it reads
    (``table``: that venue table's rows alone; None: any table's); None when
    this server has no store to read.  What it gives is shared: never
    changed."""
    try:
        reads = request.app[READS_KEY]
        return await reads.answer(request, (query, *args), _on_db, query, *args, table=table)
    except StoreError:
        return None


def install(app: web.Application, store_path: Path | None = None) -> PublicReads:
    """The app's public reads (once: the first area to register makes
    them), over the daemon's store, or ``store_path`` in an app without one."""
    if READS_KEY in app:
        return app[READS_KEY]
    served = app.get(BOARDS_KEY)
    daemon = app.get(DAEMON_KEY)  # None on a board fed by MQTT
    path = served.config.store_path if served is not None else store_path
    if path is None:
        raise ValueError("public reads need the boards' server or a store's path")

    def open_reader() -> Views:
        own = served.reader if served is not None else None
        if isinstance(own, StoreReader):
            return Views(StoreReader(own.path), own.path)  # connections of the worker's own
        # A board fed by MQTT has a stand-in, which holds no file.
        return Views(own, path)

    version = StoreVersion(daemon, path)
    reads = PublicReads(Worker(open_reader), version)
    app[READS_KEY] = reads

    async def close(_: web.Application) -> None:
        version.close()
        await reads.worker.close()

    app.on_cleanup.append(close)
    return reads


def is_public_read(request: web.Request) -> bool:
    """A GET or HEAD that the role table leaves to anyone (a path that is no
    route too: its 404 is a read like any other), but the live feed."""
    if request.method not in ("GET", "HEAD"):
        return False
    resource = request.match_info.route.resource  # None: no route
    pattern = resource.canonical if resource is not None else None
    if pattern in UNLANED:
        return False
    rule = roles.rule_for(request.method, pattern)
    return rule is None or rule == roles.PUBLIC


@web.middleware
async def lane(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every public read served in the lane (staff go straight).  The app's
    outermost middleware but the guard's, so that a turn counts what the
    other middlewares cost too (the gate, the query's model), not the
    handler alone.  The answer is sent after the turn: a stranger who reads
    it slowly must not hold the lane for everyone while his socket drains."""
    reads = request.app.get(READS_KEY)
    staff = auth.STAFF_KEY in request.app and auth.signed_in(request)
    if reads is None or staff or not is_public_read(request):
        try:
            return await handler(request)
        except Refused as e:
            return e.response
    address = request.remote or "?"
    if reads.lane.queued(address) >= WAITING_PER_ADDRESS:
        return refusal(429, TOO_MANY, request)
    await reads.lane.enter(address)
    turn = _Turn(reads.lane, address)
    request[TURN_KEY] = turn
    try:
        return await handler(request)
    except Refused as e:
        return e.response
    finally:
        if turn.held:
            reads.lane.leave()
