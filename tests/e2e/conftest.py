"""The browser the e2e tests share: one headless Chromium a module, and a
phone-sized context for a test on a ``venue`` (each file makes its own)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.chromium import PHONE, chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture
def phone(browser: Any, venue: Any) -> Iterator[Any]:
    """Closed before the venue's daemon stops (its live feed connections
    would hold the server's shutdown)."""
    context = browser.new_context(viewport=PHONE)
    yield context
    context.close()
