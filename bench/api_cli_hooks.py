"""schemathesis' hooks for bench/api_cli_fuzz.py (SCHEMATHESIS_HOOKS): the
document's own string formats (host/web/request_models.py FORMATS), drawn
as the pytest fuzz draws them (tests/chaos/api_fuzz.py register_formats),
so the command line tries the same values a format allows."""

from __future__ import annotations

from tests.chaos.api_fuzz import register_formats

register_formats()
