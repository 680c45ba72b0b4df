"""The daily report: every bill of the sessions opened on a business day, each
table's totals and the venue's, amounts per currency (tables may be priced
in different ones); and its CSV.

The totals are sums of the numbers each bill prints (its whole minutes of
table time, its whole minutes in play), so every column of the CSV adds up:
the venue's row is the sum of the sessions' rows above it, and a table's or
the venue's minutes and frames are written once, on its first currency's row.
A void session is counted with its table time; its money columns add up to
0 with the void column taking its total off.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from baulk.host.club import bills, money
from baulk.host.club.clock import Stamp
from baulk.host.club.tariffs import Billing
from baulk.host.club.views import LANGS, TEXT, csv_when, day_label, jalali, to_csv, when, zone
from baulk.host.sentences import keyed_words
from baulk.host.store import StoreReader

# The money of a bill as the report adds it up, per currency (they add up to total).
MONEY = ("charged", "items", "corrections", "refunds", "void", "total")
# The columns, by their keys in the catalogue (``csv:day_KEY``), and the
# sessions' states (``csv:state_STATE``).
CSV_COLUMNS = (
    "session", "table", "opened", "closed", "state", "minutes_open", "minutes_billed",
    "minutes_in_play", "frames", "currency", *MONEY, "tariff", "opened_by", "closed_by",
)  # fmt: skip
_CSV = keyed_words("csv")
CSV_HEADERS = {lang: [_CSV[lang][f"day_{c}"] for c in CSV_COLUMNS] for lang in LANGS}
_STATE = {lang: {s: _CSV[lang][f"state_{s}"] for s in ("open", "closed", "void")} for lang in LANGS}


def day_bounds(day: date, billing: Billing) -> tuple[int, int]:
    """The business day as wall-clock ms: from ``day_starts`` to the next."""
    tz = zone(billing.timezone)
    start = datetime(day.year, day.month, day.day, tzinfo=tz) + timedelta(
        minutes=billing.day_start_min
    )
    end = datetime.combine(day + timedelta(days=1), datetime.min.time(), tz) + timedelta(
        minutes=billing.day_start_min
    )
    return int(start.timestamp() * 1000), int(end.timestamp() * 1000)


def business_day(ms: int, billing: Billing) -> date:
    local = datetime.fromtimestamp(ms / 1000, zone(billing.timezone))
    return (local - timedelta(minutes=billing.day_start_min)).date()


def day_bills(
    reader: StoreReader, billing: Billing, day: date, now: Stamp, table_id: str | None = None
) -> list[dict[str, Any]]:
    """Every bill of the sessions opened on that business day."""
    lo, hi = day_bounds(day, billing)
    sessions = reader.sessions_opened(lo, hi, table_id)
    ids = [s["id"] for s in sessions]
    frames = reader.session_frames(sessions)
    fixes = reader.corrections(ids)
    items = reader.items(ids)
    return [
        bills.work_out(s, frames[s["id"]], fixes[s["id"]], now, items[s["id"]]) for s in sessions
    ]


def money_of(b: dict[str, Any]) -> dict[str, int]:
    """A bill's money as the report's columns: they add up to its total."""
    void = -b["void"]["total_before"] if b["void"] else 0
    return {
        "charged": b["charged"],
        "items": b["items_total"],
        "corrections": b["corrections_total"],
        "refunds": b["refunds_total"],
        "void": void,
        "total": b["total"],
    }


def _totals() -> dict[str, Any]:
    return {
        "sessions": 0,
        "voided": 0,
        "minutes_open": 0,
        "minutes_billed": 0,
        "minutes_in_play": 0,
        "frames": 0,
        "money": {},
    }


def _add(t: dict[str, Any], b: dict[str, Any]) -> None:
    t["sessions"] += 1
    t["voided"] += b["state"] == "void"
    t["minutes_open"] += b["minutes_open"]
    t["minutes_billed"] += b["billed_minutes"]
    t["minutes_in_play"] += b["minutes_in_play"]
    t["frames"] += b["frames_played"]
    m = t["money"].setdefault(b["currency"], dict.fromkeys(MONEY, 0))
    for k, v in money_of(b).items():
        m[k] += v


def day_report(
    reader: StoreReader,
    billing: Billing,
    day: date,
    now: Stamp,
    names: dict[str, str],
    table_id: str | None = None,
) -> dict[str, Any]:
    """The daily report: each table's sessions and totals, and the venue's."""
    day_of = day_bills(reader, billing, day, now, table_id)
    tables: dict[str, dict[str, Any]] = {}
    venue = _totals()
    for b in day_of:
        t = tables.setdefault(
            b["table_id"],
            {"table": b["table_id"], "name": names.get(b["table_id"], b["table_id"]), **_totals()},
        )
        _add(t, b)
        _add(venue, b)
    lo, hi = day_bounds(day, billing)
    y, m, d = jalali(day)
    return {
        "day": day.isoformat(),
        "jalali": {"year": y, "month": m, "day": d},
        "from_ms": lo,
        "to_ms": hi,
        "timezone": billing.timezone,
        "label": {lang: day_label(day, lang) for lang in LANGS},
        "tables": [tables[k] for k in sorted(tables)],
        "venue": venue,
        "bills": day_of,
    }


def formatted_totals(t: dict[str, Any], lang: str) -> list[dict[str, str]]:
    """A totals block's amounts as a language writes them, per currency."""
    return [
        {
            "currency": money.currency_name(cur, lang),
            **{k: money.fmt(m[k], cur, lang) for k in MONEY},
        }
        for cur, m in sorted(t["money"].items())
    ]


