"""Bills and the daily report as people read them: the receipt's lines and the
report's rows in English and Persian, and the CSV exports.

The numbers come from host/club/bills.py; here they get words, the currency's own
formatting (host/club/money.py, Babel) and dates: Gregorian in English, Solar
Hijri in Persian (jdatetime), with Persian digits.  Names (players, tables,
operators) stay as they were typed; the pages isolate them for bidi.
"""

from __future__ import annotations

import csv
import functools
import io
import re
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import jdatetime

from baulk.host.club import bills, money
from baulk.host.club.clock import Stamp
from baulk.host.club.tariffs import Billing
from baulk.host.store import StoreReader

LANGS = ("en", "fa")
TEXT: dict[str, dict[str, str]] = {
    "en": {
        "receipt": "Receipt",
        "session": "Session {n}",
        "table": "Table",
        "tariff": "Tariff",
        "opened": "Opened",
        "closed": "Closed",
        "still_open": "still open",
        "minutes_open": "Table time",
        "minutes_billed": "Charged as",
        "minutes_in_play": "In play",
        "frames_played": "Frames played",
        "minutes": "{n} min",
        "time_line": "Table time {a}–{b}, {n} min at {rate}/h",
        "peak": "peak",
        "off_peak": "off-peak",
        "frames_line": "{n} frames at {price}",
        "frame": "Frame {n}",
        "lost_by": "lost by",
        "unfinished": "unfinished, not charged",
        "charged": "Charged",
        "correction": "Correction",
        "total": "Total",
        "paid_by": "To pay",
        "the_table": "the table",
        "opened_by_itself": "opened by itself at the first stroke",
        "not_confirmed": "not confirmed at the desk",
        "closed_idle": "closed by itself after the last stroke",
        "clock_wall": "the PC restarted during this session: timed by its wall clock",
        "day_report": "Daily report",
        "venue": "Venue",
        "sessions": "Sessions",
        "corrections": "Corrections",
        "thanks": "Thank you",
    },
    "fa": {
        "receipt": "رسید",
        "session": "جلسهٔ {n}",
        "table": "میز",
        "tariff": "تعرفه",
        "opened": "شروع",
        "closed": "پایان",
        "still_open": "هنوز باز",
        "minutes_open": "زمان میز",
        "minutes_billed": "زمان محاسبه‌شده",
        "minutes_in_play": "زمان بازی",
        "frames_played": "فریم‌های بازی‌شده",
        "minutes": "{n} دقیقه",
        "time_line": "زمان میز {a} تا {b}، {n} دقیقه، ساعتی {rate}",
        "peak": "ساعت اوج",
        "off_peak": "ساعت عادی",
        "frames_line": "{n} فریم، هر فریم {price}",
        "frame": "فریم {n}",
        "lost_by": "بازنده",
        "unfinished": "ناتمام، بی‌هزینه",
        "charged": "مبلغ",
        "correction": "اصلاح",
        "total": "جمع کل",
        "paid_by": "پرداخت",
        "the_table": "میز",
        "opened_by_itself": "با اولین ضربه خودکار باز شد",
        "not_confirmed": "در پیشخوان تأیید نشده",
        "closed_idle": "پس از آخرین ضربه خودکار بسته شد",
        "clock_wall": "رایانه در این جلسه دوباره راه‌اندازی شد: زمان با ساعت رایانه",
        "day_report": "گزارش روزانه",
        "venue": "باشگاه",
        "sessions": "جلسه‌ها",
        "corrections": "اصلاح‌ها",
        "thanks": "سپاس",
    },
}
CSV_HEADERS = {
    "en": [
        "session",
        "table",
        "opened",
        "closed",
        "minutes_open",
        "minutes_billed",
        "minutes_in_play",
        "frames",
        "currency",
        "charged",
        "corrections",
        "total",
        "tariff",
        "opened_by",
        "closed_by",
    ],
    "fa": [
        "جلسه",
        "میز",
        "شروع",
        "پایان",
        "دقیقهٔ میز",
        "دقیقهٔ محاسبه‌شده",
        "دقیقهٔ بازی",
        "فریم",
        "واحد پول",
        "مبلغ",
        "اصلاح",
        "جمع",
        "تعرفه",
        "بازکننده",
        "بندنده",
    ],
}
_NUMBER = re.compile(r"-?\d+(\.\d+)?")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def say(lang: str, key: str, **values: Any) -> str:
    text = TEXT[lang][key].format(**values)
    return money.persian_digits(text) if lang == "fa" else text


