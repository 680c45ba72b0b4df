"""A store holding a match as the daemon stores it from the real firmware.

The whole firmware plays a match on the simulated board in virtual time
(sensors, keypad, the flash journal, its hash chain and checkpoints), with a
host session at the other end of its serial line acknowledging.  Every byte
the device wrote is kept, then fed, as a serial port would feed it, into a
real :class:`~baulk.host.venue.daemon.Daemon`'s table channel, which stores it
through the shadow referee and the group committer as it stores any table.
"""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from baulk.firmware.sim.board import SimBoard
from baulk.firmware.sim.script import Driver
from baulk.host import config as config_mod
from baulk.host.link.channel import TableChannel
from baulk.host.sim.matches import generate_match
from baulk.host.venue.daemon import Daemon
from baulk.protocol import frame, host_codec, messages
from baulk.protocol.session import HOST, Session

TABLE = "t1"
ACTION = (7 << 32) | 1  # the id of the first match's set-up


def device_stream(
    seed: int = 3,
    best_of: int = 1,
    matches: int = 1,
    anchors: Sequence[tuple[int, bytes]] = (),
) -> bytes:
    """Every byte the firmware wrote to its serial port while it played
    ``matches`` matches (each set up by the host, as an operator does); then
    the host sends it each of ``anchors`` (rows, head) in turn: the money
    chain's heads, as the daemon does after each commit of money rows
    (host/venue/anchors.py)."""
    with tempfile.TemporaryDirectory(prefix="baulk-ledger-") as tmp:
        board = SimBoard(flash=tmp, table=TABLE, tick_ms=5)
        board.boot()
        host = Session(HOST, board.clock.now, {0: "fixture-host"}, 64, 8)
        reader = frame.FrameReader()
        writer = frame.FrameWriter()
        wire = bytearray()

        def pump() -> None:
            data = board.serial.take()
            wire.extend(data)
            now = board.clock.now
            for f in reader.feed(data):
                host.on_frame(f, now)
            host.drain()
            for m in host.poll(now):
                board.serial.inject(bytes(writer.build(*m)))

        board.on_tick = pump
        board.settle(1500)  # the handshake
        driver = Driver(board)
        for n in range(matches):
            events = generate_match(seed + n, best_of=best_of)
            setup = events[0]
            body = {7: setup["players"], 8: setup["best_of"], -6: ACTION + n}
            host.send(messages.SETUP_MATCH, body)
            board.settle(300)
            for ev in events[1:]:
                driver.perform(ev)
        if anchors:
            board.settle(1000)
        for n, head in anchors:
            assert host.send(host_codec.ANCHOR, host_codec.body_of(host_codec.Anchor(n, head)))
            board.settle(100)
        board.settle(3000)  # the last acks
        return bytes(wire)


def store_stream(path: Path, wire: bytes) -> None:
    """Store what a device sent, through a real daemon's table channel."""

    async def run() -> None:
        cfg = config_mod.Config(store_path=path, autodetect=False, port=0)
        daemon = Daemon(cfg)
        await daemon.start()
        rt = daemon.runtime(TABLE)
        channel = TableChannel(TABLE, lambda: None, daemon.devices)
        rt.channel = channel
        splitter = host_codec.StreamDecoder()
        for i in range(0, len(wire), 512):  # as the port's reads would come
            channel.feed(splitter.feed_raw(wire[i : i + 512]))
            await daemon.committer.flush()
        await daemon.stop()

    asyncio.run(run())
    db = sqlite3.connect(path)  # everything into the main file: it may be copied
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()


def stored_match(path: Path) -> dict[str, Any]:
    """The store's newest match (match_id, ...)."""
    from baulk.host.store import StoreReader

    reader = StoreReader(path)
    try:
        return reader.matches()[0]
    finally:
        reader.close()
