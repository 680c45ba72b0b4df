"""The web server's doors: how many connections it holds, from whom, and for
how long a connection may dawdle before it has sent a request.

A hostile or broken client could otherwise hold every file descriptor the
daemon has (systemd gives a service 1,024): idle keep-alive sockets, request
heads sent a byte a second, hundreds of sockets from one address.  Then new
viewers cannot open a board, and a table controller plugged back in cannot
reopen its port.  So:

* the whole server holds at most ``most`` connections, leaving room under the
  process's descriptor limit for the tables' ports and the store; when it is
  full, a newcomer takes the place of a connection that waits without a
  request, from the address that holds the most (so dawdlers from many
  addresses cannot shut a new viewer out, and cannot push each other's one
  connection out either), and is refused only when every connection is busy
  in a request;
* one address holds at most ``per_client``;
* a connection that is not in a request (before its first, or between two on
  keep-alive) is closed after ``head_timeout_s`` — whether it is silent or
  trickles a request head — so it costs a descriptor for seconds, not hours;
* a refused connection is closed at once, and counted, not logged one by one;
  when the process runs out of descriptors anyway, asyncio's "accept out of
  system resource" is summed up in the log every ten seconds instead of a
  traceback per attempt.

Signed-in staff come first (``staff``, host/web/auth.py ``signed_in``): an
address at its cap lets a newcomer in by closing that address's oldest
connection that waits without a request and has carried no signed-in
request, or, when every one is busy, on probation (at most ``PROBATION``
more an address, the oldest of them giving way to a newer one).  A
connection on probation keeps its place only if its first request is
signed in; else it is answered 503 and closed.  So a stranger holding
every connection his address may have cannot shut out a member of staff
behind the same NAT.

The guard wraps aiohttp's request handler, the protocol of every accepted
connection; a middleware tells it when a request starts and ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

log = logging.getLogger("baulk.web")

HEAD_TIMEOUT_S = 10.0
PER_CLIENT = 32
PROBATION = 4  # connections an address at its cap may open on probation
FULL = "too many connections from your address: sign in, or close some"
# Descriptors kept free for the tables' serial ports, the store's files and
# the daemon's own pipes, whatever the web side holds ...
RESERVED_FDS = 128
# ... and for a burst of accepts: asyncio accepts up to the listen backlog in
# one go, each taking a descriptor until the guard closes it.
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
    __slots__ = ("client", "in_request", "probation", "since", "staff", "transport")

    def __init__(self, client: str, transport: asyncio.BaseTransport) -> None:
        self.client = client
        self.transport = transport
        self.in_request = False
        self.since = time.monotonic()  # waiting for a request since
        self.staff = False  # has carried a signed-in request
        self.probation = False  # let in over its address's cap


class ConnectionGuard:
    def __init__(
        self,
        most: int,
        per_client: int = PER_CLIENT,
        head_timeout_s: float = HEAD_TIMEOUT_S,
        staff: Callable[[web.Request], bool] | None = None,
    ) -> None:
        self.most = most
        self.staff = staff
        self.per_client = per_client
        self.head_timeout_s = head_timeout_s
        self.open: dict[asyncio.BaseTransport, _Connection] = {}
        self.by_client: dict[str, int] = {}
        self.refused = 0  # connections closed at the door, over a limit
        self.evicted = 0  # idle connections closed to let a newcomer in
        self.timed_out = 0  # connections closed for dawdling without a request
        self._told_refused = 0
        self._told_at = 0.0
        self._sweeper: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ the door
    def admit(self, transport: asyncio.BaseTransport) -> bool:
        peer = transport.get_extra_info("peername")
        client = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        probation = False
        if self.by_client.get(client, 0) >= self.per_client:
            probation = not self._make_room(client)
            if probation and self.staff is None:
                self.refused += 1
                return False
        if len(self.open) >= self.most and not self._evict_one():
            self.refused += 1
            return False
        c = self.open[transport] = _Connection(client, transport)
        c.probation = probation
        self.by_client[client] = self.by_client.get(client, 0) + 1
        return True

    def _make_room(self, client: str) -> bool:
        """An address at its cap: close its oldest idle connection that no
        signed-in request came on (True), or, when there is none, make room
        for one more on probation (False) by closing its oldest idle one on
        probation past PROBATION.  Without ``staff`` nothing is closed."""
        if self.staff is None:
            return False
        mine = [c for c in self.open.values() if c.client == client and not c.in_request]
        idle = [c for c in mine if not c.staff and not c.probation]
        if idle:
            self._close(min(idle, key=lambda c: c.since))
            return True
        waiting = [c for c in mine if c.probation]
        if len(waiting) >= PROBATION:
            self._close(min(waiting, key=lambda c: c.since))
        return False

    def _close(self, c: _Connection) -> None:
        c.transport.close()
        self.closed(c.transport)
        self.evicted += 1

    def _evict_one(self) -> bool:
        """Close a connection that waits without a request: of the address
        holding the most connections, its oldest."""
        idle = [c for c in self.open.values() if not c.in_request]
        if not idle:
            return False
        victim = min(idle, key=lambda c: (c.staff, -self.by_client[c.client], c.since))
        victim.transport.close()
        self.closed(victim.transport)
        self.evicted += 1
        return True

    def closed(self, transport: asyncio.BaseTransport) -> None:
        c = self.open.pop(transport, None)
        if c is None:
            return
        left = self.by_client.get(c.client, 1) - 1
        if left > 0:
            self.by_client[c.client] = left
        else:
            self.by_client.pop(c.client, None)

    def started(self, transport: asyncio.BaseTransport | None) -> _Connection | None:
        c = self.open.get(transport) if transport is not None else None
        if c is not None:
            c.in_request = True
        return c

    def ended(self, transport: asyncio.BaseTransport | None) -> None:
        c = self.open.get(transport) if transport is not None else None
        if c is not None:
            c.in_request = False
            c.since = time.monotonic()

    def factory(self, make: Callable[[], asyncio.Protocol]) -> Callable[[], asyncio.Protocol]:
        """The protocol factory for the server: aiohttp's, behind the door."""
        return lambda: _Guarded(self, make())

    # ------------------------------------------------------------------ the sweep
    def start(self) -> None:
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep(), name="web-guard")

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper

    def sweep(self, now: float) -> None:
        """Close what waited too long for a request; tell of refusals."""
        for c in list(self.open.values()):
            if not c.in_request and now - c.since >= self.head_timeout_s:
                self.timed_out += 1
                c.transport.close()
                self.closed(c.transport)
        if self.refused != self._told_refused and now - self._told_at >= TELL_EVERY_S:
            log.warning(
                "web: %d connections refused at the door so far (at most %d, %d per address)",
                self.refused,
                self.most,
                self.per_client,
            )
            self._told_refused = self.refused
            self._told_at = now

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY_S)
            self.sweep(time.monotonic())

    def middleware(self) -> Any:
        @web.middleware
        async def in_request(request: web.Request, handler: Any) -> web.StreamResponse:
            c = self.started(request.transport)
            if c is not None and self.staff is not None and not c.staff and self.staff(request):
                c.staff = True
                c.probation = False
            if c is not None and c.probation:
                self.ended(request.transport)
                self.refused += 1
                refused = web.json_response({"error": FULL}, status=503)
                refused.force_close()
                return refused
            try:
                response: web.StreamResponse = await handler(request)
                return response
            finally:
                self.ended(request.transport)

        return in_request


