"""A table session's bill, worked out from what the store holds and nothing
else: the session's stamps and marks (host/club/clock.py; a close, a reopen,
a void), the frames played in it with the device's own times and who lost
each (``frame_play``, a projection of the stored events, with the names as
corrected at the desk), the tariff it opened under, the items sold onto it,
and the desk's corrections and refunds.  The same session always gives the
same bill.

The model, which every receipt prints (docs/BILLING.md, "How a bill is made"):

* **Table time** is the session's length by the PC's monotonic clock,
  rounded up to the tariff's step and raised to its minimum: whole minutes.
  Minute *i* of them begins *i* minutes after the session opened and is
  charged at the rate in force at that moment (peak or off-peak, the
  venue's local time), so the minutes fall into stretches of whole minutes
  and each stretch is charged ``per_hour x minutes / 60``, rounded half up
  to the minor unit.  That is the line the receipt prints: its minutes, its
  rate and its amount.
* **Frames**: every frame finished in the session costs ``per_frame``.
* **Time in play** is counted in whole seconds by the device's clock, from
  a frame's first stroke (or from the session's open, for a frame begun
  before it) to the event that ended it, and never adds up to more than the
  table time.
* **Loser pays**: each finished frame's loser pays its price and a share of
  the table time in proportion to the frame's seconds in play (equal shares
  when none has any).  Each share is the exact proportion rounded down; the
  minor units left over go one each to the frames with the largest
  fractions left, the earlier frame first when two are equal (the largest
  remainder method: every share is within one unit of its exact proportion,
  and the shares add up to the table time exactly).  With no finished frame
  the table pays.
* **Items** sold onto the bill are ``price x quantity``; the table pays them.
* **Corrections** (+ or -) and **refunds** (-) are added after, each with
  its reason and who made it; a reversal takes one back by adding its
  opposite.  The bill as worked out stays as it was.
* A **void** keeps every line and adds one that takes the whole total off.

The lines add up to the total exactly, and so do the payers' amounts.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from baulk.host.club.clock import Stamp, elapsed_ms
from baulk.host.club.tariffs import Tariff
from baulk.host.sides import names_of

MINUTE_MS = 60_000
HOUR_MS = 3_600_000
DAY_MIN = 24 * 60


@dataclass(frozen=True)
class Stretch:
    """Billed minutes at one rate: ``minutes`` whole minutes from ``start_ms``
    (the wall clock)."""

    start_ms: int
    minutes: int
    per_hour: int
    peak: bool

    @property
    def end_ms(self) -> int:
        return self.start_ms + self.minutes * MINUTE_MS


_TARIFFS: dict[int, tuple[dict[str, Any], Tariff]] = {}


def tariff_of(data: dict[str, Any]) -> Tariff:
    """The Tariff of a session's stored tariff; the store's reader hands the
    sessions of one read the same dict per tariff, so each is built once."""
    hit = _TARIFFS.get(id(data))
    if hit is not None and hit[0] is data:
        return hit[1]
    if len(_TARIFFS) > 256:
        _TARIFFS.clear()
    tariff = Tariff.from_json(data)
    _TARIFFS[id(data)] = (data, tariff)  # holding the dict keeps its id from being reused
    return tariff


def billable_minutes(open_ms: int, tariff: Tariff) -> int:
    """Table time as charged: rounded up to the step, at least the minimum."""
    step_ms = tariff.round_min * MINUTE_MS
    steps = -(-open_ms // step_ms)
    return max(steps * tariff.round_min, tariff.minimum_min)


def line_amount(per_hour: int, minutes: int) -> int:
    """``per_hour x minutes / 60``, rounded half up, in whole numbers."""
    return (2 * per_hour * minutes + 60) // 120


@functools.lru_cache(maxsize=64)
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def _next_edge(local: datetime, minute: int, edges: list[int]) -> int:
    """The wall-clock ms of the first of ``edges`` (minutes of the local day)
    after ``local``, or of the next midnight."""
    edge = min([e for e in edges if e > minute] + [DAY_MIN])
    into_day = local.hour * HOUR_MS + local.minute * MINUTE_MS + local.second * 1000
    midnight_ms = int(local.timestamp() * 1000) - local.microsecond // 1000 - into_day
    guess = midnight_ms + edge * MINUTE_MS
    there = datetime.fromtimestamp(guess / 1000, local.tzinfo)
    if (there.hour * 60 + there.minute) % DAY_MIN == edge % DAY_MIN:
        return guess
    # A clock change (summer time) lies before the edge: count in local time.
    midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
    return int((midnight + timedelta(minutes=edge)).timestamp() * 1000)


def stretches(start_ms: int, minutes: int, tariff: Tariff) -> list[Stretch]:
    """The billed minutes from ``start_ms``, each at the rate in force when
    it begins, in stretches of one rate (cut where a peak begins or ends, or
    the day turns).  Work in proportion to the rate changes, not the minutes."""
    if minutes <= 0:
        return []
    if not tariff.peaks:
        return [Stretch(start_ms, minutes, tariff.per_hour, False)]
    tz = _zone(tariff.timezone)
    out: list[Stretch] = []
    i = 0
    while i < minutes:
        at = start_ms + i * MINUTE_MS
        local = datetime.fromtimestamp(at / 1000, tz)
        minute = local.hour * 60 + local.minute
        day = local.weekday()
        edges: list[int] = []
        rate, peak = tariff.per_hour, False
        for p in tariff.peaks:
            if day in p.days:
                edges += (p.start_min, p.end_min)
                if p.start_min <= minute < p.end_min:
                    rate, peak = p.per_hour, True
        # The first minute that begins at or after the next edge.
        j = -(-(_next_edge(local, minute, edges) - start_ms) // MINUTE_MS)
        j = min(max(j, i + 1), minutes)
        if out and out[-1].per_hour == rate and out[-1].peak == peak:
            last = out[-1]
            out[-1] = Stretch(last.start_ms, last.minutes + j - i, rate, peak)
        else:
            out.append(Stretch(at, j - i, rate, peak))
        i = j
    return out


def shares(total: int, weights: list[int]) -> list[int]:
    """``total`` split in proportion to ``weights`` (equal when all are 0):
    each share rounded down, the units left over one each to the largest
    fractions, the earlier first when equal.  They add up to ``total``."""
    n = len(weights)
    if not n:
        return []
    if sum(weights) <= 0:
        weights = [1] * n
    whole = sum(weights)
    parts = [total * w // whole for w in weights]
    left = total - sum(parts)
    by_fraction = sorted(range(n), key=lambda i: (-(total * weights[i] % whole), i))
    for i in by_fraction[:left]:
        parts[i] += 1
    return parts


def _play(frames: list[dict[str, Any]], table_s: int) -> list[dict[str, Any]]:
    """Each frame with its seconds in play inside the session: a frame begun
    before the session opened counts from the open (``open_t``, the device's
    time then), and all of them together never more than the table time."""
    left = table_s
    played = []
    for f in frames:
        names = names_of(f.get("players"), "?")
        start, stop = f.get("start_t"), f.get("end_t")
        open_t = f.get("open_t")
        if isinstance(open_t, int) and isinstance(start, int):
            start = max(start, open_t)
        ms = stop - start if isinstance(start, int) and isinstance(stop, int) else 0
        seconds = min(max(ms, 0) // 1000, left)
        left -= seconds
        winner = f.get("winner") if f.get("finished") else None
        played.append(
            {
                "match_id": f["match_id"],
                "frame": f["frame"],
                "players": names,
                "finished": bool(f.get("finished")),
                "winner": names[winner] if winner in (0, 1) else None,
                "loser": names[1 - winner] if winner in (0, 1) else None,
                "play_s": seconds,
                "share": 0,
                "frame_price": 0,
                "amount": 0,
                "payer": None,
            }
        )
    return played


def _rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Appended rows (corrections or items) with what took each back: a
    reversal names the row it reverses, and both leave the receipt."""
    reversed_by = {r["reverses"]: r["id"] for r in rows if r.get("reverses") is not None}
    out = []
    for r in rows:
        out.append(
            {
                **r,
                "reversed_by": reversed_by.get(r["id"]),
                "live": r.get("reverses") is None and r["id"] not in reversed_by,
            }
        )
    return out


