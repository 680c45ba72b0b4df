"""Table sessions and their tariffs in the config: ``[billing]`` and
``[[tariff]]`` (docs/BILLING.md has the whole story).

```toml
[billing]
timezone = "Asia/Tehran"   # where tariff hours and days are counted (default: the PC's)
day_starts = "06:00"       # the daily report's day runs from here to here
auto_open = false          # open a session by itself at the first strike on an idle table
auto_close_min = 0         # close after N minutes with no strike once a frame is over (0: never)
idle_alert_min = 20        # alert when a table with a session open is idle this long
venue = "Baulk Club"       # printed at the top of every receipt

[[tariff]]
name = "standard"
tables = ["t1", "t2"]      # a group of tables; a tariff without tables is the default
currency = "IRT"           # an ISO 4217 code (GBP, EUR, INR, PKR, IRR, ...) or IRT, the toman
per_hour = 120000          # price of an hour of table time, off-peak
minimum_min = 30           # an hour tariff charges at least this many minutes
round_min = 5              # table time is rounded up to a whole number of these
per_frame = 0              # price of each frame played
loser_pays = false         # each frame's share is charged to the player who lost it

[[tariff.peak]]            # peak hours: their own price per hour
days = ["thu", "fri"]
from = "18:00"
to = "24:00"
per_hour = 180000

[[item]]                   # the price list the desk adds to a table's bill
name = "Tea"
name_fa = "چای"            # how the Persian desk and receipt call it (default: name)
price = 20000
currency = "IRT"           # default: the tariffs' currency, when they share one
```

Every value has a range (docs/BILLING.md, "What the config holds"), and
every mistake raises :class:`TariffError` with a sentence that names the key
(``tariff[0].per_hour``); ``baulk run`` stops before it touches a port.
Prices are read by host/club/money.py ``parse``: exact decimals, bounded
before any arithmetic.
"""

from __future__ import annotations

import contextlib
import math
import os
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from baulk.host import name_rules
from baulk.host.club import money, printing

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")  # datetime.weekday() order
_BILLING_KEYS = (
    "timezone",
    "day_starts",
    "auto_open",
    "auto_close_min",
    "idle_alert_min",
    "venue",
)
_TARIFF_KEYS = (
    "name",
    "tables",
    "currency",
    "per_hour",
    "minimum_min",
    "round_min",
    "per_frame",
    "loser_pays",
    "peak",
)
_PEAK_KEYS = ("days", "from", "to", "per_hour")
_ITEM_KEYS = ("name", "name_fa", "price", "currency")
MAX_MINUTES = 24 * 60
# The ranges of the whole numbers (docs/BILLING.md has the table).
MINIMUM_MOST = MAX_MINUTES  # minimum_min: at most a day
ROUND_MOST = 60  # round_min: at most an hour's step
WATCH_MOST = MAX_MINUTES  # auto_close_min, idle_alert_min
NAME_BYTES = name_rules.NAME_BYTES  # a tariff's or an item's name, as a player's (UTF-8)
VENUE_CHARS = 80
ITEMS_MOST = 60
TARIFFS_MOST = 64
PEAKS_MOST = 28  # four a day


class TariffError(ValueError):
    """The billing config cannot be used; the message names the key."""


@dataclass(frozen=True)
class Peak:
    """Peak hours on some weekdays: [start_min, end_min) of the day, local time."""

    days: tuple[int, ...]
    start_min: int
    end_min: int
    per_hour: int  # minor units


