"""A settings file's sections, each key declared once: the one way
host/config.py (``baulk.toml``) and the club's sections (host/club/) declare
their keys, with pydantic v2 as the web side's request models are.

A key is one line, :func:`key`: its default, its help and, when its type and
limits do not say it, what it must be.  From that line come the check
(strict types: a port in quotes is a mistake, not a port), the refusal's one
sentence naming the key (:func:`sentence`, ``server.port must be 0..65535,
not 70000``), the default the code starts from (:func:`default_of`) and its
row in docs/CONFIG.md (:func:`rule_of`).  A check that has more to say
than what the key must be raises :class:`Refused` with the rest of the
sentence; a rule across a section's keys raises ``ValueError`` in the
section's model validator, its text starting ``.key`` when it names one.
"""

from __future__ import annotations

import types
import typing
from decimal import Decimal
from typing import Annotated, Any, ClassVar

from annotated_types import Ge, Le, MaxLen, MinLen
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from pydantic.config import JsonDict
from pydantic.fields import FieldInfo


def key(
    default: Any,
    help: str,
    *,
    rule: str | None = None,
    missing: str | None = None,
    secret: bool = False,
    **limits: Any,
) -> Any:
    """One key of a section: its default (``...``: it must be given), its
    help, and for the refusal and the reference, what it must be (``rule``,
    when its type and limits do not say it: a pattern, a list of values)
    and what is said when it is missing.  A ``secret`` is never shown back."""
    extra: JsonDict = {"rule": rule, "missing": missing, "secret": secret}
    return Field(default, description=help, json_schema_extra=extra, **limits)


class Refused(ValueError):
    """A key's check with its own words: the rest of the sentence after the
    key's name (``must not hold emoji ...``), for when what the key must be
    does not say why this value is refused."""


def one_of(values: tuple[Any, ...]) -> AfterValidator:
    """A key that holds one of ``values`` (its ``rule`` says which)."""

    def check(value: Any) -> Any:
        if value is not None and value not in values:
            raise ValueError("not one of them")
        return value

    return AfterValidator(check)


class Section(BaseModel):
    """A section of baulk.toml: nothing but its own keys, each of its type
    exactly (a port in quotes is a mistake, not a port)."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)
    TITLE: ClassVar[str]


def keys_of(section: type[Section]) -> dict[str, FieldInfo]:
    """A section's keys as the file spells them (``from``, held as ``from_``)."""
    return {info.alias or name: info for name, info in section.model_fields.items()}


def default_of(section: type[Section], name: str) -> Any:
    """A key's default, as declared (for the code that starts from it)."""
    return section.model_fields[name].get_default(call_default_factory=True)


def shown(value: object) -> str:
    """A value as an error message shows it: short, whatever it is (an exact
    decimal as the number it is)."""
    try:
        text = str(value) if isinstance(value, Decimal) else repr(value)
    except ValueError:  # an integer too long for repr()
        return "a number of thousands of digits"
    return text if len(text) <= 40 else text[:37] + "..."


def _extra(info: FieldInfo, name: str) -> Any:
    extra = info.json_schema_extra
    return extra.get(name) if isinstance(extra, dict) else None


def _limits(info: FieldInfo) -> tuple[int | None, int | None, int | None]:
    """The field's least, most and shortest length, as declared."""
    lo = hi = shortest = None
    for m in info.metadata:
        if isinstance(m, Ge) and isinstance(m.ge, int):
            lo = m.ge
        elif isinstance(m, Le) and isinstance(m.le, int):
            hi = m.le
        elif isinstance(m, MinLen):
            shortest = m.min_length
    return lo, hi, shortest


def _longest(info: FieldInfo) -> int | None:
    return next((m.max_length for m in info.metadata if isinstance(m, MaxLen)), None)


