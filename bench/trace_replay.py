"""Recorded sensor traces (``baulk sensors export``, docs/CAPTURES.md) replayed
through the firmware's own detector: the real hw/pockets.py, hw/colour.py and
app.py's edge filter and judge (App._edges, _judge, _colour, called on a
stand-in of the app), fed by a stand-in TCS34725 whose data registers hold
the recorded windows from their times on, and by the recorded edges on the
interrupt ring.  Each replayed decision is scored against the referee's
answers (the pots the live run recorded, the questions it asked) with
bench/pockets_score.py's measures.

    from trace_replay import replay_dir
    result = replay_dir(Path("traces"), calibration=None)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from baulk.firmware import app as fw_app
from baulk.firmware import names
from baulk.firmware.engine import Engine
from baulk.firmware.hw import colour
from baulk.firmware.hw.pockets import Pockets

_B_COLOUR = -2
_B_ASK = -3
_BG_LEAD_MS = 200  # a background record is on the chip this long before its passage
_TAIL_MS = 5  # after a passage's last window the chip shows the empty pocket again


class TraceChip:
    """One pocket's TCS34725 as recorded: what its registers hold at a time."""

    def __init__(self) -> None:
        self.timeline: list[tuple[int, tuple[int, int, int, int]]] = []
        self.at = 0

    def add(self, t: int, rgbc: tuple[int, int, int, int]) -> None:
        self.timeline.append((t, rgbc))

    def reading(self, now: int) -> tuple[int, int, int, int]:
        tl = self.timeline
        while self.at + 1 < len(tl) and tl[self.at + 1][0] <= now:
            self.at += 1
        # before its first record: that one (the first passage's background)
        return tl[self.at][1] if tl else (40, 14, 14, 12)


class TraceBus:
    """The I2C bus, the multiplexer and six recorded chips."""

    def __init__(self, chips: list[TraceChip], clock: list[int]) -> None:
        self.chips = chips
        self.clock = clock
        self.channel = 0

    def writeto(self, addr: int, buf: bytes) -> None:  # the multiplexer's channel
        ch = buf[0]
        self.channel = ch.bit_length() - 1

    def writeto_mem(self, addr: int, reg: int, buf: bytes) -> None:
        pass  # gain and enable: the recording holds the counts as read at the device's gain

    def readfrom_mem_into(self, addr: int, reg: int, buf: bytearray) -> None:
        c = self.chips[self.channel].reading(self.clock[0])
        for i in range(4):
            buf[2 * i] = c[i] & 0xFF
            buf[2 * i + 1] = c[i] >> 8


class TracePin:
    """A beam's level as the capture's edges last left it (the app reads
    each drop beam's pin to catch an edge the ring lost; a capture lost none)."""

    def __init__(self, level: int) -> None:
        self.level = level

    def value(self) -> int:
        return self.level


class TraceRing:
    def __init__(self, broken: int) -> None:
        self.items: list[tuple[int, int, int]] = []
        self.pins = [TracePin(1 - broken) for _ in range(9)]

    def watch(self, pin: object, src: int) -> None:
        pass

    def pending(self) -> bool:
        return bool(self.items)

    def get(self) -> tuple[int, int, int]:
        item = self.items.pop(0)
        self.pins[item[0]].level = item[1]
        return item


class _Clock:
    @staticmethod
    def at(tick: int) -> int:
        return tick


class _Hw:
    rail = None
    strike = None
    rest = None


class Detector:
    """The app's detector path on a stand-in of the app (its own methods)."""

    _edges = fw_app.App._edges
    _queue = fw_app.App._queue
    _judge = fw_app.App._judge
    _colour = fw_app.App._colour

    def __init__(self, bus: TraceBus, ring: TraceRing, classifier: Any, broken: int) -> None:
        hw = _Hw()
        hw.ring = ring  # type: ignore[attr-defined]
        hw.classifier = classifier  # type: ignore[attr-defined]
        hw.pockets = Pockets([None] * 6, ring, broken, bus, 0x70, (0, 1, 2, 3, 4, 5),  # type: ignore[attr-defined]
                             speed=object())  # fmt: skip
        self.hw = hw
        self.clock = _Clock()
        self.check = None
        self.capture = None
        self.queue: list[list[Any]] = []
        self.health = fw_app.Health(None)
        self.rgbc = fw_app.array("H", (0, 0, 0, 0))
        self.last_colour = (-1, 0)
        # No match in play: a capture's readings are judged by themselves,
        # with no ball on to choose a question by.
        self.engine = Engine()

    def say(self, text: str) -> None:
        pass


