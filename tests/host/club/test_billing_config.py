"""Tariffs in the config and money on the receipts: every mistake is a
ConfigError naming its key, and each currency is written its own way."""

from __future__ import annotations

import dataclasses
import random
import tomllib
from decimal import Decimal

import pytest

from baulk.host import config
from baulk.host.club import money, tariffs
from baulk.host.club.tariffs import DAYS

BASE = """
[[table]]
id = "t1"
port = "/dev/null"
[[table]]
id = "t2"
port = "/dev/null"
"""


def load(extra: str) -> config.Config:
    # as config.load reads a file: fractions as exact decimals
    return config.parse(tomllib.loads(BASE + extra, parse_float=Decimal), env={})


def test_a_whole_billing_config() -> None:
    cfg = load(
        """
[billing]
timezone = "Asia/Tehran"
day_starts = "06:00"
auto_open = true
auto_close_min = 10
idle_alert_min = 15
venue = "Baulk Club"
[[tariff]]
name = "standard"
tables = ["t1"]
currency = "IRT"
per_hour = 120000
minimum_min = 30
round_min = 5
[[tariff.peak]]
days = ["thu", "fri"]
from = "18:00"
to = "24:00"
per_hour = 180000
[[tariff]]
name = "pounds"
currency = "GBP"
per_frame = 1.5
loser_pays = true
"""
    )
    b = cfg.billing
    assert (b.timezone, b.day_start_min, b.auto_open, b.auto_close_min) == (
        "Asia/Tehran",
        360,
        True,
        10,
    )
    t1 = b.tariff_for("t1")
    assert t1 is not None and t1.per_hour == 120000 and t1.round_min == 5
    assert t1.rate_at(DAYS.index("fri"), 18 * 60) == 180000
    assert t1.rate_at(DAYS.index("sat"), 18 * 60) == 120000
    t2 = b.tariff_for("t2")  # the default tariff
    assert t2 is not None and t2.name == "pounds" and t2.per_frame == 150 and t2.loser_pays
    assert t2.to_json() == type(t2).from_json(t2.to_json()).to_json()


