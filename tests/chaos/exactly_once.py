"""Operator actions exactly once, shared by tests/chaos/test_exactly_once.py
(short) and bench/chaos_exactly_once.py (full).

Two attacks on the window between an action and its acknowledgement:

* :func:`run_host_crash`: ``baulk run`` as a real process, a simulated table
  (the real firmware, playing) on its pty.  An operator posts an action
  (a new match, an undo) and the daemon is killed with SIGKILL a random few
  milliseconds later: before the action is stored, before it is sent, before
  the device answers, before the answer is stored or acknowledged.  Now and
  then the table's power goes in the same moment.  The daemon starts again.
* :func:`run_power_cuts`: the firmware in virtual time on a flash that tears
  a write at any byte (tests/chaos/power_loss.py), with a host that sends
  actions and restarts at random, resending what its store has no answer
  for, as the daemon does.

Either way, in the end every action the host stored is answered by exactly
one event of the device's journal (none lost, none applied twice), no
journaled action is unknown to the host, and every action the operator was
told about was stored.
"""

from __future__ import annotations

import json
import random
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

from baulk.firmware import names
from baulk.firmware.sim.board import SIM_KEY
from baulk.host.referee.verify import TAMPERED, UNCOVERED, VERIFIED, verify_store
from baulk.host.sim.table import SimulatedTable
from baulk.host.store import StoreReader
from baulk.host.venue.actions import IN_FLIGHT
from baulk.protocol import messages
from baulk.protocol.session import HOST, Session
from tests.chaos import power_loss
from tests.chaos.host_crash import TOKEN, DaemonProcess, write_config
from tests.chaos.kit import (
    JournalTap,
    compare,
    integrity,
    run_faults,
    settled,
    stop_play,
    stored_events,
    wait_until,
)


def count(answers: list[int], stored: list[int]) -> dict[str, int]:
    """Lost, doubled and unknown actions: ``answers`` are the action ids of
    the device's journaled events, ``stored`` the ids the host stored."""
    n = Counter(answers)
    return {
        "actions": len(stored),
        "answered": sum(1 for a in stored if n[a] == 1),
        "lost": sum(1 for a in stored if n[a] == 0),
        "doubled": sum(n[a] - 1 for a in stored if n[a] > 1),
        "unknown": sum(1 for a in n if a not in set(stored)),
    }


def verify_all(store: Path) -> dict[str, int]:
    """`baulk verify` of every stored match: how many verified, not covered
    by a checkpoint yet (the one in play), tampered."""
    reader = StoreReader(store)
    try:
        ids = [m["match_id"] for m in reader.matches(limit=1_000_000)]
        statuses = Counter(verify_store(reader, i, bytes.fromhex(SIM_KEY)).status for i in ids)
    finally:
        reader.close()
    return {
        "verified": statuses[VERIFIED],
        "uncovered": statuses[UNCOVERED],
        "tampered": statuses[TAMPERED],
    }


# ---------------------------------------------------------------------- kill -9 of the daemon
def _post(url: str, body: dict[str, Any], out: dict[str, Any]) -> None:
    req = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=15) as r:
            out["status"] = r.status
            out["reply"] = json.loads(r.read())
    except urllib.error.HTTPError as e:
        out["status"] = e.code
        out["reply"] = json.loads(e.read() or b"{}")
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as e:
        out["status"] = None  # the daemon died under it: the operator saw an error
        out["error"] = repr(e)


