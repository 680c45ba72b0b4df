"""Checks a match's record against the device's signed checkpoints
(docs/LEDGER.md): the events the store holds, or those an exported report
carries, must be the very bytes the device chained and signed, and what the
report says (frames, breaks, the result) must be what those events make.

The device chains every event's body bytes, head = SHA-256(head + body), and
signs the head with its key (HMAC-SHA256) in a checkpoint, which also lists a
CRC-32 of each event since the one before (protocol/SPEC.md "Checkpoints").
Here the chain is walked again over the stored bytes, from one checkpoint to
the next:

* a checkpoint whose MAC does not hold under the key is forged or altered;
* a span whose head differs from the checkpoint's holds a changed, deleted or
  inserted event; the CRC-32 marks, aligned with the stored events, say which
  one (changed: a mark and an event that differ; deleted: a mark with no
  event; inserted: an event with no mark);
* a stored event whose columns (input, scores, refusal, source) differ from
  its own body bytes was edited in the store;
* the report's content is rebuilt from the verified bodies by the same
  shadow referee, store and report code the daemon uses, and compared.

The marks locate; the MAC'd head decides.  A CRC can be forged on purpose,
so an attacker may mislead the location, never the verdict.
"""

from __future__ import annotations

import binascii
import contextlib
import difflib
import hashlib
import hmac
import json
import logging
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cbor2

from baulk.firmware import names
from baulk.host.referee import reports
from baulk.host.referee.shadow import ShadowReferee
from baulk.host.store import Batch, EventRow, Store, StoreReader
from baulk.protocol import host_codec, messages

GENESIS = bytes(32)  # the chain's head before a journal's first event
_MATCH = names.EVENTS.index("match")  # its code under key 0 (SPEC.md "Codes for names")
KEY_BYTES = 32

# Exit statuses of `baulk verify` (host/cli/verify.py).
VERIFIED = 0
TAMPERED = 1
UNCOVERED = 3  # nothing wrong, but some events are not signed by a checkpoint yet


@dataclass
class Finding:
    """One thing that does not hold, located."""

    kind: str  # forged, changed, deleted, inserted, edited, uncovered, report
    text: str
    seq: int | None = None  # the event concerned, when one is
    checkpoint: int | None = None  # the seq of the checkpoint that exposes it

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Verdict:
    match_id: str
    events: int = 0  # events covered by a checkpoint whose MAC and chain hold
    checkpoints: int = 0  # checkpoints whose MAC holds
    findings: list[Finding] = field(default_factory=list)

    @property
    def tampered(self) -> bool:
        return any(f.kind != "uncovered" for f in self.findings)

    @property
    def status(self) -> int:
        if self.tampered:
            return TAMPERED
        return UNCOVERED if self.findings else VERIFIED

    def as_dict(self) -> dict[str, Any]:
        return {
            "match": self.match_id,
            "verified": self.status == VERIFIED,
            "events": self.events,
            "checkpoints": self.checkpoints,
            "findings": [f.as_dict() for f in self.findings],
        }


class LedgerError(ValueError):
    """A report or key that cannot be read (the message says why)."""


# ---------------------------------------------------------------------- keys
def read_key(path: str | Path) -> bytes:
    """A device key file: 64 hex digits (what `baulk firmware deploy --key` writes)."""
    try:
        text = Path(path).read_text(encoding="ascii").strip()
        key = binascii.unhexlify(text)
    except (OSError, UnicodeError, binascii.Error, ValueError) as e:
        raise LedgerError(f"cannot read the device key {path}: {e}") from None
    if len(key) != KEY_BYTES:
        raise LedgerError(f"{path}: a device key is {KEY_BYTES} bytes (64 hex digits)")
    return key


def mac_of(key: bytes, at: int, boot: int, head: bytes, marks: bytes) -> bytes:
    """A checkpoint's MAC, as the device makes it (firmware/journal.py)."""
    msg = at.to_bytes(4, "big") + boot.to_bytes(4, "big") + head + marks
    return hmac.new(key, msg, hashlib.sha256).digest()


def chain(head: bytes, body: bytes) -> bytes:
    return hashlib.sha256(head + body).digest()


# ---------------------------------------------------------------------- the chain
@dataclass
class LedgerEvent:
    seq: int
    boot: int
    body: bytes | None
    columns: dict[str, Any] | None = None  # the store's own fields (None: a report)


