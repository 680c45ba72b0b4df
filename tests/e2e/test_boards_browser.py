"""The boards in a real headless Chromium (Debian's ``chromium``), driven by
Playwright, with a simulated table (the real firmware on the simulated board,
``host/sim/table.py``) on a pty talking to the real daemon.

Screenshots go to tests/e2e/artifacts/ (git-ignored).
"""

from __future__ import annotations

import os
import shutil
import struct
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.sim_driver import TableDriver, simulated_venue
from tests.host.harness import TOKEN, DaemonThread, http

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("BAULK_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).with_name("artifacts")
PERSIAN_DIGITS = set("۰۱۲۳۴۵۶۷۸۹")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]

playwright_api = pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    profile = tempfile.mkdtemp(prefix="baulk-chromium-")
    with playwright_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1920, "height": 1080},
            # the pages forbid eval; Playwright's wait_for_function needs it
            bypass_csp=True,
        )
        yield context
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[tuple[DaemonThread, TableDriver]]:
    with simulated_venue(tmp_path, seed=3) as v:
        yield v


def shot(page: Any, name: str, **kw: Any) -> bytes:
    ARTIFACTS.mkdir(exist_ok=True)
    data: bytes = page.screenshot(path=str(ARTIFACTS / f"{name}.png"), **kw)
    return data


def setup_match(daemon: DaemonThread, players: list[str], best_of: int = 7) -> None:
    status, reply = http(
        daemon.url + "/api/tables/t1/match", {"players": players, "best_of": best_of}, token=TOKEN
    )
    assert status == 200, reply


def test_a_pot_on_the_table_appears_on_the_table_board(
    browser: Any, venue: tuple[DaemonThread, TableDriver]
) -> None:
    daemon, table = venue
    setup_match(daemon, ["Ali", "Reza"])
    page = browser.new_page()
    page.goto(daemon.url + "/table/t1")
    page.wait_for_function("document.getElementById('name0').textContent === 'Ali'")
    assert page.text_content("#score0") == "0"
    assert page.text_content("#bestof") == "Best of 7"
    table.stroke("red")  # the cue strikes, a red drops through the tl pocket's beam
    page.wait_for_function("document.getElementById('score0').textContent === '1'")
    assert page.locator("#break-balls .ball.red").count() == 1
    assert "striker" in (page.get_attribute("#player0", "class") or "")
    assert page.text_content("#status") == "online"
    assert table.state()["scores"] == [1, 0]
    shot(page, "table_board_after_pot")
    table.stroke("black")
    page.wait_for_function("document.getElementById('score0').textContent === '8'")
    assert page.locator("#break-balls .ball").count() == 2
    # the referee calls a foul on the keypad: the notice shows
    table.stroke()
    table.referee({"ev": "foul", "kind": "push"})
    page.wait_for_function("document.getElementById('notice').dataset.kind === 'foul'")
    assert "FOUL 4" in (page.text_content("#notice") or "")
    shot(page, "table_board_foul")
    board = daemon.board("t1")
    assert board["verified"] and board["alerts"] == []  # the shadow referee agrees
    page.close()


def test_persian_board_is_right_to_left_with_persian_digits(
    browser: Any, venue: tuple[DaemonThread, TableDriver]
) -> None:
    daemon, table = venue
    setup_match(daemon, ["علی", "رضا"], best_of=9)
    table.stroke("red")
    table.stroke("pink")
    table.stroke("red")
    page = browser.new_page()
    page.goto(daemon.url + "/table/t1?lang=fa")
    page.wait_for_function("document.getElementById('name0').textContent === 'علی'")
    assert page.evaluate("document.documentElement.dir") == "rtl"
    assert page.evaluate("getComputedStyle(document.body).direction") == "rtl"
    for sel in ("#score0", "#score1", "#frames0", "#bestof", "#remaining"):
        text = page.text_content(sel) or ""
        assert not any(c.isascii() and c.isdigit() for c in text), (sel, text)
    assert set(page.text_content("#bestof") or "") & PERSIAN_DIGITS
    # In right-to-left, side 0 stands on the right.
    left0 = page.evaluate("document.getElementById('player0').getBoundingClientRect().left")
    left1 = page.evaluate("document.getElementById('player1').getBoundingClientRect().left")
    assert left0 > left1
    shot(page, "table_board_persian")
    page.goto(daemon.url + "/venue?lang=fa")
    page.wait_for_selector(".card .pscore")
    assert page.evaluate("document.documentElement.dir") == "rtl"
    shot(page, "venue_board_persian")
    page.close()


