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
import threading
from collections.abc import AsyncIterator, Callable

from baulk.host import config as config_mod
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
    try:
        await daemon.start()
        runner, url = await serve(daemon, cfg.bind, cfg.port)
        yield daemon, url
    finally:
        if runner is not None:
            await runner.cleanup()
        await daemon.stop()