def _kind(info: FieldInfo) -> type[Any] | None:
    """The plain type a key holds (None for a list or anything freer)."""
    hint = info.annotation
    if typing.get_origin(hint) is Annotated:
        hint = typing.get_args(hint)[0]
    if isinstance(hint, types.UnionType):
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
    if typing.get_origin(hint) is Annotated:
        hint = typing.get_args(hint)[0]
    plain: tuple[type[Any], ...] = (bool, int, str)
    return next((kind for kind in plain if hint is kind), None)


_KIND_WORDS = {bool: "true or false", int: "an integer", str: "a string"}


def rule_of(info: FieldInfo) -> str:
    """What a key must be, in words: the reference's and every refusal's."""
    said = _extra(info, "rule")
    if said:
        return str(said)
    kind = _kind(info)
    lo, hi, shortest = _limits(info)
    words = _KIND_WORDS.get(kind, "a value") if kind is not None else "a value"
    if lo is not None and hi is not None:
        return f"{words} {lo}..{hi}"
    if shortest and kind is str:
        return "a non-empty string"
    return words


def _model_at(hint: Any) -> type[Section] | None:
    """The section model a key holds (a section, a list of them, or one or none)."""
    for part in (hint, *typing.get_args(hint)):
        if isinstance(part, type) and issubclass(part, Section):
            return part
        for inner in typing.get_args(part):
            if isinstance(inner, type) and issubclass(inner, Section):
                return inner
    return None


def sentence(found: ValidationError, root: type[Section], where: str = "") -> str:
    """The first mistake pydantic found in ``root`` (the section at
    ``where``, or the whole file), as one sentence naming its key."""
    e = found.errors(include_url=False)[0]
    kind, loc, given = e["type"], list(e["loc"]), e.get("input")
    model = root
    info = None  # the key the mistake is at (None: a section)
    for i, step in enumerate(loc):
        if isinstance(step, int):
            if info is None:  # an entry of a list of tables; a list of values is one key
                where += f"[{step}]"
            continue
        owner = where or "config"
        where = f"{where}.{step}" if where else str(step)
        info = keys_of(model).get(str(step))
        if info is None:  # a key the section does not have
            allowed = ", ".join(keys_of(model))
            return f"{owner}: unknown key {str(step)[:40]!r} (allowed: {allowed})"
        inner = _model_at(info.annotation)
        if inner is not None and i < len(loc) - 1:
            model, info = inner, None
    if info is not None and _model_at(info.annotation) is not None and kind == "value_error":
        info = None  # a section's own rule, as for an entry of a list of them
    if info is None:  # the section itself, or an entry of a list of them
        if kind == "value_error":  # a rule across its keys: ".key ..." names one of them
            said = str(e.get("ctx", {}).get("error", e["msg"]))
            return f"{where}{'' if said.startswith('.') else ' '}{said}" if where else said
        return f"{where} must be a table"
    inner = _model_at(info.annotation)
    if inner is not None or kind == "dict_type":
        if typing.get_origin(info.annotation) is list:
            most = _longest(info)
            tables = f"an array of {f'at most {most} ' if most else ''}tables"
            if "." in where:  # an array inside a section: named as its key
                return f"{where} must be {tables} ({inner.TITLE if inner else ''})"
            return f"[[{where}]] entries must be {tables}"
        return f"[{where}] must be a table"
    if kind == "missing":
        return f"{where} {_extra(info, 'missing') or 'must be ' + rule_of(info)}"
    error = e.get("ctx", {}).get("error")
    if kind == "value_error" and isinstance(error, Refused):
        return f"{where} {error}"
    not_this = "" if _extra(info, "secret") else f", not {shown(given)}"
    lo, hi, _ = _limits(info)
    if kind in ("greater_than_equal", "less_than_equal"):
        return f"{where} must be {lo}..{hi}{not_this}"
    if kind in ("int_type", "bool_type", "string_type") and not _extra(info, "rule"):
        return f"{where} must be {_KIND_WORDS[_kind(info) or str]}{not_this}"
    return f"{where} must be {rule_of(info)}{not_this}"