class _Guarded(asyncio.Protocol):
    """aiohttp's handler of one connection, admitted (or not) by the guard."""

    def __init__(self, guard: ConnectionGuard, inner: asyncio.Protocol) -> None:
        self.guard = guard
        self.inner = inner
        self.transport: asyncio.BaseTransport | None = None  # once admitted

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if not self.guard.admit(transport):
            abort = getattr(transport, "abort", transport.close)
            abort()
            return
        self.transport = transport
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.transport is not None:
            self.inner.data_received(data)

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


class AcceptErrors:
    """A loop exception handler that sums up "accept out of system resource"
    (the process has no descriptor left) every TELL_EVERY_S instead of logging
    a traceback for each of thousands of attempts; anything else goes to the
    loop's default handler."""

    def __init__(self) -> None:
        self.count = 0
        self._told = 0
        self._told_at = 0.0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if "accept" not in str(context.get("message", "")):
            loop.default_exception_handler(context)
            return
        self.count += 1
        now = time.monotonic()
        if now - self._told_at >= TELL_EVERY_S:
            log.error(
                "web: out of file descriptors: %d connections could not be accepted (%s); "
                "the limit is %d open files",
                self.count - self._told,
                context.get("exception"),
                resource.getrlimit(resource.RLIMIT_NOFILE)[0],
            )
            self._told, self._told_at = self.count, now


class MalformedRequests(logging.Filter):
    """aiohttp logs a traceback for every malformed request head ("Error
    handling request"): a client sending garbage would fill the disk.  On the
    ``aiohttp.server`` logger, such records are summed up in one line every
    TELL_EVERY_S, without the traceback."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0
        self._told = 0
        self._told_at = 0.0

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if not isinstance(exc, HttpProcessingError):
            return True
        self.count += 1
        now = time.monotonic()
        if now - self._told_at < TELL_EVERY_S:
            return False
        record.msg = "web: %d malformed requests (the latest: %s)"
        record.args = (self.count - self._told, str(exc).splitlines()[0][:120])
        record.exc_info = None
        record.exc_text = None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        self._told, self._told_at = self.count, now
        return True


_MALFORMED = MalformedRequests()


def quiet_malformed_requests() -> None:
    """Put the filter on aiohttp's server logger (once)."""
    server_log = logging.getLogger("aiohttp.server")
    if _MALFORMED not in server_log.filters:
        server_log.addFilter(_MALFORMED)
