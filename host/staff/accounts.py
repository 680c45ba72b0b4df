"""What an account's name, password and PIN may be: each checked at the
edge with a sentence that says field is wrong (ValueError)."""

from __future__ import annotations

import re
import secrets
import unicodedata
from typing import Any

from baulk.host.name_rules import OPERATOR
from baulk.host.sentences import Message
from baulk.host.staff.roles import REFEREE, ROLES

NAME_CHARS = 32
PASSWORD_MIN = 8
PASSWORD_BYTES = 256
PIN_DIGITS = (4, 8)
TOKEN_NAME_CHARS = 40
_PUNCT = " .-_'"
_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")
_TABLE = re.compile(r"[A-Za-z0-9_-]{1,32}")


def _text(value: object, field: str) -> str:
    if not isinstance(value, str):
        raise ValueError(Message("{field} must be text", field=field))
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(
            Message("{field} must be text (it holds a broken character)", field=field)
        ) from None
    return value


def check_person(value: object, field: str = "name") -> str:
    """A person's name as he signs in: letters, digits, spaces and . - _ '
    (any script: Persian names are names), 1–32 characters."""
    text = unicodedata.normalize("NFC", _text(value, field).strip())
    if not 1 <= len(text) <= NAME_CHARS:
        raise ValueError(
            Message("{field} must have 1 to {n} characters", field=field, n=NAME_CHARS)
        )
    for c in text:
        if not (c.isalnum() or c in _PUNCT) or unicodedata.category(c) in ("Cf", "Cc"):
            raise ValueError(
                Message(
                    "{field} may hold letters, digits, spaces and . - _ ' only (not {text})",
                    field=field,
                    text=f"U+{ord(c):04X}",
                )
            )
    if key_of(text) == OPERATOR:
        raise ValueError(
            Message(
                "{field} '{text}' is kept for the configured operator token",
                field=field,
                text=OPERATOR,
            )
        )
    return text


def key_of(name: str) -> str:
    """The name as it is looked up: one case, no spaces around."""
    return unicodedata.normalize("NFC", name).strip().casefold()


def check_role(value: object) -> str:
    if value not in ROLES:
        raise ValueError(Message("role must be one of: {text}", text=", ".join(ROLES)))
    return str(value)


def check_password(value: object) -> str:
    text = _text(value, "password")
    if len(text) < PASSWORD_MIN:
        raise ValueError(Message("password must have at least {n} characters", n=PASSWORD_MIN))
    if len(text.encode()) > PASSWORD_BYTES:
        raise ValueError(Message("password must be at most {n} bytes", n=PASSWORD_BYTES))
    return text


def check_pin(value: object) -> str:
    """A PIN of 4 to 8 digits (Persian or Arabic-Indic digits count)."""
    text = _text(value, "pin").strip().translate(_DIGITS)
    low, high = PIN_DIGITS
    if not (low <= len(text) <= high and text.isascii() and text.isdigit()):
        raise ValueError(Message("pin must be {n} to {m} digits", n=low, m=high))
    return text


# One-time sign-in codes (host/staff/registry.py): 12 characters of an
# alphabet with nothing to misread (no 0/O, 1/I/L), 59 random bits.  Live
# for CODE_MINUTES and used once, a code cannot be guessed in its life even
# at a million tries a second (31^12 against 9e8 tries in 15 minutes), so
# the guessing cap needs no say over it: a new phone always gets in.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 12
CODE_MINUTES = 15


def new_code() -> str:
    """A fresh code, shown in groups of four: ``K7QM-2XHD-9RTA``."""
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    return "-".join(raw[i : i + 4] for i in range(0, CODE_LENGTH, 4))


def code_key(value: object) -> str | None:
    """A typed code as it is looked up (capitals, no spaces or dashes,
    Persian digits as digits), or None when it cannot be one."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    text = "".join(c for c in value.translate(_DIGITS).upper() if c not in " -\u200c")
    if len(text) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in text):
        return None
    return text


def check_tables(value: object) -> list[str] | None:
    """A referee's tables: a list of table ids, or null for every table."""
    if value is None:
        return None
    if not isinstance(value, list) or not value or len(value) > 64:
        raise ValueError(
            Message("tables must be a list of 1 to 64 table ids, or null for every table")
        )
    out: list[str] = []
    for t in value:
        if not isinstance(t, str) or not _TABLE.fullmatch(t):
            raise ValueError(
                Message("tables must be a list of table ids (letters, digits, '-' or '_')")
            )
        if t not in out:
            out.append(t)
    return out


def check_token_name(value: object) -> str:
    text = _text(value, "token name").strip()
    if not 1 <= len(text) <= TOKEN_NAME_CHARS or any(not c.isprintable() for c in text):
        raise ValueError(
            Message("token name must be 1 to {n} printable characters", n=TOKEN_NAME_CHARS)
        )
    return text


def tables_for(role: str, tables: Any) -> list[str] | None:
    """Only a referee is limited to tables."""
    if tables is not None and role != REFEREE:
        raise ValueError(Message("only a referee is limited to tables"))
    return check_tables(tables)