@pytest.mark.parametrize(
    ("tariff", "words"),
    [
        ('name = "a"\ncurrency = "GBP"\nper_hour = -5', "tariff[0].per_hour must not be negative"),
        ('name = "a"\ncurrency = "GBP"\nper_hour = "six"', "tariff[0].per_hour must be a number"),
        ('name = "a"\ncurrency = "GBP"\nper_frame = true', "tariff[0].per_frame must be a number"),
        ('name = "a"\ncurrency = "GBP"\nper_hour = nan', "tariff[0].per_hour must be a number"),
        ('name = "a"\ncurrency = "GBP"\nper_hour = 1.005', "more than 2 decimals"),
        (
            'name = "a"\ncurrency = "XYZ"\nper_hour = 5',
            "tariff[0].currency must be an ISO 4217 code such as GBP, EUR, INR, PKR or IRR, "
            "or IRT for the toman, not 'XYZ'",
        ),
        ('name = "a"\nper_hour = 5', "tariff[0].currency must be an ISO 4217 code"),
        ('name = "a"\ncurrency = "GBP"', "tariff[0] charges nothing"),
        ('name = "a"\ncurrency = "GBP"\nper_hour = 5\nround_min = 0', "tariff[0].round_min"),
        ('name = "a"\ncurrency = "GBP"\nper_hour = 5\nminimum_min = -1', "tariff[0].minimum_min"),
        # a clerk's extra digits: refused at the start, never a 15 s bill later
        (
            'name = "a"\ncurrency = "IRT"\nper_hour = 5\nminimum_min = 99999999999999999',
            "tariff[0].minimum_min must be 0..1440, not 99999999999999999",
        ),
        (
            'name = "a"\ncurrency = "GBP"\nper_hour = 5\nround_min = 61',
            "tariff[0].round_min must be 1..60, not 61",
        ),
        (
            'name = "a"\ncurrency = "IRR"\nper_hour = 10000000000000',
            "tariff[0].per_hour must be from 0 to 1000000000000",
        ),
        ('name = "a"\ncurrency = "GBP"\nper_hour = 1e3', "per_hour must be a plain decimal number"),
        (
            'name = "a\\u202e"\ncurrency = "GBP"\nper_hour = 1',
            "tariff[0].name must not hold control, invisible or direction characters (U+202E)",
        ),
        # a filler that draws nothing, and an emoji no receipt prints (host/name_rules.py)
        ('name = "\\u3164"\ncurrency = "GBP"\nper_hour = 1', "(U+3164)"),
        ('name = "Tea \\U0001F375"\ncurrency = "GBP"\nper_hour = 1', "must not hold emoji"),
        ('name = "--"\ncurrency = "GBP"\nper_hour = 1', "tariff[0].name must hold a letter"),
        (  # a superscript passes str.isdigit(), and int() refuses it
            'name = "a"\ncurrency = "GBP"\nper_hour = 5\n[[tariff.peak]]\ndays = ["fri"]\n'
            'from = "1\u00b2:00"\nto = "22:00"\nper_hour = 9',
            "must be a time 'HH:MM'",
        ),
        ('name = "a"\ncurrency = "GBP"\nper_hour = 5\ntables = ["t9"]', "'t9' is not a [[table]]"),
        (
            'name = "a"\ncurrency = "GBP"\nper_hour = 5\ncolour = 1',
            "tariff[0]: unknown key 'colour'",
        ),
        ('name = "a"\ncurrency = "GBP"\nper_hour = 5\nloser_pays = 1', "tariff[0].loser_pays"),
        (
            'name = "a"\ncurrency = "GBP"\nper_hour = 5\n[[tariff.peak]]\ndays = ["fri"]\n'
            'from = "18:00"\nto = "22:00"\nper_hour = 9\n[[tariff.peak]]\ndays = ["sat", "fri"]\n'
            'from = "21:00"\nto = "23:00"\nper_hour = 8',
            "tariff[0].peak[1] overlaps peak[0] on fri from 21:00 to 22:00",
        ),
        (
            'name = "a"\ncurrency = "GBP"\nper_hour = 5\n[[tariff.peak]]\ndays = ["fri"]\n'
            'from = "22:00"\nto = "02:00"\nper_hour = 9',
            "tariff[0].peak[0].to must be later than from on the same day",
        ),
        (
            'name = "a"\ncurrency = "GBP"\nper_hour = 5\n[[tariff.peak]]\ndays = ["friday"]\n'
            'from = "18:00"\nto = "22:00"\nper_hour = 9',
            "tariff[0].peak[0].days",
        ),
        (
            'name = "a"\ncurrency = "GBP"\nper_hour = 5\n[[tariff.peak]]\ndays = ["fri"]\n'
            'from = "25:00"\nto = "26:00"\nper_hour = 9',
            "tariff[0].peak[0].from must be a time",
        ),
        (
            'name = "a"\ncurrency = "GBP"\nper_hour = 5\n[[tariff.peak]]\ndays = ["fri"]\n'
            'from = "18:00"\nto = "20:00"\nper_hour = -9',
            "tariff[0].peak[0].per_hour must not be negative",
        ),
    ],
)
def test_a_bad_tariff_is_refused_naming_its_key(tariff: str, words: str) -> None:
    with pytest.raises(config.ConfigError) as e:
        load("[[tariff]]\n" + tariff)
    assert words in str(e.value)


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (
            '[billing]\ntimezone = "Mars/Base"',
            "billing.timezone must be a time zone's name such as 'Asia/Tehran', not 'Mars/Base'",
        ),
        # a folder of the zone database, which ZoneInfo opens and fails on
        ('[billing]\ntimezone = "Asia"', "billing.timezone must be a time zone's name"),
        ("[billing]\nauto_open = 1", "billing.auto_open must be true or false"),
        ("[billing]\nauto_close_min = -3", "billing.auto_close_min must be 0..1440, not -3"),
        ('[billing]\nday_starts = "6am"', "billing.day_starts must be a time"),
        ("[billing]\nidle = 3", "billing: unknown key 'idle'"),
        (
            '[[tariff]]\nname = "a"\ncurrency = "GBP"\nper_hour = 1\n'
            '[[tariff]]\nname = "b"\ncurrency = "GBP"\nper_hour = 2',
            "tariff[1]: only one tariff may leave out tables",
        ),
        (
            '[[tariff]]\nname = "a"\ncurrency = "GBP"\nper_hour = 1\ntables = ["t1"]\n'
            '[[tariff]]\nname = "b"\ncurrency = "GBP"\nper_hour = 2\ntables = ["t1"]',
            "tariff[1].tables: 't1' already has tariff 'a'",
        ),
    ],
)
def test_a_bad_billing_section_is_refused_naming_its_key(extra: str, words: str) -> None:
    with pytest.raises(config.ConfigError) as e:
        load(extra)
    assert words in str(e.value)


def test_no_billing_config_means_no_tariffs() -> None:
    assert load("").billing.tariffs == ()
    with pytest.raises(config.ConfigError, match=r"\[\[tariff\]\] entries must be an array"):
        config.parse({"tariff": 3}, env={})
    with pytest.raises(config.ConfigError, match=r"\[billing\] must be a table"):
        config.parse({"billing": [1]}, env={})


