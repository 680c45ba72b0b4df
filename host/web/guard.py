"""The web server's doors: how many connections it holds, from whom, for
how long a connection may dawdle, and what the server writes when a
request cannot even be read.

A hostile or broken client could otherwise hold every file descriptor the
daemon has (systemd gives a service 1,024): idle keep-alive sockets, request
heads sent a byte a second, hundreds of sockets from one address, live feeds
(WebSockets) that never read.  Then new viewers cannot open a board, and a
table controller plugged back in cannot reopen its port.  So:

* the whole server holds at most ``most`` connections, leaving room under the
  process's descriptor limit for the tables' ports and the store.  When it
  is full, a newcomer takes the place of another connection, never a staff
  member's and never one busy in a request: first a stranger's (an address
  that was not served a request, and whose feed did not answer, lately),
  the known addresses' only when none is left; among them a live feed that
  does not read, then one that waits without a request, then a feed that
  does not answer, and one just accepted and a feed that answers last
  (``_evict_one`` has the whole order).  A stranger's newcomer may only
  take the place of a stranger's connection that has had its chance, else
  it is refused at once: a swarm from many addresses bounces off the door,
  cheaply, instead of churning through every place, and the venue's
  screens and the staff's phones keep theirs;
* one address holds at most ``per_client``: a newcomer beyond it takes the
  place of that address's own idle connection or live feed, never another
  address's, so a stranger filling an address cannot shut out a staff member
  behind the same address; and at most ``feeds_per_client`` live feeds;
* a connection that has carried a signed-in staff member's request (the
  hook ``is_staff``) is never pushed out for room;
* a connection that is not in a request (before its first, or between two on
  keep-alive) is closed after ``head_timeout_s`` — whether it is silent or
  trickles a request head — so it costs a descriptor for seconds, not hours;
  a request (not a live feed) still running after ``request_timeout_s`` is
  cut; a live feed that has not taken what it was sent for FEED_STALL_S is
  closed, as is one that does not answer its pings (host/web/boards.py);
* a refused connection is closed at once, and counted, not logged one by one;
  when the process runs out of descriptors anyway, asyncio's "accept out of
  system resource" is summed up in the log instead of a traceback per
  attempt, and so is every other error the event loop or aiohttp would log
  with a traceback: no stranger can make the daemon write one;
* a request aiohttp cannot read (a malformed request line, an over-long URL,
  a bad Content-Length) is answered with a short sentence that echoes
  nothing of it, and the security headers every answer carries.

The guard wraps aiohttp's request handler, the protocol of every accepted
connection; a middleware tells it when a request starts and ends, and who
made it.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import resource
import struct
import termios
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from random import choices
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from baulk.host.logsafe import Tally, failure, printable

log = logging.getLogger("baulk.web")

HEAD_TIMEOUT_S = 10.0
GRACE_S = 1.0  # a connection just accepted is pushed out last, to let it send its request
IN_FLIGHT_BYTES = 8192  # queued in the kernel beyond this, a live feed is not reading
FEED_STALL_S = 5.0  # a live feed behind for this long (in every sweep) is closed
STALE_S = 4.0  # ... and pushed out by a stranger only this much later
SAMPLE = 24  # connections looked at to choose one to push out
PEEKS = 4  # a victim found with its request waiting is skipped, this many times at most
TRUST_S = 120.0  # an address served (or answering) this recently is pushed out last
TRUSTED_MOST = 4096
REQUEST_TIMEOUT_S = 30.0
PER_CLIENT = 32
FEEDS_PER_CLIENT = 8  # live feeds from one address: a screen's boards, a phone or two
# Descriptors kept free for the tables' serial ports, the store's files and
# the daemon's own pipes, whatever the web side holds ...
RESERVED_FDS = 128
# ... and twice a burst of accepts: asyncio accepts up to the listen backlog
# in one go, each taking a descriptor until the guard closes it, and each
# connection pushed out for a newcomer keeps its descriptor until the loop's
# next turn.  Running out would stop asyncio accepting for a whole second.
BACKLOG = 64
SWEEP_EVERY_S = 1.0
TELL_EVERY_S = 10.0


def raise_fd_limit() -> int:
    """Raise this process's soft limit on open files to its hard limit (as
    far as it may go), and return the soft limit it has."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


