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

Each key is declared once, below, in its section's model
(host/settings_schema.py ``key``, pydantic as the rest of the config): its
type, its range, its default and its help, from which come the parsing, the
checks, and its row in docs/CONFIG.md.  The rules across keys (peaks that
overlap, a name used twice, a table with two tariffs) are the models'
validators.  Every mistake raises :class:`TariffError` with one sentence
that names the key (``tariff[0].per_hour must not be negative, not -5``);
``baulk run`` stops before it touches a port.  Prices are read by
host/club/money.py ``parse``: exact decimals, bounded before any arithmetic,
kept as whole minor units.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AfterValidator, Field, PlainValidator, ValidationError, model_validator

from baulk.host import name_rules
from baulk.host.club import money, printing
from baulk.host.settings_schema import Refused, Section, default_of, key, one_of, sentence, shown

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")  # datetime.weekday() order
MAX_MINUTES = 24 * 60
# The ranges of the whole numbers (docs/CONFIG.md has them all).
MINIMUM_MOST = MAX_MINUTES  # minimum_min: at most a day
ROUND_MOST = 60  # round_min: at most an hour's step
WATCH_MOST = MAX_MINUTES  # auto_close_min, idle_alert_min
NAME_BYTES = name_rules.NAME_BYTES  # a tariff's or an item's name, as a player's (UTF-8)
VENUE_CHARS = 80
ITEMS_MOST = 60
TARIFFS_MOST = 64
PEAKS_MOST = 28  # four a day
TABLES_MOST = 256  # the tables of one tariff
CURRENCIES = "an ISO 4217 code such as GBP, EUR, INR, PKR or IRR, or IRT for the toman"


class TariffError(ValueError):
    """The billing config cannot be used; the message names the key."""


# ---------------------------------------------------------------------- what a key holds
def minutes(text: str) -> int:
    """'HH:MM' (checked, :func:`_clock`) as minutes of the day."""
    return int(text[:2]) * 60 + int(text[3:])


def _clock(allow_24: bool) -> AfterValidator:
    """A time of day, 'HH:MM' (24:00: the end of the day, where allowed)."""

    def check(value: str) -> str:
        hh, mm = value[:2], value[3:]
        digits = len(value) == 5 and value[2] == ":" and (hh + mm).isascii()
        if not (digits and hh.isdigit() and mm.isdigit()):  # a superscript is no ASCII digit
            raise ValueError("not a time")
        at = minutes(value)
        if int(mm) >= 60 or at > MAX_MINUTES or (at == MAX_MINUTES and not allow_24):
            raise ValueError("not a time of the day")
        return value

    return AfterValidator(check)


def _clock_rule(allow_24: bool) -> str:
    return f"a time 'HH:MM' from 00:00 to {'24:00' if allow_24 else '23:59'}"


def _amount(value: object) -> int | Decimal | float:
    """A price as written, in the currency's major unit: a number (a TOML
    fraction is an exact decimal, config.py), not negative.  Its decimals and
    its bounds are the currency's (:func:`_minor`, in the section that says
    which currency)."""
    finite = (
        value.is_finite()
        if isinstance(value, Decimal)
        else not isinstance(value, float) or math.isfinite(value)
    )
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)) or not finite:
        raise Refused(f"must be a number, not {shown(value)}")
    if value < 0:
        raise Refused(f"must not be negative, not {shown(value)}")
    return value


Amount = Annotated[int | Decimal | float, PlainValidator(_amount)]


def _minor(value: int | Decimal | float, currency: str, name: str, least: int = 0) -> int:
    """A price in minor units (host/club/money.py ``parse``); a ValueError
    naming the key (``.per_hour ...``) when the currency cannot hold it."""
    try:
        return money.parse(value, currency, least, money.MOST)
    except money.MoneyError as e:
        raise ValueError(f".{name} {e}") from None


def _currency(code: str) -> str:
    if not money.known_currency(code):
        raise ValueError("not a currency")
    return code


Currency = Annotated[str, AfterValidator(_currency)]