@dataclass(frozen=True)
class Tariff:
    name: str
    currency: str
    tables: tuple[str, ...] = ()  # empty: the default tariff
    per_hour: int = 0  # minor units, off-peak
    minimum_min: int = 0
    round_min: int = 1
    per_frame: int = 0  # minor units
    loser_pays: bool = False
    peaks: tuple[Peak, ...] = ()
    timezone: str = "UTC"  # where its hours are counted (the venue's)

    def rate_at(self, weekday: int, minute: int) -> int:
        """Price per hour (minor units) at a local weekday and minute of the day."""
        for p in self.peaks:
            if weekday in p.days and p.start_min <= minute < p.end_min:
                return p.per_hour
        return self.per_hour

    def to_json(self) -> dict[str, Any]:
        """What a session keeps of the tariff it opened under: a later change
        of the config changes no bill already running."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tariff:
        peaks = tuple(
            Peak(tuple(p["days"]), p["start_min"], p["end_min"], p["per_hour"])
            for p in data.get("peaks", ())
        )
        return cls(
            name=data["name"],
            currency=data["currency"],
            tables=tuple(data.get("tables", ())),
            per_hour=data.get("per_hour", 0),
            minimum_min=data.get("minimum_min", 0),
            round_min=data.get("round_min", 1),
            per_frame=data.get("per_frame", 0),
            loser_pays=bool(data.get("loser_pays", False)),
            peaks=peaks,
            timezone=data.get("timezone", "UTC"),
        )


@dataclass(frozen=True)
class Item:
    """Something the desk sells onto a table's bill (a drink, a snack, cue hire)."""

    name: str
    name_fa: str
    price: int  # minor units of ``currency``
    currency: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Billing:
    timezone: str = "UTC"
    day_start_min: int = 0
    auto_open: bool = False
    auto_close_min: int = 0  # 0: never
    idle_alert_min: int = 20
    venue: str = ""
    tariffs: tuple[Tariff, ...] = field(default_factory=tuple)
    items: tuple[Item, ...] = field(default_factory=tuple)
    printer: printing.Printer | None = None

    def item(self, name: str) -> Item | None:
        return next((i for i in self.items if i.name == name), None)

    def tariff_for(self, table_id: str) -> Tariff | None:
        default = None
        for t in self.tariffs:
            if table_id in t.tables:
                return t
            if not t.tables:
                default = t
        return default


def local_timezone() -> str:
    """The PC's time zone by name (TZ, else /etc/localtime), UTC if unknown."""
    name = os.environ.get("TZ", "").lstrip(":")
    if not name:
        with contextlib.suppress(OSError):
            target = str(Path("/etc/localtime").resolve())
            if "zoneinfo/" in target:
                name = target.split("zoneinfo/", 1)[1]
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return "UTC"
    return name


def _unknown(section: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    extra = sorted(set(section) - set(allowed))
    if extra:
        raise TariffError(f"{where}: unknown key {extra[0]!r} (allowed: {', '.join(allowed)})")


def _clock(value: object, key: str, allow_24: bool) -> int:
    """'HH:MM' as minutes of the day."""
    if isinstance(value, str) and len(value) == 5 and value[2] == ":":
        hh, mm = value[:2], value[3:]
        if (hh + mm).isascii() and hh.isdigit() and mm.isdigit():  # a superscript is no digit
            minutes = int(hh) * 60 + int(mm)
            if int(mm) < 60 and (minutes < MAX_MINUTES or (allow_24 and minutes == MAX_MINUTES)):
                return minutes
    last = "24:00" if allow_24 else "23:59"
    raise TariffError(f"{key} must be a time 'HH:MM' from 00:00 to {last}, not {value!r}")


def _whole(
    section: dict[str, Any], name: str, key: str, default: int, least: int, most: int
) -> int:
    value = section.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TariffError(f"{key} must be a whole number, not {value!r}"[:160])
    if not least <= value <= most:
        shown = str(value) if abs(value) < 10**12 else "a number that long"
        raise TariffError(f"{key} must be from {least} to {most}, not {shown}")
    return value


def _price(section: dict[str, Any], name: str, key: str, currency: str, least: int = 0) -> int:
    """A price in the currency's major unit: a TOML number, read exactly."""
    value = section.get(name, 0)
    finite = not isinstance(value, (float, Decimal)) or math.isfinite(value)
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)) or not finite:
        raise TariffError(f"{key} must be a number, not {value!r}"[:160])
    if value < 0:
        raise TariffError(f"{key} must not be negative, not {value}"[:160])
    try:
        return money.parse(value, currency, least, money.MOST)
    except money.MoneyError as e:
        raise TariffError(f"{key} {e}") from None


def _label(value: object, key: str, default: str | None = None) -> str:
    """A name of the club's own (a tariff, an item): 1 to NAME_BYTES bytes
    under the rules for free text (host/name_rules.py): nothing invisible,
    no emoji a receipt cannot print, currency and maths signs allowed."""
    if value is None and default is not None:
        return default
    if not isinstance(value, str) or not value.strip():
        raise TariffError(f"{key} must be a name of 1 to {NAME_BYTES} bytes")
    text = value.strip()
    if len(text.encode()) > NAME_BYTES:
        raise TariffError(f"{key} must be a name of 1 to {NAME_BYTES} bytes")
    why = name_rules.problem(text, key, free_text=True)
    if why is not None or not any(c.isalnum() for c in text):
        raise TariffError(str(why) if why else f"{key} must hold a letter or a digit")
    return text