def _store_actions(store: Path) -> tuple[list[int], int]:
    """(action ids stored, how many of them no stored event answers)."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=10)
    try:
        ids = [int(a) for (a,) in db.execute("SELECT action FROM commands ORDER BY id") if a]
        open_ = db.execute(
            "SELECT count(*) FROM commands c WHERE action IS NOT NULL AND NOT EXISTS "
            "(SELECT 1 FROM events e WHERE e.table_id = c.table_id AND e.action = c.action)"
        ).fetchone()[0]
    finally:
        db.close()
    return ids, int(open_)


def run_host_crash(
    tmp: Path, seed: int, rounds: int, power_cut_share: float = 0.3, speed: float = 50.0
) -> dict[str, Any]:
    rng = random.Random(seed)
    tap = JournalTap().install()
    sim = SimulatedTable("t1", seed=seed, speed=speed, flash_dir=tmp / "flash")
    sim.wait_for_host_s = 0.5
    figures: dict[str, Any] = {"rounds": 0, "kills": 0, "power_cuts": 0, "told_ok": 0}
    told: list[dict[str, Any]] = []  # the operator's requests and what they got
    daemon: DaemonProcess | None = None
    store = tmp / "store.sqlite"
    log = tmp / "daemon.log"
    try:
        sim.start()
        config = write_config(tmp, {"t1": sim.port})
        daemon = DaemonProcess(config, log).start()
        started = time.monotonic()
        for n in range(rounds):
            wait_until(lambda d=daemon: d.board("t1")["status"]["link"] == "online", 20, 0.05)
            if rng.random() < 0.3:
                path = "/api/tables/t1/match"
                body: dict[str, Any] = {"players": [f"A{n}", f"B{n}"], "best_of": 3}
            else:
                path = "/api/tables/t1/command"
                body = {"ev": "undo"}
            out: dict[str, Any] = {"body": body}
            told.append(out)
            poster = threading.Thread(target=_post, args=(daemon.url + path, body, out))
            poster.start()
            # Anywhere from before the action is stored to after it is answered
            # (a request takes a few ms to arrive, the commit one fsync).
            lo, hi = rng.choice(((0.0, 0.01), (0.01, 0.06), (0.06, 0.2), (0.2, 0.8)))
            time.sleep(rng.uniform(lo, hi))
            daemon.kill9()
            figures["kills"] += 1
            if rng.random() < power_cut_share:
                sim.reset()  # the table's power goes in the same window
                figures["power_cuts"] += 1
            poster.join(20)
            if rng.random() < 0.3:
                time.sleep(rng.uniform(0.0, 1.0))  # the table plays on meanwhile
            daemon = DaemonProcess(config, log).start()
            figures["rounds"] += 1
        stop_play(sim)
        played_s = time.monotonic() - started
        # Every stored action answered, every journaled event stored and acked.
        wait_until(lambda: _store_actions(store)[1] == 0, 60, 0.25)
        wait_until(settled(tap, {"t1": sim}, store), 60, 0.25)
        figures["clean_exit"] = daemon.stop()
        daemon = None
        stored_ids, unanswered = _store_actions(store)
        journaled = tap.of(sim.flash_dir)
        answers = [int(b[-6]) for _, b in journaled if b.get(-6)]
        figures.update(count(answers, stored_ids))
        figures["unanswered_in_store"] = unanswered
        # what the operator was told was taken is stored (its id came back)
        told_ids = [o["reply"]["action"] for o in told if o.get("status") in (200, 202)]
        figures["told_ok"] = len(told_ids)
        figures["told_but_not_stored"] = sum(
            1 for a in told_ids if a is not None and a not in set(stored_ids)
        )
        # Where the kills landed: before the action was stored (the operator
        # saw an error and nothing happened), after it was stored but before
        # the operator heard back, or after the table's answer reached him.
        figures["killed_before_stored"] = rounds - len(stored_ids)
        figures["killed_before_answer"] = len(stored_ids) - sum(
            1 for o in told if o.get("status") == 200
        )
        figures["killed_after_answer"] = sum(1 for o in told if o.get("status") == 200)
        figures["setups_doubled"] = sum(
            max(0, c - 1)
            for c in Counter(
                tuple(messages.wire_to_event(b)["players"])
                for _, b in journaled
                if b.get(0) == 0 and -6 in b  # match events set up by the host
            ).values()
        )
        figures["events"] = compare(journaled, stored_events(store, "t1")).as_dict()
        figures["integrity"] = integrity(store)
        figures["verify"] = verify_all(store)
        figures["played_s"] = round(played_s, 1)
        text = log.read_text(errors="replace")
        figures.update(run_faults(text, sim))
        return figures
    finally:
        if daemon is not None:
            daemon.stop()
        sim.stop()
        tap.remove()


# ---------------------------------------------------------------------- power cuts, virtual time
class ActionHost(power_loss.Host):
    """The daemon's part in virtual time: its store (``stored``, ``answered``)
    survives a restart; its session, and what it had sent, do not."""

    def __init__(self, board: Any) -> None:
        super().__init__(board)
        self.stored: list[int] = []  # action ids, in the order made (the commands table)
        self.bodies: dict[int, dict[Any, Any]] = {}
        self.answered: set[int] = set()  # actions a delivered event answers
        self.queue: list[int] = []  # to send once the session is open
        self.sent: set[int] = set()  # sent in this run, not answered
        self.restarts = 0
        self.next_id = 1

    def act(self, body: dict[Any, Any]) -> None:
        a = (0x5EED << 32) | self.next_id
        self.next_id += 1
        self.stored.append(a)  # stored before it is sent
        self.bodies[a] = {**body, -6: a}
        self.queue.append(a)
        self.send_more()

    def restart(self) -> None:
        """The daemon is killed and started again: what the store has no
        answer for goes out again, with its id, once the device is back."""
        self.restarts += 1
        stored = max((seq for seq, _ in self.delivered), default=0)  # links.delivered
        self.session = Session(
            HOST, self.board.clock.now, {0: "chaos-host"}, 64, 8, delivered=stored
        )
        self.sent.clear()
        self.queue = [a for a in self.stored if a not in self.answered]

    def on(self, what: str, mtype: int, seq: int, body: Any) -> None:
        super().on(what, mtype, seq, body)
        if what == "deliver" and mtype == messages.EVENT and body.get(-6):
            a = body[-6]
            self.answered.add(a)
            self.sent.discard(a)
            if a in self.queue:
                self.queue.remove(a)
        elif what == "open":
            self.send_more()

    def pump(self) -> None:
        super().pump()
        self.send_more()

    def send_more(self) -> None:
        s = self.session
        while self.queue and s.open and len(self.sent) < IN_FLIGHT:
            a = self.queue.pop(0)
            body = self.bodies[a]
            mtype = messages.SETUP_MATCH if 7 in body and 0 not in body else messages.COMMAND
            if not s.send(mtype, body):
                self.queue.insert(0, a)
                return
            self.sent.add(a)


def _actions(host: ActionHost, rng: random.Random) -> None:
    """After a stroke: now and then an action, and a host restart around it."""
    if rng.random() < 0.5:
        if rng.random() < 0.2:
            host.act({7: [f"A{len(host.stored)}", "B"], 8: 3})
        else:
            host.act({0: names.EVENTS.index("undo")})
        if rng.random() < 0.4:
            host.board.advance(rng.randint(0, 40))  # into the window
            host.restart()
    elif rng.random() < 0.1:
        host.restart()


def run_power_cuts(seed: int, cuts: int) -> dict[str, Any]:
    keep: dict[str, Any] = {}
    f = power_loss.run(
        seed,
        cuts,
        host=ActionHost,
        between_strokes=_actions,
        keep=keep,
        until=lambda h: all(a in h.answered for a in h.stored),
    )
    host: ActionHost = keep["host"]
    record: dict[int, tuple[int, dict[Any, Any]]] = keep["record"]
    answers = [int(b[-6]) for k, b in record.values() if not k and b.get(-6)]
    out = {k: v for k, v in f.items() if k in ("cuts", "cuts_in_boot", "torn_writes", "strokes")}
    out["events_lost"], out["events_doubled"] = f["lost"], f["doubled"]
    out["host_restarts"] = host.restarts
    out.update(count(answers, host.stored))
    return out