def png_alpha_at(png: bytes, x: int, y: int) -> int:
    """The alpha of one pixel of an 8-bit RGBA PNG (enough of a decoder to
    check the overlay's transparency without an imaging library)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(png):
        n, kind = struct.unpack(">I4s", png[pos : pos + 8])
        data = png[pos + 8 : pos + 8 + n]
        if kind == b"IHDR":
            width, _, depth, colour = struct.unpack(">IIBB", data[:10])
            assert (depth, colour) == (8, 6), "expected 8-bit RGBA"
        elif kind == b"IDAT":
            idat += data
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * 4
    prev = bytearray(stride)
    for row in range(y + 1):
        start = row * (stride + 1)
        ftype, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            a = line[i - 4] if i >= 4 else 0
            b = prev[i]
            c = prev[i - 4] if i >= 4 else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
        prev = line
    return prev[x * 4 + 3]


def test_overlay_background_is_transparent(
    browser: Any, venue: tuple[DaemonThread, TableDriver]
) -> None:
    daemon, table = venue
    setup_match(daemon, ["Ali", "Reza"], best_of=5)
    table.stroke("red")
    page = browser.new_page()
    page.goto(daemon.url + "/overlay/t1")
    page.wait_for_function("document.getElementById('score0').textContent === '1'")
    for what in ("document.documentElement", "document.body"):
        assert page.evaluate(f"getComputedStyle({what}).backgroundColor") == "rgba(0, 0, 0, 0)"
    png = shot(page, "overlay", omit_background=True)
    assert png_alpha_at(png, 1900, 10) == 0  # the page itself: see-through
    box = page.locator("#overlay").bounding_box()
    assert box is not None
    assert png_alpha_at(png, int(box["x"]) + 20, int(box["y"]) + 20) > 0  # the score bar is not
    page.close()


def test_hostile_player_name_is_shown_as_text(
    browser: Any, venue: tuple[DaemonThread, TableDriver]
) -> None:
    daemon, _ = venue
    hostile = "<img src=x onerror=window.__pwned=1>"
    setup_match(daemon, [hostile, "<script>window.__pwned=2</script>"])
    page = browser.new_page()
    for path in ("/table/t1", "/venue", "/overlay/t1", "/"):
        page.goto(daemon.url + path)
        page.wait_for_function(
            "document.body.textContent.includes('<img src=x onerror=window.__pwned=1>')"
        )
        assert page.evaluate("window.__pwned") is None
        assert page.locator("main img, #venue img, #overlay img, ul img").count() == 0
    page.goto(daemon.url + "/table/t1")
    page.wait_for_function("document.getElementById('name0').textContent.length > 0")
    assert page.text_content("#name0") == hostile
    assert page.text_content("#name1") == "<script>window.__pwned=2</script>"
    shot(page, "table_board_hostile_name")
    page.close()


def test_unplugged_table_shows_offline(
    browser: Any, venue: tuple[DaemonThread, TableDriver]
) -> None:
    daemon, table = venue
    setup_match(daemon, ["Ali", "Reza"])
    page = browser.new_page()
    page.goto(daemon.url + "/table/t1")
    page.wait_for_function("document.getElementById('status').dataset.link === 'online'")
    table.sim.unplug()
    page.wait_for_function("document.getElementById('status').dataset.link === 'offline'")
    assert (page.text_content("#status") or "").startswith("offline")
    shot(page, "table_board_offline")
    table.sim.replug()
    page.wait_for_function("document.getElementById('status').dataset.link === 'online'")
    page.close()
