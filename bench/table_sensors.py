"""The stroke sensors against a model of the real table (firmware/sim/table_model.py).

    .venv/bin/python bench/table_sensors.py [--strokes N] [--seed S] [--variants before,after]

The whole firmware runs on the simulated board (CPython) with a host at the
other end of the serial port (the real protocol Session, as in
tests/firmware/mp_firmware.py) and a referee who answers the handset's
questions 1.5 s after they appear: the ball when one went off, BACK when none
did.  Each stroke carries one nuisance of table_model.NUISANCES, in turn; every
variant plays the same strokes (same seed) on its own board.  Per nuisance and
overall it prints how often the firmware

* opened a stroke wrongly: a `strike` with no real strike near it (spurious),
  or a real strike with no `strike` (missed);
* closed it wrongly: `rest` before the balls stopped (early; "mattered" when a
  pot of the stroke came more than 4 s after that rest, so that it no longer
  counts, or the stroke's own vibrations opened a new stroke), or never (the
  referee had to press OK before the next stroke);
* asked "which ball went off?" when none did (a question: the referee answers
  BACK), or did not notice a ball that went off (silent).

Variants: "before" is the firmware as it was (the rail filter counting every
closure, 500 ms of quiet); "after" is the fix of docs/TABLE-SENSORS.md.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from typing import Any

from baulk.firmware import keypad_flow as kf
from baulk.firmware.sim import table_model as tm
from baulk.firmware.sim.board import SimBoard, reading_for
from baulk.firmware.sim.pocket_model import Rng
from baulk.protocol import frame, messages
from baulk.protocol.session import HOST, Session

ANSWER_MS = 1500  # the referee looks at the handset and keys the answer
LATE_POT_MS = 4000  # docs/ENGINE.md: a pot this long after `rest` still belongs to the stroke
NEAR_MS = 100  # a `strike` this near the real one is the real one
OFF_RECENT_MS = 8000  # a question this soon after a ball went off is about it


class Host:
    """The venue host: the real protocol Session over the board's serial port."""

    def __init__(self, board: SimBoard) -> None:
        self.board = board
        self.session = Session(HOST, board.clock.now, {0: "bench-host"}, 64, 8)
        self.reader = frame.FrameReader()
        self.writer = frame.FrameWriter()
        self.events: list[dict[str, Any]] = []

    def pump(self) -> None:
        b = self.board
        now = b.clock.now
        for f in self.reader.feed(b.serial.take()):
            self.session.on_frame(f, now)
        for what, mtype, _seq, body in self.session.drain():
            if what == "deliver" and mtype == messages.EVENT:
                ev = messages.wire_to_event(body)
                ev["src"] = body.get(-4, 0)
                ev["rejected"] = -2 in body
                self.events.append(ev)
        for m in self.session.poll(now):
            b.serial.inject(bytes(self.writer.build(m[0], m[1], m[2], m[3])))


def before(board: SimBoard) -> None:
    """The firmware as it was: every rail closure a ball off, 500 ms of quiet."""
    hw = board.hw
    if hw.rail is not None:
        hw.rail.width = 0
    if hw.rest is not None:
        hw.rest.quiet_ms = 500


def after(board: SimBoard) -> None:
    """As the firmware is now (hw/inputs.py), with kit.py's rail filter as
    docs/TABLE-SENSORS.md proposes it."""
    hw = board.hw
    if hw.rail is not None:
        hw.rail.width = RAIL_WIDTH_MS


RAIL_WIDTH_MS = 250  # kit.py's proposed _RAIL_WIDTH_MS
VARIANTS = {"before": before, "after": after}


