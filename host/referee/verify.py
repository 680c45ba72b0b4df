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
* a frame that ended with no checkpoint after it is a deleted checkpoint
  (the device signs at every frame's end), never merely "not covered yet";
* the report is rebuilt from the verified bodies by the same shadow referee,
  store and report code the daemon uses, and compared field by field:
  scores, progressions, breaks, each frame's ball accounting, each player's
  statistics, the result.  Only the host's own clock times are not the
  table's to sign.  What the venue adds on top (corrected names) is carried
  as its annotation, listed in the verdict and never taken for the table's.

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
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cbor2

from baulk.firmware import names
from baulk.host.referee import reports
from baulk.host.referee.name_fixes import annotated_report
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

    # forged, changed, deleted, inserted, edited, unsigned, report: tampering;
    # uncovered: not signed yet; annotation: the venue's, listed, not the table's
    kind: str
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
        return any(f.kind not in NOT_TAMPERING for f in self.findings)

    @property
    def annotations(self) -> list[Finding]:
        return [f for f in self.findings if f.kind == "annotation"]

    @property
    def status(self) -> int:
        if self.tampered:
            return TAMPERED
        return UNCOVERED if any(f.kind == "uncovered" for f in self.findings) else VERIFIED

    def as_dict(self) -> dict[str, Any]:
        return {
            "match": self.match_id,
            "verified": self.status == VERIFIED,
            "events": self.events,
            "checkpoints": self.checkpoints,
            "findings": [f.as_dict() for f in self.findings if f.kind != "annotation"],
            "annotations": [f.as_dict() for f in self.annotations],
        }


NOT_TAMPERING = ("uncovered", "annotation")
MOST_REPORT_FINDINGS = 50  # a report rebuilt from another record differs everywhere


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


def anchor_mac_of(key: bytes, at: int, boot: int, head: bytes, money_n: int, money: bytes) -> bytes:
    """A checkpoint's anchor MAC, as the device makes it (firmware/journal.py):
    the checkpoint's place (at, boot, head) and the money chain's head after
    ``money_n`` rows (SPEC.md 7.8, "Anchors")."""
    msg = at.to_bytes(4, "big") + boot.to_bytes(4, "big") + head
    msg += money_n.to_bytes(4, "big") + money
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
    frame_ends: Iterable[int] = (),
    on_its_way: int | None = None,
) -> set[int]:
    """Walk the chain over ``events`` from checkpoint to checkpoint; add what
    does not hold to ``verdict``.  ``first``..``last`` are the seqs that must be
    covered; ``frame_ends`` the seqs of the events that ended a frame, each of
    which the device signed with a checkpoint, its very next record.  A frame
    end at ``on_its_way`` (the newest record a live store holds) may have its
    checkpoint on its way: not signed *yet*, uncovered rather than unsigned.
    Returns the seqs of the events proven to be the device's."""
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
    unsigned = sorted(
        s
        for s in frame_ends
        if s > prev_at and first <= s <= last and (on_its_way is None or s < on_its_way)
    )
    for seq in unsigned:
        verdict.findings.append(
            Finding(
                "unsigned",
                f"event {seq} ended a frame, but no checkpoint signs it (the device signs "
                "at every frame's end): a checkpoint was deleted, or the record was cut",
                seq=seq,
            )
        )
    if rest and not unsigned:
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
# What a report says that the table did not sign: the times of the host's own
# clock (when its store received an event), and the venue's annotations.
HOST_TIMES = {
    ("match", "started_ms"),
    ("match", "ended_ms"),
    ("frames", "ended_ms"),
    ("breaks", "ended_ms"),
}
NOT_SIGNED = ("ledger", "annotations")


def signed_content(report: dict[str, Any]) -> dict[str, Any]:
    """A report without what the table does not sign."""
    out: dict[str, Any] = {}
    for part, value in report.items():
        if part in NOT_SIGNED:
            continue
        if isinstance(value, dict):
            value = {k: v for k, v in value.items() if (part, k) not in HOST_TIMES}
        elif isinstance(value, list):
            value = [
                {k: v for k, v in x.items() if (part, k) not in HOST_TIMES}
                if isinstance(x, dict)
                else x
                for x in value
            ]
        out[part] = value
    return out