@dataclass
class LedgerCheckpoint:
    seq: int
    boot: int
    at: int
    head: bytes
    marks: bytes
    mac: bytes

    def mark_list(self) -> list[int]:
        m = self.marks
        return [int.from_bytes(m[i : i + 4], "big") for i in range(0, len(m) - len(m) % 4, 4)]


def check_chain(
    key: bytes,
    events: list[LedgerEvent],
    checkpoints: list[LedgerCheckpoint],
    first: int,
    last: int,
    verdict: Verdict,
) -> set[int]:
    """Walk the chain over ``events`` from checkpoint to checkpoint; add what
    does not hold to ``verdict``.  ``first``..``last`` are the seqs that must be
    covered.  Returns the seqs of the events proven to be the device's."""
    good: list[LedgerCheckpoint] = []
    for cp in sorted(checkpoints, key=lambda c: (c.at, c.seq)):
        if not hmac.compare_digest(mac_of(key, cp.at, cp.boot, cp.head, cp.marks), cp.mac):
            verdict.findings.append(
                Finding(
                    "forged",
                    f"checkpoint {cp.seq} (covering events up to {cp.at}): its MAC does not "
                    "hold under this device key: forged, altered, or another device's key",
                    checkpoint=cp.seq,
                )
            )
            continue
        if len(cp.marks) % 4:
            verdict.findings.append(
                Finding(
                    "forged", f"checkpoint {cp.seq}: its marks are cut short", checkpoint=cp.seq
                )
            )
            continue
        good.append(cp)
    verdict.checkpoints = len(good)
    events = sorted(events, key=lambda e: e.seq)
    proven: set[int] = set()
    # The span before the first checkpoint starts at the journal's genesis,
    # unless a checkpoint before the match anchors it.
    prev_at, prev_head = 0, GENESIS
    if good and good[0].at < first:
        prev_at, prev_head = good[0].at, good[0].head
        good = good[1:]
    for cp in good:
        if cp.at <= prev_at:
            continue  # a second checkpoint of the same head (an image's, a frame end's)
        span = [e for e in events if prev_at < e.seq <= cp.at]
        if _check_span(prev_head, prev_at, span, cp, verdict):
            proven.update(e.seq for e in span)
        prev_at, prev_head = cp.at, cp.head
    verdict.events = len([s for s in proven if first <= s <= last])
    rest = [e.seq for e in events if e.seq > prev_at and e.seq <= last]
    if rest:
        verdict.findings.append(
            Finding(
                "uncovered",
                f"events {rest[0]}..{rest[-1]} are not covered by a checkpoint yet "
                "(the device signs at every frame's end)",
                seq=rest[0],
            )
        )
    return proven


