"""Tampering with a signed record at random, shared by
tests/chaos/test_tamper.py (short) and bench/chaos_tamper.py (full).

A match is played by the real firmware on the simulated board and stored by
a real daemon (tests/host/ledger_fixture.py).  Each trial takes a fresh copy
of the store, or of the report exported from it, and makes one change at
random: an event's columns edited, an event's bytes changed (its columns
along with them), an event deleted, a forged event inserted, a checkpoint
altered, a checkpoint deleted and the projections rebuilt, a stored frame or
a player's figures edited, any field the table signs of a report changed
(a frame, a break, the result, the names, any figure of a player's
statistics or of a frame's ball accounting), or an event of the report's
ledger changed, deleted or inserted.  `baulk verify` must find each one
(detected) and name the event and the checkpoint it concerns (located).  The
untouched store and report verify, and so does a report whose names the
venue corrected (its annotation).
"""

from __future__ import annotations

import copy
import json
import random
import shutil
import sqlite3
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import cbor2

from baulk.firmware.sim.board import SIM_KEY
from baulk.host.referee import reports
from baulk.host.referee.name_fixes import annotated_report
from baulk.host.referee.rebuild import rebuild
from baulk.host.referee.verify import TAMPERED, Verdict, verify_report, verify_store
from baulk.host.store import StoreReader
from baulk.protocol import messages
from tests.host.ledger_fixture import device_stream, store_stream

KEY = bytes.fromhex(SIM_KEY)
STORE_KINDS = (
    "edited",
    "changed",
    "deleted",
    "inserted",
    "forged",
    "report",
    "figures",
    "unsigned",
)
REPORT_KINDS = ("report", "changed", "deleted", "inserted")

# (what was tampered, the finding it must give, its seq, its checkpoint)
Expect = tuple[str, str, int | None, int | None]


def _altered(body: bytes) -> tuple[bytes, dict[str, Any], list[int]]:
    """The same event with other scores: new bytes, its input, its scores."""
    b = cbor2.loads(body)
    b[-1] = [b[-1][0] + 1, b[-1][1]]
    return cbor2.dumps(b, canonical=True), messages.wire_to_event(b), b[-1]


