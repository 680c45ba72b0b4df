"""A simulated snooker table for the host: the whole firmware on a simulated board.

``SimulatedTable`` runs ``firmware/app.py`` over ``firmware/sim`` (virtual pins,
I2C sensors, display, watchdog, flash directory) in a background thread under
CPython, with its serial port joined to a pseudo-terminal.  The daemon opens
``port`` with pyserial exactly as it opens a real table (gpsfake style).

With ``autoplay`` it plays realistic frames: ``host.sim_match.MatchPlayer``
chooses the lawful events from the firmware's own engine state, and they are
turned into what the table would really see: a strike pulse, balls dropping
through pocket beams in front of the colour sensors, the motion sensor going
quiet, and the referee's key presses for fouls, misses, free balls, nominations
and concessions.  Now and then a colour reading is ambiguous and the "referee"
confirms the ball on the keypad.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import tempfile
import threading
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from baulk.firmware import boot as selector
from baulk.firmware import keypad_flow as kf
from baulk.firmware import names
from baulk.firmware.app import App
from baulk.firmware.engine import Engine
from baulk.firmware.sim.board import SimBoard, between, nearest, reading_for
from baulk.firmware.sim.devices import TICK_MASK
from baulk.firmware.sim.script import keys_for, new_match_keys
from baulk.firmware.update import mode as update_mode
from baulk.host.sim.matches import MatchPlayer

Event = dict[str, Any]


class RealClock:
    """Milliseconds of real time, in the shape of the simulator's clock."""

    def __init__(self) -> None:
        self.base = time.monotonic()
        self.offset = 1000
        # While the board fires a change its loop reached late, the time the
        # change was due (SimBoard.pump): what a pin's interrupt would read.
        self.held: int | None = None

    @property
    def now(self) -> int:
        if self.held is not None:
            return self.held
        return int((time.monotonic() - self.base) * 1000) + self.offset

    @now.setter
    def now(self, value: int) -> None:
        self.offset += value - self.now

    def ticks_ms(self) -> int:
        return self.now & TICK_MASK


