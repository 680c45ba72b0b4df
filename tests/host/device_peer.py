"""A device-side test peer: the protocol's device session and the rules engine
behind a real pseudo-terminal, for the host tests until ``host/sim/table.py``
(the real firmware over a simulated hardware layer) is there.

It is not firmware: no journal on flash, no sensors.  It speaks the real wire
protocol (``protocol.session.Session`` in the device role, the device frame
codec) over ``os.openpty()``; the daemon opens the pty's other end with
pyserial, exactly as it opens a USB port.  ``link_path`` is kept as a symlink
to the current pty (as udev keeps /dev/serial/by-id links), so the daemon finds
the table again after :meth:`unplug` and :meth:`replug`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import queue
import select
import threading
import time
import tty
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from baulk.firmware.engine import Engine, Rejected
from baulk.protocol import frame, messages
from baulk.protocol.host_codec import CHECK_REQUEST
from baulk.protocol.session import DEVICE, Session

HELLO_REPEAT_MS = 100  # how often this peer says hello until welcomed (a board: 1 s)

Event = dict[str, Any]


def mono_ms() -> int:
    return time.monotonic_ns() // 1_000_000


class DevicePeer:
    """One simulated table controller on a pty."""

    def __init__(
        self,
        table_id: str = "t1",
        link_path: str | Path | None = None,
        boot: int = 1,
        window: int = 8,
        capacity: int = 256,
        last: int = 0,
    ) -> None:
        self.table_id = table_id
        self.link_path = Path(link_path) if link_path else None
        self.boot = boot
        self.engine = Engine()
        self.session = Session(
            DEVICE, mono_ms(), {0: "peer-1.0", 1: table_id, 2: boot}, capacity, window, last=last
        )
        self.writer = frame.FrameWriter()
        self.reader = frame.FrameReader()
        self.master = -1
        self.slave = -1
        self.slave_path = ""
        self.inbox: queue.Queue[tuple[Event, int, int]] = queue.Queue()
        self.held: list[dict[Any, Any]] = []  # events waiting for room in the journal
        self.sent: list[tuple[int, Event, str | None]] = []  # (seq, event, rejected)
        self.commands: list[tuple[int, int, Any]] = []  # (type, seq, body) from the host
        self.actions: set[int] = set()  # operator action ids applied
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.plugged = False
        self._wake_r, self._wake_w = os.pipe()  # inject() wakes the device loop at once
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)

    # ------------------------------------------------------------------ the pty
    @property
    def port(self) -> str:
        return str(self.link_path) if self.link_path else self.slave_path

    def _open_pty(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line discipline before the host opens it
        os.set_blocking(master, False)
        self.master, self.slave = master, slave
        self.slave_path = os.ttyname(slave)
        if self.link_path is not None:
            tmp = self.link_path.with_name(self.link_path.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            tmp.symlink_to(self.slave_path)
            tmp.replace(self.link_path)
        self.plugged = True

    def _close_pty(self) -> None:
        self.plugged = False
        for fd in (self.master, self.slave):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.master = self.slave = -1
        if self.link_path is not None:
            # The port goes with the cable, as /dev/ttyUSB0 does.  A link
            # left behind would name a pty number the kernel hands to the
            # next pty opened anywhere: another test's device, then read
            # by this test's daemon.
            with contextlib.suppress(FileNotFoundError):
                self.link_path.unlink()

    def unplug(self) -> None:
        """Pull the cable: the pty goes away; the session and journal stay."""
        with self.lock:
            self._close_pty()

    def replug(self) -> None:
        with self.lock:
            if not self.plugged:
                self._open_pty()

    def reset(self) -> None:
        """Power cycle: a new boot id; unacknowledged events survive (flash)."""
        with self.lock:
            old = self.session.sender
            journal = [old.payload(s) for s in range(old.base, old.next)]
            self.boot += 1
            self.session = Session(
                DEVICE,
                mono_ms(),
                {0: "peer-1.0", 1: self.table_id, 2: self.boot},
                old.capacity,
                old.window,
                last=old.base - 1,
                delivered=self.session.receiver.delivered,
            )
            for p in journal:
                self.session.sender.offer(p)

    # ------------------------------------------------------------------ running
    def start(self) -> DevicePeer:
        self._open_pty()
        self._thread = threading.Thread(target=self._run, name=f"peer-{self.table_id}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        self._close_pty()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    def inject(self, ev: Event, src: int = messages.SRC_SENSOR) -> None:
        """A sensor or keypad input, applied on the device's own thread."""
        self.inbox.put((ev, src, 0))
        with contextlib.suppress(BlockingIOError):
            os.write(self._wake_w, b"!")

    def play(self, events: Iterable[Event], gap_s: float = 0.0) -> None:
        for ev in events:
            self.inject(ev)
            if gap_s:
                time.sleep(gap_s)

    def acked(self) -> int:
        with self.lock:
            return int(self.session.sender.base - 1)

    def last_seq(self) -> int:
        with self.lock:
            return int(self.session.sender.last)

    def pending(self) -> int:
        with self.lock:
            return len(self.held) + self.inbox.qsize()

    def wait(self, cond: Any, timeout: float = 20.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if cond():
                return True
            time.sleep(0.01)
        return bool(cond())

    def _run(self) -> None:
        while not self._stop.is_set():
            with self.lock:
                fd = self.master
            watch = [self._wake_r] + ([fd] if fd >= 0 else [])
            with contextlib.suppress(OSError, ValueError):
                ready, _, _ = select.select(watch, [], [], 0.003)
                if self._wake_r in ready:
                    with contextlib.suppress(BlockingIOError):
                        os.read(self._wake_r, 4096)
            with self.lock:
                self._step()

    def _step(self) -> None:
        now = mono_ms()
        s = self.session
        if self.master >= 0:
            try:
                data = os.read(self.master, 4096)
            except BlockingIOError:
                data = b""
            except OSError as e:
                if e.errno != errno.EIO:  # EIO: nobody has the other end open
                    raise
                data = b""
            for f in self.reader.feed(data):
                s.on_frame(f, now)
        for what, mtype, seq, body in s.drain():
            if what == "deliver":
                self.commands.append((mtype, seq, body))
                self._from_host(mtype, seq, body)
        while True:
            try:
                ev, src, cmd = self.inbox.get_nowait()
            except queue.Empty:
                break
            self._apply(ev, src, cmd)
        while self.held and s.send(messages.EVENT, self.held[0]):
            self.held.pop(0)
        for m in s.poll(now):
            self._write(bytes(self.writer.build(*m)))
        if not s.open:
            # A board says hello once a second until welcomed; this peer says
            # it ten times a second, so that a test does not wait most of a
            # second for the daemon that just opened its port to hear it.
            s.hello_at = min(s.hello_at, now + HELLO_REPEAT_MS)

    def _from_host(self, mtype: int, seq: int, body: dict[Any, Any]) -> None:
        if mtype == messages.SETUP_MATCH:
            ev: Event = {"ev": "match", "players": body[7], "best_of": body[8]}
            if 9 in body:
                ev["breaker"] = body[9]
            if 10 in body:
                ev["reds"] = body[10]
        elif mtype == messages.COMMAND:
            ev = messages.wire_to_event(body)
        elif mtype == CHECK_REQUEST:
            # This peer has no pockets to check: it refuses at once, as a
            # table mid-frame does, rather than leaving the host to wait.
            why = "this device has no pocket sensors"
            self.session.send(messages.ERROR, {0: messages.ERR_REFUSED, 1: why, 2: mtype, 3: seq})
            return
        else:
            return
        act = body.get(-6, 0)
        if act in self.actions:
            return  # applied once already, as the firmware does (SPEC.md "Actions")
        if act:
            self.actions.add(act)
        self._apply(ev, messages.SRC_HOST, seq, act)

    def _apply(self, ev: Event, src: int, cmd: int, act: int = 0) -> None:
        rejected = None
        try:
            self.engine.apply(ev)
        except Rejected as why:
            rejected = str(why)[:160]
        st = self.engine.state()
        body = messages.event_body(ev, st["scores"], rejected, self.boot, src, cmd, act)
        seq = 0 if self.held else self.session.send(messages.EVENT, body)
        if not seq:
            self.held.append(body)
        self.sent.append((seq, ev, rejected))
        if seq and not self.held:
            self.session.send(messages.STATE, messages.state_to_wire(st, seq))

    def _write(self, data: bytes) -> None:
        if self.master < 0:
            return  # unplugged: the frame is lost on the floor
        with contextlib.suppress(OSError):  # the host is not reading: a lost frame
            os.write(self.master, data)


def forged_event(peer: DevicePeer, ev: Event, scores: list[int]) -> None:
    """Report an event with scores the engine did not give (a faulty device),
    so the shadow referee has something to catch."""
    with peer.lock:
        peer.engine.apply(ev)
        body = messages.event_body(ev, scores, None, peer.boot)
        seq = peer.session.send(messages.EVENT, body)
        peer.sent.append((seq, ev, None))


def send_raw(peer: DevicePeer, data: bytes) -> None:
    """Put bytes on the line as they are (noise, a broken frame)."""
    with peer.lock:
        peer._write(data)
