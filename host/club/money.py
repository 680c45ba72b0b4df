"""Money as the bills keep it and as the receipts show it.

Amounts are whole numbers of the currency's minor unit (pence, cents, paise;
a rial and a toman have none), so a bill adds up exactly.  Formatting is
Babel's (the CLDR data: each currency's symbol, its number of decimals, the
grouping of its home locale, such as the lakh grouping of rupees in India),
in English and in Persian.  Persian amounts get Persian digits and the
Persian group and decimal separators (CLDR's ``arabext`` symbols; Babel keeps
Latin digits, so the digits are shaped here).

The toman is not an ISO 4217 currency but it is what Iranian clubs price in:
``IRT`` (ten rials, no minor unit) is accepted beside every code Babel knows.

Every amount that comes in (a tariff's price in the config, a correction or a
refund typed at the desk) is read by :func:`parse`: a plain decimal written
out in full (``12.50``, ``-5000``), at most :data:`TEXT_MOST` characters,
with no more decimals than the currency has, and inside the range its caller
gives, never wider than :data:`MOST` minor units.  It is refused before any
arithmetic: a decimal of a million digits or ``1e999997`` costs the length
check, nothing more.  A negative amount is written with CLDR's minus sign for
its language (in Persian ``U+200E U+2212``, which keeps the sign on the left
of the digits in a right-to-left line).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from decimal import Decimal

from babel import Locale
from babel.numbers import (
    get_currency_name,
    get_currency_precision,
    get_currency_symbol,
    get_decimal_symbol,
    get_group_symbol,
    get_minus_sign_symbol,
    is_currency,
)

from baulk.host.sentences import FA_DIGITS, Message, keyed_words

TOMAN = "IRT"
PERSIAN_DIGITS = FA_DIGITS  # the one table (host/sentences.py)
# Iran's two units read best as "1,200,000 Toman" / "۱٬۲۰۰٬۰۰۰ تومان": their
# names by language and code, the catalogue's entries currency:CODE.
_IRANIAN = keyed_words("currency")
# The English locale each currency is written in at home (grouping, symbol).
_ENGLISH = {"GBP": "en_GB", "EUR": "en_IE", "INR": "en_IN", "PKR": "en_PK"}
# The widest amount anything holds: a trillion minor units (1,000,000,000,000
# rial, or ten billion pounds).  A day of 500 such bills still adds up inside
# 2**53, so a browser's JavaScript numbers keep every unit of the totals, and
# SQLite's 64-bit integers hold any sum of them.
MOST = 10**12
TEXT_MOST = 24  # characters of an amount's text ("-1000000000000.00" is 17)
_PLAIN = re.compile(r"([+-]?)([0-9]+)(?:\.([0-9]+))?")


class MoneyError(ValueError):
    """An amount or a currency that cannot be used: its message says why,
    after the name of what is refused ("amount", a tariff's key)."""

    def __init__(self, message: Message) -> None:
        super().__init__(str(message))
        self.message = message


def known_currency(code: object) -> bool:
    return isinstance(code, str) and (code == TOMAN or is_currency(code))


def minor_digits(currency: str) -> int:
    """Decimals of the currency's minor unit (2 for pounds, 0 for rials)."""
    if currency == TOMAN:
        return 0
    return int(get_currency_precision(currency))


def _text_of(value: object) -> str:
    """An amount's text as it was written: a string as typed, a number as
    Python writes it (a TOML number read exactly, as config.py reads it, or
    a JSON number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Decimal)):
        raise MoneyError(Message("must be a number, not {text}", text=_shown(value)))
    if isinstance(value, float) and not math.isfinite(value):
        raise MoneyError(Message("must be a number, not {text}", text=_shown(value)))
    if isinstance(value, int) and abs(value) > MOST:  # no text made of a huge int
        return "9" * (TEXT_MOST + 1)  # too long: refused as what it is, too wide
    return value.strip() if isinstance(value, str) else str(value)


def _shown(value: object) -> str:
    """The value as it was written: a string quoted, a number as a number."""
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= TEXT_MOST + 2 else text[:TEXT_MOST] + "…"


def parse(value: object, currency: str, least: int = -MOST, most: int = MOST) -> int:
    """An amount in the currency's major unit ("12.50", 6.5, -5000) as minor
    units, within [least, most]; raises MoneyError saying why (the caller
    puts the key's name in front)."""
    text = _text_of(value)
    range_text = Message(
        "must be from {text} to {id}", text=plain(least, currency), id=plain(most, currency)
    )
    if len(text) > TEXT_MOST and isinstance(value, int):
        raise MoneyError(range_text)
    match = _PLAIN.fullmatch(text) if len(text) <= TEXT_MOST else None
    if match is None:
        raise MoneyError(
            Message("must be a plain decimal number such as 12.50, not {text}", text=_shown(value))
        )
    sign, whole, frac = match.group(1), match.group(2), (match.group(3) or "").rstrip("0")
    digits = minor_digits(currency)
    if len(frac) > digits:
        raise MoneyError(
            Message(
                "{text} has more than {n} decimals for {id}",
                text=_shown(value),
                n=digits,
                id=currency,
            )
        )
    minor: int = int(whole) * 10**digits + int(frac.ljust(digits, "0") or "0")
    if sign == "-":
        minor = -minor
    if not least <= minor <= most:
        raise MoneyError(range_text)
    return minor


def to_minor(value: object, currency: str) -> int:
    """:func:`parse` over the widest range (MOST either way)."""
    return parse(value, currency)


def major(minor: int, currency: str) -> Decimal:
    """Minor units back to the major unit, exactly (for CSV and JSON)."""
    return Decimal(minor).scaleb(-minor_digits(currency))


def plain(minor: int, currency: str) -> str:
    """The amount as a plain number with its decimals ("-12.50"), for CSV."""
    digits = minor_digits(currency)
    return f"{major(minor, currency):.{digits}f}"


@functools.cache
def _style(currency: str, lang: str) -> tuple[str, str, str, str, tuple[int, int], str, str]:
    """How a currency is written in a language, from Babel's CLDR data, once:
    (prefix, negative prefix, suffix, negative suffix, grouping, decimal
    symbol, group symbol).  Babel's own format_currency takes a quarter of a
    millisecond a call; a day's report writes thousands of amounts."""
    if currency in _IRANIAN["en"]:
        locale = Locale.parse("fa_IR" if lang == "fa" else "en")
        unit = " " + _IRANIAN[lang][currency]
        prefix, suffix, grouping = ("", "-"), (unit, unit), (3, 3)
    else:
        locale = Locale.parse("fa_IR" if lang == "fa" else _ENGLISH.get(currency, "en"))
        pattern = locale.currency_formats["standard"]
        symbol = get_currency_symbol(currency, locale)
        prefix = tuple(x.replace("¤", symbol) for x in pattern.prefix)
        suffix = tuple(x.replace("¤", symbol) for x in pattern.suffix)
        grouping = pattern.grouping
    # A pattern's "-" stands for the locale's minus sign (CLDR); Babel writes
    # a hyphen whatever the locale, which in Persian lands on the wrong side.
    minus = get_minus_sign_symbol(locale)
    return (
        prefix[0],
        prefix[1].replace("-", minus),
        suffix[0],
        suffix[1],
        (int(grouping[0]), int(grouping[1])),
        get_decimal_symbol(locale, numbering_system="default"),
        get_group_symbol(locale, numbering_system="default"),
    )


def fmt(minor: int, currency: str, lang: str) -> str:
    """The amount as a person reads it, in English or Persian: what Babel's
    format_currency writes (tests/host/club/test_billing_config.py holds them
    equal), with Persian digits in Persian."""
    pos, neg, spos, sneg, (first, rest), decimal, group = _style(currency, lang)
    digits = minor_digits(currency)
    whole, frac = divmod(abs(minor), 10**digits)
    text = str(whole)
    parts = [text[-first:]]
    text = text[:-first]
    while text:
        parts.append(text[-rest:])
        text = text[:-rest]
    number = group.join(reversed(parts))
    if digits:
        number += decimal + f"{frac:0{digits}d}"
    out = f"{neg}{number}{sneg}" if minor < 0 else f"{pos}{number}{spos}"
    return out.translate(PERSIAN_DIGITS) if lang == "fa" else out


@dataclass(frozen=True)
class Amount:
    """An amount as a sentence's value (host/sentences.py Said): said by
    :func:`fmt` in each language."""

    minor: int
    currency: str

    def said_in(self, lang: str) -> str:
        return fmt(self.minor, self.currency, lang)

    def __str__(self) -> str:
        return self.said_in("en")


def persian_digits(text: str) -> str:
    return text.translate(PERSIAN_DIGITS)


@functools.cache
def currency_name(currency: str, lang: str) -> str:
    """The currency's name in a language ("British Pound", "پوند بریتانیا";
    the toman and the rial as Iranians say them)."""
    if currency in _IRANIAN["en"]:
        return _IRANIAN[lang][currency]
    return str(get_currency_name(currency, locale="fa_IR" if lang == "fa" else "en"))
