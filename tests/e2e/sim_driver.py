"""Drives a ``SimulatedTable`` (the real firmware on the simulated board) one
sensor or key at a time, from test code, and waits for the firmware to
journal what it made of it."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from baulk.firmware import keypad_flow, names
from baulk.firmware.sim.board import reading_for
from baulk.firmware.sim.script import keys_for
from baulk.host.config import Config
from baulk.host.sim.table import SimulatedTable
from tests.host.harness import DaemonThread, make_config, wait_for

# How long a potted ball's reading is held and the beam dark (ms): long
# enough for a starved main loop to read it, short of a stuck beam.
_HELD_MS = 60


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
        before = self.journal_next()
        # A centred ball's reading, held while the beam is dark.  This table
        # runs in real time, in a thread of its own: on a busy machine its
        # main loop can miss most of a modelled passage's 2.4 ms windows, and
        # the test would measure the machine, not the firmware.  The passages
        # themselves are tested in simulated time (tests/firmware).
        self.sim._call(lambda: b.pot(where, code, rgbc=reading_for(code), width=_HELD_MS))
        asked = lambda: b.app.flow.step == keypad_flow.ASK_POT  # noqa: E731
        wait_for(lambda: self.journal_next() > before or asked(), timeout=30, what=f"pot {ball}")
        if self.journal_next() <= before:  # the sensors asked: the referee names the ball
            self.press(ball)
            took = f"firmware took pot {ball}"
            wait_for(lambda: self.journal_next() > before, timeout=30, what=took)
        end = time.monotonic() + 0.5
        while time.monotonic() < end:  # a second ball it asks about: none went in (BACK)
            if asked():
                self.press("back")
                break
            time.sleep(0.02)

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
        self.press(*keys_for(ev))
        wait_for(lambda: self.journal_next() > before, timeout=30, what=f"firmware took {ev}")

    def _press_one(self, key: str) -> None:
        """One key, held until the keypad has taken it in and let go until
        it has seen that: a press timed by the clock can end unseen when the
        firmware's thread runs late on a busy machine."""
        board = self.sim.board
        pos = board.key_position(key)

        def state() -> int:
            app = self.sim.app
            assert app is not None, "the simulated table is not running"
            return int(app.hw.keypad.down[pos])

        self.sim._call(lambda: board.press(key, hold=None))
        wait_for(lambda: self._read(state) == 1, timeout=30, what=f"the keypad took {key}")
        self.sim._call(lambda: board.release(key))
        wait_for(lambda: self._read(state) == 0, timeout=30, what=f"the keypad saw {key} let go")

    def state(self) -> dict[str, Any]:
        return self.sim.state()

    # -- the pocket check (firmware/pocket_check.py) ---------------------------------
    def press(self, *keys: str) -> None:
        """The referee's keys, one after the other."""
        for key in keys:
            self._press_one(key)

    def check_pocket(self) -> int | None:
        """The pocket the running check waits for (6: done), None: no check."""

        def take() -> int | None:
            app = self.sim.app
            check = app.check if app is not None else None
            return None if check is None else (6 if check.state == 2 else int(check.pocket))

        return self._read(take)  # type: ignore[no-any-return]

    def drop_white(self, pocket: str, rgbc: list[int] | None = None, beam: bool = True) -> None:
        """The referee drops the cue ball into a pocket during a check: in
        front of its colour sensor and through its beam (beam=False: a dead
        one, and the referee presses OK for the ball it did not see)."""
        b = self.sim.board
        where = names.POCKETS.index(pocket)
        reading = rgbc if rgbc is not None else reading_for(7)
        assert self.check_pocket() == where, "the check does not wait for this pocket"
        if beam:  # held, as pot() holds it
            self.sim._call(lambda: b.pot(where, 7, rgbc=reading, width=_HELD_MS))
        else:
            self.sim._call(lambda: b.set_reading(where, reading))
            self.press("ok")
        wait_for(lambda: self.check_pocket() != where, timeout=10, what=f"the check took {pocket}")


@contextlib.contextmanager
def simulated_venue(
    tmp_path: Path, seed: int, edit: Callable[[Config], Config] | None = None
) -> Iterator[tuple[DaemonThread, TableDriver]]:
    """Table t1, the real firmware on the simulated board (its flash under
    tmp_path), and a daemon that has it online; ``edit`` changes the config
    first.  The daemon stops before the table."""
    with simulated_tables(tmp_path, ("t1",), seed, edit) as (daemon, tables):
        yield daemon, tables["t1"]


@contextlib.contextmanager
def simulated_tables(
    tmp_path: Path,
    ids: tuple[str, ...],
    seed: int,
    edit: Callable[[Config], Config] | None = None,
    mpy_abi: int = 0,
    trial_fails: bool = False,
) -> Iterator[tuple[DaemonThread, dict[str, TableDriver]]]:
    """As simulated_venue, with a simulated table for each id (``mpy_abi``:
    the .mpy ABI the tables say they run, for a firmware update;
    ``trial_fails``: a new version they take never starts)."""
    sims = [
        SimulatedTable(
            t,
            seed=seed + i,
            autoplay=False,
            flash_dir=tmp_path / f"flash-{t}",
            mpy_abi=mpy_abi,
            trial_fails=trial_fails,
        )
        for i, t in enumerate(ids)
    ]
    try:
        for sim in sims:
            sim.start()
        cfg = make_config(tmp_path, {sim.table_id: Path(sim.port) for sim in sims})
        daemon = DaemonThread(edit(cfg) if edit is not None else cfg).start()
        try:
            for t in ids:
                wait_for(
                    lambda t=t: daemon.board(t)["status"]["link"] == "online", what=f"{t} online"
                )
            yield daemon, {sim.table_id: TableDriver(sim) for sim in sims}
        finally:
            daemon.stop()
    finally:
        for sim in sims:
            sim.stop()