def _name(value: str) -> str:
    """A name of the club's own (a tariff, an item): 1 to NAME_BYTES bytes
    under the rules for free text (host/name_rules.py): nothing invisible,
    no emoji a receipt cannot print, currency and maths signs allowed, and a
    letter or a digit."""
    text = value.strip()
    if not text or len(text.encode()) > NAME_BYTES:
        raise ValueError("not a name")
    why = name_rules.problem(text, "", free_text=True)
    if why is not None:
        raise Refused(str(why).lstrip())
    if not any(c.isalnum() for c in text):
        raise Refused("must hold a letter or a digit")
    return text


Name = Annotated[str, AfterValidator(_name)]
NAME_RULE = f"a name of 1 to {NAME_BYTES} bytes (UTF-8) with a letter or a digit"


def _free_text(value: str) -> str:
    why = name_rules.problem(value, "", free_text=True)
    if why is not None:
        raise Refused(str(why).lstrip())
    return value.strip()


def _zone(name: str | None) -> str | None:
    if name is not None:
        try:
            ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError, OSError):  # "Asia" is a folder
            raise ValueError("not a time zone") from None
    return name


# ---------------------------------------------------------------------- the declarations
class BillingSection(Section):
    """The desk's day: where tariff hours are counted, when a session opens
    and closes by itself, and the venue's name on receipts (docs/BILLING.md)."""

    TITLE = "[billing]"
    timezone: Annotated[str | None, AfterValidator(_zone)] = key(
        None,
        "where tariff hours, days and the daily report's day are counted; unset: the PC's",
        rule="a time zone's name such as 'Asia/Tehran'",
    )
    day_starts: Annotated[str, _clock(allow_24=False)] = key(
        "00:00",
        "the daily report's day runs from here to here (a late night belongs to the day before)",
        rule=_clock_rule(allow_24=False),
    )
    auto_open: bool = key(False, "open a session by itself at the first strike on an idle table")
    auto_close_min: int = key(
        0,
        "close a session after this many minutes with no strike once a frame is over (0: never)",
        ge=0,
        le=WATCH_MOST,
    )
    idle_alert_min: int = key(
        20, "tell the desk of a table idle this long with a session open", ge=1, le=WATCH_MOST
    )
    venue: Annotated[str, AfterValidator(_free_text)] = key(
        "",
        "printed at the top of every receipt",
        rule=f"one line of printable text of at most {VENUE_CHARS} characters",
        max_length=VENUE_CHARS,
    )


_PRICE_RULE = (
    f"an amount in the currency's major unit (such as 7.5), 0 to {money.MOST:,} minor units"
)


class PeakSection(Section):
    """Peak hours of a tariff, with their own price an hour; a tariff's
    peaks must not overlap, and hours past midnight are two peaks."""

    TITLE = "[[tariff.peak]]"
    days: list[Annotated[str, one_of(DAYS)]] = key(
        ...,
        "the weekdays they are on",
        rule=f"a list of weekdays from {', '.join(DAYS)}",
        min_length=1,
        max_length=len(DAYS) * 4,
    )
    from_: Annotated[str, _clock(allow_24=False)] = key(
        ..., "when they begin, local time", rule=_clock_rule(allow_24=False), alias="from"
    )
    to: Annotated[str, _clock(allow_24=True)] = key(
        ..., "when they end, on the same day", rule=_clock_rule(allow_24=True)
    )
    per_hour: Amount = key(
        ...,
        "the price of an hour in them, in the tariff's currency",
        rule=_PRICE_RULE,
    )

    @model_validator(mode="after")
    def _later(self) -> PeakSection:
        if minutes(self.to) <= minutes(self.from_):
            raise ValueError(
                ".to must be later than from on the same day "
                "(split hours past midnight into two peaks)"
            )
        return self