_EN_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_EN_DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_EN_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_EN_MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


@functools.lru_cache(maxsize=64)
def _zone(tz: str) -> ZoneInfo:
    return ZoneInfo(tz)


@functools.lru_cache(maxsize=1024)
def _jalali(day: date) -> tuple[int, int, int]:
    """The Solar Hijri date of a Gregorian day (jdatetime), once per day."""
    j = jdatetime.date.fromgregorian(date=day)
    return int(j.year), int(j.month), int(j.day)


@functools.lru_cache(maxsize=4096)
def _day_text(day: date, lang: str, short: bool) -> str:
    if lang == "fa":
        y, m, d = _jalali(day)
        # jdatetime's tables: weekdays from Saturday, months from Farvardin
        weekday = jdatetime.date.j_weekdays_fa[(day.weekday() + 2) % 7]
        return money.persian_digits(f"{weekday} {d:02d} {jdatetime.date.j_months_fa[m - 1]} {y}")
    if short:
        return f"{_EN_DAYS[day.weekday()]} {day.day} {_EN_MONTHS[day.month - 1]} {day.year}"
    names = _EN_DAY_NAMES[day.weekday()], _EN_MONTH_NAMES[day.month - 1]
    return f"{names[0]} {day.day} {names[1]} {day.year}"


def when(ms: int | None, tz: str, lang: str, with_date: bool = True) -> str:
    """A moment as a receipt shows it: Gregorian in English, Solar Hijri in
    Persian with Persian digits."""
    if ms is None:
        return ""
    local = datetime.fromtimestamp(ms / 1000, _zone(tz))
    hm = f"{local.hour:02d}:{local.minute:02d}"
    if lang == "fa":
        hm = money.persian_digits(hm)
    if not with_date:
        return hm
    sep = "، " if lang == "fa" else ", "
    return _day_text(local.date(), lang, True) + sep + hm


def day_label(day: date, lang: str) -> str:
    return _day_text(day, lang, False)


def csv_cell(value: Any) -> str:
    """A CSV cell that no spreadsheet runs as a formula: text starting with
    = + - @ (or a tab or carriage return) gets a leading apostrophe.  A
    plain number (a negative correction, say) is left a number."""
    text = "" if value is None else str(value)
    if text.startswith(_FORMULA) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def _csv(rows: list[list[Any]]) -> str:
    out = io.StringIO()
    w = csv.writer(out)
    for row in rows:
        w.writerow([csv_cell(v) for v in row])
    return out.getvalue()


