"""Drives a ``SimulatedTable`` (the real firmware on the simulated board) one
sensor or key at a time, from test code, and waits for the firmware to
journal what it made of it."""

from __future__ import annotations

import time
from typing import Any

from baulk.firmware import names
from baulk.firmware.sim.board import reading_for
from baulk.firmware.sim.script import keys_for
from baulk.host.table_sim import SimulatedTable
from tests.host.harness import wait_for


class TableDriver:
    def __init__(self, sim: SimulatedTable) -> None:
        self.sim = sim

    def _read(self, fn: Any) -> Any:
        out: list[Any] = []
        self.sim._call(lambda: out.append(fn()))
        return out[0]

    def journal_next(self) -> int:
        """Seq of the next event the firmware will journal."""

        def take() -> int:
            app = self.sim.app  # read in the firmware's thread: a reset makes a new App
            assert app is not None, "the simulated table is not running"
            return int(app.journal.next)

        return int(self._read(take))

    def _act(self, fn: Any, what: str) -> None:
        before = self.journal_next()
        self.sim._call(fn)
        wait_for(lambda: self.journal_next() > before, timeout=30, what=f"firmware took {what}")

    def strike(self) -> None:
        b = self.sim.board
        self._act(lambda: (b.strike(), b.signal(b.cfg.REST, b.cfg.REST_MOVING)), "strike")

    def pot(self, ball: str, pocket: str = "tl") -> None:
        b = self.sim.board
        code = names.BALLS.index(ball)
        where = names.POCKETS.index(pocket)
        self._act(lambda: b.pot(where, code, rgbc=reading_for(code)), f"pot {ball}")

    def rest(self) -> None:
        b = self.sim.board
        self._act(lambda: b.signal(b.cfg.REST, 1 - b.cfg.REST_MOVING), "rest")

    def stroke(self, *pots: str) -> None:
        self.strike()
        for ball in pots:
            time.sleep(0.05)
            self.pot(ball)
        time.sleep(0.05)
        self.rest()

    def referee(self, ev: dict[str, Any]) -> None:
        """The referee's keys for an engine event (FOUL, a kind, OK, ...)."""
        before = self.journal_next()
        for key in keys_for(ev):
            self.sim._call(lambda k=key: self.sim.board.press(k, hold=60))
            time.sleep(0.15)
        wait_for(lambda: self.journal_next() > before, timeout=30, what=f"firmware took {ev}")

    def state(self) -> dict[str, Any]:
        return self.sim.state()