class _Connection:
    __slots__ = (
        "asked",
        "behind",
        "behind_since",
        "client",
        "feed",
        "heard",
        "in_request",
        "since",
        "slot",
        "staff",
        "started",
        "transport",
    )

    def __init__(self, client: str, transport: asyncio.BaseTransport) -> None:
        self.client = client
        self.transport = transport
        self.in_request = False
        self.feed = False  # a live feed (a WebSocket) since its upgrade
        self.staff = False  # it carried a signed-in staff member's request
        self.since = time.monotonic()  # waiting for a request (a feed: upgraded) since
        self.started = self.since  # the request in progress began
        self.heard = 0.0  # when its client last sent a byte
        self.asked = False  # a whole request head came, its handler not yet begun
        self.slot = -1  # its place in ConnectionGuard._all
        self.behind = 0  # a feed: bytes its client has not taken, as the last sweep saw
        self.behind_since = 0.0  # ... and since when it has not taken them


def _backlog(transport: asyncio.BaseTransport) -> int:
    """Bytes written to a connection that its client has not taken yet: in
    the transport's buffer, and in the kernel's send queue beyond what is
    merely in flight (a client that reads acknowledges what it is sent
    within a round trip; one that does not leaves it queued)."""
    size = getattr(transport, "get_write_buffer_size", None)
    behind = int(size()) if size is not None else 0
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError, ValueError):
            queued = struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0" * 4))
            if queued[0] > IN_FLIGHT_BYTES:
                behind += queued[0]
    return behind


def _waiting(transport: asyncio.BaseTransport) -> bool:
    """Bytes from the client wait to be read (a request that has come)."""
    sock = transport.get_extra_info("socket")
    if sock is None:
        return False
    with contextlib.suppress(OSError, ValueError):
        queued: int = struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.FIONREAD, b"\0" * 4))[0]
        return queued > 0
    return False


_FRESH = 3  # ranks from here are a stranger's connections just come, or its answering feeds
_KNOWN = 10  # ranks from here are known addresses' connections


def _choose(
    candidates: Iterable[_Connection],
    held: Mapping[str, int],
    trusted: Mapping[str, float],
    spared: AbstractSet[_Connection] = frozenset(),
) -> tuple[_Connection | None, int]:
    """The connection to push out among ``candidates``, in the order
    ``ConnectionGuard._evict_one`` gives, and its rank in it (0: a feed that
    does not read ... 4: a feed that answers; plus _KNOWN for a known
    address's)."""
    victim: _Connection | None = None
    best: tuple[int, int, float] | None = None
    now = time.monotonic()
    young, known = now - GRACE_S, now - TRUST_S
    for c in candidates:
        if c.staff or ((c.in_request or c.asked) and not c.feed) or c in spared:
            continue
        fresh = c.since > young
        if c.feed:
            if c.behind:
                key = (0, 0, -float(c.behind))
            elif c.heard > c.since:
                key = (4, -held.get(c.client, 0), -c.since)
            elif fresh:
                key = (3, 0, c.since)
            else:
                key = (2, -held.get(c.client, 0), c.since)
        else:
            key = (3 if fresh else 1, 0, c.since)
        if trusted.get(c.client, 0.0) > known:
            key = (key[0] + _KNOWN, key[1], key[2])
        if best is None or key < best:
            victim, best = c, key
    return victim, best[0] if best is not None else -1


