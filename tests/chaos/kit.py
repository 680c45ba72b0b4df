"""Shared parts of the chaos suite (tests/chaos and bench/chaos_*.py).

* :class:`FaultyLink` is a seeded fault-injecting relay between a simulated
  table's pty and a second pty that the daemon opens: bit errors at a given
  bit error rate, dropped bytes, and disconnects (the daemon's pty goes away
  and comes back behind the same path, as a pulled USB cable does).
* :class:`JournalTap` records every event body the firmware journals on flash,
  in order, for every simulated table of this process: that is the device's
  record of events, the thing the host store must equal.
* :func:`stored_events` and :func:`compare` read the host's SQLite store and
  check it against the tap: every journaled event exactly once, in order.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import select
import sqlite3
import threading
import time
import tty
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from baulk.firmware import journal as journal_mod
from baulk.protocol import host_catalogue, messages
from tests.host.harness import stored_events


# ---------------------------------------------------------------------- the relay
@dataclass
class FaultCounts:
    bytes_up: int = 0  # device -> host bytes carried
    bytes_down: int = 0  # host -> device bytes carried
    bits_flipped: int = 0
    bytes_dropped: int = 0
    disconnects: int = 0
    lost_in_disconnect: int = 0  # bytes that met a pulled cable

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


class _Gaps:
    """Positions of rare faults in a stream: geometric gaps with mean 1/rate."""

    def __init__(self, rng: random.Random, rate: float) -> None:
        self.rng = rng
        self.rate = rate
        self.left = self._draw()

    def _draw(self) -> int:
        if self.rate <= 0:
            return 1 << 62
        return int(self.rng.expovariate(self.rate))

    def hits(self, n: int) -> list[int]:
        """Offsets (0..n-1) that get a fault in the next n units."""
        out = []
        pos = 0
        while self.left < n - pos:
            pos += self.left
            out.append(pos)
            pos += 1
            self.left = self._draw()
        self.left -= n - pos
        return out


class FaultyLink:
    """device pty <-> relay <-> host pty (``link_path``), with seeded faults."""

    def __init__(
        self,
        device_port: str,
        link_path: Path,
        seed: int,
        ber: float = 0.0,
        drop_rate: float = 0.0,
        disconnect_every_s: float | None = None,
        disconnect_for_s: tuple[float, float] = (0.2, 3.0),
    ) -> None:
        self.device_port = device_port
        self.link_path = Path(link_path)
        self.rng = random.Random(seed)
        self.flips = [_Gaps(self.rng, ber), _Gaps(self.rng, ber)]  # per bit, each way
        self.drops = [_Gaps(self.rng, drop_rate), _Gaps(self.rng, drop_rate)]  # per byte
        self.disconnect_every_s = disconnect_every_s
        self.disconnect_for_s = disconnect_for_s
        self.counts = FaultCounts()
        self.faults_on = True
        self._dev = -1
        self._master = -1
        self._slave = -1
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- ptys ---------------------------------------------------------------------
    def _open_host_side(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        tmp = self.link_path.with_name(self.link_path.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        tmp.symlink_to(os.ttyname(slave))
        tmp.replace(self.link_path)

    def _close_host_side(self) -> None:
        for fd in (self._master, self._slave):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = -1
        with contextlib.suppress(FileNotFoundError):
            self.link_path.unlink()

    def start(self) -> FaultyLink:
        self._dev = os.open(self.device_port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self._dev)
        self._open_host_side()
        self._thread = threading.Thread(target=self._run, name="faulty-link", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)
        self._close_host_side()
        with contextlib.suppress(OSError):
            os.close(self._dev)

    # -- faults ---------------------------------------------------------------------
    def _spoil(self, data: bytes, way: int) -> bytes:
        if not self.faults_on:
            return data
        buf = bytearray(data)
        for bit in self.flips[way].hits(8 * len(buf)):
            buf[bit // 8] ^= 1 << (bit % 8)
            self.counts.bits_flipped += 1
        dropped = self.drops[way].hits(len(buf))
        for i in reversed(dropped):
            del buf[i]
        self.counts.bytes_dropped += len(dropped)
        return bytes(buf)

    def _run(self) -> None:
        next_cut = self._next_cut()
        back_at = 0.0
        while not self._stop.is_set():
            now = time.monotonic()
            if self._master < 0 and now >= back_at:
                self._open_host_side()
                next_cut = self._next_cut()
            elif self._master >= 0 and self.faults_on and now >= next_cut:
                self._close_host_side()
                self.counts.disconnects += 1
                back_at = now + self.rng.uniform(*self.disconnect_for_s)
            fds = [self._dev] + ([self._master] if self._master >= 0 else [])
            ready, _, _ = select.select(fds, [], [], 0.02)
            if self._dev in ready:
                data = _read(self._dev)
                if self._master >= 0:
                    self.counts.bytes_up += len(data)
                    _write(self._master, self._spoil(data, 0))
                else:
                    self.counts.lost_in_disconnect += len(data)
            if self._master >= 0 and self._master in ready:
                data = _read(self._master)
                self.counts.bytes_down += len(data)
                _write(self._dev, self._spoil(data, 1))

    def _next_cut(self) -> float:
        if self.disconnect_every_s is None:
            return float("inf")
        return time.monotonic() + self.rng.expovariate(1 / self.disconnect_every_s)


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 4096)
    except OSError:  # EAGAIN, or EIO while the other end is closed
        return b""


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    end = time.monotonic() + 1.0
    while view and time.monotonic() < end:
        try:
            n = os.write(fd, view)
        except BlockingIOError:
            time.sleep(0.001)
            continue
        except OSError:
            return
        view = view[n:]


# ---------------------------------------------------------------------- the device's record
@dataclass
class JournalTap:
    """Every record the firmware journaled on flash, per flash directory:
    (seq, kind, body), kind as Journal.records gives it: 0 an event, 1 a
    pocket check's result, 2 a checkpoint."""

    records: dict[str, list[tuple[int, int, dict[Any, Any]]]] = field(default_factory=dict)
    _original: Any = None

    def install(self) -> JournalTap:
        original = journal_mod.Journal._put
        tap = self

        def put(journal: Any, body: dict[Any, Any], kind: int) -> int:
            seq: int = original(journal, body, kind)
            root = str(Path(journal.root).resolve())
            tap.records.setdefault(root, []).append((seq, kind >> 14, body))
            return seq

        self._original = original
        journal_mod.Journal._put = put  # type: ignore[method-assign]
        return self

    def remove(self) -> None:
        if self._original is not None:
            journal_mod.Journal._put = self._original  # type: ignore[method-assign]
            self._original = None

    def records_all(self) -> list[tuple[int, int, dict[Any, Any]]]:
        """Every record of every journal: events and checkpoints."""
        return [r for records in self.records.values() for r in records]

    def of(self, flash_dir: Path | str) -> list[tuple[int, dict[Any, Any]]]:
        """The events of the journal in this flash directory (or under it)."""
        base = str(Path(flash_dir).resolve())
        out: list[tuple[int, dict[Any, Any]]] = []
        for root, records in self.records.items():
            if root == base or root.startswith(base + os.sep):
                out.extend((seq, body) for seq, kind, body in records if not kind)
        return out