def _check_span(
    head: bytes, after: int, span: list[LedgerEvent], cp: LedgerCheckpoint, verdict: Verdict
) -> bool:
    # The events after event ``after`` (whose head is ``head``) up to ``cp``.
    h = head
    for e in span:
        h = chain(h, e.body or b"")
    if h == cp.head and len(span) == len(cp.mark_list()):
        return True
    marks = cp.mark_list()
    crcs = [binascii.crc32(e.body) if e.body is not None else -1 for e in span]
    found = len(verdict.findings)
    ops = difflib.SequenceMatcher(None, marks, crcs, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            continue
        pairs = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        for k in range(pairs):
            e = span[j1 + k]
            why = "its body is not stored" if e.body is None else "its bytes differ"
            verdict.findings.append(
                Finding(
                    "changed",
                    f"event {e.seq} is not the one the device signed ({why}; checkpoint {cp.seq})",
                    e.seq,
                    cp.seq,
                )
            )
        for k in range(i1 + pairs, i2):
            before = span[j1 - 1].seq if j1 > 0 else (after or None)
            where = f"after event {before}" if before else "at the journal's start"
            verdict.findings.append(
                Finding(
                    "deleted",
                    f"an event the device signed is missing {where} "
                    f"(event {k + 1} of {len(marks)} listed by checkpoint {cp.seq})",
                    before,
                    cp.seq,
                )
            )
        for k in range(j1 + pairs, j2):
            e = span[k]
            verdict.findings.append(
                Finding(
                    "inserted",
                    f"event {e.seq} was never signed by the device (checkpoint {cp.seq} "
                    "lists no such event)",
                    e.seq,
                    cp.seq,
                )
            )
    if len(verdict.findings) == found:
        verdict.findings.append(
            Finding(
                "changed",
                f"the events {span[0].seq if span else '-'}..{cp.at} differ from what the "
                f"device signed in checkpoint {cp.seq}, at no single event the marks show",
                span[0].seq if span else None,
                cp.seq,
            )
        )
    return False


# ---------------------------------------------------------------------- the store's columns
def check_columns(events: Iterable[LedgerEvent], verdict: Verdict) -> None:
    """Each stored event's columns against its own body bytes."""
    for e in events:
        if e.columns is None or e.body is None:
            continue
        try:
            body = cbor2.loads(e.body)
            record = host_codec.record_of(messages.EVENT, body)
        except Exception:  # a body that does not decode is caught by the chain
            continue
        assert isinstance(record, host_codec.Event)
        c = e.columns
        stored = {
            "input": json.loads(c["ev"]) if c["ev"] else None,
            "scores": json.loads(c["scores"]) if c["scores"] else None,
            "rejected": c["rejected"],
            "source": c["src"],
            "command": c["cmd"],
            "boot": e.boot,
        }
        sent = {
            "input": json.loads(json.dumps(record.input)),
            "scores": list(record.scores),
            "rejected": record.rejected,
            "source": record.source,
            "command": record.cmd or 0,
            "boot": record.boot or e.boot,
        }
        if record.action and c.get("action") != record.action:
            stored["action"], sent["action"] = c.get("action"), record.action
        wrong = [k for k in sent if stored[k] != sent[k]]
        if wrong:
            what = ", ".join(f"{k} {stored[k]!r} stored, {sent[k]!r} sent" for k in wrong)
            verdict.findings.append(
                Finding("edited", f"event {e.seq}: the store's fields differ: {what}", e.seq)
            )


# ---------------------------------------------------------------------- the report
# What a report says that the device's events decide (times are the host's).
def _content(report: dict[str, Any]) -> dict[str, Any]:
    m = report.get("match") or {}
    return {
        "match": {
            k: m.get(k) for k in ("match_id", "players", "best_of", "reds", "frames_won", "winner")
        },
        "frames": [
            {k: f.get(k) for k in ("frame", "scores", "winner", "progression")}
            for f in report.get("frames") or []
        ],
        "breaks": [
            {k: b.get(k) for k in ("frame", "side", "player", "points")}
            for b in report.get("breaks") or []
        ],
    }


def replayed_report(
    table_id: str, match_id: str, events: list[LedgerEvent]
) -> dict[str, Any] | None:
    """The report the device's events make, by the daemon's own shadow
    referee, store writer and report code, in a store of its own."""
    # Their warnings on a tampered record (the shadow's alerts, a repeat the
    # store drops) are for a daemon's log; here the findings say it.
    quiet = [logging.getLogger(n) for n in ("baulk.shadow", "baulk.store")]
    levels = [q.level for q in quiet]
    for q in quiet:
        q.setLevel(logging.ERROR)
    try:
        return _replayed_report(table_id, match_id, events)
    finally:
        for q, level in zip(quiet, levels, strict=True):
            q.setLevel(level)


def _replayed_report(
    table_id: str, match_id: str, events: list[LedgerEvent]
) -> dict[str, Any] | None:
    with replayed_store(table_id, events) as reader:
        return reports.build(reader, match_id)


@contextlib.contextmanager
def replayed_store(table_id: str, events: list[LedgerEvent]) -> Iterator[StoreReader]:
    """A store of its own holding what the device's event bodies make, by
    the daemon's own shadow referee and store writer (its matches, frames
    and ``frame_play``; each event keeps its boot and seq), for as long as
    the ``with`` lasts."""
    shadow = ShadowReferee(table_id)
    rows = []
    for e in sorted(events, key=lambda e: e.seq):
        if e.body is None:
            continue
        try:
            record = host_codec.record_of(messages.EVENT, cbor2.loads(e.body))
        except Exception:
            continue
        assert isinstance(record, host_codec.Event)
        key = (record.boot or e.boot, e.seq)
        applied = shadow.apply(record.input, key, record.scores, record.rejected, 0)
        rows.append(
            EventRow(
                table_id,
                key[0],
                e.seq,
                0,
                record.input,
                scores=list(record.scores),
                rejected=record.rejected,
                src=record.source,
                applied=applied,
            )
        )
    with tempfile.TemporaryDirectory(prefix="baulk-verify-") as tmp:
        path = Path(tmp) / "replay.sqlite"
        store = Store(path)
        try:
            store.write(Batch(events=rows))
        finally:
            store.close()
        reader = StoreReader(path)
        try:
            yield reader
        finally:
            reader.close()


def check_report(
    report: dict[str, Any], table_id: str, events: list[LedgerEvent], verdict: Verdict
) -> None:
    """What the report says against what the device's events make."""
    again = replayed_report(table_id, verdict.match_id, events)
    if again is None:
        verdict.findings.append(
            Finding("report", f"the device's events hold no match {verdict.match_id}")
        )
        return
    said, made = _content(report), _content(again)
    for k, v in made["match"].items():
        if said["match"].get(k) != v:
            verdict.findings.append(
                Finding(
                    "report",
                    f"the report's {k} is {said['match'].get(k)!r}; the device's events make {v!r}",
                )
            )
    for part in ("frames", "breaks"):
        a, b = said[part], made[part]
        for i in range(max(len(a), len(b))):
            x = a[i] if i < len(a) else None
            y = b[i] if i < len(b) else None
            if x != y:
                verdict.findings.append(
                    Finding("report", f"{part} #{i + 1}: the report has {x}; the events make {y}")
                )


# ---------------------------------------------------------------------- entry points
def verify_store(reader: StoreReader, match_id: str, key: bytes) -> Verdict:
    """A match's stored events (and the report the store gives of it)
    against the checkpoints the store holds."""
    verdict = Verdict(match_id)
    stored = reader.ledger(match_id)
    if stored is None:
        raise LedgerError(f"there is no match '{match_id}' in the store")
    events = [
        LedgerEvent(e["seq"], e["boot_id"], e["body"], e)
        for e in stored["events"]
        if e["body"] is not None or e["invalid"] is None  # not a device event: not chained
    ]
    cps = [_checkpoint(c["seq"], c["boot_id"], c["at_seq"], c["head"], c["marks"], c["mac"])
           for c in stored["checkpoints"]]  # fmt: skip
    first, last = _match_span(events, match_id)
    check_chain(key, events, cps, first, last, verdict)
    check_columns(events, verdict)
    report = reports.build(reader, match_id)
    if report is not None:
        check_report(report, stored["table"], events, verdict)
    return verdict


def verify_report(report: dict[str, Any], key: bytes) -> Verdict:
    """An exported match report (the JSON the API serves) against the
    device's checkpoints it carries."""
    try:
        match_id = str(report["match"]["match_id"])
        ledger = report["ledger"]
        table_id = str(ledger["table"])
        events = [
            LedgerEvent(
                int(e["seq"]),
                int(e["boot"]),
                bytes.fromhex(e["body"]) if e["body"] is not None else None,
            )
            for e in ledger["events"]
        ]
        cps = [
            _checkpoint(
                int(c["seq"]),
                int(c["boot"]),
                int(c["at"]),
                bytes.fromhex(c["head"]),
                bytes.fromhex(c["marks"]),
                bytes.fromhex(c["mac"]),
            )
            for c in ledger["checkpoints"]
        ]
    except (KeyError, TypeError, ValueError) as e:
        raise LedgerError(
            f"this is not a match report with its ledger (the JSON of "
            f"/api/matches/ID/report.json): {e!r}"
        ) from None
    verdict = Verdict(match_id)
    first, last = _match_span(events, match_id)
    check_chain(key, events, cps, first, last, verdict)
    check_report(report, table_id, events, verdict)
    return verdict


def _checkpoint(
    seq: int, boot: int, at: int, head: bytes, marks: bytes, mac: bytes
) -> LedgerCheckpoint:
    return LedgerCheckpoint(seq, boot, at, bytes(head), bytes(marks), bytes(mac))


def _match_span(events: list[LedgerEvent], match_id: str) -> tuple[int, int]:
    """The seqs of a match's own events: from its ``match`` event (whose
    (boot, seq) name the match: host/referee/shadow.py) to the event before the next
    match accepted, or the last event carried."""
    tail = match_id.rsplit("-", 1)[-1]
    first = int(tail) if tail.isdigit() else 0
    last = first
    for e in sorted(events, key=lambda e: e.seq):
        if e.seq <= first:
            continue
        try:
            body = cbor2.loads(e.body) if e.body is not None else {}
        except Exception:
            body = {}
        if isinstance(body, dict) and body.get(0) == _MATCH and -2 not in body:
            break
        last = e.seq
    return first, last