POUNDS = '[[tariff]]\nname = "a"\ncurrency = "GBP"\nper_hour = 5\n'
EUROS = '[[tariff]]\nname = "e"\ncurrency = "EUR"\nper_hour = 5\ntables = ["t1"]\n'
PEAK = '[[tariff.peak]]\ndays = ["fri"]\nfrom = "18:00"\nto = "20:00"\nper_hour = 9\n'


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (POUNDS + '[[item]]\nname = "Tea"\nprice = 2', None),  # the tariffs' currency
        (
            POUNDS + EUROS + '[[item]]\nname = "Tea"\nprice = 2',
            "item[0].currency must be given: the tariffs do not share one (they use EUR, GBP)",
        ),
        (POUNDS + '[[item]]\nname = "Tea"\nprice = 0', "item[0].price must be from 0.01 to "),
        (
            POUNDS + '[[item]]\nname = "Tea"\nprice = 2.005',
            "item[0].price 2.005 has more than 2 decimals for GBP",
        ),
        (POUNDS + '[[item]]\nname = "Tea"\nprice = -2', "item[0].price must not be negative"),
        (POUNDS + '[[item]]\nname = "Tea"', "item[0].price must be an amount"),
        (
            POUNDS + '[[item]]\nname = "Tea"\nprice = 2\ncurrency = "XYZ"',
            "item[0].currency must be an ISO 4217 code such as",
        ),
        (
            POUNDS + '[[item]]\nname = "Tea"\nname_fa = "\U0001f375"\nprice = 2',
            "item[0].name_fa must not hold emoji or symbols (U+1F375)",
        ),
        (
            POUNDS + '[[item]]\nname = "Tea"\nprice = 2\n[[item]]\nname = " Tea "\nprice = 3',
            "item[1].name: 'Tea' is used twice",
        ),
        (POUNDS + '[[item]]\nname = "Tea"\nprice = 2\ncolour = 1', "item[0]: unknown key 'colour'"),
        (
            POUNDS + PEAK.replace("per_hour = 9", "per_hour = 9.001"),
            "tariff[0].peak[0].per_hour 9.001 has more than 2 decimals for GBP",
        ),
        (POUNDS + PEAK.replace('"fri"', "3"), "tariff[0].peak[0].days must be a list of weekdays"),
        (POUNDS + PEAK.replace('to = "20:00"\n', ""), "tariff[0].peak[0].to must be a time"),
        (POUNDS + PEAK * 29, "tariff[0].peak must be an array of at most 28 tables"),
        (POUNDS + 'tables = "t1"', "tariff[0].tables must be a list of at most 256 table ids"),
        (POUNDS + 'name = "b"', None),  # a TOML file cannot say a key twice: refused by tomllib
        (
            POUNDS + POUNDS.replace("per_hour = 5", 'per_hour = 6\ntables = ["t2"]'),
            "tariff[1].name: 'a' is used twice",
        ),
        (
            "[billing]\nvenue = '" + "v" * 81 + "'",
            "billing.venue must be one line of printable text of at most 80 characters",
        ),
        ("[billing]\nvenue = 'Club\u202e'", "billing.venue must not hold control, invisible"),
        ("[billing]\nday_starts = '24:00'", "billing.day_starts must be a time 'HH:MM' from 00:00"),
        ("[billing]\nidle_alert_min = 0", "billing.idle_alert_min must be 1..1440, not 0"),
    ],
)
def test_a_bad_item_or_part_is_one_sentence_naming_its_key(extra: str, words: str | None) -> None:
    """Each from its declaration, the same through config.parse (ConfigError)
    and through tariffs.parse (TariffError, what the club's callers catch)."""
    try:
        data = tomllib.loads(BASE + extra, parse_float=Decimal)
    except tomllib.TOMLDecodeError:
        assert words is None
        return
    if words is None:
        billing = config.parse(data, env={}).billing
        assert billing.items == () or billing.items[0].currency == "GBP"
        return
    with pytest.raises(config.ConfigError) as by_config:
        config.parse(data, env={})
    with pytest.raises(tariffs.TariffError) as by_tariffs:
        tariffs.parse(data, {"t1", "t2"})
    said = str(by_config.value)
    assert words in said and said == str(by_tariffs.value)
    assert "\n" not in said and len(said) < 400


