"""A day's takings against the tables' signed record (``baulk verify --day``,
and the owner's page): docs/LEDGER.md, "What the owner can check".

For every bill of the business day:

1. every match the session's events belong to is verified against the
   device's checkpoints (host/referee/verify.py): a bill built on events
   that fail is **flagged**;
2. the frames and minutes in play are worked again from those signed event
   bodies alone, by the daemon's own shadow referee and store writer in a
   store of their own, and the bill worked out again with them: every figure
   that differs from the bill the store gives is a finding;
3. every difference between the bill's total and what it charged must be a
   correction in ``bill_corrections`` with a name and a reason, and with its
   row in the activity log (made through the desk, not written into the file).

A bill it cannot cover says why: no key for its table, events not signed
yet (a frame in play), a match the store does not hold.  Table time itself
is the PC's clock, which no table signs: it is checked against nothing.
"""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from baulk.host.club import bills, daily
from baulk.host.club.clock import Stamp
from baulk.host.club.money import Amount
from baulk.host.club.tariffs import Billing
from baulk.host.referee.verify import (
    Finding,
    LedgerError,
    LedgerEvent,
    anchor_mac_of,
    read_key,
    replayed_store,
    verify_store,
)
from baulk.host.sentences import Message, say
from baulk.host.staff import activity
from baulk.host.store import StoreReader, money_chain

# The figures of a bill worked out again from the signed events: words of
# the catalogue's context ``figure``.
COMPARED = ("frames_played", "play_s", "minutes_in_play", "time_total", "frames_total", "charged")
# What each kind of tampering the signed record finds (host/referee/verify.py
# Finding) means, as the owner reads it: words of the catalogue's context
# ``tampered`` (host/sentences.py NAMED).  A finding's ``detail`` keeps the
# verifier's own English for `baulk verify --day`.
TAMPERED = {
    "forged": "a checkpoint's signature is wrong",
    "changed": "an event was changed after the table signed it",
    "deleted": "an event the table signed was deleted",
    "inserted": "an event was added that the table did not sign",
    "edited": "an event's stored fields do not match the signed event",
    "unsigned": "events were stored without the table's signature",
    "report": "the match report does not match the table's signed events",
}
TAMPERED_OTHER = "the match record does not match the table's signed record"


def _said(message: Message) -> dict[str, str]:
    """A sentence of the check in both languages, from its one message."""
    return {"text": say(message, "en"), "text_fa": say(message, "fa")}


@dataclass
class Keys:
    """The device keys, per table: a folder of TABLE.key files, or the
    simulated tables' known key for every table (baulk demo, the tests)."""

    folder: Path | None = None
    everyone: bytes | None = None
    cache: dict[str, bytes | None] = field(default_factory=dict)

    def key_for(self, table_id: str) -> bytes | None:
        if self.everyone is not None:
            return self.everyone
        if table_id not in self.cache:
            path = self.folder / f"{table_id}.key" if self.folder is not None else None
            try:
                self.cache[table_id] = read_key(path) if path and path.is_file() else None
            except LedgerError:
                self.cache[table_id] = None
        return self.cache[table_id]


def keys_from(folder: Path | None, sim_key: bool) -> Keys:
    if sim_key:
        from baulk.firmware.sim.board import SIM_KEY

        return Keys(everyone=bytes.fromhex(SIM_KEY))
    if folder is None:
        raise ValueError(
            Message(
                "no device keys to check with: set [verify] keys to a folder of TABLE.key files"
            )
        )
    return Keys(folder=folder)


def _matches_in(reader: StoreReader, session: dict[str, Any]) -> list[str]:
    upto = session["close_event_id"] or reader.newest_event_id()
    rows = reader.db.execute(
        "SELECT DISTINCT match_id FROM events WHERE table_id = ? AND id > ? AND id <= ? "
        "AND match_id IS NOT NULL ORDER BY match_id",
        (session["table_id"], session["open_event_id"], upto),
    )
    return [str(r[0]) for r in rows]


def _venue_ids(reader: StoreReader, table_id: str) -> dict[tuple[int, int], int]:
    rows = reader.db.execute("SELECT boot_id, seq, id FROM events WHERE table_id = ?", (table_id,))
    return {(int(b), int(s)): int(i) for b, s, i in rows}


