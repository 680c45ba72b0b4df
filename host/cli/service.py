"""What the long-running commands (``baulk run``, ``demo``, ``board``) share:
logging, waiting for the service manager's stop signal, and a venue daemon
with its web app around it.

A stop signal ends the process within STOP_WITHIN_S, whatever state it is
in: every wait on the way out is bounded (the web side's requests, the last
commit), and past the bound the process ends itself, first from a timer
thread and, should even that not run (the interpreter held by a long
computation), by the kernel's alarm.  Nothing is lost by it: what was not
stored was not acknowledged, so the tables send it again, and SQLite's
journal keeps the store whole.  The service manager kills at 20 s
(docs/systemd/baulk.service)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from types import FrameType

from baulk.host import config as config_mod
from baulk.host.logsafe import Tally
from baulk.host.venue.daemon import Daemon
from baulk.host.web.app import serve


def setup_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


STOP_WITHIN_S = 8.0


async def wait_for_stop_signal(within_s: float = STOP_WITHIN_S) -> None:
    """Return on SIGINT or SIGTERM (Ctrl-C, or the service manager), and
    see that the process ends within ``within_s`` from then.  A second
    signal while the command is stopping ends the process at once: whatever
    was not stored yet was not acknowledged either, so the tables send it
    again."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    got: list[int] = []

    def signalled(sig: int) -> None:
        got.append(sig)
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, signalled, sig)
    await stop.wait()
    stop_within(within_s, got[0] if got else signal.SIGTERM)
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, _stop_now, sig)


def stop_within(seconds: float, sig: int = signal.SIGTERM) -> None:
    """End the process ``seconds`` from now if it has not ended by itself."""

    def expire() -> None:
        logging.getLogger("baulk").error(
            "not stopped %.0f s after %s: stopping now (nothing that was not stored "
            "was acknowledged; the tables send it again)",
            seconds,
            signal.Signals(sig).name,
        )
        logging.shutdown()
        os._exit(128 + sig)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    if hasattr(signal, "alarm"):
        # The kernel's own, in case not even the timer's thread gets to run.
        signal.alarm(int(seconds) + 1)


def _stop_now(sig: int) -> None:
    logging.getLogger("baulk").warning(
        "%s again while stopping: stopping now", signal.Signals(sig).name
    )
    logging.shutdown()
    os._exit(128 + sig)


class LoopWatch:
    """Tells when the event loop is held.  No request handler may do
    unbounded work on the loop (every input is bounded at its edge), and
    this says so when one does anyway: a thread asks the loop to answer
    every CHECK_S, and when the answer is more than ``stall_s`` late, it logs
    for how long and where the loop was (file, line, function), once per
    place and then a count."""

    CHECK_S = 0.5

    def __init__(self, stall_s: float = 1.0) -> None:
        self.stall_s = stall_s
        self.stalls = 0
        self._stop = threading.Event()
        self._tally = Tally(logging.getLogger("baulk"))

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        thread_id = threading.get_ident()
        threading.Thread(target=self._watch, args=(loop, thread_id), daemon=True).start()

    def stop(self) -> None:
        self._stop.set()

    def _watch(self, loop: asyncio.AbstractEventLoop, thread_id: int) -> None:
        while not self._stop.wait(self.CHECK_S):
            answered = threading.Event()
            start = time.monotonic()
            try:
                loop.call_soon_threadsafe(answered.set)
            except RuntimeError:  # the loop is closed
                return
            if answered.wait(self.stall_s):
                continue
            where = _where(sys._current_frames().get(thread_id))
            while not answered.wait(self.CHECK_S) and not self._stop.is_set():
                pass
            self.stalls += 1
            held = time.monotonic() - start
            self._tally.tell(
                f"held {where}",
                logging.WARNING,
                f"the event loop was held for {held:.1f} s, in {where}: nothing else was served",
            )


def _where(frame: FrameType | None) -> str:
    """The innermost frame of the host's own code, else the innermost one."""
    inner = frame
    while frame is not None:
        if "/baulk/" in frame.f_code.co_filename or "/host/" in frame.f_code.co_filename:
            break
        frame = frame.f_back
    frame = frame or inner
    if frame is None:
        return "an unknown place"
    return f"{Path(frame.f_code.co_filename).name}:{frame.f_lineno} in {frame.f_code.co_name}"


@contextlib.asynccontextmanager
async def running_venue(
    cfg: config_mod.Config,
    locators: dict[str, Callable[[], str | None]] | None = None,
) -> AsyncIterator[tuple[Daemon, str]]:
    """The daemon started and its web app served; yields it and the boards'
    base URL, and stops both on the way out.  Raises StoreError when the
    store cannot be opened and OSError when the port cannot be bound."""
    daemon = Daemon(cfg, locators=locators)
    runner = None
    watch = LoopWatch()
    try:
        await daemon.start()
        runner, url = await serve(daemon, cfg.bind, cfg.port)
        watch.start()
        yield daemon, url
    finally:
        watch.stop()
        if runner is not None:
            await runner.cleanup()
        await daemon.stop()
