"""What the long-running commands (``baulk run``, ``demo``, ``board``) share:
logging, waiting for the service manager's stop signal, and a venue daemon
with its web app around it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import AsyncIterator, Callable

from baulk.host import config as config_mod
from baulk.host.venue.daemon import Daemon
from baulk.host.web.app import serve


def setup_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


async def wait_for_stop_signal() -> None:
    """Return on SIGINT or SIGTERM (Ctrl-C, or the service manager).  A
    second signal while the command is stopping ends the process at once:
    whatever was not stored yet was not acknowledged either, so the tables
    send it again."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, _stop_now, sig)


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