def _abort(transport: asyncio.BaseTransport) -> None:
    """Close at once: a close would wait to write what a client that does
    not read never takes, and keep its descriptor meanwhile."""
    abort = getattr(transport, "abort", None)
    if abort is not None:
        abort()
    else:
        transport.close()


class ConnectionGuard:
    def __init__(
        self,
        most: int,
        per_client: int = PER_CLIENT,
        head_timeout_s: float = HEAD_TIMEOUT_S,
        feeds_per_client: int = FEEDS_PER_CLIENT,
        request_timeout_s: float = REQUEST_TIMEOUT_S,
    ) -> None:
        self.most = most
        self.per_client = per_client
        self.feeds_per_client = feeds_per_client
        self.head_timeout_s = head_timeout_s
        self.request_timeout_s = request_timeout_s
        self.open: dict[asyncio.BaseTransport, _Connection] = {}
        self._all: list[_Connection] = []  # the same, to draw a sample from
        self.by_client: dict[str, int] = {}
        self._of_client: dict[str, set[_Connection]] = {}
        self.feeds: dict[str, int] = {}  # live feeds by address
        # When each address was last served a request, or its feed answered.
        self.trusted: dict[str, float] = {}
        # Whether a request is a signed-in staff member's (host/web/app.py sets
        # it: the console's sign-in, or the accounts' sign-in once there).
        self.is_staff: Callable[[web.Request], Awaitable[bool]] | None = None
        self.refused = 0  # connections closed at the door, over a limit
        self.evicted = 0  # connections closed to let a newcomer in
        self.evicted_feeds = 0  # ... of which live feeds
        self.timed_out = 0  # connections closed for dawdling without a request
        self.cut = 0  # requests cut for running past request_timeout_s
        self.feeds_refused = 0  # live feeds refused over feeds_per_client
        self.stalled = 0  # live feeds closed for not taking what they were sent
        self._told_refused = 0
        self._told_at = 0.0
        self._sweeper: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ the door
    def admit(self, transport: asyncio.BaseTransport) -> _Connection | None:
        """The connection, admitted; None when it is refused."""
        peer = transport.get_extra_info("peername")
        client = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        if (self.by_client.get(client, 0) >= self.per_client and not self._evict_one(client)) or (
            len(self.open) >= self.most and not self._evict_one(newcomer=client)
        ):
            self.refused += 1
            return None
        c = self.open[transport] = _Connection(client, transport)
        c.slot = len(self._all)
        self._all.append(c)
        self.by_client[client] = self.by_client.get(client, 0) + 1
        self._of_client.setdefault(client, set()).add(c)
        return c

    def _evict_one(self, client: str | None = None, newcomer: str | None = None) -> bool:
        """Make room for a newcomer: close one of ``client``'s own
        connections when it is given, else anyone's; never a staff member's,
        never one busy in a request (or whose request head has come).

        An address that was served a request, or whose live feed answered,
        within TRUST_S is known: its connections go only once no stranger's
        is left.  A ``newcomer`` from an address not known takes the place
        only of a stranger's connection that has had its chance (a feed that
        does not read, or one STALE_S old that waits without a request or
        has not answered), else it is refused.  Then in this order, live
        feeds of the address that holds the most first:

        1. a live feed that does not read (what was sent to it waits in its
           buffers), the most behind first;
        2. a connection that waits without a request, its oldest first;
        3. a live feed whose client has not answered since its upgrade (a
           browser answers the ping sent at once), its oldest first;
        4. a connection just accepted or just upgraded, its oldest first: it
           has had no time to send its request, or to answer (a viewer's
           page is on its way; one whose request is already in the kernel
           is spared);
        5. a live feed that reads and answers, its newest first: a venue's
           screen holds its feed for hours, a swarm opens new ones."""
        pool: Iterable[_Connection]
        if client is not None:
            pool = self._of_client.get(client, ())
        else:
            # A sample, as a cache picks what to forget: the worst of SAMPLE
            # drawn at random is as good as the worst of all when a swarm
            # holds nearly every place, and costs the same however many.
            pool = choices(self._all, k=SAMPLE) if self._all else []
        spared: set[_Connection] = set()
        young = time.monotonic() - GRACE_S
        for _ in range(PEEKS):
            victim, rank = _choose(pool, self.by_client, self.trusted, spared)
            if victim is None or victim.feed or victim.since <= young:
                break
            if not _waiting(victim.transport):
                break
            spared.add(victim)  # just come, and its request with it: not yet read
        if client is None:
            if newcomer is not None and not self._is_known_address(newcomer):
                if victim is None or rank >= _FRESH or (rank and victim.since > young - STALE_S):
                    return False  # nothing a stranger may push out
            elif victim is None or rank >= _KNOWN:
                # The sample found no stranger's: only all of them say none is left.
                victim, rank = _choose(self._all, self.by_client, self.trusted, spared)
        if victim is None:
            return False
        if victim.feed:
            self.evicted_feeds += 1
            _abort(victim.transport)
        else:  # what was written to it (an answer just sent) still goes out
            victim.transport.close()
        self.closed(victim.transport)
        self.evicted += 1
        return True

    def closed(self, transport: asyncio.BaseTransport) -> None:
        c = self.open.pop(transport, None)
        if c is None:
            return
        last = self._all.pop()
        if last is not c:
            last.slot = c.slot
            self._all[c.slot] = last
        left = self.by_client.get(c.client, 1) - 1
        if left > 0:
            self.by_client[c.client] = left
            self._of_client[c.client].discard(c)
        else:
            self.by_client.pop(c.client, None)
            self._of_client.pop(c.client, None)
        if c.feed:
            self._unfeed(c.client)

    def _unfeed(self, client: str) -> None:
        n = self.feeds.get(client, 1) - 1
        if n > 0:
            self.feeds[client] = n
        else:
            self.feeds.pop(client, None)

    def started(self, transport: asyncio.BaseTransport | None) -> None:
        c = self.open.get(transport) if transport is not None else None
        if c is not None:
            c.in_request = True
            c.asked = False
            c.started = time.monotonic()

    def _is_known_address(self, client: str) -> bool:
        return self.trusted.get(client, 0.0) > time.monotonic() - TRUST_S

    def known(self, client: str) -> None:
        """The address was served, or its feed answered: trust it a while."""
        t = self.trusted
        t.pop(client, None)
        t[client] = time.monotonic()
        if len(t) > TRUSTED_MOST:
            del t[next(iter(t))]  # the longest unheard of

    def ended(self, transport: asyncio.BaseTransport | None) -> None:
        c = self.open.get(transport) if transport is not None else None
        if c is not None:
            if not c.feed:
                self.known(c.client)
            c.in_request = False
            c.since = time.monotonic()
            if c.feed:
                c.feed = False
                self._unfeed(c.client)

    # ------------------------------------------------------------------ live feeds
    def may_feed(self, transport: asyncio.BaseTransport | None) -> bool:
        """Whether this connection may become a live feed: at most
        ``feeds_per_client`` from its address (staff always may)."""
        c = self.open.get(transport) if transport is not None else None
        if c is None:
            return True
        if c.staff or self.feeds.get(c.client, 0) < self.feeds_per_client:
            return True
        self.feeds_refused += 1
        return False

    def feeding(self, transport: asyncio.BaseTransport | None) -> None:
        """The connection is a live feed now: it waits in its request for
        ever, so it takes its place in the order of eviction."""
        c = self.open.get(transport) if transport is not None else None
        if c is not None and not c.feed:
            c.feed = True
            c.since = time.monotonic()
            self.feeds[c.client] = self.feeds.get(c.client, 0) + 1

    def factory(
        self, make: Callable[[], RequestHandler], headers: Mapping[str, str] | None = None
    ) -> Callable[[], asyncio.Protocol]:
        """The protocol factory for the server: aiohttp's, behind the door,
        with its own error answers replaced (see ``plain_error``)."""
        answer = plain_error(headers or {})

        class Handler(RequestHandler):  # the same object: no slot of its own
            __slots__ = ()

            def handle_error(
                self,
                request: Any,
                status: int = 500,
                exc: BaseException | None = None,
                message: str | None = None,
            ) -> web.StreamResponse:
                return answer(request, status, exc, message)

        def guarded() -> asyncio.Protocol:
            handler = make()
            # aiohttp calls self.handle_error for a request it cannot read and
            # for a handler that raised.
            handler.__class__ = Handler
            return _Guarded(self, handler)

        return guarded

    # ------------------------------------------------------------------ the sweep
    def start(self) -> None:
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep(), name="web-guard")

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper

    def sweep(self, now: float) -> None:
        """Close what waited too long for a request, and requests running too
        long; tell of refusals."""
        for c in list(self.open.values()):
            if c.feed:
                behind = _backlog(c.transport)
                if not behind:
                    c.behind_since = 0.0
                elif not c.behind_since:
                    c.behind_since = now
                elif now - c.behind_since >= FEED_STALL_S:
                    self.stalled += 1  # it stopped reading: its socket goes, at once
                    _abort(c.transport)
                    self.closed(c.transport)
                    continue
                c.behind = behind
            if not c.in_request and now - c.since >= self.head_timeout_s:
                self.timed_out += 1
                _abort(c.transport)
                self.closed(c.transport)
            elif (
                c.in_request
                and not c.feed
                and not c.staff
                and now - c.started >= self.request_timeout_s
            ):
                self.cut += 1
                _abort(c.transport)
                self.closed(c.transport)
        if self.refused != self._told_refused and now - self._told_at >= TELL_EVERY_S:
            log.warning(
                "web: %d connections refused at the door so far (at most %d, %d per address); "
                "%d pushed out for room (%d live feeds)",
                self.refused,
                self.most,
                self.per_client,
                self.evicted,
                self.evicted_feeds,
            )
            self._told_refused = self.refused
            self._told_at = now
        _ERRORS.report()

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY_S)
            self.sweep(time.monotonic())

    def middleware(self) -> Any:
        @web.middleware
        async def in_request(request: web.Request, handler: Any) -> web.StreamResponse:
            self.started(request.transport)
            try:
                response: web.StreamResponse = await handler(request)
                return response
            finally:
                self.ended(request.transport)

        return in_request

    def staff_middleware(self) -> Any:
        """Marks the connection of a signed-in staff member's request (after
        the session's middleware, which the check reads)."""

        @web.middleware
        async def staff(request: web.Request, handler: Any) -> web.StreamResponse:
            c = self.open.get(request.transport) if request.transport is not None else None
            if c is not None and not c.staff and self.is_staff is not None:
                with contextlib.suppress(Exception):  # a cookie it cannot read is no sign-in
                    c.staff = await self.is_staff(request)
            response: web.StreamResponse = await handler(request)
            return response

        return staff