class Table:
    """One board, its host and its referee, playing episodes."""

    def __init__(self, variant: str, flash: str) -> None:
        self.variant = variant
        self.board = b = SimBoard(flash=flash, tick_ms=5)
        b.boot()
        VARIANTS[variant](b)
        self.host = Host(b)
        b.on_tick = self.tick
        self.asked_at = -1
        self.questions: list[tuple[int, bool]] = []  # (board ms, a ball had gone off)
        self.offs_due: list[int] = []  # board times of balls off not yet answered
        self.pot_balls: dict[int, str] = {}
        self.oks: list[int] = []  # when the referee had to close a stroke
        b.settle(1500)
        self.new_match()
        self.offset = b.clock.now - b.app.t()

    def new_match(self) -> None:
        self.host.session.send(messages.SETUP_MATCH, {7: ["Ali", "Reza"], 8: 35})
        self.board.settle(400)

    def tick(self) -> None:
        self.host.pump()
        b = self.board
        flow = b.app.flow
        now = b.clock.now
        if flow.step in (kf.ASK_OFF, kf.ASK_POT):
            if self.asked_at < 0:
                self.asked_at = now
            elif now - self.asked_at >= ANSWER_MS and not b.pressed:
                if flow.step == kf.ASK_OFF:
                    # A ball went off in the last few seconds, not yet named.
                    due = [t for t in self.offs_due if 0 <= now - t <= OFF_RECENT_MS]
                    real = bool(due)
                    self.questions.append((now, real))
                    if real:
                        self.offs_due.remove(due[0])
                        b.press("red" if b.app.engine.reds else "white", 60)
                    else:
                        b.press("back", 60)
                else:
                    b.press("red", 60)
                self.asked_at = -2 - now  # answered; wait for the step to change
        elif self.asked_at != -1:
            self.asked_at = -1

    def play(self, ep: tm.Episode, intervals: dict[str, list[tuple[int, int]]]) -> None:
        b = self.board
        cfg = b.cfg
        e = b.app.engine
        if e.match_over or not e.active:
            self.new_match()
        tm.schedule(b, intervals["strike"], cfg.STRIKE, cfg.STRIKE_ACTIVE)
        tm.schedule(b, intervals["rest"], cfg.REST, cfg.REST_MOVING)
        tm.schedule(b, intervals["rail"], cfg.RAIL, cfg.RAIL_CLOSED)
        for t, pocket in ep.stroke.pots:
            ball = "red" if e.reds else "black"
            b.pot(pocket, tm_ball(ball), at=int(t), rgbc=reading_for(tm_ball(ball)))
        # Up to just before this stroke: a stroke still open is closed by the referee.
        b.advance(max(1, ep.strike - 700 - b.clock.now))
        if b.app.engine.stroke_open and not b.app.flow.step:
            self.oks.append(b.clock.now)
            b.press("ok", 60)
        for t, _x, _y in ep.stroke.offs:
            self.offs_due.append(int(t))
        b.advance(max(1, ep.end - b.clock.now))

    def sensor_events(self) -> list[tuple[int, str]]:
        out = []
        for ev in self.host.events:
            if ev["src"] == messages.SRC_SENSOR and not ev["rejected"] and "t" in ev:
                out.append((ev["t"] + self.offset, ev["ev"]))
        return out


def tm_ball(name: str) -> int:
    return ("red", "yellow", "green", "brown", "blue", "pink", "black", "white").index(name)


FIELDS = (
    "strokes", "spurious", "missed", "early", "early_mattered", "never", "question", "off_missed",
    "offs",
)  # fmt: skip


def judge(table: Table, eps: list[tm.Episode]) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(FIELDS, 0))
    evs = table.sensor_events()
    strikes = [t for t, n in evs if n == "strike"]
    rests = [t for t, n in evs if n == "rest"]
    for i, ep in enumerate(eps):
        c = counts[ep.kind]
        c["strokes"] += 1
        lo = ep.t_from
        hi = eps[i + 1].t_from if i + 1 < len(eps) else ep.end + 10**6
        nxt = eps[i + 1].strike if i + 1 < len(eps) else ep.end + 10**6
        near = [t for t in strikes if abs(t - ep.strike) <= NEAR_MS]
        if not near:
            c["missed"] += 1
        c["spurious"] += sum(1 for t in strikes if lo <= t < hi and abs(t - ep.strike) > NEAR_MS)
        closing = [t for t in rests if ep.strike < t < nxt - 700]
        if near:
            if not closing:
                c["never"] += 1
            elif closing[0] < ep.end - 50:
                c["early"] += 1
                rt = closing[0]
                late_pot = any(pt - rt > LATE_POT_MS for pt, _p in ep.stroke.pots)
                reopened = any(rt < t < ep.end + 200 for t in strikes)
                if late_pot or reopened:
                    c["early_mattered"] += 1
        c["offs"] += len(ep.stroke.offs)
    for t, real in table.questions:
        for i, ep in enumerate(eps):
            hi = eps[i + 1].t_from if i + 1 < len(eps) else 10**12
            if ep.t_from <= t - ANSWER_MS < hi:
                if not real:
                    counts[ep.kind]["question"] += 1
                break
    answered = sum(1 for _t, real in table.questions if real)
    total_offs = sum(len(ep.stroke.offs) for ep in eps)
    missed_offs = total_offs - answered
    counts["ball_off"]["off_missed"] += missed_offs
    return counts


