"""Link chaos, shared by tests/chaos/test_link_chaos.py (short) and
bench/chaos_link.py (full): simulated tables (the real firmware on the
simulated board, autoplaying) talk to the real daemon through
:class:`~tests.chaos.kit.FaultyLink` relays, and get power-cut now and then.
At the end the faults stop, play stops, and the host store must equal every
table's journal: each event once, in order, as the device recorded it."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from baulk.host.sim.table import SimulatedTable
from baulk.protocol import messages
from baulk.protocol.host_catalogue import event_result
from tests.chaos.kit import (
    FaultyLink,
    JournalTap,
    compare,
    settled,
    stop_play,
    stored_events,
    wait_until,
)
from tests.host.harness import DaemonThread, make_config


@dataclass
class Attack:
    table: str
    ber: float = 0.0
    drop_rate: float = 0.0  # per byte
    disconnect_every_s: float | None = None
    reset_every_s: float | None = None


def run(
    tmp: Path,
    attacks: list[Attack],
    seed: int,
    duration_s: float,
    speed: float = 50.0,
    settle_s: float = 60.0,
    until_matches: int | None = None,
) -> dict[str, Any]:
    """Play for duration_s (or until every table finished until_matches
    matches, whichever is first); returns figures per table."""
    rng = random.Random(seed)
    tap = JournalTap().install()
    sims: dict[str, SimulatedTable] = {}
    links: dict[str, FaultyLink] = {}
    resets = {a.table: 0 for a in attacks}
    daemon = None
    try:
        for i, a in enumerate(attacks):
            sim = SimulatedTable(a.table, seed=seed + i, speed=speed, flash_dir=tmp / a.table)
            sim.wait_for_host_s = 0.5
            sim.start()
            sims[a.table] = sim
            links[a.table] = FaultyLink(
                sim.port,
                tmp / f"tty-{a.table}",
                seed=seed * 100 + i,
                ber=a.ber,
                drop_rate=a.drop_rate,
                disconnect_every_s=a.disconnect_every_s,
            ).start()
        cfg = make_config(tmp, {a.table: tmp / f"tty-{a.table}" for a in attacks})
        daemon = DaemonThread(cfg).start()
        start = time.monotonic()
        next_reset = {
            a.table: start + rng.expovariate(1 / a.reset_every_s)
            for a in attacks
            if a.reset_every_s
        }
        while time.monotonic() - start < duration_s:
            time.sleep(0.1)
            now = time.monotonic()
            for a in attacks:
                if a.table in next_reset and now >= next_reset[a.table]:
                    sims[a.table].reset()
                    resets[a.table] += 1
                    assert a.reset_every_s
                    next_reset[a.table] = now + rng.expovariate(1 / a.reset_every_s)
            if until_matches is not None and all(
                matches_done(tap, sims[a.table]) >= until_matches for a in attacks
            ):
                break
        played_s = time.monotonic() - start
        for a in attacks:
            stop_play(sims[a.table])
            links[a.table].faults_on = False
        store = cfg.store_path
        wait_until(settled(tap, sims, store, flush=daemon.flush), settle_s, 0.25)
        daemon.flush()
        out: dict[str, Any] = {"played_s": round(played_s, 1), "tables": {}}
        for a in attacks:
            sim = sims[a.table]
            cmp = compare(tap.of(tmp / a.table), stored_events(store, a.table))
            board = daemon.board(a.table)
            state = sim.state()
            out["tables"][a.table] = {
                "attack": a.__dict__,
                "strokes": sim.strokes_played,
                "frames": sim.frames_played,
                "matches_done": matches_done(tap, sim),
                "resets": resets[a.table],
                "faults": links[a.table].counts.as_dict(),
                "stream": board["status"]["stream"],
                "board_scores_match": board["state"] is not None
                and board["state"]["scores"] == state["scores"],
                "alerts": len(board["alerts"]),
                "sim_error": repr(sim.error) if sim.error else None,
                "device_link": device_link(sim),
                **cmp.as_dict(),
            }
        return out
    finally:
        if daemon is not None:
            daemon.stop()
        for link in links.values():
            link.stop()
        for sim in sims.values():
            sim.stop()
        tap.remove()


def device_link(sim: SimulatedTable) -> dict[str, Any]:
    """Where the device's stream stands, to tell a stall from a loss."""
    app = sim.app
    if app is None:
        return {}
    s = app.link.session
    snd = s.sender
    return {
        "open": s.open,
        "journal_next": app.journal.next,
        "journal_acked": app.journal.acked,
        "offered": app.offered,
        "sender": [snd.base, snd.send_next, snd.next],
        "queue": len(app.queue),
    }


def matches_done(tap: JournalTap, sim: SimulatedTable) -> int:
    """Matches played to the end, by the device's own journal and state."""
    started = 0
    for _seq, body in tap.of(sim.flash_dir):
        if messages.wire_to_event(body).get("ev") == "match" and not event_result(body)[1]:
            started += 1
    if not started:
        return 0
    return started - 1 + int(bool(sim.state().get("match_over")))
