"""Every sentence a person reads from the host, by its id and parameters, and
its Persian from the one gettext catalogue, ``host/locale/fa/LC_MESSAGES/baulk.po``.

A :class:`Message` is what a refusal or a notice carries: its msgid, the
English template with named placeholders (``"session {n} is closed"``, as
gettext's python-brace-format), and the values of those placeholders.  The
English is the template filled in (``str(message)``); the wire and the JSON
keep that text.  The Persian is the catalogue's entry for the msgid, read
with Babel's ``read_po`` once, filled in with each value said in Persian by
what it is (:func:`value_in`): a number in Persian digits, a
:class:`Message` (a word such as ``"PIN"``, or a reason) in its turn from
the catalogue, a word of a vocabulary (a placeholder named ``ball``,
``kind``, ``role``..., :data:`NAMED`) by its entry in that context, a tuple
as a choice ("owner or desk"), a :class:`Said` (an amount of money) its own
way, and anything else (an id, a name, what a client sent) kept as it is, in
a bidi isolate, so that it cannot reorder the Persian words around it.  No
sentence is parsed back by a pattern.  What arrives as English text, the
device's reasons (:func:`device_reason`: the device keeps no ids) and the
rows an older baulk wrote into the activity log (:func:`read_back`), is read
by the catalogue's own templates; a row written now keeps its sentence by id
and values (:func:`kept`).

How to add a sentence: write ``Message("the template {n}", n=...)`` where
it is given, and its msgid with the Persian in the catalogue;
tests/web/test_refusals.py fails on an id without its Persian and on an
entry whose placeholders differ from its msgid's.
"""

from __future__ import annotations

import json
import string
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Protocol, runtime_checkable

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

CATALOGUE = Path(__file__).resolve().with_name("locale") / "fa" / "LC_MESSAGES" / "baulk.po"
LANGS = ("en", "fa")
FA_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
# Unicode isolates (FSI ... PDI): a Latin name or id inside a Persian
# sentence keeps its own direction and does not reorder the words around it.
FSI = "\u2068"
PDI = "\u2069"
# The placeholders whose value is a name from a vocabulary, said by the
# catalogue's entry in that context: the balls and the foul kinds of
# firmware/names.py, the engine's keys, the options a referee's call needs a
# foul for, the kinds of row the store refuses (host/store/records.py), what
# a name's or a text's refusal names (a body's key), a credential's field, a
# staff role, and the check of a day's takings' words (host/staff/takings.py):
# the figures of a bill it works out again, the kinds of money row
# (host/store/money_chain.py KINDS) and what each kind of tampering means.
NAMED = {
    "ball": "ball",
    "kind": "foul",
    "key": "key",
    "option": "option",
    "row": "row",
    "what": "what",
    "field": "field",
    "role": "role",
    "roles": "role",
    "figure": "figure",
    "row_kind": "money row",
    "tampered": "tampered",
}
# A value that is a tuple is a choice of its words: "owner or desk".
OR = "or"
# The flag of the catalogue's entries that are the device's reasons: its rules
# engine's and its own (:func:`device_reason`).
DEVICE = "device"


@runtime_checkable
class Said(Protocol):
    """A value said its own way in each language (an amount of money,
    host/club/money.py Amount): neither a number nor a word of the
    catalogue, nor a name to isolate."""

    def said_in(self, lang: str) -> str: ...


class Message:
    """One sentence: its msgid (the English template) and its values."""

    __slots__ = ("msgid", "params")

    def __init__(self, msgid: str, /, **params: object) -> None:
        self.msgid = msgid
        self.params: Mapping[str, object] = params

    def but(self, **params: object) -> Message:
        """The same sentence with some of its values changed (a name's
        refusal, made before it knows what it names)."""
        return Message(self.msgid, **{**self.params, **params})

    def __str__(self) -> str:
        return self.msgid.format(**{k: value_in(k, v, "en") for k, v in self.params.items()})

    def __repr__(self) -> str:
        return f"Message({self.msgid!r}, {dict(self.params)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Message) and (self.msgid, dict(self.params)) == (
            other.msgid,
            dict(other.params),
        )

    def __hash__(self) -> int:
        return hash(self.msgid)


def declared(text: str) -> Message:
    """A constant sentence a module declares as data rather than where it is
    given (the request models' rules and descriptions, which the API's
    document shows too): its msgid is the text.  Such a module lists every
    one it can give (host/web/request_models.py ``every_sentence``), and
    the coverage test holds that list to the catalogue."""
    return Message(text)


def message_of(e: BaseException) -> Message | str:
    """What an exception says: its Message, when it was raised with one
    (``ValueError(Message(...))``), else its text."""
    first = e.args[0] if e.args else None
    return first if isinstance(first, Message) else str(e)


