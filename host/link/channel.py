"""A table kept connected: its port found and opened, the protocol session
run over it, and what the device says handed to the daemon.

:class:`TableChannel` finds the port (:mod:`.port`), opens it, runs the
protocol :class:`~baulk.protocol.session.Session` (handshake, reliable
stream, heartbeats), and when the port goes away it closes it and tries again
with backoff.  What the device sends goes to a :class:`ChannelHandler` (the
daemon); acks go out only after :meth:`TableChannel.durable` says the store
has committed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

from baulk.host.link.port import LinkClosed, SerialLink
from baulk.host.logsafe import printable
from baulk.protocol import frame as wire_frame
from baulk.protocol import host_catalogue, host_codec, messages
from baulk.protocol.host_codec import Hello, Record, Time
from baulk.protocol.reliability import extend
from baulk.protocol.session import HOST, Session

log = logging.getLogger("baulk.link")

HOST_INFO = "baulk-host 0.1"
TICK_S = 0.05  # session timers (heartbeats, retransmits) run this often
BACKOFF_FIRST_S = 0.1
BACKOFF_MAX_S = 5.0
HOST_CAPACITY = 256  # host -> device journal (operator commands)
HOST_WINDOW = 128  # the receiver takes up to this many frames ahead (any device window fits)
NOISE_EVERY_MS = 10_000  # bad frames are summed up in the log this often at most
NOISE_WARN = 50  # ... and as a warning from this many on (a trickle stays at info)
# A reliable frame whose body the host cannot use is taken into the stream
# (stored as invalid, and acknowledged) only once the very same frame came
# this many times, each at least REPEAT_GAP_MS after the last: the device's
# own retransmissions (its timeout is 250 ms, then doubles), not a burst of
# frames put on the line by something else (see TableChannel._held_back).
SAME_BAD_FRAME = 3
REPEAT_GAP_MS = 200


def mono_ms() -> int:
    return time.monotonic_ns() // 1_000_000


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


_GARBAGE = (wire_frame.E_COBS, wire_frame.E_SHORT, wire_frame.E_CRC, wire_frame.E_OVERSIZE)


def _unusable(f: host_codec.Frame) -> str | None:
    """Why the host cannot use a frame whose CRC held, or None."""
    if f.error == wire_frame.E_BODY:
        return f.detail or "malformed body"
    if f.error == messages.E_UNKNOWN_TYPE:
        return f"message type {f.mtype} is not known here"
    types = host_catalogue.TYPES
    if f.error is None and f.mtype in types and types[f.mtype][1] == HOST:
        return f"{messages.type_name(f.mtype)} is not sent to the host"
    return None


# --------------------------------------------------------------------- one table
class NoiseReport:
    """Counts a line's bad frames and logs them at most once every
    NOISE_EVERY_MS: a noisy cable is visible in the log (a warning once it is
    more than a trickle) without a line per frame."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.counts: dict[str, int] = {}
        self.total = 0
        self.since_ms: int | None = None

    def bad(self, error: str, now_ms: int) -> None:
        self.counts[error] = self.counts.get(error, 0) + 1
        self.total += 1
        if self.since_ms is None:
            self.since_ms = now_ms

    def report(self, now_ms: int) -> None:
        if self.since_ms is None or now_ms - self.since_ms < NOISE_EVERY_MS:
            return
        n = sum(self.counts.values())
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        level = logging.WARNING if n >= NOISE_WARN else logging.INFO
        seconds = (now_ms - self.since_ms) / 1000
        log.log(level, "table %s: %d bad frames in %.0f s (%s)", self.table_id, n, seconds, kinds)
        self.counts.clear()
        self.since_ms = None


class ChannelHandler(Protocol):
    """What a channel tells the daemon.  Bodies arrive as named records
    (protocol/host_codec.py), never as integer-keyed maps."""

    def on_status(self, channel: TableChannel) -> None: ...

    def on_hello(self, channel: TableChannel, hello: Hello, raw: bytes) -> None: ...

    def on_delivery(
        self,
        channel: TableChannel,
        mtype: int,
        seq: int,
        record: Record | None,
        reason: str | None,
        raw: bytes | None,
    ) -> None:
        """A reliable message in stream order: its record, or None with the
        reason it cannot be used (it is stored as invalid, and acked)."""
        ...

    def on_message(self, channel: TableChannel, record: Record, raw: bytes) -> None: ...