# ---------------------------------------------------------------------- one bill
def receipt(bill: dict[str, Any], table_name: str, venue: str) -> dict[str, Any]:
    """The receipt of a bill in both languages: plain strings, names apart."""
    cur = bill["currency"]
    tz = bill["timezone"]
    out: dict[str, Any] = {}
    for lang in LANGS:

        def amt(minor: int, lang: str = lang) -> str:
            return money.fmt(minor, cur, lang)

        def mins(n: int, lang: str = lang) -> str:
            return say(lang, "minutes", n=n)

        lines = []
        for line in bill["lines"]:
            if line["kind"] == "time":
                label = say(
                    lang,
                    "time_line",
                    a=when(line["from_ms"], tz, lang, False),
                    b=when(line["to_ms"], tz, lang, False),
                    n=line["minutes"],
                    rate=amt(line["per_hour"]),
                )
                if line["peak"]:
                    label += f" ({say(lang, 'peak')})"
            else:
                label = say(lang, "frames_line", n=line["count"], price=amt(line["per_frame"]))
            lines.append({"label": label, "amount": amt(line["amount"])})
        frames = []
        for f in bill["frames"]:
            frames.append(
                {
                    "label": say(lang, "frame", n=f["frame"]),
                    "minutes": mins(f["play_ms"] // bills.MINUTE_MS),
                    "loser": f["loser"],
                    "note": "" if f["finished"] else say(lang, "unfinished"),
                    "amount": amt(f["amount"]) if f["finished"] and f["amount"] else "",
                }
            )
        notes = []
        if bill["how"] == "auto":
            notes.append(say(lang, "opened_by_itself"))
            if not bill["confirmed"]:
                notes.append(say(lang, "not_confirmed"))
        if bill["close_reason"] == "idle":
            notes.append(say(lang, "closed_idle"))
        if bill["clock"] == "wall":
            notes.append(say(lang, "clock_wall"))
        out[lang] = {
            "title": say(lang, "receipt"),
            "session": say(lang, "session", n=bill["session_id"]),
            "venue": venue,
            "table": table_name,
            "tariff": bill["tariff"],
            "labels": {k: say(lang, k) for k in TEXT[lang] if "{" not in TEXT[lang][k]},
            "opened": when(bill["opened_ms"], tz, lang),
            "closed": when(bill["closed_ms"], tz, lang)
            if not bill["open"]
            else say(lang, "still_open"),
            "minutes_open": mins(bill["minutes_open"]),
            "minutes_billed": mins(bill["billed_minutes"]),
            "minutes_in_play": mins(bill["minutes_in_play"]),
            "frames_played": money.persian_digits(str(bill["frames_played"]))
            if lang == "fa"
            else str(bill["frames_played"]),
            "lines": lines,
            "frames": frames,
            "charged": amt(bill["charged"]),
            "corrections": [
                {
                    "reason": c["reason"],
                    "who": c["who"],
                    "payer": c["payer"],
                    "amount": amt(c["amount"]),
                }
                for c in bill["corrections"]
            ],
            "total": amt(bill["total"]),
            # The table's own share only when it has one (or nobody else does).
            "payers": [
                {"payer": p["payer"], "amount": amt(p["amount"])}
                for p in bill["payers"]
                if p["amount"] or len(bill["payers"]) == 1
            ],
            "notes": notes,
        }
    return out


def bill_csv(bill: dict[str, Any], lang: str) -> str:
    cur = bill["currency"]
    tz = bill["timezone"]
    rows: list[list[Any]] = [
        [say(lang, "session", n=bill["session_id"]), bill["table_id"], bill["tariff"], cur],
        [TEXT[lang]["opened"], _csv_when(bill["opened_ms"], tz, lang)],
        [TEXT[lang]["closed"], _csv_when(bill["closed_ms"], tz, lang)],
        [TEXT[lang]["minutes_open"], bill["minutes_open"]],
        [TEXT[lang]["minutes_billed"], bill["billed_minutes"]],
        [TEXT[lang]["minutes_in_play"], bill["minutes_in_play"]],
        [TEXT[lang]["frames_played"], bill["frames_played"]],
        [],
    ]
    for line in bill["lines"]:
        if line["kind"] == "time":
            rows.append(
                [
                    TEXT[lang]["peak" if line["peak"] else "off_peak"],
                    _csv_when(line["from_ms"], tz, lang),
                    _csv_when(line["to_ms"], tz, lang),
                    line["minutes"],
                    money.plain(line["per_hour"], cur),
                    money.plain(line["amount"], cur),
                ]
            )
        else:
            rows.append(
                [
                    TEXT[lang]["frames_played"],
                    line["count"],
                    money.plain(line["per_frame"], cur),
                    money.plain(line["amount"], cur),
                ]
            )
    for f in bill["frames"]:
        rows.append(
            [
                TEXT[lang]["frame"].format(n=f["frame"]),
                f["match_id"],
                f["play_ms"] // bills.MINUTE_MS,
                f["loser"] or "",
                money.plain(f["amount"], cur) if f["finished"] else "",
            ]
        )
    for c in bill["corrections"]:
        rows.append(
            [
                TEXT[lang]["correction"],
                money.plain(c["amount"], cur),
                c["payer"] or "",
                c["who"] or "",
                c["reason"],
            ]
        )
    rows.append([TEXT[lang]["total"], money.plain(bill["total"], cur)])
    for p in bill["payers"]:
        rows.append(
            [
                TEXT[lang]["paid_by"],
                p["payer"] or TEXT[lang]["the_table"],
                money.plain(p["amount"], cur),
            ]
        )
    return _csv(rows)


def _csv_when(ms: int | None, tz: str, lang: str) -> str:
    """Dates in a CSV: sortable text with Latin digits (Solar Hijri in Persian)."""
    if ms is None:
        return ""
    local = datetime.fromtimestamp(ms / 1000, ZoneInfo(tz))
    if lang == "fa":
        y, m, d = _jalali(local.date())
        return f"{y}/{m:02d}/{d:02d} {local.hour:02d}:{local.minute:02d}"
    return local.strftime("%Y-%m-%d %H:%M")


# ---------------------------------------------------------------------- the day
def day_bounds(day: date, billing: Billing) -> tuple[int, int]:
    """The business day as wall-clock ms: from ``day_starts`` to the next."""
    tz = ZoneInfo(billing.timezone)
    start = datetime(day.year, day.month, day.day, tzinfo=tz) + timedelta(
        minutes=billing.day_start_min
    )
    end = datetime.combine(day + timedelta(days=1), datetime.min.time(), tz) + timedelta(
        minutes=billing.day_start_min
    )
    return int(start.timestamp() * 1000), int(end.timestamp() * 1000)


def business_day(ms: int, billing: Billing) -> date:
    local = datetime.fromtimestamp(ms / 1000, ZoneInfo(billing.timezone))
    return (local - timedelta(minutes=billing.day_start_min)).date()


def day_bills(
    reader: StoreReader, billing: Billing, day: date, now: Stamp, table_id: str | None = None
) -> list[dict[str, Any]]:
    """Every bill of the sessions opened on that business day."""
    lo, hi = day_bounds(day, billing)
    sessions = reader.sessions_opened(lo, hi, table_id)
    frames = reader.session_frames(sessions)
    fixes = reader.corrections([s["id"] for s in sessions])
    return [bills.work_out(s, frames[s["id"]], fixes[s["id"]], now) for s in sessions]


def _totals() -> dict[str, Any]:
    return {
        "sessions": 0,
        "minutes_open": 0,
        "minutes_in_play": 0,
        "frames": 0,
        "money": {},
    }


def _add(t: dict[str, Any], b: dict[str, Any]) -> None:
    t["sessions"] += 1
    t["minutes_open"] += b["minutes_open"]
    t["minutes_in_play"] += b["minutes_in_play"]
    t["frames"] += b["frames_played"]
    m = t["money"].setdefault(b["currency"], {"charged": 0, "corrections": 0, "total": 0})
    m["charged"] += b["charged"]
    m["corrections"] += b["total"] - b["charged"]
    m["total"] += b["total"]


def day_report(
    reader: StoreReader,
    billing: Billing,
    day: date,
    now: Stamp,
    names: dict[str, str],
    table_id: str | None = None,
) -> dict[str, Any]:
    """The daily report: each table's sessions and totals, and the venue's
    (amounts per currency: tables may be priced in different ones)."""
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
    return {
        "day": day.isoformat(),
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
            "currency": cur,
            "charged": money.fmt(m["charged"], cur, lang),
            "corrections": money.fmt(m["corrections"], cur, lang),
            "total": money.fmt(m["total"], cur, lang),
        }
        for cur, m in sorted(t["money"].items())
    ]


