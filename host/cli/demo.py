"""``baulk demo``: the whole system with no hardware.

N simulated tables (``host/sim/table.py``: the real firmware over a simulated
hardware layer) each sit behind a pseudo-terminal; the real daemon opens every
pty with pyserial, stores the events and serves the boards on
http://127.0.0.1:8047.  The tables play realistic frames at a watchable speed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import secrets
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from baulk.host import config as config_mod
from baulk.host.cli.service import running_venue, setup_logging, wait_for_stop_signal
from baulk.host.club import tariffs

DEFAULT_TABLES = 2
MAX_TABLES = 16  # the demo's simulated tables share the PC's cores

# The demo's club (docs/BILLING.md, "The demo's club"): an hour tariff in
# toman with evening peak hours, the frames charged to their losers, and a
# short price list.  ``--config`` puts a club's own in its place.
DEMO_TARIFF = (
    "120,000 toman an hour (180,000 on Thursdays and Fridays from 18:00 to 24:00), "
    "at least 30 minutes, in 5-minute steps, and 10,000 a frame; each frame's loser pays "
    "its price and its share of the table time; tea 20,000, a soft drink 35,000, cue hire "
    "50,000"
)
DEMO_BILLING = tariffs.parse(
    {
        "billing": {"venue": "baulk demo"},
        "item": [
            {"name": "Tea", "name_fa": "چای", "price": 20_000},
            {"name": "Soft drink", "name_fa": "نوشابه", "price": 35_000},
            {"name": "Cue hire", "name_fa": "کرایهٔ چوب", "price": 50_000},
        ],
        "tariff": [
            {
                "name": "demo",
                "currency": "IRT",
                "per_hour": 120_000,
                "per_frame": 10_000,
                "minimum_min": 30,
                "round_min": 5,
                "loser_pays": True,
                "peak": [
                    {
                        "days": ["thu", "fri"],
                        "from": "18:00",
                        "to": "24:00",
                        "per_hour": 180_000,
                    }
                ],
            }
        ],
    }
)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "demo",
        help="simulated tables, the real daemon and the boards on http://127.0.0.1:8047",
        description="Start N simulated tables, each joined to the real daemon through a "
        "pseudo-terminal, play realistic frames and serve the boards.  The desk bills them "
        f"with the demo's club: {DEMO_TARIFF}.  --config FILE simulates that venue instead: "
        "a simulated table for each of its [[table]]s (their ids, names and handset "
        "languages), billed with its [billing], [[tariff]] and [[item]], served on its "
        "[server] port.",
    )
    p.add_argument(
        "--config",
        help="a baulk.toml whose tables, tariffs, price list and web port the demo takes "
        "(its store, serial ports and token are not used)",
    )
    p.add_argument(
        "--tables",
        type=int,
        help=f"simulated tables (1-{MAX_TABLES}; default {DEFAULT_TABLES}, or every [[table]] "
        "of --config)",
    )
    p.add_argument(
        "--port",
        type=int,
        help=f"web port (default {config_mod.DEFAULT_PORT}, or the [server] port of --config; "
        "0: any free port)",
    )
    p.add_argument(
        "--speed", type=float, default=1.0, help="play speed (1 = watchable, higher is faster)"
    )
    p.add_argument("--store", help="SQLite store file (default: a fresh temporary one)")
    p.add_argument("--seed", type=int, default=1, help="seed of the first table's play")
    p.add_argument("-v", "--verbose", action="store_true", help="log link events")
    p.set_defaults(handler=run)


def load_simulator() -> Any:
    """The table simulator class, or None when it is not installed yet."""
    try:
        from baulk.host.sim import table as table_sim
    except ImportError:
        return None
    return table_sim.SimulatedTable


def _locator(sim: Any) -> Callable[[], str | None]:
    """The simulated table's port path (it stays put across unplug/replug)."""
    return lambda: str(sim.port)


