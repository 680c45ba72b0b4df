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
"""

from __future__ import annotations

import functools
from decimal import Decimal, InvalidOperation

from babel import Locale
from babel.numbers import (
    get_currency_precision,
    get_currency_symbol,
    get_decimal_symbol,
    get_group_symbol,
    is_currency,
)

TOMAN = "IRT"
PERSIAN_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
# Iran's two units read best as "1,200,000 Toman" / "۱٬۲۰۰٬۰۰۰ تومان".
_IRANIAN = {"IRR": {"en": "Rial", "fa": "ریال"}, TOMAN: {"en": "Toman", "fa": "تومان"}}
# The English locale each currency is written in at home (grouping, symbol).
_ENGLISH = {"GBP": "en_GB", "EUR": "en_IE", "INR": "en_IN", "PKR": "en_PK"}


class MoneyError(ValueError):
    """An amount or a currency that cannot be used (the message says why)."""


def known_currency(code: object) -> bool:
    return isinstance(code, str) and (code == TOMAN or is_currency(code))


def minor_digits(currency: str) -> int:
    """Decimals of the currency's minor unit (2 for pounds, 0 for rials)."""
    if currency == TOMAN:
        return 0
    return int(get_currency_precision(currency))


def to_minor(value: object, currency: str) -> int:
    """An amount given in the currency's major unit (a TOML number or a JSON
    number or string such as "12.50") as minor units; raises MoneyError."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise MoneyError(f"must be a number, not {value!r}")
    try:
        amount = Decimal(str(value).strip())
    except InvalidOperation:
        raise MoneyError(f"must be a number, not {value!r}") from None
    if not amount.is_finite():
        raise MoneyError(f"must be a number, not {value!r}")
    digits = minor_digits(currency)
    minor = amount.scaleb(digits)
    if minor != minor.to_integral_value():
        raise MoneyError(f"{value!r} has more than {digits} decimals for {currency}")
    return int(minor)


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
    if currency in _IRANIAN:
        locale = Locale.parse("fa_IR" if lang == "fa" else "en")
        unit = " " + _IRANIAN[currency][lang]
        prefix, suffix, grouping = ("", "-"), (unit, unit), (3, 3)
    else:
        locale = Locale.parse("fa_IR" if lang == "fa" else _ENGLISH.get(currency, "en"))
        pattern = locale.currency_formats["standard"]
        symbol = get_currency_symbol(currency, locale)
        prefix = tuple(x.replace("¤", symbol) for x in pattern.prefix)
        suffix = tuple(x.replace("¤", symbol) for x in pattern.suffix)
        grouping = pattern.grouping
    return (
        prefix[0],
        prefix[1],
        suffix[0],
        suffix[1],
        (int(grouping[0]), int(grouping[1])),
        get_decimal_symbol(locale, numbering_system="default"),
        get_group_symbol(locale, numbering_system="default"),
    )


def fmt(minor: int, currency: str, lang: str) -> str:
    """The amount as a person reads it, in English or Persian: what Babel's
    format_currency writes (tests/host/test_billing_config.py holds them
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


def persian_digits(text: str) -> str:
    return text.translate(PERSIAN_DIGITS)