class UpdateLink(Protocol):
    """A firmware update under way on this table (host/venue/updates.py):
    the table's update_status frames go to it, and its update_data frames
    go out beside the session's."""

    def on_status(self, status: host_codec.UpdateStatus, now_ms: int) -> None: ...

    def frames(self, now_ms: int) -> list[bytes]: ...


class TableChannel:
    """Keeps one table connected and runs its protocol session."""

    def __init__(
        self,
        table_id: str,
        locate: Callable[[], str | None],
        handler: ChannelHandler,
        baud: int = 115200,
        delivered: int = 0,
        where: str = "its port",
    ) -> None:
        self.table_id = table_id
        self.locate = locate
        self.where = where  # what locate looks for, for people: "port /dev/ttyACM0"
        self.handler = handler
        self.baud = baud
        self.session = Session(
            HOST,
            mono_ms(),
            {host_catalogue.key_of(messages.WELCOME, "host"): HOST_INFO},
            HOST_CAPACITY,
            HOST_WINDOW,
            last=0,
            delivered=delivered,
            auto_commit=False,
        )
        self.link: SerialLink | None = None
        self.path: str | None = None
        self.stored = delivered  # the device stream up to here is in the store
        # The gap count before the latest hello's resync: a hello whose
        # numbering is not this table's stream implies no loss (see below).
        self._gaps_before_hello = 0
        self.state = "offline"  # offline | connecting | online | refused
        self.reason = "not connected yet"
        self.last_seen_ms: int | None = None
        self.online_since_ms: int | None = None
        self.hello: Hello | None = None
        self.connects = 0
        self._closed = asyncio.Event()
        self._stop = False
        self._task: asyncio.Task[None] | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._raw_by_seq: dict[int, bytes] = {}
        self._writer_armed = False
        self._fd = -1  # the port's descriptor while it is registered with the loop
        self._rx_on_port = False  # a good frame came in since the port was opened
        self.noise = NoiseReport(table_id)
        # Reliable frames held back, by full seq: [(type, body), copies, last ms].
        self._suspects: dict[int, list[Any]] = {}
        self.asked_again = 0  # numbers asked for again, a bad body at each
        self.asked_again_last: dict[str, Any] | None = None
        self.update: UpdateLink | None = None  # a firmware update under way

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._task = loop.create_task(self._run(), name=f"link-{self.table_id}")
        self._ticker = loop.create_task(self._tick(), name=f"tick-{self.table_id}")

    async def stop(self) -> None:
        self._stop = True
        self._closed.set()
        for t in (self._task, self._ticker):
            if t is not None:
                t.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await t
        self._drop_link("daemon stopping")

    async def _run(self) -> None:
        # Nothing may end this task quietly: a table whose link task died
        # would stay "not connected yet" for ever with nothing in the log.
        while not self._stop:
            try:
                await self._connect_loop()
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.exception("table %s: the link failed; trying again", self.table_id)
                self._drop_link(f"link error: {e!r}"[:200])
                await asyncio.sleep(BACKOFF_MAX_S)

    async def _connect_loop(self) -> None:
        backoff = BACKOFF_FIRST_S
        while not self._stop:
            path = self.locate()
            if path is None:
                self._set_state(
                    "offline", f"waiting for the table controller ({self.where} is not present)"
                )
            else:
                link = SerialLink(path, self.baud)
                try:
                    link.open()
                except LinkClosed as e:
                    self._set_state("offline", str(e))
                else:
                    self._attach(link, path)
                    opened_at = time.monotonic()
                    await self._closed.wait()
                    if time.monotonic() - opened_at > 5:
                        backoff = BACKOFF_FIRST_S  # it was a working link
                    if self._stop:
                        return
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, BACKOFF_MAX_S)

    def _attach(self, link: SerialLink, path: str) -> None:
        self.link, self.path = link, path
        self._rx_on_port = False
        self._closed.clear()
        self.connects += 1
        loop = asyncio.get_running_loop()
        self._fd = link.fileno()
        loop.add_reader(self._fd, self._readable)
        self._set_state("connecting", f"port {path} open; waiting for the device's hello")
        log.info("table %s: opened %s", self.table_id, path)

    def _drop_link(self, why: str) -> None:
        link, self.link = self.link, None
        if link is not None:
            # Unregister before closing: the next port opened may get the
            # same descriptor number.
            loop = asyncio.get_running_loop()
            if self._fd >= 0:
                loop.remove_reader(self._fd)
                loop.remove_writer(self._fd)
            self._fd = -1
            self._writer_armed = False
            link.close()
            log.info("table %s: link closed (%s)", self.table_id, why)
        self.online_since_ms = None
        self._set_state("offline", why)
        self._closed.set()

    def _set_state(self, state: str, reason: str) -> None:
        if (state, reason) == (self.state, self.reason):
            return
        was = self.state
        self.state, self.reason = state, reason
        if state == "online":
            self.online_since_ms = wall_ms()
            log.info("table %s: link up on %s", self.table_id, self.path)
        elif was == "online":
            log.warning("table %s: link down: %s", self.table_id, reason)
        else:
            log.info("table %s: %s: %s", self.table_id, state, reason)
        self.handler.on_status(self)

    # ------------------------------------------------------------------ receiving
    def _readable(self) -> None:
        link = self.link
        if link is None:
            return
        try:
            got = link.read_frames()
        except LinkClosed as e:
            self._drop_link(f"port lost: {e}")
            return
        if got:
            self.feed(got)

    def feed(self, got: list[tuple[bytes, host_codec.Frame]]) -> None:
        """Take decoded frames (from the port, or from a benchmark)."""
        now = mono_ms()
        s = self.session
        hello_seen = False
        for raw, f in got:
            if f.error is not None:
                self.noise.bad(f.error, now)
            if f.error is None or f.error in (messages.E_UNKNOWN_TYPE, wire_frame.E_BODY):
                self.last_seen_ms = wall_ms()
                self._rx_on_port = True
            if f.error is None and f.flags & wire_frame.FLAG_REL:
                self._raw_by_seq[f.seq] = raw
            if f.error is None and f.mtype == messages.HELLO:
                self._raw_by_seq[-1] = raw
                self._suspects.clear()  # a hello may renumber the stream
                if not hello_seen:
                    # The count before this batch's first hello: a repeat in
                    # the same batch would hold the first one's resync.
                    self._gaps_before_hello = s.receiver.gaps
                    hello_seen = True
            if f.error is None and f.mtype == host_codec.UPDATE_STATUS and self.update is not None:
                # The table in its update mode: no session there, only this.
                status = host_codec.record_of(f.mtype, f.body)
                if isinstance(status, host_codec.UpdateStatus):
                    self.update.on_status(status, now)
            if self._held_back(raw, f, now):
                continue
            s.on_frame(f, now)
        self._drain()
        if self.state == "connecting" and s.open and self._rx_on_port:
            # The port came back before either side's dead-link timer ran out:
            # the session simply goes on, with no new handshake.
            self._set_state("online", "")
        self.flush()
        self.noise.report(now)

    def _held_back(self, raw: bytes, f: host_codec.Frame, now: int) -> bool:
        """A reliable frame whose CRC holds but whose body the host cannot use
        (malformed, failing its type's check, of a type unknown here or that
        only the host sends), at a number the stream has not taken yet.

        It is not taken at once, as SPEC.md 6 lets a receiver: that would
        acknowledge its number, and the device's real event with that number
        would then be dropped as a repeat.  Something on the line (a noisy
        relay, a stranger's injection) can make such a frame; the device
        sends each of its messages again until it is acknowledged.  So the
        host holds it back, asks for the number again (a duplicate ack makes
        the device resend at once) and raises an alert; the number is taken
        with the device's next good frame, or, if the device itself keeps
        sending that very frame (SAME_BAD_FRAME times, REPEAT_GAP_MS apart),
        as an invalid message, so a device that really sent a bad body still
        makes progress."""
        s = self.session
        if not s.open or not f.flags & wire_frame.FLAG_REL or f.error in _GARBAGE:
            return False
        r = s.receiver
        seq = extend(f.seq, r.delivered + 1)
        why = _unusable(f)
        if why is None:
            if f.error is None:
                self._suspects.pop(seq, None)
            return False
        if seq <= r.delivered or seq > r.delivered + r.window:
            return False  # a repeat, or beyond the window: the session answers as ever
        mark = (f.mtype, host_codec.body_bytes(raw) if raw else None)
        held = self._suspects.get(seq)
        if held is None or held[0] != mark:
            held = self._suspects[seq] = [mark, 0, -REPEAT_GAP_MS]
            first = True
        else:
            first = False
        if now - held[2] >= REPEAT_GAP_MS:
            held[1] += 1
            held[2] = now
        if held[1] >= SAME_BAD_FRAME:
            del self._suspects[seq]
            log.error(
                "table %s: the table sent seq %d %d times with a body the host cannot use "
                "(%s): taken as an invalid message",
                self.table_id,
                seq,
                SAME_BAD_FRAME,
                printable(why),
            )
            return False
        s.live.received(now)  # its CRC held: the line is alive
        r.ack_due = True  # a duplicate ack: the device sends from its oldest again
        if first:
            self.asked_again += 1
            self.asked_again_last = {"seq": seq, "why": why[:200], "at_ms": wall_ms()}
            log.warning(
                "table %s: seq %d came with a body the host cannot use (%s): not "
                "acknowledged; asking the table for it again",
                self.table_id,
                seq,
                printable(why),
            )
            self.handler.on_status(self)  # the board and the API show it
        if len(self._suspects) > 4 * HOST_WINDOW:
            self._suspects = {k: v for k, v in self._suspects.items() if k > r.delivered}
        return True

    def _drain(self) -> None:
        failed = 0  # the first delivery the handler could not take, this pass
        for what, mtype, seq, body in self.session.drain():
            if what in ("deliver", "invalid", "ignored"):
                # Reliable: stored, then acked.  Once one fails, none after
                # it may be taken either, or a later commit would ack it.
                raw = self._raw_by_seq.pop(seq & 0xFFFF, None)
                if failed:
                    continue
                if raw is None and what == "deliver":
                    # Its bytes were not kept: canonical CBOR gives the very
                    # bytes the device sent (SPEC.md "Body"), which the store
                    # keeps for the chain (docs/LEDGER.md).
                    raw = host_codec.encode_frame(mtype, wire_frame.FLAG_REL, seq, body)[:-1]
                record, reason = None, None
                if what == "deliver" and mtype in host_codec.RECORDS:
                    record = host_codec.record_of(mtype, body)
                else:
                    reason = body if isinstance(body, str) else f"message type {mtype} is unknown"
                try:
                    self.handler.on_delivery(self, mtype, seq, record, reason, raw)
                except Exception:
                    log.exception(
                        "table %s: event %d not taken; asking for it again", self.table_id, seq
                    )
                    failed = seq
                continue
            if what == "open":
                hello = host_codec.record_of(messages.HELLO, body)
                assert isinstance(hello, Hello)
                self.hello = hello
                self._set_state("online", "")
                self.handler.on_hello(self, hello, self._raw_by_seq.pop(-1, b""))
                # Tell the device the time of day (its clock is monotonic only).
                self.session.send(messages.TIME, host_codec.body_of(Time(unix_ms=wall_ms())))
            elif what == "down":
                self._set_state("connecting", "no frame from the device for 2.5 s")
            elif what == "refused":
                self._set_state("refused", str(body))
                log.error("table %s: %s", self.table_id, body)
            elif what == "message" and mtype in host_codec.RECORDS:
                self.handler.on_message(self, host_codec.record_of(mtype, body), b"")
        if failed:
            # Not acked, so the device sends it (and what followed) again.
            self.retake(failed - 1)
        if len(self._raw_by_seq) > 4 * HOST_WINDOW + 64:
            self._raw_by_seq.clear()  # frames beyond the window, never delivered

    def retake(self, seq: int) -> None:
        """Take the device stream again after ``seq``: what the session
        delivered beyond it never reached the store (the daemon refused the
        device).  Call it on a hello, before the device resumes sending."""
        r = self.session.receiver
        if seq < r.delivered:
            r.delivered = seq
            r.committed = min(r.committed, seq)

    # ------------------------------------------------------------------ sending
    def take_again_from_store(self, base: int, last: int) -> None:
        """After refused events: the stream as if they had never come.

        A wrong device's hello moved the stream to its own numbering (a
        device whose last seq is below ours is followed as a restarted one),
        and its refused events moved it on, so neither the seq of the first
        refused event nor the session's position says where the right
        device's stream stands: what the store holds does.  From there, the
        hello (``base``..``last`` still held by the device) is taken again."""
        r = self.session.receiver
        # The session's own resync measured this hello against the refused
        # stream's numbering, so any gap it counted is not a loss; measured
        # against the store, the hello shows the real one, if any.
        r.gaps = self._gaps_before_hello
        r.delivered = r.committed = self.stored
        r.resync(base, last)

    def not_this_tables_stream(self) -> None:
        """The latest hello came from a device the daemon refuses: any gap
        its numbering implied is not a loss of this table's events."""
        self.session.receiver.gaps = self._gaps_before_hello

    def durable(self, seq: int) -> None:
        """The store committed the device stream up to seq: ack it now."""
        self.stored = seq
        self.session.commit(seq)
        self.flush()

    def send(self, record: Record) -> int:
        """Queue a host message (setup_match, command, ...); returns its seq
        for reliable types (0: the journal is full)."""
        seq: int = self.session.send(record.TYPE, host_codec.body_of(record))
        self.flush()
        return seq

    def flush(self) -> None:
        out = self.session.poll(mono_ms())
        link = self.link
        if link is None:
            return
        try:
            for mtype, flags, seq, body in out:
                link.write_frame(host_codec.encode_frame(mtype, flags, seq, body))
            if self.update is not None:
                for data in self.update.frames(mono_ms()):
                    link.write_frame(data)
            done = link.flush()
        except LinkClosed as e:
            self._drop_link(f"port lost: {e}")
            return
        if not done and not self._writer_armed:
            asyncio.get_running_loop().add_writer(self._fd, self._writable)
            self._writer_armed = True

    def _writable(self) -> None:
        link = self.link
        if link is None:
            return
        try:
            done = link.flush()
        except LinkClosed as e:
            self._drop_link(f"port lost: {e}")
            return
        if done and self._writer_armed:
            asyncio.get_running_loop().remove_writer(self._fd)
            self._writer_armed = False

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            if self.link is not None:
                self.flush()
                self._drain()
            self.noise.report(mono_ms())

    # ------------------------------------------------------------------ status
    def status(self) -> dict[str, Any]:
        s = self.session
        return {
            "link": "online" if self.state == "online" else "offline",
            "state": self.state,
            "reason": self.reason,
            "port": self.path,
            "last_seen_ms": self.last_seen_ms,
            "online_since_ms": self.online_since_ms,
            "connects": self.connects,
            "device": {
                "table": self.hello.table if self.hello else None,
                "firmware": self.hello.fw if self.hello else None,
                "boot": self.hello.boot if self.hello else None,
            },
            "stream": {
                "delivered": s.receiver.delivered,
                "acked": s.receiver.committed,
                "duplicates": s.receiver.duplicates,
                "gaps": s.receiver.gaps,
                "bad_frames": s.bad_frames,
                "commands_waiting": len(s.sender),
                "asked_again": self.asked_again,
                "asked_again_last": self.asked_again_last,
            },
        }