def run(args: argparse.Namespace) -> int:
    if args.tables is not None and not 1 <= args.tables <= MAX_TABLES:
        print(f"baulk demo: --tables must be 1..{MAX_TABLES}", file=sys.stderr)
        return 2
    if args.port is not None and not 0 <= args.port <= 65535:
        print("baulk demo: --port must be 0..65535", file=sys.stderr)
        return 2
    if not 0 < args.speed <= 100:
        print("baulk demo: --speed must be above 0 and at most 100", file=sys.stderr)
        return 2
    simulated = load_simulator()
    if simulated is None:
        print(
            "baulk demo: the table simulator (baulk.host.sim.table) is not installed",
            file=sys.stderr,
        )
        return 2
    club = None
    if args.config is not None:
        try:
            club = config_mod.load(args.config, env={})
        except config_mod.ConfigError as e:
            print(f"baulk demo: {e}", file=sys.stderr)
            return 2
    setup_logging(args.verbose)
    return asyncio.run(_demo(args, simulated, club))


def _tables(
    args: argparse.Namespace, club: config_mod.Config | None
) -> tuple[config_mod.TableConfig, ...]:
    """The simulated tables: the club's own (each of them, or the first
    --tables), with their ids, names and handset languages, so that its
    tariffs name them; else t1..tN.  Each is reached through its pty."""
    if club is not None and club.tables:
        taken = club.tables[: args.tables or MAX_TABLES]
        return tuple(dataclasses.replace(t, port="sim", serial_number=None) for t in taken)
    count = args.tables or DEFAULT_TABLES
    return tuple(
        config_mod.TableConfig(f"t{i + 1}", f"Table {i + 1}", port="sim") for i in range(count)
    )


def _port(args: argparse.Namespace, club: config_mod.Config | None) -> int:
    """The web port: --port, else the club's [server] port, else the default."""
    if args.port is not None:
        return int(args.port)
    return club.port if club is not None else config_mod.DEFAULT_PORT


async def _demo(
    args: argparse.Namespace, simulated: Any, club: config_mod.Config | None = None
) -> int:
    work = Path(tempfile.mkdtemp(prefix="baulk-demo-"))
    store = Path(args.store) if args.store else work / "demo.sqlite"
    token = secrets.token_urlsafe(12)
    tables = _tables(args, club)
    port = _port(args, club)
    sims = []
    for i, t in enumerate(tables):
        flash = work / f"flash-{t.id}"
        flash.mkdir(exist_ok=True)
        sim = simulated(
            t.id, seed=args.seed + i, speed=args.speed, flash_dir=str(flash), autoplay=True
        )
        sim.start()
        sims.append(sim)
    cfg = config_mod.Config(
        tables=tables,
        port=port,
        operator_token=token,
        store_path=store,
        autodetect=False,
        billing=club.billing if club is not None else DEMO_BILLING,
        verify_sim_key=True,  # the simulated tables sign with a known key: /staff can check a day
    )
    locators: dict[str, Callable[[], str | None]] = {
        t.id: _locator(sim) for t, sim in zip(tables, sims, strict=True)
    }
    try:
        async with running_venue(cfg, locators) as (_, url):
            print(f"baulk demo: {len(tables)} simulated tables; the boards are on {url}")
            if club is None:
                print(f"  the desk's tariff  {DEMO_TARIFF}")
            else:
                names = ", ".join(t.name for t in cfg.billing.tariffs) or "none"
                print(f"  the desk's tariffs {names} (from {args.config})")
            print(f"  venue board        {url}/venue        (Persian: {url}/venue?lang=fa)")
            for t in tables:
                print(f"  {t.name:<18} {url}/table/{t.id}   overlay {url}/overlay/{t.id}")
            print(f"  persian table 1    {url}/table/{tables[0].id}?lang=fa")
            print(f"  reports and API    {url}/   {url}/api")
            print(f"  desk (sessions)    {url}/desk   (Persian: {url}/desk?lang=fa)")
            print(f"  operator token     {token}   (store: {store})")
            print("Press Ctrl-C to stop.", flush=True)
            await wait_for_stop_signal()
    except OSError as e:
        print(f"baulk demo: cannot serve on 127.0.0.1:{port}: {e}", file=sys.stderr)
        print(f"  (is another baulk running? try --port {port + 1})", file=sys.stderr)
        return 2
    finally:
        for sim in sims:
            with contextlib.suppress(Exception):
                sim.stop()
    return 0