def test_too_many_tariffs_or_items_are_refused() -> None:
    tariff = {"name": "a", "currency": "GBP", "per_hour": 5}
    many = [{**tariff, "name": f"t{i}", "tables": [f"x{i}"]} for i in range(65)]
    with pytest.raises(
        tariffs.TariffError, match=r"^\[\[tariff\]\] entries must be an array of at most 64 tables$"
    ):
        tariffs.parse({"tariff": many})
    items = [{"name": f"i{i}", "price": 1} for i in range(61)]
    with pytest.raises(
        tariffs.TariffError, match=r"^\[\[item\]\] entries must be an array of at most 60 tables$"
    ):
        tariffs.parse({"tariff": [tariff], "item": items})


def test_the_billing_defaults_are_the_declared_ones() -> None:
    empty = config.parse({}, env={}).billing
    assert empty == dataclasses.replace(tariffs.Billing(), timezone=tariffs.local_timezone())


@pytest.mark.parametrize(
    ("minor", "currency", "en", "fa"),
    [
        (1_200_000, "IRT", "1,200,000 Toman", "۱٬۲۰۰٬۰۰۰ تومان"),
        (12_000_000, "IRR", "12,000,000 Rial", "۱۲٬۰۰۰٬۰۰۰ ریال"),
        (1150, "GBP", "£11.50", "\u200e£\xa0۱۱٫۵۰"),
        # CLDR's minus sign in Persian (U+200E U+2212): left of the digits in a RTL line
        (-250, "EUR", "-€2.50", "\u200e−\u200e€\xa0۲٫۵۰"),
        (-60_000, "IRT", "-60,000 Toman", "\u200e−۶۰٬۰۰۰ تومان"),
        (12_345_650, "INR", "₹1,23,456.50", "\u200e₹\xa0۱۲۳٬۴۵۶٫۵۰"),  # lakh grouping in English
    ],
)
def test_each_currency_is_written_its_own_way(minor: int, currency: str, en: str, fa: str) -> None:
    assert money.fmt(minor, currency, "en") == en
    assert money.fmt(minor, currency, "fa") == fa


@pytest.mark.parametrize("currency", ["GBP", "EUR", "INR", "PKR", "USD", "IRR", "IRT"])
@pytest.mark.parametrize("lang", ["en", "fa"])
def test_amounts_are_written_as_babel_writes_them(currency: str, lang: str) -> None:
    """Babel's CLDR formats, but for the minus sign: Babel writes a hyphen
    in every locale, CLDR the locale's own (in Persian U+200E U+2212)."""
    from babel.numbers import format_currency, format_decimal, get_minus_sign_symbol

    rng = random.Random(currency + lang)
    amounts = [0, 1, -1, 99, 100, 123_456_789, -98_765] + [
        rng.randint(-(10**9), 10**9) for _ in range(200)
    ]
    locale = "fa_IR" if lang == "fa" else money._ENGLISH.get(currency, "en")
    for minor in amounts:
        value = Decimal(minor).scaleb(-money.minor_digits(currency))
        if currency in ("IRR", "IRT"):
            unit = money.currency_name(currency, lang)
            n = format_decimal(value, format="#,##0", locale=locale, numbering_system="default")
            want = f"{n} {unit}"
        else:
            want = format_currency(value, currency, locale=locale, numbering_system="default")
        if lang == "fa":
            want = money.persian_digits(want).replace("-", get_minus_sign_symbol(locale))
        assert money.fmt(minor, currency, lang) == want


def test_amounts_in_and_out() -> None:
    assert money.to_minor("12.50", "GBP") == 1250 and money.to_minor(3, "IRT") == 3
    assert money.plain(-1250, "GBP") == "-12.50" and money.plain(5000, "IRR") == "5000"
    for bad in ("1.234", "abc", "inf", True, None, [1]):
        with pytest.raises(money.MoneyError):
            money.to_minor(bad, "GBP")


def test_receipt_dates_are_jdatetimes_solar_hijri_and_plain_gregorian() -> None:
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    import jdatetime

    from baulk.host.club import views as billing_views

    for ms in (1_740_846_600_000, 1_711_000_000_000, 1_742_500_000_000, 1_767_225_600_000):
        local = datetime.fromtimestamp(ms / 1000, ZoneInfo("Asia/Tehran"))
        j = jdatetime.datetime.fromgregorian(datetime=local, locale="fa_IR")
        want = money.persian_digits(j.strftime("%a %d %B %Y، %H:%M"))
        assert billing_views.when(ms, "Asia/Tehran", "fa") == want
        assert billing_views.when(ms, "UTC", "en") == datetime.fromtimestamp(
            ms / 1000, UTC
        ).strftime("%a %-d %b %Y, %H:%M")