def _flag(section: dict[str, Any], name: str, key: str, default: bool) -> bool:
    value = section.get(name, default)
    if not isinstance(value, bool):
        raise TariffError(f"{key} must be true or false, not {value!r}")
    return value


def _peaks(raw: object, where: str, currency: str) -> tuple[Peak, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or len(raw) > PEAKS_MOST:
        raise TariffError(
            f"{where}.peak must be an array of at most {PEAKS_MOST} tables ([[tariff.peak]])"
        )
    peaks: list[tuple[str, Peak]] = []
    for j, p in enumerate(raw):
        key = f"{where}.peak[{j}]"
        if not isinstance(p, dict):
            raise TariffError(f"{key} must be a table")
        _unknown(p, _PEAK_KEYS, key)
        days = p.get("days")
        if (
            not isinstance(days, list)
            or not days
            or any(not isinstance(d, str) or d not in DAYS for d in days)
        ):
            raise TariffError(f"{key}.days must be a list of weekdays from {', '.join(DAYS)}")
        start = _clock(p.get("from"), f"{key}.from", allow_24=False)
        end = _clock(p.get("to"), f"{key}.to", allow_24=True)
        if end <= start:
            raise TariffError(
                f"{key}: 'to' must be later than 'from' on the same day "
                "(split hours past midnight into two peaks)"
            )
        if "per_hour" not in p:
            raise TariffError(f"{key}.per_hour is missing")
        rate = _price(p, "per_hour", f"{key}.per_hour", currency)
        peak = Peak(tuple(sorted({DAYS.index(d) for d in days})), start, end, rate)
        for other_key, other in peaks:
            shared = set(peak.days) & set(other.days)
            if shared and start < other.end_min and other.start_min < end:
                day = DAYS[min(shared)]
                lo, hi = max(start, other.start_min), min(end, other.end_min)
                raise TariffError(
                    f"{key} overlaps {other_key} on {day} from "
                    f"{lo // 60:02d}:{lo % 60:02d} to {hi // 60:02d}:{hi % 60:02d}"
                )
        peaks.append((key, peak))
    return tuple(p for _, p in peaks)


def _tariff(t: object, i: int, tables: set[str], timezone: str) -> Tariff:
    where = f"tariff[{i}]"
    if not isinstance(t, dict):
        raise TariffError(f"{where} must be a table")
    _unknown(t, _TARIFF_KEYS, where)
    name = _label(t.get("name"), f"{where}.name")
    currency = t.get("currency")
    if not money.known_currency(currency):
        raise TariffError(
            f"{where}.currency: unknown currency {currency!r} (an ISO 4217 code such as "
            "GBP, EUR, INR, PKR or IRR, or IRT for the toman)"
        )
    assert isinstance(currency, str)
    raw_tables = t.get("tables", [])
    if (
        not isinstance(raw_tables, list)
        or len(raw_tables) > 256
        or any(not isinstance(x, str) or len(x) > 64 for x in raw_tables)
    ):
        raise TariffError(f"{where}.tables must be a list of table ids")
    for tid in raw_tables:
        if tables and tid not in tables:
            raise TariffError(f"{where}.tables: {tid!r} is not a [[table]] of this config")
    tariff = Tariff(
        name=name,
        currency=currency,
        tables=tuple(raw_tables),
        per_hour=_price(t, "per_hour", f"{where}.per_hour", currency),
        minimum_min=_whole(t, "minimum_min", f"{where}.minimum_min", 0, 0, MINIMUM_MOST),
        round_min=_whole(t, "round_min", f"{where}.round_min", 1, 1, ROUND_MOST),
        per_frame=_price(t, "per_frame", f"{where}.per_frame", currency),
        loser_pays=_flag(t, "loser_pays", f"{where}.loser_pays", False),
        peaks=_peaks(t.get("peak"), where, currency),
        timezone=timezone,
    )
    if not tariff.per_hour and not tariff.per_frame and not tariff.peaks:
        raise TariffError(f"{where} charges nothing: give per_hour, per_frame or both")
    return tariff


def parse(data: dict[str, Any], tables: set[str] | None = None) -> Billing:
    """The ``[billing]`` section and the ``[[tariff]]`` array of a parsed
    config; ``tables`` are the configured table ids (a tariff may name only
    those).  Raises TariffError."""
    tables = tables or set()
    raw = data.get("billing", {})
    if not isinstance(raw, dict):
        raise TariffError("[billing] must be a table")
    _unknown(raw, _BILLING_KEYS, "billing")
    timezone = raw.get("timezone", None)
    if timezone is None:
        timezone = local_timezone()
    else:
        try:
            if not isinstance(timezone, str):
                raise ValueError
            ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise TariffError(
                f"billing.timezone: unknown time zone {timezone!r} (a name such as 'Asia/Tehran')"
            ) from None
    day_start = _clock(raw.get("day_starts", "00:00"), "billing.day_starts", allow_24=False)
    venue = raw.get("venue", "")
    if not isinstance(venue, str) or len(venue) > VENUE_CHARS:
        raise TariffError(
            f"billing.venue must be one line of printable text of at most {VENUE_CHARS} characters"
        )
    why = name_rules.problem(venue, "billing.venue", free_text=True)
    if why is not None:
        raise TariffError(str(why))
    raw_tariffs = data.get("tariff", [])
    if not isinstance(raw_tariffs, list) or len(raw_tariffs) > TARIFFS_MOST:
        raise TariffError(f"[[tariff]] entries must be an array of at most {TARIFFS_MOST} tables")
    tariffs = tuple(_tariff(t, i, tables, timezone) for i, t in enumerate(raw_tariffs))
    owner: dict[str, str] = {}
    defaults = []
    for i, t in enumerate(tariffs):
        if t.name in {x.name for x in tariffs[:i]}:
            raise TariffError(f"tariff[{i}].name: {t.name!r} is used twice")
        if not t.tables:
            defaults.append(i)
        for tid in t.tables:
            if tid in owner:
                raise TariffError(f"tariff[{i}].tables: {tid!r} already has tariff {owner[tid]!r}")
            owner[tid] = t.name
    if len(defaults) > 1:
        raise TariffError(
            f"tariff[{defaults[1]}]: only one tariff may leave out tables (the default)"
        )
    try:
        printer = printing.parse(data.get("printer"))
    except printing.PrinterError as e:
        raise TariffError(str(e)) from None
    return Billing(
        timezone=timezone,
        day_start_min=day_start,
        auto_open=_flag(raw, "auto_open", "billing.auto_open", False),
        auto_close_min=_whole(raw, "auto_close_min", "billing.auto_close_min", 0, 0, WATCH_MOST),
        idle_alert_min=_whole(raw, "idle_alert_min", "billing.idle_alert_min", 20, 1, WATCH_MOST),
        venue=venue.strip(),
        tariffs=tariffs,
        items=_items(data.get("item", []), tariffs),
        printer=printer,
    )


def _items(raw: object, tariffs: tuple[Tariff, ...]) -> tuple[Item, ...]:
    """The ``[[item]]`` price list.  An item is priced in one currency; the
    desk offers it on the tables whose tariff is in that currency."""
    if not isinstance(raw, list) or len(raw) > ITEMS_MOST:
        raise TariffError(f"[[item]] entries must be an array of at most {ITEMS_MOST} tables")
    currencies = sorted({t.currency for t in tariffs})
    out: list[Item] = []
    for i, entry in enumerate(raw):
        where = f"item[{i}]"
        if not isinstance(entry, dict):
            raise TariffError(f"{where} must be a table")
        _unknown(entry, _ITEM_KEYS, where)
        name = _label(entry.get("name"), f"{where}.name")
        name_fa = _label(entry.get("name_fa"), f"{where}.name_fa", default=name)
        currency = entry.get("currency")
        if currency is None and len(currencies) == 1:
            currency = currencies[0]
        if not money.known_currency(currency):
            raise TariffError(
                f"{where}.currency: unknown currency {currency!r}"[:120]
                + " (give the currency of the tariffs it is sold under)"
            )
        assert isinstance(currency, str)
        if "price" not in entry:
            raise TariffError(f"{where}.price is missing")
        price = _price(entry, "price", f"{where}.price", currency, least=1)
        if any(x.name == name for x in out):
            raise TariffError(f"{where}.name: {name!r} is used twice")
        out.append(Item(name, name_fa, price, currency))
    return tuple(out)
