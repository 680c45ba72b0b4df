"""A simulated serial link with faults, and a device and a host talking over it
with the real protocol stack: Session, the device frame codec on the device
side, host_codec (cbor2) on the host side.

Everything is driven by one seeded random.Random and a virtual clock, so a run
is reproducible and fast.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from baulk.protocol import frame, host_codec, messages
from baulk.protocol.session import DEVICE, HOST, Session

TICK_MS = 5


@dataclass
class Faults:
    drop: float = 0.03
    flip: float = 0.03
    duplicate: float = 0.02
    reorder: float = 0.03
    delay: float = 0.05  # a long extra delay (up to 400 ms)
    garbage: float = 0.01  # noise bytes injected between frames
    disconnect_every_ms: int = 40_000  # mean time between unplugs
    disconnect_ms: tuple[int, int] = (3_000, 6_000)


@dataclass
class Counters:
    sent: int = 0
    dropped: int = 0
    flipped: int = 0
    duplicated: int = 0
    reordered: int = 0
    delayed: int = 0
    garbage: int = 0
    disconnects: int = 0
    lost_in_disconnect: int = 0


class Wire:
    """One direction of the link: chunks of bytes with a delivery time."""

    def __init__(self, rng: random.Random, faults: Faults, counters: Counters) -> None:
        self.rng = rng
        self.f = faults
        self.c = counters
        self.queue: list[tuple[int, int, bytes]] = []  # (due, order, chunk)
        self.order = 0
        self.up = True

    def put(self, chunk: bytes, now: int) -> None:
        rng, f, c = self.rng, self.f, self.c
        c.sent += 1
        if not self.up:
            c.lost_in_disconnect += 1
            return
        if rng.random() < f.drop:
            c.dropped += 1
            return
        if rng.random() < f.flip:
            b = bytearray(chunk)
            for _ in range(rng.randint(1, 3)):
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
            chunk = bytes(b)
            c.flipped += 1
        due = now + rng.randint(1, 3) * TICK_MS
        if rng.random() < f.delay:
            due += rng.randint(50, 400)
            c.delayed += 1
        if rng.random() < f.reorder and self.queue:
            # jump ahead of the frame queued last: delivered before it
            due = max(now + TICK_MS, self.queue[-1][0] - TICK_MS)
            self.order -= 1_000_000
            c.reordered += 1
        self.order += 1
        self.queue.append((due, self.order, chunk))
        if rng.random() < f.duplicate:
            self.order += 1
            self.queue.append((due + rng.randint(0, 40), self.order, chunk))
            c.duplicated += 1
        if rng.random() < f.garbage:
            noise = bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
            self.order += 1
            self.queue.append((due, self.order, noise))
            c.garbage += 1

    def take(self, now: int) -> list[bytes]:
        if not self.queue:
            return []
        self.queue.sort()
        i = 0
        while i < len(self.queue) and self.queue[i][0] <= now:
            i += 1
        due = [q[2] for q in self.queue[:i]]
        del self.queue[:i]
        return due

    def unplug(self) -> None:
        self.c.lost_in_disconnect += len(self.queue)
        self.queue.clear()
        self.up = False


@dataclass
class Side:
    """What one end took in: seq and payload index of every delivery."""

    name: str
    expected: int = 1
    got: int = 0
    errors: list[str] = field(default_factory=list)
    journal_peak: int = 0


def event_body(i: int) -> dict[Any, Any]:
    # A pot event carrying its own index in "t", so the payload is checked
    # and not only the sequence number.
    ev = {"ev": "pot", "ball": "red" if i % 2 else "black", "pocket": "tl", "t": i}
    return messages.event_body(ev, [i % 148, (i // 3) % 148])


def command_body(i: int) -> dict[Any, Any]:
    return messages.event_to_wire({"ev": "undo" if i % 3 else "rest", "t": i})


class LossyRun:
    """Device and host exchange n reliable messages each way over a bad link."""

    def __init__(
        self,
        n: int,
        seed: int,
        faults: Faults | None = None,
        capacity: int = 64,
        window: int = 8,
        reset_every_ms: int = 120_000,
    ) -> None:
        self.n = n
        self.rng = random.Random(seed)
        self.faults = faults or Faults()
        self.c = Counters()
        self.capacity = capacity
        self.window = window
        self.reset_every_ms = reset_every_ms
        self.to_host = Wire(self.rng, self.faults, self.c)
        self.to_device = Wire(self.rng, self.faults, self.c)
        self.now = 0
        self.boot = 1
        self.device = self._new_device(last=0, delivered=0)
        self.host = Session(HOST, 0, {0: "sim-host 1"}, 256, window, auto_commit=False)
        self.reader = frame.FrameReader()
        self.stream = host_codec.StreamDecoder()
        self.writer = frame.FrameWriter()
        self.dev_made = 0  # events created on the device
        self.host_made = 0
        self.pending_event: dict[Any, Any] | None = None
        self.pending_cmd: dict[Any, Any] | None = None
        self.at_host = Side("host")
        self.at_device = Side("device")
        self.device_resets = 0
        self.host_restarts = 0
        self.next_unplug = self._gap()
        self.replug_at = -1

    def _gap(self) -> int:
        return int(self.rng.expovariate(1 / self.faults.disconnect_every_ms))

    def _new_device(self, last: int, delivered: int) -> Session:
        info = {0: "fw-sim", 1: "table-1", 2: self.boot}
        return Session(DEVICE, self.now, info, self.capacity, self.window, last, delivered)

    # -- faults that hit the ends, not the wire ------------------------------

    def reset_device(self) -> None:
        """Power cycle: RAM is gone, the flash journal and counters survive."""
        old = self.device.sender
        journal = [old.payload(s) for s in range(old.base, old.next)]
        delivered = self.device.receiver.delivered
        self.boot += 1
        self.device = self._new_device(last=old.base - 1, delivered=delivered)
        for p in journal:
            assert self.device.sender.offer(p)
        self.reader = frame.FrameReader()
        self.device_resets += 1

    def restart_host(self) -> None:
        """Host crash: the store has everything committed and the commands
        not yet acknowledged; nothing else survives."""
        old = self.host
        journal = [old.sender.payload(s) for s in range(old.sender.base, old.sender.next)]
        committed = old.receiver.committed
        self.host = Session(
            HOST,
            self.now,
            {0: "sim-host 1"},
            256,
            self.window,
            last=old.sender.base - 1,
            delivered=committed,
            auto_commit=False,
        )
        for p in journal:
            assert self.host.sender.offer(p)
        # the store's view: deliveries not committed are gone and come again
        self.at_host.expected = committed + 1
        self.at_host.got = committed
        self.stream = host_codec.StreamDecoder()
        self.host_restarts += 1

    # -- one tick ----------------------------------------------------------

    def step(self) -> None:
        now = self.now = self.now + TICK_MS
        dev, host = self.device, self.host
        # link faults
        if self.replug_at < 0 and now >= self.next_unplug:
            self.to_host.unplug()
            self.to_device.unplug()
            self.c.disconnects += 1
            self.replug_at = now + self.rng.randint(*self.faults.disconnect_ms)
        elif 0 <= self.replug_at <= now:
            self.to_host.up = self.to_device.up = True
            self.replug_at = -1
            self.next_unplug = now + self._gap()
        if self.reset_every_ms and now % self.reset_every_ms == 0:
            if (now // self.reset_every_ms) % 2:
                self.reset_device()
            else:
                self.restart_host()
            dev, host = self.device, self.host

        # producers: a new message only once the previous one was journaled
        while self.dev_made < self.n or self.pending_event is not None:
            if self.pending_event is None:
                self.dev_made += 1
                self.pending_event = event_body(self.dev_made)
            if not dev.send(messages.EVENT, self.pending_event):
                break
            self.pending_event = None
        while self.host_made < self.n or self.pending_cmd is not None:
            if self.pending_cmd is None:
                self.host_made += 1
                self.pending_cmd = command_body(self.host_made)
            if not host.send(messages.COMMAND, self.pending_cmd):
                break
            self.pending_cmd = None
        if len(dev.sender) > dev.sender.capacity:
            self.at_device.errors.append(f"journal over its bound at {now} ms")
        self.at_device.journal_peak = max(self.at_device.journal_peak, len(dev.sender))

        for m in dev.poll(now):
            self.to_host.put(bytes(self.writer.build(*m)), now)
        for m in host.poll(now):
            self.to_device.put(host_codec.encode_frame(*m), now)

        for chunk in self.to_device.take(now):
            for f in self.reader.feed(chunk):
                dev.on_frame(f, now)
        for chunk in self.to_host.take(now):
            for f in self.stream.feed(chunk):
                host.on_frame(f, now)

        for what, mtype, seq, body in host.drain():
            if what == "deliver" and mtype == messages.EVENT:
                self._check(self.at_host, seq, body, body[13])
            elif what in ("invalid", "ignored"):
                self.at_host.errors.append(f"{what} {mtype} {seq}")
        if now % 20 == 0:  # group commit every 20 ms
            host.commit(host.receiver.delivered)
        for what, mtype, seq, body in dev.drain():
            if what == "deliver" and mtype == messages.COMMAND:
                self._check(self.at_device, seq, body, body[13])
            elif what in ("invalid", "ignored"):
                self.at_device.errors.append(f"{what} {mtype} {seq}")

    def _check(self, side: Side, seq: int, body: dict[Any, Any], index: int) -> None:
        if seq != side.expected or index != seq:
            side.errors.append(
                f"{side.name}: got seq {seq} (payload {index}), want {side.expected}"
            )
        side.expected = seq + 1
        side.got += 1

    def done(self) -> bool:
        return (
            self.at_host.got >= self.n
            and self.at_device.got >= self.n
            and self.host.receiver.committed >= self.n
        )

    def run(self, max_ms: int) -> None:
        while not self.done() and self.now < max_ms:
            self.step()
