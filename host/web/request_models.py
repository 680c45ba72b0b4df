"""Every request body and every query of the web side, declared once.

Each is a pydantic model.  The handler validates with it
(:func:`body_of`, and the :func:`queries` middleware for the queries), and
the OpenAPI document's schemas are generated from it (host/web/openapi.py),
so what the document allows is what the handler takes: the API fuzz
(tests/chaos/test_api_fuzz.py) sends both, and holds them together.

Limits come from where they are declared: a name's bytes and what it may
hold from host/name_rules.py, a line of text's from :data:`TEXT_BYTES`, an
event's keys and their vocabularies from the rules engine
(firmware/engine.py, firmware/names.py), a capture's bounds from the wire's
catalogue (protocol/messages.py), an account's from host/staff/accounts.py,
a bill's from host/club/sessions.py and host/club/money.py.

A refusal is one bounded sentence, a message of host/sentences.py
(:func:`sentence`): for a field ``key``, "``key`` must be ``<its
description>``", the same words the document gives the field (declared as
data, listed by :func:`every_sentence`); a name's or a text's own problem,
as host/name_rules.py says it; an unknown key, naming the keys allowed.  The
catalogue has their Persian.  A body that passed its model may still be refused by a rule
that depends on the state (no such item on the price list, a session
already closed, the bill's currency): that is the club's, answered 409.

A string's limits the document cannot state exactly (bytes of UTF-8, the
characters a name may hold, a Solar Hijri day) are named by a ``format`` of
this document's own (:data:`FORMATS`), with the code-point bounds that
follow from them as ``minLength`` and ``maxLength``.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, TypeVar, Union, cast

from aiohttp import web
from annotated_types import Len
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    GetJsonSchemaHandler,
    PlainValidator,
    RootModel,
    StringConstraints,
    Tag,
    ValidationError,
    create_model,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError

from baulk.firmware import engine, names
from baulk.host.club import money, views
from baulk.host.club.sessions import QUANTITY_MOST
from baulk.host.config import TABLE_ID  # a table id as the config declares it
from baulk.host.handset import sync as handset
from baulk.host.name_rules import NAME_BYTES, OPERATOR, TEXT_BYTES, problem
from baulk.host.sentences import Message, declared
from baulk.host.staff import accounts, roles
from baulk.host.web.http import LANGS, error, lang_of, read_body
from baulk.protocol import messages
from baulk.protocol.host_codec import CaptureRequest

BEST_OF_MAX: int = engine._MAX_BEST_OF  # the engine's (it holds a match's frames)
VERSION_CHARS = 40  # a bill's version as the desk was shown it
EXPECT_CHARS = 64  # a match id as the console was shown it
ID_PATTERN = r"^[0-9]{1,12}$"
WHO_CHARS = 40  # the activity log's filter by person
SEARCH_CHARS = 100  # a player search
SEARCH_MOST = 100  # players a search lists
MATCHES_MOST = 1000  # matches a list holds
FIRST_YEAR, LAST_YEAR = 1970, 2200  # a report's days: past these is a typing mistake
FIRST_JYEAR, LAST_JYEAR = FIRST_YEAR - 621, LAST_YEAR - 622
WHAT = "value"  # a name's or a text's sentence, before it knows what it names (sentence())

# The formats of this document's own, each what its value must be.
NAME_FORMAT = "baulk-name"
TEXT_FORMAT = "baulk-text"
PERSON_FORMAT = "baulk-person"
TOKEN_NAME_FORMAT = "baulk-token-name"
PASSWORD_FORMAT = "baulk-password"
PIN_FORMAT = "baulk-pin"
JDATE_FORMAT = "baulk-jdate"
FORMATS = {
    NAME_FORMAT: f"a name: at most {NAME_BYTES} bytes of UTF-8, a letter or a digit, "
    "nothing invisible and no emoji or symbols (spaces around it are trimmed)",
    TEXT_FORMAT: f"a line of text: at most {TEXT_BYTES} bytes of UTF-8, not blank, nothing "
    "invisible and no emoji (currency and mathematical signs are allowed)",
    PERSON_FORMAT: f"an account's name: 1 to {accounts.NAME_CHARS} letters, digits, spaces and "
    f". - _ ' (any script), not '{OPERATOR}'",
    TOKEN_NAME_FORMAT: f"1 to {accounts.TOKEN_NAME_CHARS} printable characters",
    PASSWORD_FORMAT: f"at least {accounts.PASSWORD_MIN} characters and at most "
    f"{accounts.PASSWORD_BYTES} bytes of UTF-8",
    PIN_FORMAT: f"{accounts.PIN_DIGITS[0]} to {accounts.PIN_DIGITS[1]} digits "
    "(Persian and Arabic-Indic digits count)",
    JDATE_FORMAT: "a day of the Solar Hijri calendar, YYYY-MM-DD",
}


# ---------------------------------------------------------------------- values
@dataclass(frozen=True, eq=False)
class Doc:
    """What the document says of a value whose check is a function: its
    JSON Schema, beside what pydantic makes of its type."""

    schema: dict[str, Any]

    def __get_pydantic_json_schema__(
        self, core: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        out = handler(core)
        out.update(self.schema)
        return out


def _trimmed(value: object, most: int, kind: str, free_text: bool) -> str:
    """A name or a line of text as sent: a string of at most ``most`` bytes,
    trimmed, not empty, and held to host/name_rules.py."""
    if not isinstance(value, str) or not value.strip():
        if kind == "name":
            raise ValueError(Message("{what} must be a non-empty name", what=WHAT))
        raise ValueError(Message("{what} must be a non-empty text", what=WHAT))
    if len(value.encode("utf-8", "surrogatepass")) > most:
        raise ValueError(Message("{what} is longer than {n} bytes", what=WHAT, n=most))
    text = value.strip()
    why = problem(text, WHAT, free_text=free_text)
    if why is not None:
        raise ValueError(why)
    return text


def _name(value: object) -> str:
    return _trimmed(value, NAME_BYTES, "name", False)


def _text(value: object) -> str:
    return _trimmed(value, TEXT_BYTES, "text", True)


def _str_doc(fmt: str, least: int, most: int) -> Doc:
    return Doc({"format": fmt, "minLength": least, "maxLength": most})


Name = Annotated[
    str, PlainValidator(_name, json_schema_input_type=str), _str_doc(NAME_FORMAT, 1, NAME_BYTES)
]
Text = Annotated[
    str, PlainValidator(_text, json_schema_input_type=str), _str_doc(TEXT_FORMAT, 1, TEXT_BYTES)
]


# The staff rules' sentences for a value longer than the document's bound.
TOO_LONG: list[str] = []


def _staff_rule(check: Callable[[object], str], longest: int, too_long: str) -> PlainValidator:
    """An account rule of host/staff/accounts.py, over a string of at most
    ``longest`` characters as sent (the document's bound: the rule trims)."""
    TOO_LONG.append(too_long)

    def run(value: object) -> str:
        if isinstance(value, str) and len(value) > longest:
            raise ValueError(too_long)
        return check(value)

    return PlainValidator(run, json_schema_input_type=str)


PIN_CHARS = accounts.PIN_DIGITS[1]
Person = Annotated[
    str,
    _staff_rule(
        accounts.check_person,
        accounts.NAME_CHARS,
        f"name must have 1 to {accounts.NAME_CHARS} characters",
    ),
    _str_doc(PERSON_FORMAT, 1, accounts.NAME_CHARS),
]
TokenName = Annotated[
    str,
    _staff_rule(
        accounts.check_token_name,
        accounts.TOKEN_NAME_CHARS,
        f"token name must be 1 to {accounts.TOKEN_NAME_CHARS} printable characters",
    ),
    _str_doc(TOKEN_NAME_FORMAT, 1, accounts.TOKEN_NAME_CHARS),
]
Password = Annotated[
    str,
    _staff_rule(
        accounts.check_password,
        accounts.PASSWORD_BYTES,
        f"password must be at most {accounts.PASSWORD_BYTES} bytes",
    ),
    _str_doc(PASSWORD_FORMAT, accounts.PASSWORD_MIN, accounts.PASSWORD_BYTES),
]
Pin = Annotated[
    str,
    _staff_rule(
        accounts.check_pin,
        PIN_CHARS,
        f"pin must be {accounts.PIN_DIGITS[0]} to {accounts.PIN_DIGITS[1]} digits",
    ),
    _str_doc(PIN_FORMAT, accounts.PIN_DIGITS[0], PIN_CHARS),
]
Role = Literal["owner", "desk", "referee"]
TableId = Annotated[str, StringConstraints(pattern=TABLE_ID)]
TableList = Annotated[list[TableId], Len(1, 64)]


def _exactly(kind: type) -> BeforeValidator:
    """A literal's value of this very type: ``true`` is not 1, nor 1.0 (a
    literal alone takes any value equal to one of its own)."""

    def run(value: object) -> object:
        if type(value) is not kind:
            raise PydanticCustomError("literal_type", "not of the literal's type")
        return value

    return BeforeValidator(run)


WHOLE, TRUTH = _exactly(int), _exactly(bool)
Side = Annotated[Literal[0, 1], WHOLE]
Ball = Literal[names.BALLS]  # type: ignore[valid-type]
Pocket = Literal[names.POCKETS]  # type: ignore[valid-type]
FoulKind = Literal[names.FOUL_KINDS]  # type: ignore[valid-type]
Spot = Literal[(*names.COLOURS, "behind")]  # type: ignore[valid-type]
if TYPE_CHECKING:
    BestOf = int
else:
    BestOf = Annotated[Literal[tuple(range(1, BEST_OF_MAX + 1, 2))], WHOLE]
Lang = Literal["en", "fa"]
assert set(LANGS) == set(views.LANGS) == set(handset.LANGS) == {"en", "fa"}
assert tuple(roles.ROLES) == ("owner", "desk", "referee")


def _spots(value: list[str]) -> list[str]:
    if len(set(value)) != len(value):
        raise ValueError(declared("occupied must be a list of spot names, each once"))
    return value


Spots = Annotated[
    list[Spot], AfterValidator(_spots), Field(json_schema_extra={"uniqueItems": True})
]

# Two names, or two teams of two names (doubles); never a name and a team.
TwoNames = Annotated[list[Name], Len(2, 2)]
Team = Annotated[list[Name], Len(2, 2)]
TwoTeams = Annotated[list[Team], Len(2, 2)]


def _form(value: Any) -> str | None:
    """Which of the two forms a players' list is meant as (None: a name and a team)."""
    if not isinstance(value, list) or len(value) != 2:
        return "names"
    teams = [isinstance(p, list) for p in value]
    if all(teams):
        return "teams"
    return None if any(teams) else "names"


PLAYERS_MIXED = "players must be two names or two teams, not a name and a team"
Players = Annotated[
    Union[Annotated[TwoNames, Tag("names")], Annotated[TwoTeams, Tag("teams")]],  # noqa: UP007
    Discriminator(_form, custom_error_type="players_form", custom_error_message=PLAYERS_MIXED),
]


# An amount at the desk, in the currency's major unit (host/club/money.py
# parse): never 0; a refund's, what goes back, above 0.  Its decimals and
# its range in minor units are the bill's currency's: a rule of the state (409).
AMOUNT_RULE = "a plain decimal number such as 12.50 (as text), or a whole number"
REFUND_RULE = "a plain decimal number above 0 such as 12.50 (as text), or a whole number"
NOT_ZERO = "amount must not be 0: a correction changes the bill"
ZERO = r"^[+-]?0+(\.0+)?$"


def _not_zero(value: str | int) -> str | int:
    if value == 0 or (isinstance(value, str) and re.fullmatch(ZERO, value)):
        raise ValueError(NOT_ZERO)
    return value


def _amount(sign: str, least: int) -> Any:
    text = Annotated[
        str,
        StringConstraints(pattern=f"^{sign}[0-9]+(\\.[0-9]+)?$", max_length=money.TEXT_MOST),
        Doc({"not": {"pattern": ZERO}}),
    ]
    whole = Annotated[int, Field(ge=least, le=money.MOST), Doc({"not": {"const": 0}})]
    return Annotated[Union[text, whole], AfterValidator(_not_zero)]  # noqa: UP007


if TYPE_CHECKING:
    Amount = str | int
    RefundAmount = str | int
else:
    Amount = _amount("[+-]?", -money.MOST)
    RefundAmount = _amount("[+]?", 1)


# ---------------------------------------------------------------------- bodies
def tag_of(value: object, key: str, tags: Collection[str]) -> str | None:
    """A body's variant, named by its ``key`` (None: no variant of ``tags``).
    The key's value may be any JSON: only a string is looked up, for an
    object or a list is unhashable and would raise (a 500) in a dict's ``in``."""
    if not isinstance(value, dict):
        return None
    tag = value.get(key)
    return tag if isinstance(tag, str) and tag in tags else None


class Body(BaseModel):
    """A request body: a JSON object of exactly these keys, each of its type
    (no bool for a number, no number for a string)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    # a key's own sentence when it is missing (otherwise: the key's rule)
    MISSING: ClassVar[dict[str, str | Message]] = {}
    # a key's own sentence for any refusal of it (otherwise: "key must be
    # <its description>"); a subclass's add to its bases'
    SAID: ClassVar[dict[str, str]] = {"who": "who must be a non-empty name"}


WHO = "the operator's name (kept for older clients: who acted is the sign-in's)"


def _who() -> Any:
    return Field(None, description=WHO)


class NewMatch(Body):
    """A new match on the table."""

    players: Players = Field(description="a list of two names (or two teams of two names)")
    best_of: BestOf = Field(description=f"an odd integer from 1 to {BEST_OF_MAX}")
    reds: Annotated[Literal[15, 10, 6], WHOLE] = Field(15, description="15, 10 or 6")
    breaker: Side = Field(0, description="0 or 1")
    who: Name | None = Field(None, description="the referee the result sheet names")
    expect: Annotated[str, StringConstraints(max_length=EXPECT_CHARS)] | None = Field(
        None, description="the match id the console showed, or null"
    )


class Names(Body):
    """The names of the table's current match, corrected."""

    players: Players = Field(description="a list of two names (or two teams of two names)")
    who: Name | None = _who()
    # left out: not checked; given, the players as the console showed them
    expect: list[Any] = Field(None, description="the players the console showed")  # type: ignore[arg-type]


class HandsetLang(Body):
    lang: Lang = Field(description="'en' or 'fa'")


class PocketCheck(Body):
    who: Name | None = _who()


def _wire_bounds(record: type[Any]) -> dict[str, tuple[int, int]]:
    """(least, most) of each whole-number key of a message the host sends,
    from the wire's catalogue (protocol/messages.py)."""
    found = messages.schema(record.TYPE) or {}
    uint = messages._KINDS.split().index("uint")
    return {key: (lo, hi) for key, kind, lo, hi, _ in found.values() if kind == uint}


_CAPTURE = _wire_bounds(CaptureRequest)
SECONDS = _CAPTURE["seconds"]
PASSAGES = _CAPTURE["passages"]


class SensorCapture(Body):
    who: Name | None = Field(None, description="who records (the sign-in's name otherwise)")
    on: bool = Field(True, description="true or false")
    during_match: bool = Field(False, description="true or false")
    seconds: Annotated[int, Field(ge=SECONDS[0], le=SECONDS[1])] | None = Field(
        None, description=f"a whole number from {SECONDS[0]} to {SECONDS[1]}"
    )
    passages: Annotated[int, Field(ge=PASSAGES[0], le=PASSAGES[1])] | None = Field(
        None, description=f"a whole number from {PASSAGES[0]} to {PASSAGES[1]}"
    )


# A correction is any engine input event but ``match``: one model an event,
# its keys and which of them are required read from the engine's own table
# (firmware/engine.py _KEYS), each key's values from the names it takes.
_EVENT_KEYS: dict[str, tuple[Any, str]] = {
    "ball": (Ball, "a ball name"),
    "pocket": (Pocket, f"one of: {', '.join(names.POCKETS)}"),
    "kind": (FoulKind, "a foul kind of /api/vocabulary"),
    "clear": (bool, "true or false"),
    "match": (bool, "true or false"),
    "side": (Side, "0 or 1"),
    "player": (Side, "0 or 1"),
    "first": (Side, "0 or 1"),
    "occupied": (Spots, "a list of spot names"),
}
_T_WIRE: Any = messages._raw("t")
T_MOST: int = int(_T_WIRE[1][3])  # the wire's bound on an input's t (a u63 of ms)
_EVENT_NAMES = [n for n in names.EVENTS if n != "match"]  # a new match has its own route
EV_RULE = f"ev must be one of: {', '.join(_EVENT_NAMES)}"
# ev 'match' as a command
NEW_MATCH_RULE = Message("a new match goes to POST {path}", path="/api/tables/{table}/match")


class Event(Body):
    t: Annotated[int, Field(ge=0, le=T_MOST)] | None = Field(
        None, description="a non-negative integer of milliseconds"
    )
    who: Name | None = _who()
    # left out: not checked; given, the board's events as the console showed them
    version: Annotated[int, Field(ge=0, le=T_MOST)] | None = Field(
        None, description="the board's events as the console showed them"
    )


def _event_model(name: str) -> type[Event]:
    keys_of = cast(Callable[[str], Any], engine._keys_of)
    keys, required = keys_of(name)
    fields: dict[str, Any] = {
        "ev": (Literal[name], Field(description=EV_RULE[len("ev must be ") :]))
    }
    for key in keys:
        kind, rule = _EVENT_KEYS[key]
        default: Any = ... if key in required else None
        fields[key] = (kind, Field(default, description=rule))  # given: never null
    model: type[Event] = create_model(f"Event_{name}", __base__=Event, **fields)
    model.MISSING = {k: Message("{text} needs '{key}'", text=name, key=k) for k in required}
    return model


EVENTS: dict[str, type[Event]] = {n: _event_model(n) for n in _EVENT_NAMES}


class Command(RootModel[Any]):
    """A correction: any engine input event but ``match`` (docs/ENGINE.md)."""

    root: Annotated[
        Union[tuple(Annotated[m, Tag(n)] for n, m in EVENTS.items())],  # type: ignore[valid-type]  # noqa: UP007
        Discriminator(
            lambda v: tag_of(v, "ev", EVENTS),
            custom_error_type="ev",
            custom_error_message=EV_RULE,
        ),
    ]
    VARIANTS: ClassVar[dict[str, type[Body]]] = dict(EVENTS)


# The desk's: every change may carry ``version``, the bill's version the
# desk was shown (an older one is refused, 409: the table changed).
Version = Annotated[str, StringConstraints(max_length=VERSION_CHARS)]
VERSION_RULE = "the bill's version as the desk was shown it"


class DeskBody(Body):
    who: Name | None = _who()
    version: Version | None = Field(None, description=VERSION_RULE)


class OpenSession(DeskBody):
    pass


class CloseSession(DeskBody):
    pass


class ConfirmSession(DeskBody):
    pass


class TakeBack(DeskBody):
    pass


REASON_RULE = f"one line of at most {TEXT_BYTES} bytes of text"


class VoidSession(DeskBody):
    reason: Text = Field(description=REASON_RULE)
    undo: bool = Field(False, description="true or false")
    MISSING = {"reason": "a void needs a reason: say why nothing is to pay"}


class ReopenSession(DeskBody):
    reason: Text | None = Field(None, description=REASON_RULE)


class Reverse(DeskBody):
    reason: Text = Field(description=REASON_RULE)
    MISSING = {"reason": "a reversal needs a reason: say why it is taken back"}


class Correction(DeskBody):
    amount: Amount = Field(description=AMOUNT_RULE)
    reason: Text = Field(description=REASON_RULE)
    payer: Name | None = Field(None, description="a player's name, or left out for the table")
    SAID = {"payer": "payer must be a player's name, or left out for the table"}
    MISSING = {
        "amount": "amount is missing: the sum to add (or, negative, to take off)",
        "reason": "a correction needs a reason: say why the bill changes",
    }


class Refund(DeskBody):
    amount: RefundAmount = Field(description=REFUND_RULE)
    reason: Text = Field(description=REASON_RULE)
    payer: Name | None = Field(None, description="a player's name, or left out for the table")
    SAID = {"payer": "payer must be a player's name, or left out for the table"}
    MISSING = {
        "amount": "amount is missing: the sum to give back",
        "reason": "a refund needs a reason: say why money goes back",
    }


class AddItem(DeskBody):
    item: Annotated[str, StringConstraints(min_length=1, max_length=NAME_BYTES)] = Field(
        description="the name of an item of the price list"
    )
    quantity: Annotated[int, Field(ge=1, le=QUANTITY_MOST)] = Field(
        1, description=f"a whole number from 1 to {QUANTITY_MOST}"
    )


class PrintReceipt(DeskBody):
    lang: Lang | None = Field(None, description="'en' or 'fa'")


# The staff's: an account, a change of one, a named token.  Which keys go
# with which role is the shape's: a PIN is a desk clerk's, tables a referee's.
TABLES_RULE = "a list of 1 to 64 table ids, or null for every table"


NAME_SAID = f"name must have 1 to {accounts.NAME_CHARS} characters"
PASSWORD_SAID = f"password must have at least {accounts.PASSWORD_MIN} characters"
PIN_SAID = f"pin must be {accounts.PIN_DIGITS[0]} to {accounts.PIN_DIGITS[1]} digits"
ONLY_REFEREE = "only a referee is limited to tables"
TABLES_SAID = f"tables must be {TABLES_RULE}"


class _NewAccount(Body):
    name: Person = Field(description=FORMATS[PERSON_FORMAT])
    password: Password = Field(description=FORMATS[PASSWORD_FORMAT])
    tables: None = Field(None, description="null: only a referee is limited to tables")
    MISSING = {"password": "an account needs a password (and a desk clerk may have a PIN)"}
    SAID = {"name": NAME_SAID, "password": PASSWORD_SAID, "pin": PIN_SAID, "tables": ONLY_REFEREE}


class NewOwner(_NewAccount):
    role: Literal["owner"] = Field(description="one of: owner, desk, referee")


class NewDesk(_NewAccount):
    role: Literal["desk"] = Field(description="one of: owner, desk, referee")
    pin: Pin | None = Field(None, description=FORMATS[PIN_FORMAT])


class NewDeskByPin(Body):
    name: Person = Field(description=FORMATS[PERSON_FORMAT])
    role: Literal["desk"] = Field(description="one of: owner, desk, referee")
    pin: Pin = Field(description=FORMATS[PIN_FORMAT])
    tables: None = Field(None, description="null: only a referee is limited to tables")
    SAID = {"name": NAME_SAID, "pin": PIN_SAID, "tables": ONLY_REFEREE}


class NewReferee(_NewAccount):
    role: Literal["referee"] = Field(description="one of: owner, desk, referee")
    tables: TableList | None = Field(None, description=TABLES_RULE)  # type: ignore[assignment]
    SAID = {"tables": TABLES_SAID}


ROLE_RULE = f"role must be one of: {', '.join(roles.ROLES)}"


def _account_kind(value: Any) -> str | None:
    role = tag_of(value, "role", roles.ROLES)
    if role == "desk" and "password" not in value and "pin" in value:
        return "desk_pin"
    return role


class NewAccount(RootModel[Any]):
    """An account: a password, and a desk clerk may have a PIN (or a PIN alone)."""

    root: Annotated[
        Union[  # noqa: UP007
            Annotated[NewOwner, Tag("owner")],
            Annotated[NewDesk, Tag("desk")],
            Annotated[NewDeskByPin, Tag("desk_pin")],
            Annotated[NewReferee, Tag("referee")],
        ],
        Discriminator(_account_kind, custom_error_type="role", custom_error_message=ROLE_RULE),
    ]
    VARIANTS: ClassVar[dict[str, type[Body]]] = {
        "owner": NewOwner,
        "desk": NewDesk,
        "desk_pin": NewDeskByPin,
        "referee": NewReferee,
    }


NOTHING_TO_CHANGE = "nothing to change: give disabled, password, pin, role or tables"
SIGN_OUT_ALL = "give confirm: true to sign everyone out"


class FirmwareUpdate(Body):
    """Tables updated over their links, each to the newest release for its board."""

    tables: TableList | None = Field(None, description=TABLES_RULE)
    who: Name | None = _who()
    SAID = {"tables": TABLES_SAID}


class SignOutAll(Body):
    """Every sign-in ended, the caller's too: only with ``confirm: true``."""

    confirm: Annotated[Literal[True], TRUTH] = Field(description="true, to sign everyone out")
    SAID = {"confirm": SIGN_OUT_ALL}


class ChangeAccount(Body):
    """At least one change.  Whether a PIN or tables suit the account's role
    depends on the account (its role as it is): the registry's rule, 409."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})
    SAID = {"password": PASSWORD_SAID, "pin": PIN_SAID}
    disabled: bool | None = Field(None, description="true or false")
    password: Password | None = Field(None, description=FORMATS[PASSWORD_FORMAT])
    pin: Pin | None = Field(None, description=FORMATS[PIN_FORMAT])
    role: Role | None = Field(None, description="one of: owner, desk, referee")
    tables: TableList | None = Field(None, description=TABLES_RULE)

    @model_validator(mode="after")
    def _something(self) -> ChangeAccount:
        if not self.model_fields_set:
            raise ValueError(NOTHING_TO_CHANGE)
        return self


class _NewToken(Body):
    name: TokenName = Field(description=FORMATS[TOKEN_NAME_FORMAT])
    tables: None = Field(None, description="null: only a referee is limited to tables")
    SAID = {
        "name": f"token name must be 1 to {accounts.TOKEN_NAME_CHARS} printable characters",
        "tables": ONLY_REFEREE,
    }


class OwnerToken(_NewToken):
    role: Literal["owner"] = Field(description="one of: owner, desk, referee")


class DeskToken(_NewToken):
    role: Literal["desk"] = Field(description="one of: owner, desk, referee")


class RefereeToken(_NewToken):
    role: Literal["referee"] = Field(description="one of: owner, desk, referee")
    tables: TableList | None = Field(None, description=TABLES_RULE)  # type: ignore[assignment]
    SAID = {"tables": TABLES_SAID}


class NewToken(RootModel[Any]):
    """A named API token with a role (a referee's may be limited to tables)."""

    root: Annotated[
        Union[  # noqa: UP007
            Annotated[OwnerToken, Tag("owner")],
            Annotated[DeskToken, Tag("desk")],
            Annotated[RefereeToken, Tag("referee")],
        ],
        Discriminator(
            lambda v: tag_of(v, "role", roles.ROLES),
            custom_error_type="role",
            custom_error_message=ROLE_RULE,
        ),
    ]
    VARIANTS: ClassVar[dict[str, type[Body]]] = {
        "owner": OwnerToken,
        "desk": DeskToken,
        "referee": RefereeToken,
    }


# The sign-in: one of four ways.  What is typed is checked as it is looked
# up (a wrong one is a 401): here only its kind and its length.
SIGN_IN_NAME_CHARS = 40
SECRET_CHARS = 256
CODE_CHARS = 64


Typed40 = Annotated[str, StringConstraints(max_length=SIGN_IN_NAME_CHARS)]
TypedSecret = Annotated[str, StringConstraints(max_length=SECRET_CHARS)]
TypedPin = Annotated[str, StringConstraints(max_length=PIN_CHARS)]
TypedCode = Annotated[str, StringConstraints(max_length=CODE_CHARS)]


class PasswordSignIn(Body):
    SAID = {"name": "name and password must be text", "password": "name and password must be text"}
    name: Typed40 = Field(description=f"text of at most {SIGN_IN_NAME_CHARS} characters")
    password: TypedSecret = Field(description=f"text of at most {SECRET_CHARS} characters")


class PinSignIn(Body):
    SAID = {"name": "name and pin must be text", "pin": "name and pin must be text"}
    name: Typed40 = Field(description=f"text of at most {SIGN_IN_NAME_CHARS} characters")
    pin: TypedPin = Field(description=f"text of at most {PIN_CHARS} characters")


class CodeSignIn(Body):
    SAID = {"code": "that sign-in code is wrong, used already or out of date"}
    code: TypedCode = Field(description=f"text of at most {CODE_CHARS} characters")


class TokenSignIn(Body):
    SAID = {"token": "token must be a string"}
    token: TypedSecret = Field(description=f"text of at most {SECRET_CHARS} characters")


SIGN_IN_RULE = "give name and password (or pin), a sign-in code, or the operator token"


def _sign_in_kind(value: Any) -> str | None:
    if not isinstance(value, dict):
        return None
    for key in ("token", "code", "pin", "password"):
        if key in value:
            return key
    return None


class SignIn(RootModel[Any]):
    """A name and password, a desk clerk's name and PIN, a one-time code, or
    the operator token."""

    root: Annotated[
        Union[  # noqa: UP007
            Annotated[PasswordSignIn, Tag("password")],
            Annotated[PinSignIn, Tag("pin")],
            Annotated[CodeSignIn, Tag("code")],
            Annotated[TokenSignIn, Tag("token")],
        ],
        Discriminator(
            _sign_in_kind, custom_error_type="sign_in", custom_error_message=SIGN_IN_RULE
        ),
    ]
    VARIANTS: ClassVar[dict[str, type[Body]]] = {
        "password": PasswordSignIn,
        "pin": PinSignIn,
        "code": CodeSignIn,
        "token": TokenSignIn,
    }


# ---------------------------------------------------------------------- queries
class Query(BaseModel):
    """A query: each key at most once, each of its type; keys of no field
    are left alone (a shared link may carry its own)."""

    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)
    SAID: ClassVar[dict[str, str]] = {}  # as a body's (Body.SAID)


def _digits(least: int, most: int) -> Callable[[object], int]:
    def run(value: object) -> int:
        # a query's integer as a client writes one: ASCII digits, no sign
        if not isinstance(value, str) or not re.fullmatch(r"[0-9]{1,12}", value):
            raise PydanticCustomError("int_parsing", "not a whole number")
        n = int(value)
        if not least <= n <= most:
            raise PydanticCustomError("int_range", "out of range")
        return n

    return run


MatchesLimit = Annotated[
    int,
    PlainValidator(_digits(1, MATCHES_MOST), json_schema_input_type=int),
    Doc({"minimum": 1, "maximum": MATCHES_MOST}),
]
SearchLimit = Annotated[
    int,
    PlainValidator(_digits(1, SEARCH_MOST), json_schema_input_type=int),
    Doc({"minimum": 1, "maximum": SEARCH_MOST}),
]


_YEARS = r"(19[7-9][0-9]|2[01][0-9][0-9]|2200)"
_JYEARS = r"(1349|13[5-9][0-9]|14[0-9][0-9]|15[0-6][0-9]|157[0-8])"
_MONTH_DAY = r"-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
DATE_RULE = f"a day written YYYY-MM-DD (Gregorian, {FIRST_YEAR} to {LAST_YEAR})"
JDATE_RULE = f"a day of the Solar Hijri calendar, YYYY-MM-DD ({FIRST_JYEAR} to {LAST_JYEAR})"


def _day(value: object) -> date:
    if not isinstance(value, str) or not re.fullmatch(_YEARS + _MONTH_DAY, value):
        raise ValueError(declared(f"date must be {DATE_RULE}"))
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ValueError(declared(f"date must be {DATE_RULE}")) from None


def _jday(value: object) -> date:
    if not isinstance(value, str) or not re.fullmatch(_JYEARS + _MONTH_DAY, value):
        raise ValueError(declared(f"jdate must be {JDATE_RULE}"))
    y, m, d = (int(x) for x in value.split("-"))
    try:
        return views.gregorian(y, m, d)
    except ValueError:
        raise ValueError(declared(f"jdate must be {JDATE_RULE}")) from None


Day = Annotated[
    date,
    PlainValidator(_day, json_schema_input_type=str),
    Doc({"type": "string", "format": "date", "pattern": f"^{_YEARS}{_MONTH_DAY}$"}),
]
JDay = Annotated[
    date,
    PlainValidator(_jday, json_schema_input_type=str),
    Doc({"type": "string", "format": JDATE_FORMAT, "pattern": f"^{_JYEARS}{_MONTH_DAY}$"}),
]
LANG_TEXT = "the language of the sentences (`fa`: Persian)"


class LangQuery(Query):
    lang: Lang = Field("en", description="'en' or 'fa'")


class MatchesQuery(Query):
    table: TableId | None = Field(None, description="a table id (letters, digits, '-' or '_')")
    limit: MatchesLimit = Field(50, description=f"a whole number from 1 to {MATCHES_MOST}")
    skip_empty: Literal["0", "1"] = Field("0", description="0 or 1")


class PlayersQuery(Query):
    q: Annotated[str, StringConstraints(max_length=SEARCH_CHARS, pattern=r"^[^\x00-\x1f]*$")] = (
        Field("", description=f"at most {SEARCH_CHARS} characters, none of them a control one")
    )
    limit: SearchLimit = Field(10, description=f"a whole number from 1 to {SEARCH_MOST}")


class DayQuery(LangQuery):
    date: Day | None = Field(None, description=DATE_RULE)
    jdate: JDay | None = Field(None, description=JDATE_RULE)


class ReportQuery(DayQuery):
    table: TableId | None = Field(None, description="a table id (letters, digits, '-' or '_')")


ACTIVITY_ROWS = 200  # the activity page's rows at a time, unless ?limit= says
ACTIVITY_MOST = 1000


class ActivityQuery(ReportQuery):
    who: Annotated[str, StringConstraints(max_length=WHO_CHARS)] | None = Field(
        None, description=f"a name of at most {WHO_CHARS} characters"
    )
    limit: Annotated[
        int,
        PlainValidator(_digits(1, ACTIVITY_MOST), json_schema_input_type=int),
        Doc({"minimum": 1, "maximum": ACTIVITY_MOST}),
    ] = Field(ACTIVITY_ROWS, description=f"a whole number from 1 to {ACTIVITY_MOST}")
    before: (
        Annotated[
            int,
            PlainValidator(_digits(0, 10**12 - 1), json_schema_input_type=int),
            Doc({"minimum": 0, "maximum": 10**12 - 1}),
        ]
        | None
    ) = Field(None, description="the id of a row of the log (the page after it ended)")
    SAID = {"before": "before must be the id of a row of the log"}


class LiveQuery(Query):
    tables: (
        Annotated[
            str,
            StringConstraints(
                max_length=400, pattern=r"^[A-Za-z0-9_-]{0,32}(,[A-Za-z0-9_-]{0,32})*$"
            ),
        ]
        | None
    ) = Field(None, description="table ids, comma-separated")
    SAID = {"tables": "tables must be a list of table ids (letters, digits, '-' or '_')"}


# ---------------------------------------------------------------------- the routes' requests
_LANG_ROUTES = (
    ("GET", "/report/{match}"),
    ("GET", "/report/{match}/sheet"),
    ("POST", "/console/signin"),
    ("POST", "/console/signout"),
    ("POST", "/api/tables/{table}/match"),
    ("POST", "/api/tables/{table}/command"),
    ("POST", "/api/tables/{table}/names"),
    ("POST", "/api/tables/{table}/handset"),
    ("POST", "/api/tables/{table}/pocket-check"),
    ("POST", "/api/tables/{table}/sensor-capture"),
    ("GET", "/player/{key}"),
    ("GET", "/api/desk"),
    ("POST", "/api/tables/{table}/session"),
    ("GET", "/api/sessions/{session}"),
    ("GET", "/api/sessions/{session}/bill.{fmt}"),
    ("POST", "/api/staff/users"),
    ("POST", "/api/staff/users/{name}"),
    ("POST", "/api/staff/users/{name}/code"),
    ("POST", "/api/staff/tokens"),
    ("POST", "/api/staff/tokens/{token}/revoke"),
    ("POST", "/api/staff/sign-out-all"),
    ("GET", "/api/firmware"),
    ("POST", "/api/firmware/update"),
)
SESSION_ACTIONS: dict[str, type[DeskBody]] = {
    "close": CloseSession,
    "confirm": ConfirmSession,
    "void": VoidSession,
    "reopen": ReopenSession,
    "corrections": Correction,
    "refunds": Refund,
    "items": AddItem,
    "print": PrintReceipt,
}
# (method, route) -> the model of its query, as the router names the route
QUERIES: dict[tuple[str, str], type[Query]] = {
    **dict.fromkeys(_LANG_ROUTES, LangQuery),
    **{("POST", f"/api/sessions/{{session}}/{what}"): LangQuery for what in SESSION_ACTIONS},
    ("POST", "/api/sessions/{session}/corrections/{correction}/reverse"): LangQuery,
    ("POST", "/api/sessions/{session}/items/{item}/take-back"): LangQuery,
    ("GET", "/api/live"): LiveQuery,
    ("GET", "/api/matches"): MatchesQuery,
    ("GET", "/api/players"): PlayersQuery,
    ("GET", "/api/reports/day"): ReportQuery,
    ("GET", "/api/reports/day.{fmt}"): ReportQuery,
    ("GET", "/api/staff/activity"): ActivityQuery,
    ("GET", "/api/staff/activity.{fmt}"): ActivityQuery,
    ("GET", "/api/staff/verify"): DayQuery,
}
# (method, route) -> the model of its body
BODIES: dict[tuple[str, str], type[BaseModel]] = {
    ("POST", "/console/signin"): SignIn,
    ("POST", "/api/tables/{table}/match"): NewMatch,
    ("POST", "/api/tables/{table}/command"): Command,
    ("POST", "/api/tables/{table}/names"): Names,
    ("POST", "/api/tables/{table}/handset"): HandsetLang,
    ("POST", "/api/tables/{table}/pocket-check"): PocketCheck,
    ("POST", "/api/tables/{table}/sensor-capture"): SensorCapture,
    ("POST", "/api/tables/{table}/session"): OpenSession,
    **{("POST", f"/api/sessions/{{session}}/{w}"): m for w, m in SESSION_ACTIONS.items()},
    ("POST", "/api/sessions/{session}/corrections/{correction}/reverse"): Reverse,
    ("POST", "/api/sessions/{session}/items/{item}/take-back"): TakeBack,
    ("POST", "/api/staff/users"): NewAccount,
    ("POST", "/api/staff/users/{name}"): ChangeAccount,
    ("POST", "/api/staff/tokens"): NewToken,
    ("POST", "/api/staff/sign-out-all"): SignOutAll,
    ("POST", "/api/firmware/update"): FirmwareUpdate,
}


# ---------------------------------------------------------------------- refusals
def _what(loc: list[int | str]) -> Message | str:
    """What a name's sentence names, from where it is in the body: a key
    (said by the catalogue's ``what`` context), or a player by his place."""
    key = str(loc[0]) if loc else "value"
    if key == "players" and len(loc) == 2:
        return Message("player {n}", n=int(loc[1]) + 1)
    if key == "players" and len(loc) > 2:
        return Message("player {n}.{m}", n=int(loc[1]) + 1, m=int(loc[2]) + 1)
    return key


def _variant(model: type[BaseModel], tag: object) -> type[BaseModel] | None:
    variants: dict[str, type[Body]] | None = getattr(model, "VARIANTS", None)
    if variants is None:
        return model
    return variants.get(str(tag))


def _rule_text(model: type[BaseModel] | None, key: str) -> str | None:
    for base in model.__mro__ if model is not None else ():
        said: dict[str, str] = base.__dict__.get("SAID", {})
        if key in said:
            return said[key]
    field = model.model_fields.get(key) if model is not None else None
    if field is None or not field.description:
        return None
    return f"{key} must be {field.description}"


def _rule(model: type[BaseModel] | None, key: str) -> Message:
    """A key's sentence: its own (SAID), or "key must be <its description>",
    declared where the document takes it from (:func:`every_sentence`)."""
    text = _rule_text(model, key)
    return declared(text) if text else Message("{key} is not valid here", key=key[:40])


def _custom(text: str) -> Message:
    """A model's own sentence, as pydantic gives it back (its
    custom_error_message: one of :func:`every_sentence`)."""
    return declared(text[:200])


def _missing(model: type[BaseModel] | None, key: str) -> Message | None:
    said: str | Message | None = getattr(model, "MISSING", {}).get(key)
    return declared(said) if isinstance(said, str) else said


def sentence(model: type[BaseModel], found: ValidationError) -> Message:
    """The refusal of a body or a query, as one bounded sentence."""
    e = found.errors(include_url=False)[0]
    kind, loc, ctx = e["type"], list(e["loc"]), e.get("ctx") or {}
    given = e.get("input")
    if kind == "ev" and isinstance(given, dict) and given.get("ev") == "match":
        return NEW_MATCH_RULE
    if kind in ("players_form", "ev", "role", "sign_in"):
        return _custom(str(e["msg"]))
    if getattr(model, "VARIANTS", None) is not None:
        if not loc:
            return _custom(str(e["msg"]))
        model_of = _variant(model, loc.pop(0))
    else:
        model_of = model
    if len(loc) > 1 and loc[0] == "players" and loc[1] in ("names", "teams"):
        tag = loc.pop(1)
        if tag == "teams" and len(loc) == 2 and kind in ("too_short", "too_long", "list_type"):
            return Message("team {n} must have two players", n=int(loc[1]) + 1)
    key = str(loc[0]) if loc else "body"
    if kind == "extra_forbidden":
        allowed = sorted(model_of.model_fields) if model_of is not None else []
        return Message(
            "unknown key '{key}' (allowed: {text})", key=key[:40], text=", ".join(allowed)
        )
    if kind == "missing":
        return _missing(model_of, key) or _rule(model_of, key)
    if kind == "value_error" and "error" in ctx:
        raised = ctx["error"]
        said = raised.args[0] if isinstance(raised, ValueError) and raised.args else None
        if not isinstance(said, Message):
            return declared(str(raised)[:300])  # a validator's constant (every_sentence)
        if "what" not in said.params:
            return said
        blank = _missing(model_of, key)
        if blank is not None and said.msgid.startswith("{what} must be a non-empty"):
            return blank  # a blank reason is none
        return said.but(what=_what(loc))
    return _rule(model_of, key)


def every_sentence() -> list[str]:
    """Every sentence the models declare as data (:func:`declared`): their
    custom messages, the validators' constant refusals, each key's own
    sentence and "key must be <its description>" (tests/web/test_refusals.py
    holds each to the catalogue)."""
    out: set[str] = {PLAYERS_MIXED, EV_RULE, ROLE_RULE, SIGN_IN_RULE, NOTHING_TO_CHANGE}
    out.add(NOT_ZERO)
    out.add("occupied must be a list of spot names, each once")
    out.update(TOO_LONG)
    out.add(f"date must be {DATE_RULE}")
    out.add(f"jdate must be {JDATE_RULE}")
    models: list[type[BaseModel]] = [*QUERIES.values(), *EVENTS.values()]
    for m in BODIES.values():
        models.extend(getattr(m, "VARIANTS", {}).values() or [m])
    for m in models:
        out.update(v for v in getattr(m, "MISSING", {}).values() if isinstance(v, str))
        for key in m.model_fields:
            text = _rule_text(m, key)
            if text:
                out.add(text)
    return sorted(out)


# ---------------------------------------------------------------------- reading
Model = TypeVar("Model", bound=BaseModel)
QUERY_KEY: web.RequestKey[BaseModel] = web.RequestKey("query")


def _route(request: web.Request) -> tuple[str, str] | None:
    resource = request.match_info.route.resource
    if resource is None:
        return None
    return ("GET" if request.method == "HEAD" else request.method, resource.canonical)


async def body_of(request: web.Request, model: type[Model]) -> Model | web.Response:
    """The request's JSON body as ``model`` holds it, or the 400 that says
    why not (host/web/http.py read_body bounds the reading)."""
    lang = lang_of(request)
    data = await read_body(request, lang)
    if isinstance(data, web.Response):
        return data
    try:
        return model.model_validate(data)
    except ValidationError as e:
        return error(400, sentence(model, e), lang)


def query_of(request: web.Request, model: type[Model]) -> Model:
    """The query the middleware checked (:func:`queries`), as ``model``."""
    found = request.get(QUERY_KEY)
    if not isinstance(found, model):  # a route whose query is not declared: its defaults
        return model.model_validate({})
    return found


def _check_query(request: web.Request, model: type[Query]) -> Query | web.Response:
    lang = lang_of(request)
    given: dict[str, str] = {}
    for key in model.model_fields:
        values = request.query.getall(key, [])
        if len(values) > 1:
            return error(400, Message("the query gives {key} more than once", key=key[:40]), lang)
        if values:
            given[key] = values[0]
    try:
        return model.model_validate(given)
    except ValidationError as e:
        return error(400, sentence(model, e), lang)


@web.middleware
async def queries(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Every declared query checked against its model (:data:`QUERIES`)
    before its route's handler runs: a 400 that says why, or the query kept
    for the handler (:func:`query_of`)."""
    route = _route(request)
    model = QUERIES.get(route) if route is not None else None
    if model is not None:
        found = _check_query(request, model)
        if isinstance(found, web.Response):
            return found
        request[QUERY_KEY] = found
    return await handler(request)


def day_of(request: web.Request, today: date) -> date:
    """The day a report asks for (``date``, or ``jdate`` in the Solar Hijri
    calendar), ``today`` without either."""
    q = query_of(request, DayQuery)
    return q.date or q.jdate or today