def _replayed_frames(
    reader: StoreReader, session: dict[str, Any], match_id: str, events: list[LedgerEvent]
) -> list[dict[str, Any]]:
    """The session's frames of one match as the signed events make them,
    chosen by the same rule as the store's (host/store/queries.py
    session_frames), with the venue's event ids."""
    table = session["table_id"]
    ids = _venue_ids(reader, table)
    opened = session["open_event_id"]
    upto = session["close_event_id"] or reader.newest_event_id()
    out: list[dict[str, Any]] = []
    with replayed_store(table, events) as replay:
        db = replay.db
        key_of = {int(i): (int(b), int(s)) for i, b, s in db.execute(
            "SELECT id, boot_id, seq FROM events"
        )}  # fmt: skip
        players_row = db.execute(
            "SELECT players FROM matches WHERE match_id = ?", (match_id,)
        ).fetchone()
        # The names the bill charges are the venue's, corrected at the desk
        # (its annotation, as the store's own session_frames reads them).
        players = reader.name_fix(match_id) or (json.loads(players_row[0]) if players_row else None)
        rows = db.execute(
            "SELECT frame, start_id, start_t, end_id, end_t, winner FROM frame_play "
            "WHERE match_id = ? ORDER BY start_id",
            (match_id,),
        ).fetchall()
        for frame, start_id, start_t, end_id, end_t, winner in rows:
            start = ids.get(key_of.get(int(start_id), (-1, -1)))
            end = ids.get(key_of.get(int(end_id), (-1, -1))) if end_id is not None else None
            if start is None or start > upto:
                continue
            ended_in = end is not None and opened < end <= upto
            running = start > opened and (end is None or end > upto)
            if not (ended_in or running):
                continue
            finished = end is not None and end <= upto
            if not finished:
                end_t = _last_t(db, key_of, ids, match_id, int(frame), upto)
            # A frame begun before the session opened counts from its newest
            # event then (the store's rule: host/store/club_queries.py).
            open_t = (
                _last_t(db, key_of, ids, match_id, int(frame), opened) if start <= opened else None
            )
            out.append(
                {
                    "match_id": match_id,
                    "frame": int(frame),
                    "start_t": start_t,
                    "end_t": end_t,
                    "open_t": open_t,
                    "winner": winner if finished else None,
                    "finished": finished,
                    "players": players,
                    "_start": start,
                }
            )
    return out


def _last_t(
    db: Any,
    key_of: dict[int, tuple[int, int]],
    ids: dict[tuple[int, int], int],
    match_id: str,
    frame: int,
    upto: int,
) -> int | None:
    rows = db.execute(
        "SELECT id, ev FROM events WHERE match_id = ? AND frame = ? AND rejected IS NULL "
        "ORDER BY id DESC",
        (match_id, frame),
    )
    for i, ev in rows:
        venue = ids.get(key_of.get(int(i), (-1, -1)))
        if venue is not None and venue <= upto and ev:
            t = json.loads(ev).get("t")
            return t if isinstance(t, int) and not isinstance(t, bool) else None
    return None


# The routes that append a row to bill_corrections (host/web/desk.py): a
# correction, a refund, and the take-back of either.
_CORRECTING = (
    "/api/sessions/{session}/corrections",
    "/api/sessions/{session}/refunds",
    "/api/sessions/{session}/corrections/{correction}/reverse",
)


def _corrections_logged(reader: StoreReader, session_id: int) -> int:
    """The bill's corrections, refunds and take-backs the activity log
    holds, by the names it gives those routes."""
    actions = sorted({activity.action_of("POST", route, None) for route in _CORRECTING})
    marks = ",".join("?" * len(actions))
    row = reader.db.execute(
        f"SELECT count(*) FROM staff_activity WHERE session_id = ? AND action IN ({marks}) "
        "AND result = 'done'",
        (session_id, *actions),
    ).fetchone()
    return int(row[0])