def bill_summary(bill: dict[str, Any], lang: str) -> dict[str, str]:
    """A bill's row of the daily report, as one language writes it."""
    tz = bill["timezone"]
    closed = when(bill["closed_ms"], tz, lang) if not bill["open"] else ""
    return {
        "opened": when(bill["opened_ms"], tz, lang),
        "closed": closed or TEXT[lang]["still_open"],
        "total": money.fmt(bill["total"], bill["currency"], lang),
        "items": money.fmt(bill["items_total"], bill["currency"], lang),
    }


def formatted_report(report: dict[str, Any], lang: str) -> dict[str, Any]:
    """Every amount and date of a daily report written out in one language."""
    return {
        "lang": lang,
        "venue": formatted_totals(report["venue"], lang),
        "tables": {t["table"]: formatted_totals(t, lang) for t in report["tables"]},
        "bills": {str(b["session_id"]): bill_summary(b, lang) for b in report["bills"]},
    }


def day_csv(report: dict[str, Any], lang: str) -> str:
    rows: list[list[Any]] = [CSV_HEADERS[lang]]
    states = _STATE[lang]
    for b in report["bills"]:
        cur = b["currency"]
        rows.append(
            [
                b["session_id"],
                b["table_id"],
                csv_when(b["opened_ms"], b["timezone"], lang),
                csv_when(b["closed_ms"], b["timezone"], lang),
                states.get(b["state"], b["state"]),
                b["minutes_open"],
                b["billed_minutes"],
                b["minutes_in_play"],
                b["frames_played"],
                cur,
                *(money.plain(v, cur) for v in money_of(b).values()),
                b["tariff"],
                b["opened_by"] or "",
                b["closed_by"] or "",
            ]
        )
    rows.append([])
    for t in [*report["tables"], {"table": TEXT[lang]["venue"], **report["venue"]}]:
        for i, (cur, m) in enumerate(sorted(t["money"].items())):
            first = i == 0  # minutes and frames once, not again on each currency's row
            rows.append(
                [
                    TEXT[lang]["total"],
                    t["table"],
                    "",
                    "",
                    "",
                    t["minutes_open"] if first else "",
                    t["minutes_billed"] if first else "",
                    t["minutes_in_play"] if first else "",
                    t["frames"] if first else "",
                    cur,
                    *(money.plain(m[k], cur) for k in MONEY),
                ]
            )
    return to_csv(rows)
