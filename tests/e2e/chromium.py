"""Debian's Chromium through Playwright for the console and layout tests,
with the pages' Content-Security-Policy enforced (test_boards_browser.py
bypasses it to use wait_for_function; these tests wait with locators)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_boards_browser import CHROMIUM, CHROMIUM_ARGS

ARTIFACTS = Path(__file__).with_name("artifacts")
PHONE = {"width": 390, "height": 844}
VIEWPORTS = {"1080p": {"width": 1920, "height": 1080}, "720p": {"width": 1280, "height": 720}}
VIEWPORTS["phone"] = PHONE

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect
# A board paints within milliseconds; on a machine whose cores are busy with
# other work it can take seconds.  The suite waits for what it expects, for
# as long as that takes, up to half a minute (a failure, not a pass, pays it).
expect.set_options(timeout=30_000)


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (one process); ``browser.new_context(...)`` per test."""
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def profile_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="baulk-chromium-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def shot(page: Any, name: str, **kw: Any) -> bytes:
    """A screenshot kept in tests/e2e/artifacts/ (git-ignored) for a person
    to look at."""
    ARTIFACTS.mkdir(exist_ok=True)
    data: bytes = page.screenshot(path=str(ARTIFACTS / f"{name}.png"), **kw)
    return data


def page_errors(page: Any) -> list[str]:
    """Collects the page's script errors (a list that fills as they come).
    A refused action's 4xx answer is logged by Chromium as a failed resource:
    an answer the page shows, not an error of the page."""
    errors: list[str] = []

    def console(message: Any) -> None:
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            errors.append(message.text)

    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", console)
    return errors