def _money_sentence(f: money_chain.MoneyFinding) -> dict[str, str]:
    """A money finding as the owner reads it: its bill, its row (a word of
    the catalogue's context ``money row``), what happened."""
    kind, row, sid = f.row_kind, f.row_id, f.session_id
    if f.kind == "changed":
        said = Message(
            "{row_kind} {row_id} of bill {bill} was changed in the store: "
            "it was {was}, it is {now}",
            row_kind=kind,
            row_id=row,
            bill=sid,
            was=f.was,
            now=f.now,
        )
    elif f.kind == "deleted":
        said = Message(
            "{row_kind} {row_id} of bill {bill} was deleted from the store",
            row_kind=kind,
            row_id=row,
            bill=sid,
        )
    elif f.kind == "inserted":
        said = Message(
            "{row_kind} {row_id} of bill {bill} is in the store but was never chained: "
            "written into the file, not at the desk",
            row_kind=kind,
            row_id=row,
            bill=sid,
        )
    elif f.kind == "chain":
        said = Message(
            "the money chain's entry {n} ({row_kind} {row_id} of bill {bill}) does not follow "
            "the one before: an entry was deleted, inserted or edited",
            n=f.n,
            row_kind=kind,
            row_id=row,
            bill=sid,
        )
    else:  # anchor
        said = Message(
            "the money rows up to entry {n} do not make the head the table signed: "
            "a row of bill {bill} among entries {first}–{n} was rewritten, and the chain with it",
            n=f.n,
            bill=sid,
            first=f.since + 1,
        )
    where = f"entries {f.since + 1}–{f.n}" if f.kind == "anchor" else f"{f.row_kind} {f.row_id}"
    return {"kind": f"money {f.kind}", "row": where, **_said(said)}


def _money_findings(money: money_chain.MoneyCheck, sid: int) -> list[dict[str, str]]:
    return [_money_sentence(f) for f in money.findings if f.session_id == sid]


def _unanchored(money: money_chain.MoneyCheck, sid: int) -> list[dict[str, str]]:
    if sid not in money.unanchored_sessions:
        return []
    said = Message(
        "some of bill {bill}'s money rows are after the newest head a table signed: chained, "
        "not yet anchored (a table whose firmware signs no heads anchors none)",
        bill=sid,
    )
    return [_said(said)]


def _tampered(match_id: str, f: Finding) -> dict[str, str]:
    """A finding of tampering: what its kind means, the event it is at when
    it is at one, and the verifier's own detail (``detail``, English)."""
    what = TAMPERED.get(f.kind, TAMPERED_OTHER)
    if f.seq is None:
        said = Message("match {match}: {tampered}", match=match_id, tampered=what)
    else:
        said = Message(
            "match {match}: {tampered} (event {seq})", match=match_id, tampered=what, seq=f.seq
        )
    return {"kind": "tampered", **_said(said), "detail": f"match {match_id}: {f.text}"}


def _uncovered(match_id: str, f: Finding) -> Message:
    """Events of a match its checkpoints do not sign yet (a frame in play)."""
    if f.seq is None:
        return Message(
            "match {match}: some events are not covered by a checkpoint yet", match=match_id
        )
    return Message(
        "match {match}: events from {seq} on are not covered by a checkpoint yet "
        "(the device signs at every frame's end)",
        match=match_id,
        seq=f.seq,
    )


def check_bill(
    reader: StoreReader,
    bill: dict[str, Any],
    keys: Keys,
    now: Stamp,
    money: money_chain.MoneyCheck | None = None,
) -> dict[str, Any]:
    """One bill against the signed record: its status (verified, differs,
    flagged, uncovered) and each finding as a sentence.  ``money``: the
    money rows' chain checked once for the day (:func:`check_day`)."""
    sid = bill["session_id"]
    session = reader.session(sid)
    findings: list[dict[str, str]] = []
    if money is not None:
        findings += _money_findings(money, sid)
    uncovered: list[Message] = []
    flagged = False
    assert session is not None
    key = keys.key_for(session["table_id"])
    frames: list[dict[str, Any]] = []
    if key is None:
        uncovered.append(
            Message("there is no device key for table {table}", table=session["table_id"])
        )
    else:
        for match_id in _matches_in(reader, session):
            try:
                verdict = verify_store(reader, match_id, key)
            except LedgerError:  # the store holds no ledger of it
                uncovered.append(
                    Message(
                        "match {match}: it could not be checked against the table's signed record",
                        match=match_id,
                    )
                )
                continue
            for f in verdict.findings:
                if f.kind == "uncovered":
                    uncovered.append(_uncovered(match_id, f))
                else:
                    flagged = True
                    findings.append(_tampered(match_id, f))
            ledger = reader.ledger(match_id) or {"events": []}
            events = [
                LedgerEvent(e["seq"], e["boot_id"], e["body"], e)
                for e in ledger["events"]
                if e["body"] is not None
            ]
            frames += _replayed_frames(reader, session, match_id, events)
    if key is not None and not uncovered:
        frames.sort(key=lambda f: f.pop("_start"))
        fixes = reader.corrections([sid])[sid]
        again = bills.work_out(session, frames, fixes, now, reader.items([sid])[sid])
        for k in COMPARED:
            if again[k] != bill[k]:
                differs = Message(
                    "the bill's {figure} is {billed}; the tables' signed events make {made}",
                    figure=k,
                    billed=bill[k],
                    made=again[k],
                )
                findings.append({"kind": "differs", **_said(differs)})
    # every difference from what was charged: an audited correction
    corrections = bill["corrections"]
    for c in corrections:
        if not c["who"] or not str(c["reason"] or "").strip():
            nobody = Message(
                "correction {correction} ({amount}) names nobody or no reason",
                correction=c["id"],
                amount=Amount(c["amount"], bill["currency"]),
            )
            findings.append({"kind": "unaudited", **_said(nobody)})
    logged = _corrections_logged(reader, sid)
    if len(corrections) > logged:
        unlogged = Message(
            "{n} corrections in the store, {logged} in the activity log: "
            "some were not made through the desk",
            n=len(corrections),
            logged=logged,
        )
        findings.append({"kind": "unaudited", **_said(unlogged)})
    if flagged or any(f["kind"].startswith("money ") for f in findings):
        status = "flagged"
    elif findings:
        status = "differs"
    elif uncovered:
        status = "uncovered"
    else:
        status = "verified"
    return {
        "session_id": sid,
        "table_id": bill["table_id"],
        "opened_by": bill["opened_by"],
        "closed_by": bill["closed_by"],
        "total": bill["total"],
        "charged": bill["charged"],
        "currency": bill["currency"],
        "status": status,
        "findings": findings,
        "uncovered": [say(m, "en") for m in uncovered],
        "uncovered_fa": [say(m, "fa") for m in uncovered],
        "unanchored": _unanchored(money, sid) if money is not None else [],
    }