def load(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    if not lines or lines[0].get("kind") != "capture":
        raise ValueError(f"{path}: not a capture (its first line is no header)")
    return lines[0], lines[1:]


def replay(records: list[dict[str, Any]], classifier: Any) -> list[dict[str, Any]]:
    """The detector's decisions on a capture's records: [{pocket, t, ball or None (asked)}]."""
    chips = [TraceChip() for _ in range(6)]
    clock = [0]
    by_pocket: dict[int, list[dict[str, Any]]] = {}
    for r in records:
        if r["kind"] == "window":
            by_pocket.setdefault(r["pocket"], []).append(r)
    for p, ws in by_pocket.items():
        bg: tuple[int, int, int, int] = (40, 14, 14, 12)
        last = None
        for w in sorted(ws, key=lambda w: w["t"]):
            v = (w["c"], w["r"], w["g"], w["b"])
            if w["gain"] == "background":
                if last is not None:
                    chips[p].add(last + _TAIL_MS, bg)
                bg = v
                chips[p].add(w["t"] - _BG_LEAD_MS, bg)
                last = None
            else:
                chips[p].add(w["t"], v)
                last = w["t"]
        if last is not None:
            chips[p].add(last + _TAIL_MS, bg)
        chips[p].timeline.sort(key=lambda x: x[0])
    edges = sorted((r for r in records if r["kind"] == "edge"), key=lambda r: r["t"])
    if not edges:
        return []
    broken = edges[0]["level"]  # a passage starts with its drop beam going dark
    ring = TraceRing(broken)
    det = Detector(TraceBus(chips, clock), ring, classifier, broken)
    start = min(r["t"] for r in records if r["kind"] in ("edge", "window")) - 2 * _BG_LEAD_MS
    end = max(r["t"] for r in records if r["kind"] in ("edge", "window")) + 1000
    out: list[dict[str, Any]] = []
    i = 0
    for now in range(start, end):
        clock[0] = now
        while i < len(edges) and edges[i]["t"] <= now:
            e = edges[i]
            ring.items.append((e["src"], e["level"], e["t"]))
            i += 1
        det._edges(now)
        q = det.queue
        while q and q[0][3] != _B_COLOUR:
            item = q.pop(0)
            if item[0] == 0:  # a pot (app.py _Q_POT)
                ball = names.BALLS[item[3]] if item[3] >= 0 else None
                out.append({"pocket": names.POCKETS[item[1]], "t": item[2], "ball": ball})
    return out


def live(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the live run decided: each pot the stream carried, with whether
    the handset asked the referee about its pocket first (his answer is the pot)."""
    asked: dict[str, int] = {}
    out = []
    for r in sorted(records, key=lambda r: r["t"]):
        if r["kind"] == "mark" and r["mark"] == "asked" and r["pocket"] < 6:
            p = names.POCKETS[r["pocket"]]
            asked[p] = asked.get(p, 0) + 1
        elif r["kind"] == "event" and r.get("ev") == "pot" and r.get("pocket"):
            p = r["pocket"]
            was = asked.get(p, 0) > 0
            if was:
                asked[p] -= 1
            out.append({"pocket": p, "t": r["t"], "ball": r.get("ball"), "asked": was})
    return out


def trials(truth: list[dict[str, Any]], got: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """bench/pockets_score.py trials, one per pot the referee's record holds
    (matched to the replay's decisions per pocket, in order), and one per
    replayed pot beyond them."""
    out = []
    by: dict[str, list[dict[str, Any]]] = {}
    for g in got:
        by.setdefault(g["pocket"], []).append(g)
    for tr in truth:
        pocket = names.POCKETS.index(tr["pocket"])
        mine = by.get(tr["pocket"], [])
        d = mine.pop(0) if mine else None
        trial: dict[str, Any] = {"case": "trace", "pocket": pocket, "truth": [tr["ball"]],
                                 "recorded": [], "answers": []}  # fmt: skip
        if d is not None:
            if d["ball"] is None:  # asked: the referee names the true ball
                trial["answers"] = [tr["ball"]]
                trial["recorded"] = [[pocket, tr["ball"]]]
            else:
                trial["recorded"] = [[pocket, d["ball"]]]
        out.append(trial)
    for p, left in by.items():
        for d in left:
            pocket = names.POCKETS.index(p)
            out.append({"case": "trace", "pocket": pocket, "truth": [],
                        "recorded": [[pocket, d["ball"] or "?"]], "answers": []})  # fmt: skip
    return out


def replay_dir(folder: Path, calibration: Path | None = None) -> dict[str, Any]:
    """Every capture file of a folder replayed and scored; and how often the
    replay decided as the live run did (the same ball, or a question)."""
    from pockets_score import Tally

    classifier = colour.load(str(calibration)) if calibration else colour.Classifier()
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise FileNotFoundError(f"no capture files (*.jsonl) in {folder}")
    total = Tally()
    per: dict[str, Any] = {}
    same = compared = 0
    for f in files:
        head, records = load(f)
        got = replay(records, classifier)
        truth = live(records)
        tally = Tally()
        for t in trials(truth, got):
            tally.add(t)
        total.merge(tally)
        agree = 0
        for a, b in zip(truth, got, strict=False):
            agree += (a["asked"] and b["ball"] is None) or (
                not a["asked"] and a["ball"] == b["ball"]
            )
        same += agree
        compared += max(len(truth), len(got))
        per[f.name] = {"capture": head.get("capture"), "ended": head.get("ended"),
                       "lost_frames": head.get("lost_frames"), "pots": len(truth),
                       "replayed": len(got), "as_live": agree,
                       "figures": tally.figures()}  # fmt: skip
    return {"files": per, "overall": total.figures(), "as_live": same, "compared": compared}
