"""A venue's store fed by hand, for bills worked out by hand: events with the
device times a test chooses go through the real shadow referee and the real
store writer (so ``frame_play`` is projected as the daemon does it), and
sessions open and close at the PC stamps the test chooses.  The bench uses
it too (bench/billing_bench.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from baulk.host.club import bills
from baulk.host.club.clock import Stamp
from baulk.host.club.tariffs import Tariff
from baulk.host.referee.shadow import ShadowReferee
from baulk.host.store import Batch, EventRow, SessionWrite, Store, StoreReader

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
BOOT = "pc-boot-1"
Event = dict[str, Any]


def scenario_events(name: str) -> list[Event]:
    """The input events of a rules scenario (tests/scenarios/NAME.jsonl)."""
    lines = (SCENARIOS / f"{name}.jsonl").read_text().splitlines()
    return [json.loads(x) for x in lines if x.strip() and not x.startswith("#")]


def timed(events: list[Event], start_t: int, end_t: int) -> list[Event]:
    """The events with device times spread evenly from start_t to end_t (ms)."""
    n = len(events)
    step = (end_t - start_t) / max(n - 1, 1)
    return [{**ev, "t": start_t + round(i * step)} for i, ev in enumerate(events)]


def stamp(wall_ms: int, mono_ms: int, boot: str = BOOT) -> Stamp:
    return Stamp(wall_ms, mono_ms, boot)


class HandVenue:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.store = Store(path)
        self.reader = StoreReader(path)
        self.shadows: dict[str, ShadowReferee] = {}
        self.seqs: dict[str, int] = {}
        self.next_session = 1
        self.rx_ms = 1_700_000_000_000

    def close_all(self) -> None:
        self.store.close()
        self.reader.close()

    def play(self, table: str, events: list[Event], batch: int = 500) -> None:
        """The table's device sends these events (every one must be accepted)."""
        shadow = self.shadows.setdefault(table, ShadowReferee(table))
        rows: list[EventRow] = []
        for ev in events:
            seq = self.seqs[table] = self.seqs.get(table, 0) + 1
            applied = shadow.apply(ev, (1, seq))
            assert applied.accepted, (table, seq, ev, shadow.engine.state().get("rejected"))
            e = shadow.engine
            self.rx_ms += 1
            rows.append(
                EventRow(table, 1, seq, self.rx_ms, ev, scores=[e.s0, e.s1], applied=applied)
            )
            if len(rows) >= batch:
                self.store.write(Batch(events=rows))
                rows = []
        if rows:
            self.store.write(Batch(events=rows))

    def open(self, table: str, tariff: Tariff, at: Stamp, how: str = "desk") -> int:
        sid = self.next_session
        self.next_session += 1
        self.store.write(
            Batch(
                sessions=[
                    SessionWrite(
                        "open",
                        sid,
                        table,
                        "desk",
                        at.wall_ms,
                        at.mono_ms,
                        at.boot,
                        how=how,
                        tariff=tariff.to_json(),
                    )
                ]
            )
        )
        return sid

    def close(self, sid: int, at: Stamp) -> None:
        self.store.write(
            Batch(
                sessions=[
                    SessionWrite(
                        "close", sid, "", "desk", at.wall_ms, at.mono_ms, at.boot, reason="desk"
                    )
                ]
            )
        )

    def correct(self, sid: int, amount: int, reason: str, payer: str | None = None) -> None:
        self.write(
            SessionWrite("correct", sid, "", "boss", 0, reason=reason, amount=amount, payer=payer)
        )

    def write(self, *changes: SessionWrite) -> None:
        self.store.write(Batch(sessions=list(changes)))

    def bill(self, sid: int, now: Stamp | None = None) -> dict[str, Any]:
        row = self.reader.session(sid)
        assert row is not None
        frames = self.reader.session_frames([row])[sid]
        fixes = self.reader.corrections([sid])[sid]
        items = self.reader.items([sid])[sid]
        return bills.work_out(row, frames, fixes, now, items)
