"""schemathesis' hooks for bench/api_cli_fuzz.py (SCHEMATHESIS_HOOKS).

The document's own string formats (host/web/request_models.py FORMATS) are
drawn as the pytest fuzz draws them (tests/chaos/api_fuzz.py
register_formats), so the command line tries the same values a format
allows.

schemathesis cannot check a format it does not know: its negative phase
takes *every* string as breaking one (its ``_always_invalid``), so a body
whose only "violation" is a name such as ``"Ñ"`` in an account's name is
sent as one the server must refuse, though the document allows it.  The
filter below gives that phase the check it lacks: a negative case whose
body the document allows, its formats checked by the value types that
declare them (tests/chaos/api_fuzz.py format_checks), is not negative, and
is dropped.  A case with a violation anywhere else is kept as it is.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jsonschema_rs
import schemathesis

from tests.chaos.api_fuzz import format_checks, register_formats

register_formats()
CHECKS = format_checks()
BODY = "body"


def _body_schema(raw: dict[str, Any], path: str, method: str) -> dict[str, Any] | None:
    """The operation's JSON body schema, with the document's components to
    resolve its references against."""
    operation = raw.get("paths", {}).get(path, {}).get(method.lower(), {})
    content = operation.get("requestBody", {}).get("content", {})
    schema = content.get("application/json", {}).get("schema")
    if schema is None:
        return None
    return {**schema, "components": raw.get("components", {})}


@cache
def _validator(path: str, method: str, raw_id: int) -> Any:
    schema = _body_schema(_RAW[raw_id], path, method)
    if schema is None:
        return None
    return jsonschema_rs.validator_for(schema, formats=CHECKS, validate_formats=True)


_RAW: dict[int, dict[str, Any]] = {}


@schemathesis.hook
def filter_case(ctx: Any, case: Any) -> bool:
    meta = case.meta
    if meta is None or not meta.generation.mode.is_negative:
        return True
    mutations = getattr(meta.phase.data, "mutations", None) or ()
    if not mutations or any(m.parameter_location.value != BODY for m in mutations):
        return True  # a violation outside the body: not this filter's to judge
    raw = case.operation.schema.raw_schema
    _RAW.setdefault(id(raw), raw)
    validator = _validator(case.operation.path, case.operation.method, id(raw))
    if validator is None:
        return True
    try:
        allowed = validator.is_valid(case.body)
    except (TypeError, ValueError):  # a body that is no JSON value: negative as sent
        return True
    return not allowed
