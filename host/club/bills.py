"""A table session's bill, worked out from what the store holds and nothing
else: the session's two stamps (host/club/clock.py), the frames played in it with
the device's own times and who lost each (``frame_play``, a projection of
the stored events), the tariff it opened under and the operator's
corrections.  The same session always gives the same bill.

How a bill is made (docs/BILLING.md):

* **Table time** is the session's length by the PC's monotonic clock, rounded
  up to the tariff's step and raised to its minimum.  Those billable minutes
  are laid on the calendar from the moment the session opened, in the
  venue's time zone, and each stretch is priced at the rate of its hour:
  peak or off-peak.
* **Frames**: every frame finished in the session costs ``per_frame``.
* **Loser pays**: each frame's price goes to the player who lost it, and the
  table time is shared out over the finished frames in proportion to their
  minutes in play (the device's clock), each share to that frame's loser.
  With no finished frame the table pays.
* **Corrections** are added after, each with its reason; the bill as worked
  out stays as it was.

Amounts are minor units of the tariff's currency (host/club/money.py); each line
is rounded half up, and the totals are sums of lines.
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
    """Billable time at one rate: [start_ms, end_ms) of the wall clock."""

    start_ms: int
    end_ms: int
    per_hour: int
    peak: bool


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
    """The billable minutes from ``start_ms`` cut where the rate changes
    (a peak begins or ends, or the day turns), local time."""
    tz = _zone(tariff.timezone)
    end = start_ms + minutes * MINUTE_MS
    if not tariff.peaks:
        return [Stretch(start_ms, end, tariff.per_hour, False)] if end > start_ms else []
    out: list[Stretch] = []
    pos = start_ms
    while pos < end:
        local = datetime.fromtimestamp(pos / 1000, tz)
        minute = local.hour * 60 + local.minute
        day = local.weekday()
        edges: list[int] = []
        rate, peak = tariff.per_hour, False
        for p in tariff.peaks:
            if day in p.days:
                edges += (p.start_min, p.end_min)
                if p.start_min <= minute < p.end_min:
                    rate, peak = p.per_hour, True
        nxt = min(end, _next_edge(local, minute, edges))
        if nxt <= pos:  # a clock change folded the edge back: take a minute
            nxt = min(end, pos + MINUTE_MS)
        if out and out[-1].per_hour == rate and out[-1].peak == peak and out[-1].end_ms == pos:
            out[-1] = Stretch(out[-1].start_ms, nxt, rate, peak)
        else:
            out.append(Stretch(pos, nxt, rate, peak))
        pos = nxt
    return out


def _share(total: int, weights: list[int]) -> list[int]:
    """``total`` split in proportion to ``weights`` (equal when all are 0),
    rounded down, the remainder to the last."""
    if not weights:
        return []
    if sum(weights) <= 0:
        weights = [1] * len(weights)
    whole = sum(weights)
    parts = [total * w // whole for w in weights]
    parts[-1] += total - sum(parts)
    return parts


def work_out(
    session: dict[str, Any],
    frames: list[dict[str, Any]],
    corrections: list[dict[str, Any]],
    now: Stamp | None = None,
) -> dict[str, Any]:
    """The bill of one session (a ``table_sessions`` row as the store reads
    it), with its frames and corrections.  ``now`` times a session still
    open (a running bill)."""
    tariff = tariff_of(session["tariff"])
    cur = tariff.currency
    opened = Stamp(session["opened_wall_ms"], session["opened_mono_ms"], session["opened_boot"])
    is_open = session["closed_wall_ms"] is None
    if is_open:
        end = now or opened
    else:
        end = Stamp(session["closed_wall_ms"], session["closed_mono_ms"], session["closed_boot"])
    open_ms, clock = elapsed_ms(opened, end)

    # Table time.
    lines: list[dict[str, Any]] = []
    billed_min = 0
    time_total = 0
    if tariff.per_hour or tariff.peaks:
        billed_min = billable_minutes(open_ms, tariff)
        for s in stretches(opened.wall_ms, billed_min, tariff):
            # rate x time, rounded half up, in whole numbers (exact, and quick)
            amount = (2 * s.per_hour * (s.end_ms - s.start_ms) + HOUR_MS) // (2 * HOUR_MS)
            lines.append(
                {
                    "kind": "time",
                    "from_ms": s.start_ms,
                    "to_ms": s.end_ms,
                    "minutes": (s.end_ms - s.start_ms) // MINUTE_MS,
                    "per_hour": s.per_hour,
                    "peak": s.peak,
                    "amount": amount,
                }
            )
            time_total += amount

    # Frames, and who lost each.
    played = []
    play_ms = 0
    for f in frames:
        names = names_of(f.get("players"), "?")
        start, stop = f.get("start_t"), f.get("end_t")
        ms = stop - start if isinstance(start, int) and isinstance(stop, int) else 0
        ms = max(ms, 0)
        play_ms += ms
        winner = f.get("winner") if f.get("finished") else None
        loser = names[1 - winner] if winner in (0, 1) else None
        played.append(
            {
                "match_id": f["match_id"],
                "frame": f["frame"],
                "players": names,
                "finished": bool(f.get("finished")),
                "winner": names[winner] if winner in (0, 1) else None,
                "loser": loser,
                "play_ms": ms,
                "amount": 0,
                "payer": None,
            }
        )
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

    # Who pays what.
    payers: dict[str | None, int] = {None: 0}
    if tariff.loser_pays and finished:
        time_shares = _share(time_total, [p["play_ms"] for p in finished])
        for p, share in zip(finished, time_shares, strict=True):
            p["amount"] = share + tariff.per_frame
            p["payer"] = p["loser"]
            payers[p["loser"]] = payers.get(p["loser"], 0) + p["amount"]
    else:
        payers[None] = charged
        for p in finished:
            p["amount"] = tariff.per_frame
    fixes = []
    for c in corrections:
        fixes.append(
            {
                "id": c["id"],
                "at_ms": c["created_wall_ms"],
                "who": c["who"],
                "amount": c["amount"],
                "payer": c["payer"],
                "reason": c["reason"],
            }
        )
        payers[c["payer"]] = payers.get(c["payer"], 0) + c["amount"]
    total = charged + sum(c["amount"] for c in corrections)
    return {
        "session_id": session["id"],
        "table_id": session["table_id"],
        "open": is_open,
        "how": session["how"],
        "opened_by": session["opened_by"],
        "confirmed": session["how"] != "auto" or session["confirmed_wall_ms"] is not None,
        "closed_by": session["closed_by"],
        "close_reason": session["close_reason"],
        "tariff": tariff.name,
        "currency": cur,
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
        "play_ms": play_ms,
        "minutes_in_play": play_ms // MINUTE_MS,
        "frames_played": len(finished),
        "frames": played,
        "lines": lines,
        "charged": charged,
        "corrections": fixes,
        "total": total,
        "payers": [{"payer": k, "amount": v} for k, v in payers.items() if k is None or v],
    }