def differences(said: Any, made: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """Where two JSON values differ: (path, said, made), outermost first."""
    if isinstance(said, dict) and isinstance(made, dict):
        out = []
        for k in sorted(set(said) | set(made), key=str):
            out += differences(said.get(k), made.get(k), f"{path}.{k}" if path else str(k))
        return out
    if isinstance(said, list) and isinstance(made, list) and len(said) == len(made):
        out = []
        for i, (x, y) in enumerate(zip(said, made, strict=True)):
            out += differences(x, y, f"{path}[{i + 1}]")
        return out
    return [] if said == made else [(path, said, made)]


@dataclass
class Replay:
    """What the device's events make: the report, the events that ended a
    frame (each signed by a checkpoint on the device), and the match's rows
    of every projection the store keeps."""

    report: dict[str, Any] | None
    frame_ends: list[int]
    rows: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)


# The store's projections of a match, which its pages, reports and bills are
# read from, and the columns of each that the table's events do not decide:
# the host's clock, and row ids of the host's own store.
PROJECTIONS: dict[str, tuple[str, ...]] = {
    "matches": ("started_ms", "ended_ms"),
    "frames": ("ended_ms",),
    "breaks": ("id", "ended_ms"),
    "match_players": ("started_ms",),
    "player_frames": (),
    "player_fouls": (),
    "frame_accounts": (),
    "frame_play": ("start_id", "end_id"),
}


def projection_rows(db: sqlite3.Connection, match_id: str) -> dict[str, list[tuple[Any, ...]]]:
    """Each projection's rows of one match, without the host's own columns."""
    out = {}
    for table, skip in PROJECTIONS.items():
        columns = [r[1] for r in db.execute(f"PRAGMA table_info({table})") if r[1] not in skip]
        listed = ", ".join(columns)
        rows = db.execute(
            f"SELECT {listed} FROM {table} WHERE match_id = ? ORDER BY {listed}", (match_id,)
        ).fetchall()
        out[table] = [tuple(bytes(v) if isinstance(v, memoryview) else v for v in r) for r in rows]
    return out


def check_projections(
    stored: dict[str, list[tuple[Any, ...]]], again: Replay, verdict: Verdict
) -> None:
    """The store's projection rows of the match against those its events make."""
    for table, made in again.rows.items():
        have = stored.get(table, [])
        extra = [r for r in have if r not in made]
        missing = [r for r in made if r not in have]
        for r in extra[:10]:
            verdict.findings.append(
                Finding(
                    "report",
                    f"the store's {table} holds {_short(list(r))}, which the "
                    "device's events do not make",
                )
            )
        for r in missing[:10]:
            verdict.findings.append(
                Finding(
                    "report",
                    f"the store's {table} lacks {_short(list(r))}, which the device's events make",
                )
            )


def replayed_report(
    table_id: str, match_id: str, events: list[LedgerEvent]
) -> dict[str, Any] | None:
    """The report the device's events make, by the daemon's own shadow
    referee, store writer and report code, in a store of its own."""
    return replay(table_id, match_id, events).report


def replay(table_id: str, match_id: str, events: list[LedgerEvent]) -> Replay:
    # Their warnings on a tampered record (the shadow's alerts, a repeat the
    # store drops) are for a daemon's log; here the findings say it.
    quiet = [logging.getLogger(n) for n in ("baulk.shadow", "baulk.store")]
    levels = [q.level for q in quiet]
    for q in quiet:
        q.setLevel(logging.ERROR)
    try:
        return _replay(table_id, match_id, events)
    finally:
        for q, level in zip(quiet, levels, strict=True):
            q.setLevel(level)


def _replay(table_id: str, match_id: str, events: list[LedgerEvent]) -> Replay:
    with replayed_store(table_id, events) as reader:
        report = reports.build(reader, match_id)
        projected = projection_rows(reader.db, match_id)
        frame_ends = frame_ends_of(reader, match_id)
    # As the API serves it (JSON), so that both sides compare alike.
    made = json.loads(json.dumps(report)) if report is not None else None
    return Replay(made, frame_ends, projected)