def bill_summary(bill: dict[str, Any], lang: str) -> dict[str, str]:
    """A bill's row of the daily report, as one language writes it."""
    tz = bill["timezone"]
    return {
        "opened": when(bill["opened_ms"], tz, lang),
        "closed": when(bill["closed_ms"], tz, lang)
        if not bill["open"]
        else say(lang, "still_open"),
        "total": money.fmt(bill["total"], bill["currency"], lang),
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
    for b in report["bills"]:
        cur = b["currency"]
        rows.append(
            [
                b["session_id"],
                b["table_id"],
                _csv_when(b["opened_ms"], b["timezone"], lang),
                _csv_when(b["closed_ms"], b["timezone"], lang),
                b["minutes_open"],
                b["billed_minutes"],
                b["minutes_in_play"],
                b["frames_played"],
                cur,
                money.plain(b["charged"], cur),
                money.plain(b["total"] - b["charged"], cur),
                money.plain(b["total"], cur),
                b["tariff"],
                b["opened_by"] or "",
                b["closed_by"] or "",
            ]
        )
    rows.append([])
    for t in [*report["tables"], {"table": TEXT[lang]["venue"], **report["venue"]}]:
        for cur, m in sorted(t["money"].items()):
            rows.append(
                [
                    TEXT[lang]["total"],
                    t["table"],
                    "",
                    "",
                    t["minutes_open"],
                    "",
                    t["minutes_in_play"],
                    t["frames"],
                    cur,
                    money.plain(m["charged"], cur),
                    money.plain(m["corrections"], cur),
                    money.plain(m["total"], cur),
                ]
            )
    return _csv(rows)