def episodes(seed: int, n: int, t0: int) -> list[tm.Episode]:
    rng = Rng(seed)
    out = []
    t = t0
    for i in range(n):
        ep = tm.Episode(rng, t, tm.NUISANCES[i % len(tm.NUISANCES)])
        out.append(ep)
        t = ep.end
    return out


def channels(eps: list[tm.Episode]) -> list[dict[str, list[tuple[int, int]]]]:
    """Each episode's intervals on the three inputs, merged with the
    neighbours' (a nuisance may outlast its episode) and cut at the next
    episode's start, so that no two pulses on one pin overlap."""
    every: dict[str, list[tuple[int, int]]] = {"strike": [], "rest": [], "rail": []}
    for ep in eps:
        every["strike"].extend(ep.strike_pulses())
        every["rest"].extend(ep.rest_pulses())
        every["rail"].extend(ep.rail_pulses())
    merged = {k: tm.merge(v) for k, v in every.items()}
    out: list[dict[str, list[tuple[int, int]]]] = [
        {"strike": [], "rest": [], "rail": []} for _ in eps
    ]
    starts = [ep.t_from for ep in eps]
    for k, ivs in merged.items():
        j = 0
        for a, b in ivs:
            while j + 1 < len(starts) and a >= starts[j + 1]:
                j += 1
            out[j][k].append((a, b))
    return out


def run(seed: int, n: int, variants: list[str]) -> dict[str, dict[str, dict[str, int]]]:
    results = {}
    for v in variants:
        flash = tempfile.mkdtemp(prefix="baulk-table-")
        try:
            table = Table(v, flash)
            eps = episodes(seed, n, table.board.clock.now + 1000)
            for ep, ivs in zip(eps, channels(eps), strict=True):
                table.play(ep, ivs)
            table.board.advance(3000)
            results[v] = judge(table, eps)
            results[v]["_oks"] = {"oks": len(table.oks)}
        finally:
            shutil.rmtree(flash, ignore_errors=True)
    return results


def total(c: dict[str, dict[str, int]]) -> dict[str, int]:
    out = dict.fromkeys(FIELDS, 0)
    for k, row in c.items():
        if not k.startswith("_"):
            for f in FIELDS:
                out[f] += row[f]
    return out


def report(results: dict[str, dict[str, dict[str, int]]], seed: int, n: int) -> str:
    lines = [f"# .venv/bin/python bench/table_sensors.py --strokes {n} --seed {seed}"]
    head = f"{'nuisance':<12} {'variant':<7} " + " ".join(f"{f:>9}" for f in FIELDS)
    lines.append(head)
    for kind in (*tm.NUISANCES, "overall"):
        for v, c in results.items():
            row = total(c) if kind == "overall" else c.get(kind, dict.fromkeys(FIELDS, 0))
            lines.append(f"{kind:<12} {v:<7} " + " ".join(f"{row[f]:>9}" for f in FIELDS))
    for v, c in results.items():
        t = total(c)
        s = max(1, t["strokes"])
        lines.append(
            f"{v}: per 100 strokes: spurious strike {100 * t['spurious'] / s:.1f}, "
            f"missed strike {100 * t['missed'] / s:.1f}, early rest {100 * t['early'] / s:.1f} "
            f"(mattered {100 * t['early_mattered'] / s:.1f}), "
            f"never closed {100 * t['never'] / s:.1f}, "
            f"false off question {100 * t['question'] / s:.1f}; balls off missed "
            f"{t['off_missed']} of {t['offs']}; referee's OK {c['_oks']['oks']}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--strokes", type=int, default=2600)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--variants", default="before,after")
    a = p.parse_args(argv)
    t = time.time()
    results = run(a.seed, a.strokes, a.variants.split(","))
    print(report(results, a.seed, a.strokes))
    print(f"({time.time() - t:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