class PtyPort:
    """The firmware's end of a pseudo-terminal, with the face of machine.UART.

    The other end is reached through a symlink that goes with the cable and
    comes back on the same path, so the daemon reopens that path after a
    hot-plug.  It must go: left behind, it would name a pty number the kernel
    hands to the next pty opened by anyone, and the daemon would read a
    stranger's device.
    """

    def __init__(self, link: Path) -> None:
        self.link = link
        self.master: int | None = None
        self.slave: int | None = None
        self.inbuf = bytearray()
        self.dropped = 0  # bytes written while nobody read them (a UART loses them too)
        self.open()

    def open(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line discipline: every byte passes untouched
        os.set_blocking(master, False)
        self.master, self.slave = master, slave
        tmp = self.link.with_name(self.link.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        tmp.symlink_to(os.ttyname(slave))
        tmp.replace(self.link)

    def close(self) -> None:
        for fd in (self.master, self.slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.master = self.slave = None
        self.inbuf.clear()
        with contextlib.suppress(FileNotFoundError):
            self.link.unlink()

    def any(self) -> int:
        if self.master is not None:
            # BlockingIOError: nothing there; EIO: nobody on the other end
            with contextlib.suppress(OSError):
                self.inbuf.extend(os.read(self.master, 4096))
        return len(self.inbuf)

    def readinto(self, buf: bytearray) -> int:
        n = min(len(buf), len(self.inbuf))
        buf[:n] = self.inbuf[:n]
        del self.inbuf[:n]
        return n

    def write(self, data: bytes | bytearray | memoryview) -> int:
        n = len(data)
        if self.master is None:
            self.dropped += n
            return n
        try:
            done = os.write(self.master, data)
        except OSError:
            done = 0
        self.dropped += n - done
        return n


class _FirmwarePlayer(MatchPlayer):
    """MatchPlayer reading the firmware's engine; the firmware applies the events."""

    def __init__(self, seed: int, engine: Engine) -> None:
        super().__init__(seed)
        self.engine = engine

    def apply(self, ev: Event) -> Event:
        return ev


class SimulatedTable:
    """One simulated table: the real firmware on a simulated board, on a pty."""

    wait_for_host_s = 3.0  # without a match from the host, autoplay starts one

    def __init__(
        self,
        table_id: str,
        seed: int = 1,
        speed: float = 1.0,
        flash_dir: Path | str | None = None,
        autoplay: bool = True,
        mpy_abi: int = 0,
        trial_fails: bool = False,
    ) -> None:
        self.table_id = table_id
        # A release that raises at import: each trial the selector boots dies
        # at once, and /main.py (firmware/manifest.py MAIN) rolls it back and
        # resets the board, as a test build that cannot start would.
        self.trial_fails = trial_fails
        # The .mpy ABI this simulated board says it runs (format.M_MPY): a
        # bundle of another is refused "abi".  Its code never changes: an
        # update is staged, checked, committed, counted as a trial by the boot
        # selector and confirmed on its flash as on a board, and the same
        # firmware of this process runs on after the restart.
        self.mpy_abi = mpy_abi
        self.updates_run = 0  # update modes run to their end
        self.seed = seed
        self.speed = speed
        self.autoplay = autoplay
        self.rng = random.Random(seed)
        self._tmp = Path(tempfile.mkdtemp(prefix="baulk-sim-"))
        self.flash_dir = Path(flash_dir) if flash_dir is not None else self._tmp / "flash"
        self.flash_dir.mkdir(parents=True, exist_ok=True)
        self.serial = PtyPort(self._tmp / table_id)
        self.port: str = str(self.serial.link)
        self.board = SimBoard(
            flash=str(self.flash_dir), table=table_id, serial=self.serial, clock=RealClock()
        )
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._ready = threading.Event()
        self.error: BaseException | None = None
        self.frames_played = 0
        self.strokes_played = 0

    # -- life cycle ------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is not None:
            return
        self._ready.clear()
        self._thread = threading.Thread(
            target=self._run, name=f"table-sim-{self.table_id}", daemon=True
        )
        self._thread.start()
        self._ready.wait(10)

    def stop(self) -> None:
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)
        if self._thread is not None:
            self._thread.join(10)
        self._thread = None
        self.serial.close()
        shutil.rmtree(self._tmp, ignore_errors=True)

    def unplug(self) -> None:
        """Pull the cable: the pty goes away (the firmware keeps scoring)."""
        self._call(self.serial.close)

    def replug(self) -> None:
        """Plug it back in: a new pty behind the same ``port`` path."""
        self._call(self.serial.open)

    def reset(self) -> None:
        """A power cut: the firmware restarts from its flash journal."""
        self._call(self._power_cycle)

    @property
    def app(self) -> App | None:
        app: App | None = self.board.app
        return app

    def state(self) -> dict[str, Any]:
        """The firmware engine's state (a copy, taken in the firmware's thread)."""
        out: dict[str, Any] = {}

        def take() -> None:
            app = self.board.app
            if app is not None:
                out.update(app.engine.state())

        self._call(take)
        return out

    def screen(self) -> list[str]:
        """The handset display's text."""
        out: list[str] = []
        self._call(lambda: out.extend(self.board.text()))
        return out

    def _call(self, fn: Any) -> None:
        loop = self._loop
        if loop is None or self._thread is None or not self._thread.is_alive():
            fn()
            return
        done = threading.Event()

        def run() -> None:
            try:
                fn()
            finally:
                done.set()

        loop.call_soon_threadsafe(run)
        done.wait(10)

    # -- the firmware's thread ---------------------------------------------------------
    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as why:  # kept for the owner to inspect
            self.error = why
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self.board.boot()
        self._start_tasks()
        self._ready.set()
        await self._stop.wait()
        await self._cancel_tasks()

    def _start_tasks(self) -> None:
        app = self.board.app
        assert app is not None
        self._tasks = [
            asyncio.create_task(self._run_app(app)),
            asyncio.create_task(self._pump()),
        ]
        if self.autoplay:
            self._tasks.append(asyncio.create_task(self._autoplay()))

    async def _cancel_tasks(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []

    async def _run_app(self, app: App) -> None:
        await app.run()  # returns only for an update_request, as on a board
        await self._update_mode(app)

    async def _update_mode(self, app: App) -> None:
        """firmware/main.py's update mode: the match stops (nothing ticks it),
        the mode runs on the same port until it is done, then the board
        restarts."""
        self.board.app = None
        clock = self.board.clock
        mode = update_mode.Mode(
            self.serial, app.hw.key, str(self.flash_dir), "pico", "armv6m", self.mpy_abi,
            app.update, clock.now,
        )  # fmt: skip
        while mode.done is None:
            mode.poll(clock.now)
            await asyncio.sleep(0.002)
        self.updates_run += 1
        asyncio.get_running_loop().call_soon(self._power_cycle)

    def _power_cycle(self) -> None:
        for task in self._tasks:
            task.cancel()
        self._tasks = []
        self.board.levels.clear()  # balls stop, keys are let go
        self.board.pressed.clear()
        self.board.sched.clear()
        root = str(self.flash_dir)
        trial = selector.choose(root)[2]  # the board's /boot.py: it counts a trial
        if trial and self.trial_fails and selector.failed(root):
            selector.choose(root)  # /main.py rolled it back and reset the board
        self.board.reset()
        self._start_tasks()

    async def _pump(self) -> None:
        while True:
            self.board.pump()
            await asyncio.sleep(0.001)

    # -- autoplay --------------------------------------------------------------------
    def _delay(self, lo: float, hi: float) -> float:
        return self.rng.uniform(lo, hi) / self.speed

    async def _sleep(self, lo: float, hi: float | None = None) -> None:
        await asyncio.sleep(self._delay(lo, lo if hi is None else hi))

    def _app(self) -> App:
        app: App | None = self.board.app
        assert app is not None
        return app

    async def _until(self, test: Any, timeout: float = 3.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if test():
                return True
            await asyncio.sleep(0.005)
        return False

    async def _press(self, *keys: str) -> None:
        board = self.board
        for key in keys:
            keypad = self._app().hw.keypad
            pos = board.key_position(key)
            hold_ms = max(40, int(80 / self.speed))
            board.press(key, hold=None, bounce=self.rng.choice((0, 0, 3)))
            await asyncio.sleep(hold_ms / 1000)
            # The keypad takes a key in after 4 scans in a row (20 ms), from a
            # timer that this loop runs: on a loaded machine it runs late, and
            # a press timed by the clock alone can end before the keypad saw
            # it.  A referee's answer lost so stops the table for good (the
            # colour question stays open and the stroke never ends), so the
            # key stays down until it is taken in, and up until that is seen.
            await self._until(lambda k=keypad, p=pos: k.down[p] == 1, 2.0)
            board.release(key)
            await asyncio.sleep(0.03)
            await self._until(lambda k=keypad, p=pos: k.down[p] == 0, 2.0)
            await self._sleep(0.1, 0.3)

    async def _referee(self, keys: list[str]) -> None:
        journal = self._app().journal
        before = journal.next
        await self._press(*keys)
        await self._until(lambda: journal.next > before or self._app().message is not None)

    async def _autoplay(self) -> None:
        app = self._app()
        player = _FirmwarePlayer(self.seed + self.board.boots, app.engine)
        waited = 0.0
        while True:
            engine = app.engine
            if not engine.active or engine.match_over:
                if waited < max(0.5, self.wait_for_host_s / self.speed):
                    waited += 0.25
                    await asyncio.sleep(0.25)
                    continue
                await self._press(*new_match_keys(self.rng.choice((3, 5, 7))))
                await self._until(lambda e=engine: e.active and not e.match_over)
                waited = 0.0
                continue
            waited = 0.0
            if engine.stroke_open:  # after a reset mid-stroke: let the balls stop
                self.board.signal(self.board.cfg.REST, 1 - self.board.cfg.REST_MOVING)
                await self._until(lambda e=engine: not e.stroke_open, 5.0)
                continue
            frame = engine.frame
            await self._play(player.play_stroke())
            self.strokes_played += 1
            if engine.frame != frame or engine.match_over:
                self.frames_played += 1
            await self._sleep(0.3, 1.0)

    async def _play(self, events: Iterator[Event]) -> None:
        app = self._app()
        cfg = self.board.cfg
        for ev in events:
            name = ev["ev"]
            if name == "strike":
                await self._sleep(0.2, 0.6)
                before = app.journal.next
                self.board.strike()
                self.board.signal(cfg.REST, cfg.REST_MOVING)
                await self._until(lambda n=before: app.journal.next > n)
            elif name == "pot":
                await self._sleep(0.4, 1.2)
                await self._pot(ev)
            elif name == "rest":
                await self._sleep(0.3, 0.8)
                self.board.signal(cfg.REST, 1 - cfg.REST_MOVING)
                await self._until(lambda: not app.engine.stroke_open)
            else:
                await self._sleep(0.3, 0.8)
                await self._referee(keys_for(ev))

    async def _pot(self, ev: Event) -> None:
        app = self._app()
        ball = names.BALLS.index(ev["ball"])
        pocket = names.POCKETS.index(ev.get("pocket") or self.rng.choice(names.POCKETS))
        before = app.journal.next
        # The chip's reading of the ball centred (the pocket model's), or of a
        # dirty ball halfway to the nearest colour.
        reading = reading_for(ball)
        if self.rng.random() < 0.04:
            reading = between(ball, nearest(ball))
        self.board.pot(pocket, ball, rgbc=reading, width=30)
        asked: Callable[[], bool] = lambda: app.flow.step == kf.ASK_POT  # noqa: E731
        if await self._until(lambda: asked() or app.journal.next > before) and asked():
            await self._sleep(0.5, 1.5)  # the referee reads the question, keys the ball
            await self._press(names.BALLS[ball])
        await self._until(lambda: app.journal.next > before)