def placeholders(template: str) -> set[str]:
    """The names of a template's placeholders (``{n}``, ``{ball}``)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@cache
def catalogue() -> Catalog:
    with CATALOGUE.open("rb") as f:
        return read_po(f, locale="fa")


def _entry(msgid: str, context: str | None = None) -> str | None:
    found = catalogue().get(msgid, context=context)
    return found.string if found is not None and isinstance(found.string, str) else None


# The link to the other language names it in its own words: no translation,
# so no entry of the catalogue.
OTHER_LANGUAGE = {"en": "فارسی", "fa": "English"}
# The tables of words by key that are the catalogue's entries of context
# PAGE:KEY (:func:`keyed_words`): the boards', the console's and the desk's
# (host/web/words.py), the match report's and result sheet's
# (host/referee/reports.py), the statistics' (host/referee/stats_html.py),
# the receipts' and the daily report's (host/club/views.py) and the names of
# Iran's currency units (host/club/money.py), the handset's keys' legends
# (host/handset/texts.py KEYS), and the CSV files' columns, results and
# states (host/staff/activity.py, host/club/daily.py).
PAGES = ("page", "report", "stats", "receipt", "currency", "keycap", "csv")


def keyed_words(page: str) -> dict[str, dict[str, str]]:
    """A page's words by key, in each language: the catalogue's entries of
    context ``PAGE:KEY`` (``page`` for the boards, the console and the desk,
    ``report`` for the match report and result sheet, ``stats`` for the
    statistics), the msgid the English and the msgstr the Persian (the
    English while it has none; tests/web/test_words_catalogue.py holds each
    to its Persian), in the catalogue's order."""
    prefix = page + ":"
    table: dict[str, dict[str, str]] = {lang: {} for lang in LANGS}
    for entry in catalogue():
        context, en, fa = entry.context, entry.id, entry.string
        if context and context.startswith(prefix) and isinstance(en, str):
            key = context.removeprefix(prefix)
            table["en"][key] = en
            table["fa"][key] = fa if isinstance(fa, str) and fa else en
    return table


def digits(value: object, lang: str) -> str:
    text = str(value)
    return text.translate(FA_DIGITS) if lang == "fa" else text


def isolate(text: str) -> str:
    return f"{FSI}{text}{PDI}"


# The vocabularies the boards and the console show too: their words are the
# pages' (``page:KEY``, the ball's name or ``foul_`` and the foul's kind),
# declared once there, English and Persian; the other vocabularies are
# entries of their own context, by the word itself.
ON_PAGES = {"ball": "", "foul": "foul_"}
ON_PAGES_CONTEXT = "page"


@cache
def _page_words() -> dict[str, str]:
    """The pages' Persian words by key, only those that have their Persian."""
    prefix = ON_PAGES_CONTEXT + ":"
    return {
        str(e.context).removeprefix(prefix): e.string
        for e in catalogue()
        if e.context and e.context.startswith(prefix) and isinstance(e.string, str) and e.string
    }


def word_in(word: str, context: str) -> str | None:
    """A vocabulary's word in Persian (a ball, a foul kind, an option, a
    kind of row...), or None when the catalogue has none."""
    prefix = ON_PAGES.get(context)
    if prefix is not None:
        return _page_words().get(prefix + word)
    return _entry(word, context)


def say_word(word: str, context: str) -> str:
    """A vocabulary's word in Persian, or the word itself when it has none."""
    return word_in(word, context) or word


def value_in(name: str, value: object, lang: str) -> str:
    """One placeholder's value, said in ``lang``."""
    if isinstance(value, tuple):
        joint = f" {_entry(OR, 'join') or OR} " if lang == "fa" else f" {OR} "
        return joint.join(value_in(name, v, lang) for v in value)
    if isinstance(value, Said):
        return value.said_in(lang)
    if lang != "fa":
        return str(value)
    if isinstance(value, Message):
        return say(value, lang)
    if isinstance(value, int):
        return digits(value, lang)
    context = NAMED.get(name)
    if context is not None and isinstance(value, str):
        found = word_in(value, context)
        if found:
            return found
    return isolate(str(value))


def say(message: Message | str, lang: str) -> str:
    """``message`` in ``lang``.  A msgid without its Persian yet (the
    coverage test keeps them out of the code) is the English, isolated,
    rather than lost; so is plain text, which no one wrote a msgid for."""
    if lang != "fa":
        return str(message)
    if isinstance(message, str):
        return isolate(message)
    fa = _entry(message.msgid)
    if fa is None:
        return isolate(str(message))
    return fa.format(**{k: value_in(k, v, lang) for k, v in message.params.items()})


# ---------------------------------------------------------------------- the device
@cache
def _templates(device: bool) -> list[tuple[list[str], list[str], str]]:
    """The msgids (the device's alone, or every sentence's) cut into their
    literal parts and placeholder names, the most specific first: a
    constant sentence before any template, then the longest literal text."""
    out = []
    for entry in catalogue():
        if entry.context is not None or not entry.id or not isinstance(entry.id, str):
            continue
        if device and DEVICE not in entry.flags:
            continue
        parts = list(string.Formatter().parse(entry.id))
        literals = [text for text, _, _, _ in parts]
        names = [name for _, name, _, _ in parts if name]
        if len(literals) == len(names):
            literals.append("")  # the template ends with a placeholder
        out.append((literals, names, entry.id))
    out.sort(key=lambda t: (len(t[1]), -sum(len(x) for x in t[0])))
    return out