class TariffSection(Section):
    """A tariff: the price of table time and frames on a group of tables (or
    the default, without tables); it must charge something."""

    TITLE = "[[tariff]]"
    name: Name = key(..., "the tariff's name, on the desk and the receipts", rule=NAME_RULE)
    tables: list[Annotated[str, Field(max_length=64)]] = key(
        [],
        "the [[table]] ids it prices; none: the default tariff of every other table",
        rule=f"a list of at most {TABLES_MOST} table ids",
        max_length=TABLES_MOST,
    )
    currency: Currency = key(..., "what it charges in", rule=CURRENCIES)
    per_hour: Amount = key(0, "the price of an hour of table time, off-peak", rule=_PRICE_RULE)
    minimum_min: int = key(0, "at least this many minutes are charged", ge=0, le=MINIMUM_MOST)
    round_min: int = key(
        1, "table time is rounded up to a whole number of these minutes", ge=1, le=ROUND_MOST
    )
    per_frame: Amount = key(0, "the price of each frame played", rule=_PRICE_RULE)
    loser_pays: bool = key(
        False, "each frame's price and share of the time are charged to the player who lost it"
    )
    peak: list[PeakSection] = key(
        [],
        "its peak hours, each with its own price an hour",
        rule=f"an array of at most {PEAKS_MOST} tables ([[tariff.peak]])",
        max_length=PEAKS_MOST,
    )

    def amounts(self) -> Iterator[tuple[str, int | Decimal | float]]:
        """Its prices, each with its key."""
        yield "per_hour", self.per_hour
        yield "per_frame", self.per_frame
        for j, p in enumerate(self.peak):
            yield f"peak[{j}].per_hour", p.per_hour

    @model_validator(mode="after")
    def _charges_in_its_currency(self) -> TariffSection:
        for name, amount in self.amounts():
            _minor(amount, self.currency, name)
        if not any(amount for _, amount in self.amounts()) and not self.peak:
            raise ValueError("charges nothing: give per_hour, per_frame or both")
        seen: list[tuple[int, set[int], int, int]] = []
        for j, p in enumerate(self.peak):
            days, start, end = {DAYS.index(d) for d in p.days}, minutes(p.from_), minutes(p.to)
            for k, other_days, other_start, other_end in seen:
                shared = days & other_days
                if shared and start < other_end and other_start < end:
                    lo, hi = max(start, other_start), min(end, other_end)
                    raise ValueError(
                        f".peak[{j}] overlaps peak[{k}] on {DAYS[min(shared)]} from "
                        f"{lo // 60:02d}:{lo % 60:02d} to {hi // 60:02d}:{hi % 60:02d}"
                    )
            seen.append((j, days, start, end))
        return self


class ItemSection(Section):
    """Something the desk sells onto a table's bill (a drink, a snack, cue
    hire), offered on the tables whose tariff is in its currency."""

    TITLE = "[[item]]"
    name: Name = key(..., "its name, on the desk and the receipts", rule=NAME_RULE)
    name_fa: Name | None = key(
        None, "how the Persian desk and receipt call it; unset: name", rule=NAME_RULE
    )
    price: Amount = key(
        ...,
        "its price",
        rule=_PRICE_RULE.replace(" 0 to", " 1 to"),
    )
    currency: Currency | None = key(
        None, "unset: the tariffs' currency, when they all share one", rule=CURRENCIES
    )


class ClubFile(Section):
    """The club's sections of baulk.toml, and the rules across them
    (host/config.py ``ConfigFile`` holds them with the rest)."""

    billing: BillingSection = BillingSection()
    tariff: list[TariffSection] = Field(default_factory=list, max_length=TARIFFS_MOST)
    item: list[ItemSection] = Field(default_factory=list, max_length=ITEMS_MOST)

    def item_currency(self, item: ItemSection) -> str | None:
        shared = {t.currency for t in self.tariff}
        return item.currency or (shared.pop() if len(shared) == 1 else None)

    @model_validator(mode="after")
    def _across(self) -> ClubFile:
        owner: dict[str, str] = {}
        defaults = [i for i, t in enumerate(self.tariff) if not t.tables]
        for i, t in enumerate(self.tariff):
            if t.name in {x.name for x in self.tariff[:i]}:
                raise ValueError(f"tariff[{i}].name: {t.name!r} is used twice")
            for tid in t.tables:
                if tid in owner:
                    raise ValueError(
                        f"tariff[{i}].tables: {tid!r} already has tariff {owner[tid]!r}"
                    )
                owner[tid] = t.name
        if len(defaults) > 1:
            raise ValueError(
                f"tariff[{defaults[1]}]: only one tariff may leave out tables (the default)"
            )
        for i, entry in enumerate(self.item):
            currency = self.item_currency(entry)
            if currency is None:
                used = ", ".join(sorted({t.currency for t in self.tariff})) or "none"
                raise ValueError(
                    f"item[{i}].currency must be given: the tariffs do not share one "
                    f"(they use {used})"
                )
            where = f"item[{i}]"
            try:
                _minor(entry.price, currency, "price", least=1)
            except ValueError as e:
                raise ValueError(f"{where}{e}") from None
            if entry.name in {x.name for x in self.item[:i]}:
                raise ValueError(f"{where}.name: {entry.name!r} is used twice")
        return self

    def unknown_table(self, tables: set[str]) -> str | None:
        """The sentence for a tariff naming a table the config does not have
        (any, when it lists none: the tables are found by USB)."""
        for i, t in enumerate(self.tariff):
            for tid in t.tables:
                if tables and tid not in tables:
                    return f"tariff[{i}].tables: {tid!r} is not a [[table]] of this config"
        return None