def work_out(
    session: dict[str, Any],
    frames: list[dict[str, Any]],
    corrections: list[dict[str, Any]],
    now: Stamp | None = None,
    items: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The bill of one session (a ``table_sessions`` row as the store reads
    it, with its marks), its frames, corrections and items.  ``now`` times a
    session still open (a running bill)."""
    tariff = tariff_of(session["tariff"])
    opened = Stamp(session["opened_wall_ms"], session["opened_mono_ms"], session["opened_boot"])
    is_open = session["closed_wall_ms"] is None
    if is_open:
        end = now or opened
    else:
        end = Stamp(session["closed_wall_ms"], session["closed_mono_ms"], session["closed_boot"])
    open_ms, clock = elapsed_ms(opened, end)

    # Table time, in stretches of whole minutes at one rate.
    lines: list[dict[str, Any]] = []
    billed_min = 0
    time_total = 0
    if tariff.per_hour or tariff.peaks:
        billed_min = billable_minutes(open_ms, tariff)
        for s in stretches(opened.wall_ms, billed_min, tariff):
            amount = line_amount(s.per_hour, s.minutes)
            lines.append(
                {
                    "kind": "time",
                    "from_ms": s.start_ms,
                    "to_ms": s.end_ms,
                    "minutes": s.minutes,
                    "per_hour": s.per_hour,
                    "peak": s.peak,
                    "amount": amount,
                }
            )
            time_total += amount

    # Frames, and who lost each.
    played = _play(frames, open_ms // 1000)
    finished = [p for p in played if p["finished"]]
    frames_total = tariff.per_frame * len(finished)
    if tariff.per_frame and finished:
        lines.append(
            {
                "kind": "frames",
                "count": len(finished),
                "per_frame": tariff.per_frame,
                "amount": frames_total,
            }
        )
    charged = time_total + frames_total

    # Who pays the table time and the frames.
    payers: dict[str | None, int] = {None: 0}
    loser_pays = tariff.loser_pays and bool(finished)
    time_shares = shares(time_total, [p["play_s"] for p in finished]) if loser_pays else []
    for i, p in enumerate(finished):
        p["frame_price"] = tariff.per_frame
        p["share"] = time_shares[i] if loser_pays else 0
        p["amount"] = p["share"] + p["frame_price"]
        if loser_pays:
            p["payer"] = p["loser"]
            payers[p["loser"]] = payers.get(p["loser"], 0) + p["amount"]
    if not loser_pays:
        payers[None] = charged

    # Items sold onto the bill: the table pays them.
    sold = _rows(items or [])
    for it in sold:
        it["amount"] = it["price"] * it["quantity"]
        if it["live"]:
            lines.append(
                {
                    "kind": "item",
                    "id": it["id"],
                    "item": it["item"],
                    "item_fa": it["item_fa"],
                    "price": it["price"],
                    "quantity": it["quantity"],
                    "amount": it["amount"],
                }
            )
    items_total = sum(it["amount"] for it in sold)
    payers[None] += items_total

    # Corrections, refunds and their reversals.
    fixes = _rows(
        [
            {
                "id": c["id"],
                "at_ms": c["created_wall_ms"],
                "who": c["who"],
                "amount": c["amount"],
                "payer": c["payer"],
                "reason": c["reason"],
                "kind": c.get("kind") or "correction",
                "reverses": c.get("reverses"),
            }
            for c in corrections
        ]
    )
    for c in fixes:
        payers[c["payer"]] = payers.get(c["payer"], 0) + c["amount"]
        if c["live"]:
            lines.append(
                {
                    "kind": c["kind"],
                    "id": c["id"],
                    "reason": c["reason"],
                    "payer": c["payer"],
                    "amount": c["amount"],
                }
            )
    refunds = sum(c["amount"] for c in fixes if c["kind"] == "refund")
    corrections_total = sum(c["amount"] for c in fixes) - refunds
    total = charged + items_total + corrections_total + refunds

    marks = session.get("marks") or []
    void = None  # the last void, unless a later mark undid it (the owner's)
    for m in marks:
        if m["kind"] == "void":
            void = m
        elif m["kind"] == "unvoid":
            void = None
    if void is not None:
        lines.append({"kind": "void", "reason": void["reason"], "amount": -total})
        void = {"who": void["who"], "at_ms": void["wall_ms"], "reason": void["reason"]}
        void["total_before"] = total
        total = 0
        payers = {None: 0}
    # Changes whenever the desk changes the session: a tap made on an older
    # view is refused (host/club/sessions.py, "the table changed").
    confirmed = int(session["confirmed_wall_ms"] is not None)
    version = f"{len(marks)}.{len(fixes)}.{len(sold)}.{confirmed}"
    return {
        "session_id": session["id"],
        "table_id": session["table_id"],
        "open": is_open,
        "state": "void" if void else "open" if is_open else "closed",
        "version": version,
        "how": session["how"],
        "opened_by": session["opened_by"],
        "confirmed": session["how"] != "auto" or session["confirmed_wall_ms"] is not None,
        "closed_by": None if is_open else session["closed_by"],
        "voided_by": void["who"] if void else None,
        "close_reason": None if is_open else session["close_reason"],
        "tariff": tariff.name,
        "currency": tariff.currency,
        "loser_pays": tariff.loser_pays,
        "timezone": tariff.timezone,
        "opened_ms": opened.wall_ms,
        # When it closed, as the clock that timed it says: a wall clock set
        # forward or back meanwhile moves neither this nor the bill.
        "closed_ms": None if is_open else opened.wall_ms + open_ms,
        "clock": clock,
        "open_ms": open_ms,
        "minutes_open": open_ms // MINUTE_MS,
        "billed_minutes": billed_min,
        "play_s": sum(p["play_s"] for p in played),
        "minutes_in_play": sum(p["play_s"] for p in played) // 60,
        "frames_played": len(finished),
        "frames": played,
        "lines": lines,
        "time_total": time_total,
        "frames_total": frames_total,
        "charged": charged,
        "items": sold,
        "items_total": items_total,
        "corrections": fixes,
        "corrections_total": corrections_total,
        "refunds_total": refunds,
        "total": total,
        "payers": [{"payer": k, "amount": v} for k, v in payers.items() if k is None or v],
        "marks": [
            {k: m[k] for k in ("kind", "wall_ms", "who", "reason")}
            for m in marks
            if m["kind"] != "close" or m["reason"] != "void"
        ],
        "void": void,
    }