def _slots(text: str, literals: list[str]) -> list[str] | None:
    """The values between a template's literal parts, or None when ``text``
    is not that template filled in (each value non-empty)."""
    if len(literals) == 1:
        return [] if text == literals[0] else None
    head, tail = literals[0], literals[-1]
    if len(text) <= len(head) + len(tail) or not text.startswith(head) or not text.endswith(tail):
        return None
    rest = text[len(head) : len(text) - len(tail)]
    values = []
    for literal in literals[1:-1]:
        at = rest.find(literal, 1)
        if at < 1:
            return None
        values.append(rest[:at])
        rest = rest[at + len(literal) :]
    return [*values, rest] if rest else None


def device_reason(text: str) -> Message | str:
    """A reason the device gave, in English as it sent it (firmware/engine.py
    ``Rejected``, firmware/app.py; the device keeps no ids, to spare its
    heap), as the catalogue's message of the device that it is, or the text
    itself when it is none.  The device's templates are matched by their own
    literal parts, never by a pattern written beside them, and
    tests/web/test_refusals.py checks that each sentence the device gives
    is exactly one of them.  A value of digits is a number."""
    return _read(text, device=True)


def read_back(text: str) -> Message | str:
    """A sentence kept as English text only (the activity log's rows made
    by an older baulk), as the message it is, by the catalogue's own
    templates as :func:`device_reason` reads the device's; the text itself
    when it is none.  A reason inside is read in its turn.  A row written
    now keeps its sentence by id and values (:func:`kept`)."""
    return _read(text, device=False)


# A Message kept as JSON (:func:`kept`, :func:`unkept`): its msgid and its
# values, a value that is a sentence or a choice tagged as such.
_ID, _VALUES, _SAID, _CHOICE, _IN = "id", "values", "said", "choice", "in"


class _KeptSaid:
    """A :class:`Said` value as a row kept it: its words in each language."""

    def __init__(self, words: dict[str, str]) -> None:
        self.words = words

    def said_in(self, lang: str) -> str:
        return self.words.get(lang) or self.words.get("en") or ""

    def __str__(self) -> str:
        return self.said_in("en")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Said) and all(
            other.said_in(lang) == self.said_in(lang) for lang in LANGS
        )

    __hash__ = None  # type: ignore[assignment]


def _kept_value(value: object) -> object:
    if isinstance(value, Message):
        return {_SAID: _kept_form(value)}
    if isinstance(value, Said):
        return {_IN: {lang: value.said_in(lang) for lang in LANGS}}
    if isinstance(value, tuple):
        return {_CHOICE: [_kept_value(v) for v in value]}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def _kept_form(message: Message) -> dict[str, object]:
    return {_ID: message.msgid, _VALUES: {k: _kept_value(v) for k, v in message.params.items()}}


def kept(message: Message | str | None, most: int) -> str | None:
    """A sentence as a row keeps it, by its id and values (the activity log:
    its reader says it in his language from the catalogue), or None when it
    is plain text or longer than ``most`` characters so kept (the row's
    English is then all there is, read back by :func:`read_back`)."""
    if not isinstance(message, Message):
        return None
    text = json.dumps(_kept_form(message), ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= most else None


def _unkept_value(value: object) -> object:
    if isinstance(value, dict):
        if _SAID in value:
            return _unkept_form(value[_SAID])
        if _CHOICE in value and isinstance(value[_CHOICE], list):
            return tuple(_unkept_value(v) for v in value[_CHOICE])
        if _IN in value and isinstance(value[_IN], dict):
            return _KeptSaid({str(k): str(v) for k, v in value[_IN].items()})
        raise ValueError("a kept value of no known kind")
    return value


def _unkept_form(form: object) -> Message:
    if not isinstance(form, dict) or not isinstance(form.get(_ID), str):
        raise ValueError("no kept sentence")
    values = form.get(_VALUES)
    if not isinstance(values, dict):
        raise ValueError("no kept values")
    return Message(form[_ID], **{str(k): _unkept_value(v) for k, v in values.items()})


def unkept(text: str | None) -> Message | None:
    """The sentence :func:`kept` made, or None (no such form, or one this
    baulk cannot read: the row's English stands)."""
    if not text:
        return None
    try:
        message = _unkept_form(json.loads(text))
        str(message)  # its values fill its template
    except (ValueError, KeyError, IndexError, TypeError, RecursionError):
        return None
    return message


def _read(text: str, device: bool) -> Message | str:
    for literals, names, msgid in _templates(device):
        values = _slots(text, literals)
        if values is not None and len(values) == len(names):
            said: dict[str, object] = {}
            for k, v in zip(names, values, strict=True):
                if v.isascii() and v.isdigit():
                    said[k] = int(v)
                elif k == "reason":
                    said[k] = _read(v, device)
                elif k in NAMED and f" {OR} " in v:
                    said[k] = tuple(v.split(f" {OR} "))  # a choice, as it was given
                else:
                    said[k] = v
            return Message(msgid, **said)
    return text