@contextlib.contextmanager
def journal_tap() -> Iterator[JournalTap]:
    tap = JournalTap().install()
    try:
        yield tap
    finally:
        tap.remove()


# ---------------------------------------------------------------------- the host's record
def run_faults(log_text: str, sim: Any) -> dict[str, Any]:
    """What a chaos run's own parts said went wrong: the daemon's error and
    traceback lines, and the simulated table's exception (None: none)."""
    lines = [ln for ln in log_text.splitlines() if " ERROR " in ln or "Traceback" in ln]
    return {"log_errors": lines, "sim_error": repr(sim.error) if sim.error else None}


def integrity(store: Path) -> str:
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=10)
    try:
        return str(db.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        db.close()


@dataclass
class Comparison:
    journaled: int
    stored: int
    lost: int  # journaled, never stored
    doubled: int  # stored more than once
    out_of_order: int  # stored seqs that go backwards
    differing: int  # stored, but not the event the device journaled
    unknown: int  # stored, never journaled

    @property
    def exact(self) -> bool:
        return not (self.lost or self.doubled or self.out_of_order or self.differing)

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def _norm(value: Any) -> Any:
    return json.loads(json.dumps(value))


def compare(
    journaled: list[tuple[int, dict[Any, Any]]], stored: list[tuple[int, int, Any]]
) -> Comparison:
    """The host store against the device's record: exactly once and in order."""
    device = {}
    for seq, body in journaled:
        boot = host_catalogue.event_result(body)[2]
        device[seq] = (boot, _norm(messages.wire_to_event(body)))
    seen: dict[int, int] = {}
    out_of_order = differing = unknown = 0
    last = 0
    for boot, seq, ev in stored:
        seen[seq] = seen.get(seq, 0) + 1
        if seq < last:
            out_of_order += 1
        last = max(last, seq)
        want = device.get(seq)
        if want is None:
            unknown += 1
        elif want != (boot, ev):
            differing += 1
    lost = sum(1 for seq in device if seq not in seen)
    doubled = sum(n - 1 for n in seen.values() if n > 1)
    return Comparison(len(device), len(stored), lost, doubled, out_of_order, differing, unknown)


def wait_until(cond: Callable[[], Any], timeout: float, step: float = 0.1) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = cond()
        if got:
            return got
        time.sleep(step)
    return cond()


# ---------------------------------------------------------------------- simulated tables
def stop_play(sim: Any) -> None:
    """Stop a SimulatedTable's autoplay (the firmware and its link run on)."""

    def stop() -> None:
        sim.autoplay = False
        for task in sim._tasks[2:]:  # [firmware, pump, autoplay]
            task.cancel()
        del sim._tasks[2:]

    sim._call(stop)


def engine_state(sim: Any) -> dict[str, Any]:
    state: dict[str, Any] = sim.state()
    return state


# ---------------------------------------------------------------------- the end of a run
QUIET_S = 2.0  # longer than a table takes to journal what its sensors had in hand


class Settled:
    """The end of a chaos run, as a condition for :func:`wait_until`: every
    table has journaled nothing new for ``quiet_s``, the store holds every
    event it journaled, and the device holds an ack for each of them.

    A table journals on for a moment after its play stops: the rest sensor
    reports the balls still 0.5 s after the last motion, a pot waits for its
    colour reading.  "Everything journaled so far is stored" can therefore
    hold just before the table's last event is journaled; a run that took
    that moment as its end compared the store with an event still on the
    wire and counted it as lost (issue 7).

    ``journaled``, ``stored`` and ``acked_all`` give, for a table id, the
    device's record, the store's rows (as :func:`stored_events`) and whether
    the device holds an ack for everything it journaled."""

    def __init__(
        self,
        tables: list[str],
        journaled: Callable[[str], list[tuple[int, dict[Any, Any]]]],
        stored: Callable[[str], list[tuple[int, int, Any]]],
        acked_all: Callable[[str], bool],
        quiet_s: float = QUIET_S,
        clock: Callable[[], float] = time.monotonic,
        flush: Callable[[], None] | None = None,
    ) -> None:
        self.tables = list(tables)
        self.journaled = journaled
        self.stored = stored
        self.acked_all = acked_all
        self.quiet_s = quiet_s
        self.clock = clock
        self.flush = flush
        self._count: dict[str, int] = {}
        self._since: dict[str, float] = {}

    def __call__(self) -> bool:
        if self.flush is not None:
            self.flush()
        now = self.clock()
        done = True
        for t in self.tables:
            record = self.journaled(t)
            if self._count.get(t) != len(record):
                self._count[t] = len(record)
                self._since[t] = now
            quiet = now - self._since[t] >= self.quiet_s
            if not (quiet and compare(record, self.stored(t)).lost == 0 and self.acked_all(t)):
                done = False
        return done


def device_acked_all(sim: Any) -> bool:
    """The simulated table's device holds an ack for every event it journaled."""
    app = sim.app
    return app is not None and app.journal.acked >= app.journal.next - 1


def settled(
    tap: JournalTap,
    sims: dict[str, Any],
    store: Path,
    flush: Callable[[], None] | None = None,
    quiet_s: float = QUIET_S,
) -> Settled:
    """:class:`Settled` for SimulatedTables by table id, their tap and the store."""
    return Settled(
        list(sims),
        lambda t: tap.of(sims[t].flash_dir),
        lambda t: stored_events(store, t),
        lambda t: device_acked_all(sims[t]),
        quiet_s,
        flush=flush,
    )
