"""Boards in chosen states, reached by the real rules engine: each table is a
``DevicePeer`` (the device's protocol session and engine behind a pty) that
plays a list of input events, most of them the rule scenarios of
tests/scenarios/, into the real daemon.  Nothing here writes a board's JSON
by hand."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.host.device_peer import DevicePeer
from tests.host.harness import DaemonThread, make_config, wait_for

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
Event = dict[str, Any]
LATIN = ["Ali Zand", "Reza Abbasi"]
PERSIAN = ["علی زند", "رضا عباسی"]
LONG_LATIN = ["Maximilian Throckmorton-Smythe", "Bartholomew Featherstonehaugh"]


def scenario(name: str, **match: Any) -> list[Event]:
    """A rule scenario's events; ``match`` replaces keys of its match event
    (the players' names, best_of)."""
    events = []
    for line in (SCENARIOS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            ev = json.loads(line)
            if ev["ev"] == "match":
                ev.update(match)
            events.append(ev)
    return events


def maximum_147(players: list[str]) -> list[Event]:
    """A 147 that ends a best-of-1 match: the break stays on the board."""
    return scenario("maximum_147", players=players, best_of=1)


def free_ball_155(players: list[str]) -> list[Event]:
    """The 155 on a free ball, as a best-of-1 so that the break stays."""
    return scenario("free_ball_155_total_clearance", players=players, best_of=1)


def respotted_black(players: list[str]) -> list[Event]:
    return scenario("respotted_black_state_before_toss", players=players)


def breaker_wins_frame() -> list[Event]:
    """The frame's breaker makes 8 (a red and the black), then misses, and
    the other side concedes the frame."""
    return [
        {"ev": "strike"},
        {"ev": "pot", "ball": "red"},
        {"ev": "rest"},
        {"ev": "strike"},
        {"ev": "pot", "ball": "black"},
        {"ev": "rest"},
        {"ev": "strike"},
        {"ev": "rest"},
        {"ev": "concede"},
    ]


def foul_miss_free_ball(players: list[str]) -> list[Event]:
    """Three frames played, then in frame 4 a foul and a miss on the ball on
    (the wrong ball, the pink, hit first), and a free ball for the other side."""
    events: list[Event] = [{"ev": "match", "players": players, "best_of": 7}]
    for _ in range(3):
        events += breaker_wins_frame()
    return [
        *events,
        {"ev": "strike"},
        {"ev": "pot", "ball": "red"},
        {"ev": "rest"},
        {"ev": "strike"},
        {"ev": "pot", "ball": "black"},
        {"ev": "rest"},
        {"ev": "strike"},
        {"ev": "rest"},
        {"ev": "strike"},
        {"ev": "rest"},
        {"ev": "foul", "kind": "wrong_ball_first", "ball": "pink"},
        {"ev": "miss"},
        {"ev": "free_ball"},
    ]


def in_play(players: list[str], pots: int) -> list[Event]:
    """A frame under way: ``pots`` reds and blacks in one break."""
    events: list[Event] = [{"ev": "match", "players": players, "best_of": 9}]
    for i in range(pots):
        ball = "red" if i % 2 == 0 else "black"
        events += [{"ev": "strike"}, {"ev": "pot", "ball": ball}, {"ev": "rest"}]
    return events


@dataclass
class Venue:
    daemon: DaemonThread
    peers: dict[str, DevicePeer] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return self.daemon.url

    def play(self, table: str, events: list[Event]) -> None:
        """Play the events on the table's device and wait until the board
        shows where its engine is."""
        peer = self.peers[table]
        peer.play(events)
        rejected = [(ev, why) for _, ev, why in peer.sent if why]
        assert not rejected, rejected

        def caught_up() -> bool:
            if peer.pending() or peer.acked() < peer.last_seq():
                return False
            state = self.daemon.board(table)["state"] or {}
            want = peer.engine.state()
            return all(state.get(k) == want[k] for k in ("frame", "scores", "break", "frames"))

        wait_for(caught_up, what=f"table {table} on the board")


@contextmanager
def venue(tmp: Path, tables: dict[str, list[Event] | None]) -> Iterator[Venue]:
    """A daemon with one table per key; a table whose events are None has no
    controller plugged in (its board waits for it)."""
    peers = {
        t: DevicePeer(t, link_path=tmp / f"tty-{t}").start()
        for t, events in tables.items()
        if events is not None
    }
    daemon = DaemonThread(make_config(tmp, {t: tmp / f"tty-{t}" for t in tables})).start()
    v = Venue(daemon, peers)
    try:
        for t in peers:
            wait_for(lambda t=t: daemon.board(t)["status"]["link"] == "online", what=f"{t} online")
        for t, events in tables.items():
            if events:
                v.play(t, events)
        yield v
    finally:
        daemon.stop()
        for p in peers.values():
            p.stop()