def frame_ends_of(reader: StoreReader, match_id: str) -> list[int]:
    """The seqs of the events that ended each of the match's frames, as the
    replayed store's ``frame_play`` holds them (the device signed each)."""
    rows = reader.db.execute(
        "SELECT e.seq FROM frame_play f JOIN events e ON e.id = f.end_id "
        "WHERE f.match_id = ? AND f.end_id IS NOT NULL ORDER BY e.seq",
        (match_id,),
    ).fetchall()
    return [int(r[0]) for r in rows]


@contextlib.contextmanager
def replayed_store(table_id: str, events: list[LedgerEvent]) -> Iterator[StoreReader]:
    """A store of its own holding what the device's event bodies make, by
    the daemon's own shadow referee and store writer (its matches, frames,
    the players' figures and ``frame_play``; each event keeps its boot and
    seq), for as long as the ``with`` lasts."""
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


def check_report(report: dict[str, Any], again: Replay, verdict: Verdict) -> None:
    """Every field of the report the table's events decide, against what
    those events make; the venue's annotations listed apart."""
    made = again.report
    if made is None:
        verdict.findings.append(
            Finding("report", f"the device's events hold no match {verdict.match_id}")
        )
        return
    fix = (report.get("annotations") or {}).get("names")
    if fix is not None:
        try:
            made = annotated_report(made, fix)
        except (KeyError, TypeError, ValueError, AttributeError):
            verdict.findings.append(Finding("report", "the report's name annotation is malformed"))
            return
        signed = made["annotations"]["names"]["signed"]
        if fix.get("signed") != signed:
            verdict.findings.append(
                Finding(
                    "report",
                    f"the annotation says the table recorded {fix.get('signed')!r}; "
                    f"the device's events hold {signed!r}",
                )
            )
        verdict.findings.append(
            Finding(
                "annotation",
                f"the venue corrected the names from {signed!r} to {fix.get('players')!r} "
                f"(by {fix.get('who') or 'an unnamed operator'}, at {fix.get('at_ms')}): "
                "the venue's record, not signed by the table",
            )
        )
    said = json.loads(json.dumps(report))
    found = differences(signed_content(said), signed_content(made))
    for path, x, y in found[:MOST_REPORT_FINDINGS]:
        verdict.findings.append(
            Finding(
                "report",
                f"the report's {path} is {_short(x)}; the device's events make {_short(y)}",
            )
        )
    if len(found) > MOST_REPORT_FINDINGS:
        verdict.findings.append(
            Finding("report", f"... and {len(found) - MOST_REPORT_FINDINGS} more differences")
        )


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=lambda b: b.hex())
    return text if len(text) <= 120 else text[:117] + "..."


# ---------------------------------------------------------------------- entry points
def verify_store(reader: StoreReader, match_id: str, key: bytes) -> Verdict:
    """A match's stored events (and the report the store gives of it)
    against the checkpoints the store holds, all read at one moment (a
    match in play goes on being stored meanwhile)."""
    with reader.snapshot():
        return _verify_store(reader, match_id, key)


def _stored_to(reader: StoreReader, table_id: str) -> int:
    """The newest seq of the table's device stream the store holds (its
    ``links`` row, written in the commit that stored it).  The device signs a
    frame's end in its very next record: while that is the newest, the
    checkpoint may be on its way (a store read during play)."""
    return reader.delivered(table_id)


def _verify_store(reader: StoreReader, match_id: str, key: bytes) -> Verdict:
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
    again = replay(stored["table"], match_id, events)
    ends = again.frame_ends
    newest = _stored_to(reader, stored["table"])
    check_chain(key, events, cps, first, last, verdict, ends, on_its_way=newest)
    check_columns(events, verdict)
    # The store's report is made from its projections (frames, breaks, the
    # players' figures, the ball accounting) and the venue's name fix.
    report = reports.build(reader, match_id)
    if report is not None:
        report = annotated_report(report, reader.name_fix_record(match_id))
        check_report(report, again, verdict)
    # Row by row too: a figure the report sums or takes the most of (a
    # player's frame, his fouls, the minutes a bill charges) may hide there.
    check_projections(projection_rows(reader.db, match_id), again, verdict)
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
    again = replay(table_id, match_id, events)
    check_chain(key, events, cps, first, last, verdict, again.frame_ends)
    check_report(report, again, verdict)
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
    first = int(tail) if tail.isascii() and tail.isdigit() else 0
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