def check_day(
    reader: StoreReader, billing: Billing, day: date, keys: Keys, now: Stamp
) -> dict[str, Any]:
    with reader.snapshot():  # the bills, their money rows and events at one moment
        bills_of_day = daily.day_bills(reader, billing, day, now)
        money = money_chain.check(reader.db, anchors(reader, keys))
        checked = [check_bill(reader, b, keys, now, money) for b in bills_of_day]
        checked += _bills_gone(reader, billing, day, money, {b["session_id"] for b in checked})
    counts: dict[str, int] = {}
    for c in checked:
        counts[c["status"]] = counts.get(c["status"], 0) + 1
    return {"day": day.isoformat(), "bills": checked, "counts": counts}


def anchors(reader: StoreReader, keys: Keys) -> list[money_chain.Anchor]:
    """The money heads the tables signed, each anchor's MAC checked with its
    table's key: one that fails, or a table without a key, anchors nothing."""
    out = []
    rows = reader.db.execute(
        "SELECT table_id, boot_id, seq, at_seq, head, money_n, money, money_mac "
        "FROM checkpoints WHERE money_n IS NOT NULL ORDER BY id"
    )
    for table, boot, seq, at, head, n, money, mac in rows:
        key = keys.key_for(table)
        if key is None or money is None or mac is None:
            continue
        made = anchor_mac_of(key, int(at), int(boot), bytes(head), int(n), bytes(money))
        if hmac.compare_digest(made, bytes(mac)):
            out.append(money_chain.Anchor(table, int(n), bytes(money), int(seq)))
    return out


def _bills_gone(
    reader: StoreReader,
    billing: Billing,
    day: date,
    money: money_chain.MoneyCheck,
    listed: set[int],
) -> list[dict[str, Any]]:
    """The bills the day's list does not show (a session's own row deleted,
    or moved to another day; a bill no session row names), flagged with
    their findings: found by the opening the chain holds for them, or by
    the times of their rows."""
    lo, hi = daily.day_bounds(day, billing)
    opened = money_chain.opened(reader.db)
    out = []
    for sid in sorted({f.session_id for f in money.findings} - listed):
        was = opened.get(sid)
        if was is not None:
            on_day = lo <= int(was["opened_wall_ms"]) < hi
        else:  # a bill no chained opening names (a row moved to it): by its rows' own times
            times = [f.wall_ms for f in money.findings if f.session_id == sid]
            on_day = any(t is not None and lo <= t < hi for t in times)
        if not on_day:
            continue
        out.append(
            {
                "session_id": sid,
                "table_id": was["table_id"] if was else None,
                "opened_by": was["opened_by"] if was else None,
                "closed_by": None,
                "total": None,
                "charged": None,
                "currency": None,
                "status": "flagged",
                "findings": _money_findings(money, sid),
                "uncovered": [],
                "uncovered_fa": [],
                "unanchored": [],
            }
        )
    return out
