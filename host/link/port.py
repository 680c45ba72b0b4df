"""A table's serial port, and the pool that finds the tables' ports.

* :class:`SerialLink` is the port: open, read frames, write frames, close,
  over pyserial (a USB CDC device, or the pseudo-terminal of a simulated
  table).  It never blocks the event loop.  Under it the protocol's
  :class:`~baulk.protocol.host_codec.StreamDecoder` cuts the byte stream at
  each ``0x00``, decodes every frame with the hardened host decoder and keeps
  each frame's bytes for the store's append-only ``raw_frames``.
* :class:`PortFinder` locates ports by USB serial number and auto-detects new
  table controllers by USB VID/PID through ``serial.tools.list_ports``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import serial
import serial.tools.list_ports

from baulk.protocol import host_codec

log = logging.getLogger("baulk.link")

OUT_LIMIT = 64 * 1024  # bytes waiting for a port that does not drain


class LinkClosed(Exception):
    """The port went away (unplugged, closed, I/O error)."""


class SerialLink:
    """A table's serial port through pyserial, non-blocking.

    ``read_frames`` returns what has arrived; ``write_frame`` queues a frame
    and writes as much as the port takes; neither ever waits.  Any I/O error
    closes the link and raises :class:`LinkClosed`.
    """

    def __init__(self, path: str, baud: int = 115200) -> None:
        self.path = path
        self.baud = baud
        self.port: Any = None
        self.splitter = host_codec.StreamDecoder()
        self._out = bytearray()
        self.bytes_in = 0
        self.bytes_out = 0
        self.dropped_out = 0

    def open(self) -> None:
        try:
            # timeout=0: read returns what is there; write_timeout=0: write
            # returns what the port took.  exclusive: one daemon per port.
            self.port = serial.Serial(
                self.path, self.baud, timeout=0, write_timeout=0, exclusive=True
            )
        except (serial.SerialException, OSError, ValueError, OverflowError) as e:
            raise LinkClosed(f"cannot open {self.path}: {e}") from None

    @property
    def is_open(self) -> bool:
        return self.port is not None

    def fileno(self) -> int:
        if self.port is None:
            raise LinkClosed("not open")
        fd: int = self.port.fileno()
        return fd

    def read_frames(self) -> list[tuple[bytes, host_codec.Frame]]:
        """What has arrived; raises LinkClosed on an I/O error (the caller
        unregisters the port from its event loop, then calls close)."""
        if self.port is None:
            raise LinkClosed("not open")
        try:
            data: bytes = self.port.read(4096)
        except (serial.SerialException, OSError) as e:
            raise LinkClosed(f"{self.path}: {e}") from None
        self.bytes_in += len(data)
        return self.splitter.feed_raw(data) if data else []

    def write_frame(self, data: bytes) -> None:
        if len(self._out) + len(data) > OUT_LIMIT:
            # The device stopped reading.  Reliable messages are sent again
            # from the session's journal, so dropping here loses nothing.
            self.dropped_out += 1
            return
        self._out += data
        self.flush()

    def pending_out(self) -> int:
        return len(self._out)

    def flush(self) -> bool:
        """Write what the port takes now; True when nothing is left."""
        if self.port is None:
            raise LinkClosed("not open")
        while self._out:
            try:
                _, ready, _ = select.select([], [self.port.fileno()], [], 0)
                if not ready:
                    return False
                n = self.port.write(bytes(self._out[:4096]))
            except (serial.SerialException, OSError) as e:
                raise LinkClosed(f"{self.path}: {e}") from None
            if not n:
                return False
            self.bytes_out += n
            del self._out[:n]
        return True

    def close(self) -> None:
        port, self.port = self.port, None
        self._out.clear()
        if port is not None:
            with contextlib.suppress(Exception):
                port.close()


# --------------------------------------------------------------------- finding ports
@dataclass(frozen=True)
class PortInfo:
    device: str
    serial_number: str | None
    vid: int | None
    pid: int | None
    description: str = ""


def list_ports() -> list[PortInfo]:
    out = []
    for p in serial.tools.list_ports.comports():
        out.append(PortInfo(p.device, p.serial_number, p.vid, p.pid, p.description or ""))
    return out


class PortFinder:
    """Where each table's port is now, by USB serial number or fixed path,
    and which new table controllers have appeared (USB VID/PID)."""

    def __init__(
        self,
        usb_ids: Iterable[tuple[int, int]] = (),
        lister: Callable[[], list[PortInfo]] = list_ports,
    ) -> None:
        self.usb_ids = set(usb_ids)
        self.lister = lister
        self._ports: list[PortInfo] = []
        self._at = 0.0

    def ports(self, max_age_s: float = 1.0) -> list[PortInfo]:
        now = time.monotonic()
        if now - self._at > max_age_s:
            try:
                self._ports = self.lister()
            except Exception as e:  # a broken sysfs entry must not stop the daemon
                log.warning("listing serial ports failed: %s", e)
                self._ports = []
            self._at = now
        return self._ports

    def by_serial(self, serial_number: str) -> str | None:
        for p in self.ports():
            if p.serial_number == serial_number:
                return p.device
        return None

    def controllers(self) -> list[PortInfo]:
        """Ports whose USB VID/PID is a table controller's."""
        return [p for p in self.ports() if (p.vid, p.pid) in self.usb_ids]


def fixed_path(path: str) -> Callable[[], str | None]:
    """A locator for a port given by path: present when the path exists."""

    def locate() -> str | None:
        return path if os.path.exists(path) else None

    return locate