class _Guarded(asyncio.Protocol):
    """aiohttp's handler of one connection, admitted (or not) by the guard."""

    def __init__(self, guard: ConnectionGuard, inner: asyncio.Protocol) -> None:
        self.guard = guard
        self.inner = inner
        self.transport: asyncio.BaseTransport | None = None  # once admitted
        self.conn: _Connection

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        c = self.guard.admit(transport)
        if c is None:
            _abort(transport)
            return
        self.conn = c
        self.transport = transport
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.transport is not None:
            c = self.conn
            if c.feed and c.heard <= c.since:
                self.guard.known(c.client)  # its first answer since the upgrade
            c.heard = time.monotonic()
            self.inner.data_received(data)
            # aiohttp parses as it receives: a whole request head waits for
            # its handler now, and is as busy as one being handled.
            if getattr(self.inner, "_messages", None):
                self.conn.asked = True

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.transport is not None else None

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport is not None:
            self.inner.connection_lost(exc)
            self.guard.closed(self.transport)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


# ---------------------------------------------------------------------- errors, told once
_ERRORS = Tally(log, TELL_EVERY_S * 6)
COULD_NOT_READ = "the request could not be read"
SERVER_FAILED = "the server could not answer this request; the venue's log says why"


def plain_error(
    headers: Mapping[str, str],
) -> Callable[[Any, int, BaseException | None, str | None], web.StreamResponse]:
    """aiohttp's ``handle_error``: a request it could not read (400, 413,
    431...) or a handler that raised (500).  The answer is a short sentence,
    JSON under /api/ and text elsewhere, that echoes nothing of the request,
    with the security headers; the log gets one line per kind of error, then
    a count, never a traceback."""

    def handle_error(
        request: Any, status: int, exc: BaseException | None, message: str | None
    ) -> web.StreamResponse:
        if status >= 500 and exc is not None:
            what = failure(exc)
            kind = f"{status} {what.split(':')[0]} {what.rsplit(' at ', 1)[-1]}"
            _ERRORS.tell(kind, logging.ERROR, f"web: a request failed: {what}")
            text = SERVER_FAILED
        else:
            kind = type(exc).__name__ if exc is not None else str(status)
            why = printable(str(exc or message or ""), 80)
            _ERRORS.tell(
                f"{status} {kind}",
                logging.WARNING,
                f"web: a request could not be read ({status} {kind}: {why})",
            )
            text = COULD_NOT_READ
        writer = getattr(request, "writer", None)
        if writer is not None and writer.output_size > 0:
            raise ConnectionError("the answer was sent already, cannot send another")
        path = getattr(request, "path", "") or ""
        if isinstance(path, str) and path.startswith("/api/"):
            resp: web.Response = web.json_response({"error": text}, status=status)
        else:
            resp = web.Response(status=status, text=text + "\n")
        for name, value in headers.items():
            resp.headers[name] = value
        resp.force_close()
        return resp

    return handle_error


