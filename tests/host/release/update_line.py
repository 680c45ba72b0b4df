"""A table in its update mode on a serial line, for the host's Transfer.

The device is the real firmware/update/mode.py (under CPython here; its
MicroPython run is tests/firmware/test_fw_update_link.py) on a simulated
port, and the line between them is modelled as a UART carries bytes:

* 115200 baud, 8N1: ten bits a byte, so 11,520 bytes a second each way, and
  each direction's bytes queue behind one another (full duplex);
* a frame is lost whole, with probability ``loss`` (noise spoils its CRC,
  and the receiver drops it: SPEC.md 6);
* ``cut_at``: the board's power goes once it holds that many bytes of the
  stream; it comes back at once in its update mode, as after the restart
  into the match and the host's request again (its RAM gone, its flash kept).

The board's own time to write and check flash is not modelled: the figure
is the line's, to set beside its floor (the stream's bytes at 11,520 B/s).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from baulk.firmware.sim.devices import SimUart
from baulk.firmware.update import mode as update_mode
from baulk.host.cli import firmware as firmware_cmd
from baulk.host.release import bundle as bundle_mod
from baulk.host.release.transfer import Transfer
from baulk.protocol import host_codec as H

BAUD = 115200
BYTES_PER_S = BAUD // 10  # 8N1: a start bit, eight data bits, a stop bit


def pico_release(out: Path) -> bundle_mod.Bundle:
    """The real release of this tree for a Pico, built into ``out``, as
    `baulk firmware bundle` makes it."""
    firmware_cmd.build("pico", out)
    return bundle_mod.make(out, "pico", firmware_cmd.ARCH["pico"])


@dataclass
class Direction:
    """One way of the line: frames in order, each due when its last byte is."""

    rng: random.Random
    loss: float
    frames: list[tuple[float, bytes]] = field(default_factory=list)
    free_at: float = 0.0  # when the line is free for the next byte, in ms
    bytes_sent: int = 0

    def put(self, now: float, data: bytes) -> None:
        start = max(now, self.free_at)
        self.free_at = start + len(data) * 1000 / BYTES_PER_S
        self.bytes_sent += len(data)
        if self.rng.random() >= self.loss:
            self.frames.append((self.free_at, data))

    def due(self, now: float) -> list[bytes]:
        out = [d for t, d in self.frames if t <= now]
        self.frames = [(t, d) for t, d in self.frames if t > now]
        return out


@dataclass
class Result:
    transfer: Transfer
    ms: float  # from the first status to the table's commit (or refusal)
    floor_ms: float  # the stream's bytes alone at 11,520 B/s
    down_bytes: int  # host -> table on the line, frames and resends
    up_bytes: int
    restarts: int


def push(
    root: str,
    key: bytes,
    b: bundle_mod.Bundle,
    tag_key: bytes | None = None,
    loss: float = 0.0,
    seed: int = 1,
    cut_at: int | None = None,
    board: str = "pico",
    arch: str = "armv6m",
    step_ms: float = 1.0,
    most_ms: float = 600_000,
) -> Result:
    rng = random.Random(seed)
    down, up = Direction(rng, loss), Direction(rng, loss)
    tr = Transfer(bundle_mod.tag(tag_key or key, b.manifest), b.to_bytes())
    now = 0.0
    restarts = 0

    def boot() -> tuple[SimUart, update_mode.Mode]:
        port = SimUart()
        return port, update_mode.Mode(port, key, root, board, arch, b.mpy, 0, int(now))

    port, dev = boot()
    decoder = H.StreamDecoder()
    while not tr.done and now < most_ms:
        for data in down.due(now):
            port.inject(data)
        dev.poll(int(now))
        for one in port.take().split(b"\x00")[:-1]:
            up.put(now, one + b"\x00")  # each status frame lost or not on its own
        for data in up.due(now):
            for f in decoder.feed(data):
                if f.error is None and f.mtype == H.UPDATE_STATUS:
                    rec = H.record_of(f.mtype, f.body)
                    assert isinstance(rec, H.UpdateStatus)
                    tr.on_status(rec, int(now))
        for frame_bytes in tr.frames(int(now)):
            down.put(now, frame_bytes)
        if cut_at is not None and tr.held >= cut_at and not restarts:
            restarts += 1
            down.frames.clear()  # what was on its way is lost with the power
            port, dev = boot()
        now += step_ms
    floor = tr.total * 1000 / BYTES_PER_S
    return Result(tr, now, floor, down.bytes_sent, up.bytes_sent, restarts)