class Record:
    """A stored match and what a trial needs to know of it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        reader = StoreReader(path)
        try:
            self.match_id = str(reader.matches()[0]["match_id"])
            ledger = reader.ledger(self.match_id)
            assert ledger is not None
            report = reports.build(reader, self.match_id, ledger=True)
        finally:
            reader.close()
        self.events = [e for e in ledger["events"] if e["body"] is not None]
        self.checkpoints = ledger["checkpoints"]
        self.report: dict[str, Any] = json.loads(json.dumps(report))

    def covering(self, seq: int) -> int:
        return int(next(c["seq"] for c in self.checkpoints if c["at_seq"] >= seq))

    def before(self, seq: int) -> int | None:
        prior = [e["seq"] for e in self.events if e["seq"] < seq]
        return max(prior) if prior else None


def _tamper_store(rec: Record, path: Path, kind: str, rng: random.Random) -> Expect:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        e = rng.choice([x for x in rec.events if x["seq"] <= rec.checkpoints[-1]["at_seq"]])
        seq = int(e["seq"])
        if kind == "edited":
            column = rng.choice(("scores", "ev"))
            value = json.dumps([999, 0]) if column == "scores" else json.dumps({"ev": "concede"})
            db.execute(f"UPDATE events SET {column} = ? WHERE seq = ?", (value, seq))
            return kind, "edited", seq, None
        if kind == "changed":
            body, ev, scores = _altered(e["body"])
            db.execute(
                "UPDATE events SET body = ?, ev = ?, scores = ? WHERE seq = ?",
                (body, json.dumps(ev), json.dumps(scores), seq),
            )
            return kind, "changed", seq, rec.covering(seq)
        if kind == "deleted":
            db.execute("DELETE FROM events WHERE seq = ?", (seq,))
            return kind, "deleted", rec.before(seq), rec.covering(seq)
        if kind == "inserted":
            body, ev, scores = _altered(e["body"])
            db.execute(
                "INSERT INTO events (table_id, boot_id, seq, rx_ms, name, ev, scores, body, "
                "match_id, frame) SELECT table_id, boot_id + 1000, seq, rx_ms, name, ?, ?, ?, "
                "match_id, frame FROM events WHERE seq = ?",
                (json.dumps(ev), json.dumps(scores), body, seq),
            )
            return kind, "inserted", seq, rec.covering(seq)
        if kind == "forged":
            cp = rng.choice(rec.checkpoints)
            column = rng.choice(("head", "marks", "mac"))
            value = bytearray(cp[column])
            value[rng.randrange(len(value))] ^= 1 << rng.randrange(8)
            db.execute(
                f"UPDATE checkpoints SET {column} = ? WHERE seq = ?", (bytes(value), cp["seq"])
            )
            return kind, "forged", None, int(cp["seq"])
        if kind == "figures":  # a player's figures of one frame (the player pages' rows)
            column = rng.choice(("visit_points", "high_break", "fouls", "foul_points", "visits"))
            db.execute(
                f"UPDATE player_frames SET {column} = {column} + 1 "
                "WHERE match_id = ? AND frame = ? AND side = ?",
                (rec.match_id, rng.choice(rec.report["frames"])["frame"], rng.randrange(2)),
            )
            return kind, "report", None, None
        if kind == "unsigned":  # a frame's checkpoint deleted, the projections made again
            cp = rng.choice(rec.checkpoints[1:] or rec.checkpoints)
            db.execute("DELETE FROM checkpoints WHERE at_seq >= ?", (cp["at_seq"],))
            db.close()
            rebuild(path)
            return kind, "unsigned", None, None
        # report: the store's own projections, which its report is made of
        frame = rng.choice(rec.report["frames"])
        db.execute(
            "UPDATE frames SET scores = ? WHERE match_id = ? AND frame = ?",
            (
                json.dumps([frame["scores"][0] + 1, frame["scores"][1]]),
                rec.match_id,
                frame["frame"],
            ),
        )
        return kind, "report", None, None
    finally:
        db.close()


def _tamper_report(rec: Record, kind: str, rng: random.Random) -> tuple[dict[str, Any], Expect]:
    report = copy.deepcopy(rec.report)
    events = report["ledger"]["events"]
    last = rec.checkpoints[-1]["at_seq"]
    i = rng.choice([k for k, x in enumerate(events) if x["body"] and x["seq"] <= last])
    seq = int(events[i]["seq"])
    if kind == "changed":
        events[i]["body"] = _altered(bytes.fromhex(events[i]["body"]))[0].hex()
        return report, (f"report {kind}", "changed", seq, rec.covering(seq))
    if kind == "deleted":
        prev = events[i - 1]["seq"] if i else None
        del events[i]
        return report, (f"report {kind}", "deleted", prev, rec.covering(seq))
    if kind == "inserted":
        forged = _altered(bytes.fromhex(events[i]["body"]))[0].hex()
        events.insert(i + 1, {"seq": seq, "boot": events[i]["boot"], "body": forged})
        return report, (f"report {kind}", "inserted", seq, rec.covering(seq))
    parts = ["frames", "match", "names", "statistics", "accounting"]
    part = rng.choice(parts + (["breaks"] if report["breaks"] else []))
    if part == "frames":
        f = rng.choice(report["frames"])
        f["scores"] = [f["scores"][0], f["scores"][1] + 1]
    elif part == "breaks":
        rng.choice(report["breaks"])["points"] += 1
    elif part == "names":
        report["match"]["names"] = [report["match"]["names"][0], "Someone Else"]
    elif part == "statistics":
        _bump_a_number(rng.choice(report["statistics"]), rng)
    elif part == "accounting":
        accounted = [f["accounting"] for f in report["frames"] if f["accounting"]]
        _bump_a_number(rng.choice(accounted), rng)
    else:
        report["match"]["winner"] = 1 - (report["match"]["winner"] or 0)
    return report, (f"report {part}", "report", None, None)


def _bump_a_number(part: dict[str, Any], rng: random.Random) -> None:
    """Add one to a number anywhere inside ``part`` (a figure, a count)."""
    found: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for k, v in items:
            if isinstance(v, bool):
                continue
            if isinstance(v, int):
                found.append((node, k))
            elif isinstance(v, (dict, list)):
                walk(v)

    walk(part)
    node, key = rng.choice(found)
    node[key] += 1


def _judge(v: Verdict, expect: Expect) -> tuple[bool, bool]:
    """(detected, located)."""
    _, finding, seq, checkpoint = expect
    detected = v.status == TAMPERED
    located = any(
        f.kind == finding
        and (seq is None or f.seq == seq)
        and (checkpoint is None or f.checkpoint == checkpoint)
        for f in v.findings
    )
    return detected, located


def run(seed: int, trials: int, best_of: int = 3) -> dict[str, Any]:
    rng = random.Random(seed)
    tried: Counter[str] = Counter()
    detected: Counter[str] = Counter()
    located: Counter[str] = Counter()
    missed: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="baulk-tamper-") as tmp_name:
        tmp = Path(tmp_name)
        pristine = tmp / "pristine.sqlite"
        store_stream(pristine, device_stream(seed=seed, best_of=best_of))
        rec = Record(pristine)
        reader = StoreReader(pristine)
        try:
            clean = verify_store(reader, rec.match_id, KEY).status
        finally:
            reader.close()
        clean_report = verify_report(rec.report, KEY).status
        # The venue corrects the names: its annotation, and still verified.
        fixed = annotated_report(
            rec.report,
            {"players": ["Ali Ahmadi-Zand", "Reza"], "who": "desk", "at_ms": 1_764_000_000_000},
        )
        clean_annotated = verify_report(json.loads(json.dumps(fixed)), KEY).status
        for n in range(trials):
            if n % 3 == 2:
                report, expect = _tamper_report(rec, rng.choice(REPORT_KINDS), rng)
                v = verify_report(report, KEY)
            else:
                path = tmp / f"trial-{n}.sqlite"
                shutil.copy(pristine, path)
                expect = _tamper_store(rec, path, rng.choice(STORE_KINDS), rng)
                reader = StoreReader(path)
                try:
                    v = verify_store(reader, rec.match_id, KEY)
                finally:
                    reader.close()
                path.unlink()
            what = expect[0]
            d, loc = _judge(v, expect)
            tried[what] += 1
            detected[what] += d
            located[what] += loc
            if not (d and loc):
                missed.append({"expect": expect, "got": v.as_dict()["findings"][:3]})
    return {
        "events": len(rec.events),
        "checkpoints": len(rec.checkpoints),
        "clean_store": clean,
        "clean_report": clean_report,
        "clean_annotated_report": clean_annotated,
        "trials": trials,
        "detected": sum(detected.values()),
        "located": sum(located.values()),
        "by_kind": {k: [tried[k], detected[k], located[k]] for k in sorted(tried)},
        "missed": missed[:10],
    }