class LoopErrors:
    """The event loop's exception handler: whatever the loop would log with a
    traceback (a callback or a task that raised, a write to a closing
    transport, "accept out of system resource" when the process has no
    descriptor left) is one line per kind, then a count, instead of a
    traceback for each of thousands."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        self.count += 1
        message = str(context.get("message") or "an error in the event loop")
        exc = context.get("exception")
        if "accept" in message:
            text = (
                f"web: out of file descriptors: connections could not be accepted ({exc}); "
                f"the limit is {resource.getrlimit(resource.RLIMIT_NOFILE)[0]} open files"
            )
            _ERRORS.tell("accept", logging.ERROR, text)
            return
        what = failure(exc) if isinstance(exc, BaseException) else printable(message)
        _ERRORS.tell(
            f"loop {message[:40]} {what.split(':')[0]}", logging.ERROR, f"{message}: {what}"
        )


class OneLine(logging.Filter):
    """aiohttp logs some errors with their traceback ("Error handling
    request", a WebSocket's failed write): on its loggers, each such record
    becomes one line per kind, then a count, without the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is None:
            return True
        what = failure(exc)
        _ERRORS.tell(
            f"{record.name} {what.split(':')[0]}",
            logging.WARNING,
            f"web: {printable(record.getMessage(), 80)}: {what}",
        )
        return False


_ONE_LINE = OneLine()
AIOHTTP_LOGGERS = ("aiohttp.server", "aiohttp.web", "aiohttp.websocket", "aiohttp.internal")


def no_tracebacks() -> None:
    """Put the filter on aiohttp's loggers (once)."""
    for name in AIOHTTP_LOGGERS:
        logger = logging.getLogger(name)
        if _ONE_LINE not in logger.filters:
            logger.addFilter(_ONE_LINE)