SECTIONS: tuple[type[Section], ...] = (BillingSection, TariffSection, PeakSection, ItemSection)


# ---------------------------------------------------------------------- what the code reads
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
    round_min: int = default_of(TariffSection, "round_min")
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
    timezone: str = "UTC"  # the config's: its timezone, else the PC's
    day_start_min: int = minutes(default_of(BillingSection, "day_starts"))
    auto_open: bool = default_of(BillingSection, "auto_open")
    auto_close_min: int = default_of(BillingSection, "auto_close_min")  # 0: never
    idle_alert_min: int = default_of(BillingSection, "idle_alert_min")
    venue: str = default_of(BillingSection, "venue")
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
    except (ZoneInfoNotFoundError, ValueError, OSError):  # TZ=Asia: a folder
        return "UTC"
    return name


# ---------------------------------------------------------------------- reading
def parse(data: dict[str, Any], tables: set[str] | None = None) -> Billing:
    """The ``[billing]``, ``[[tariff]]``, ``[[item]]`` and ``[printer]``
    sections of a parsed config (its other sections are not looked at);
    ``tables`` are the configured table ids (a tariff may name only those).
    Raises TariffError."""
    mine = {name: data[name] for name in ClubFile.model_fields if name in data}
    try:
        found = ClubFile.model_validate(mine)
    except ValidationError as e:
        raise TariffError(sentence(e, ClubFile)) from None
    why = found.unknown_table(tables or set())
    if why is not None:
        raise TariffError(why)
    try:
        printer = printing.parse(data.get("printer"))
    except printing.PrinterError as e:
        raise TariffError(str(e)) from None
    return billing_of(found, printer)


def billing_of(found: ClubFile, printer: printing.Printer | None = None) -> Billing:
    """What the code reads of the club's sections, checked (:class:`ClubFile`)."""
    section = found.billing
    timezone = section.timezone or local_timezone()
    tariffs = tuple(
        Tariff(
            name=t.name,
            currency=t.currency,
            tables=tuple(t.tables),
            per_hour=_minor(t.per_hour, t.currency, "per_hour"),
            minimum_min=t.minimum_min,
            round_min=t.round_min,
            per_frame=_minor(t.per_frame, t.currency, "per_frame"),
            loser_pays=t.loser_pays,
            peaks=tuple(
                Peak(
                    tuple(sorted({DAYS.index(d) for d in p.days})),
                    minutes(p.from_),
                    minutes(p.to),
                    _minor(p.per_hour, t.currency, "per_hour"),
                )
                for p in t.peak
            ),
            timezone=timezone,
        )
        for t in found.tariff
    )
    items = []
    for entry in found.item:
        currency = found.item_currency(entry)
        assert currency is not None  # ClubFile's rule
        price = _minor(entry.price, currency, "price", least=1)
        items.append(Item(entry.name, entry.name_fa or entry.name, price, currency))
    return Billing(
        timezone=timezone,
        day_start_min=minutes(section.day_starts),
        auto_open=section.auto_open,
        auto_close_min=section.auto_close_min,
        idle_alert_min=section.idle_alert_min,
        venue=section.venue,
        tariffs=tariffs,
        items=tuple(items),
        printer=printer,
    )
