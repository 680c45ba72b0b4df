"""What the club's pages and papers share: their words in English and Persian,
dates (Gregorian in English, Solar Hijri in Persian, jdatetime), durations,
and CSV cells no spreadsheet runs as formulas.  host/club/receipts.py writes
a bill out, host/club/daily.py the daily report.

Names (players, tables, items, reasons, operators) stay as they were typed:
where a sentence holds one, it is a part of its own (``{"name": ...}``), so
a page can isolate it for bidi (<bdi>) and a printer can wrap it in Unicode
isolates.
"""

from __future__ import annotations

import csv
import functools
import io
import re
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import jdatetime

from baulk.host.club import money
from baulk.host.sentences import keyed_words

LANGS = ("en", "fa")
# The receipts' and the daily report's words: the one catalogue's entries
# receipt:KEY.
TEXT: dict[str, dict[str, str]] = keyed_words("receipt")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")
Part = str | dict[str, str]  # a piece of a sentence: text, or {"name": what a person typed}


def say(lang: str, key: str, **values: Any) -> str:
    """A sentence of TEXT; numbers in ``values`` take the language's digits
    (amounts come already written, money.fmt)."""
    shown = {k: num(v, lang) if isinstance(v, int) else v for k, v in values.items()}
    return TEXT[lang][key].format(**shown)


def num(n: int, lang: str) -> str:
    return money.persian_digits(str(n)) if lang == "fa" else str(n)


def duration(seconds: int, lang: str) -> str:
    """Seconds as a receipt prints time in play: "12 min 5 s"."""
    return say(lang, "duration", m=seconds // 60, s=seconds % 60)


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
def zone(tz: str) -> ZoneInfo:
    return ZoneInfo(tz)


@functools.lru_cache(maxsize=1024)
def jalali(day: date) -> tuple[int, int, int]:
    """The Solar Hijri date of a Gregorian day (jdatetime), once per day."""
    j = jdatetime.date.fromgregorian(date=day)
    return int(j.year), int(j.month), int(j.day)


def gregorian(year: int, month: int, day: int) -> date:
    """The Gregorian day of a Solar Hijri date; ValueError when there is no
    such day (Esfand has 29 days but in a leap year)."""
    g = jdatetime.date(year, month, day).togregorian()
    return date(g.year, g.month, g.day)


def persian_months() -> list[str]:
    return list(jdatetime.date.j_months_fa)


@functools.lru_cache(maxsize=4096)
def _day_text(day: date, lang: str, short: bool) -> str:
    if lang == "fa":
        y, m, d = jalali(day)
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
    local = datetime.fromtimestamp(ms / 1000, zone(tz))
    hm = f"{local.hour:02d}:{local.minute:02d}"
    if lang == "fa":
        hm = money.persian_digits(hm)
    if not with_date:
        return hm
    sep = "، " if lang == "fa" else ", "
    return _day_text(local.date(), lang, True) + sep + hm


def day_label(day: date, lang: str) -> str:
    return _day_text(day, lang, False)


def csv_when(ms: int | None, tz: str, lang: str) -> str:
    """Dates in a CSV: sortable text with Latin digits (Solar Hijri in Persian)."""
    if ms is None:
        return ""
    local = datetime.fromtimestamp(ms / 1000, zone(tz))
    if lang == "fa":
        y, m, d = jalali(local.date())
        return f"{y}/{m:02d}/{d:02d} {local.hour:02d}:{local.minute:02d}"
    return local.strftime("%Y-%m-%d %H:%M")


def csv_cell(value: Any) -> str:
    """A CSV cell that no spreadsheet runs as a formula: text starting with
    = + - @ (or a tab or carriage return) gets a leading apostrophe.  A
    plain number (a negative correction, say) is left a number."""
    text = "" if value is None else str(value)
    if text.startswith(_FORMULA) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def to_csv(rows: list[list[Any]]) -> str:
    out = io.StringIO()
    w = csv.writer(out)
    for row in rows:
        w.writerow([csv_cell(v) for v in row])
    return out.getvalue()
