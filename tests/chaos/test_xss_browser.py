"""XSS with hostile player names in a real headless Chromium, with the pages'
Content-Security-Policy enforced (tests/e2e/test_boards_browser.py covers the
live boards with the CSP bypassed, so escaping alone is proven there).  Here:
every board in both languages and the server-rendered match report."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_boards_browser import CHROMIUM, CHROMIUM_ARGS
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, make_config, wait_for

pytestmark = pytest.mark.browser

playwright_api = pytest.importorskip("playwright.sync_api")

HOSTILE = [
    "<img src=x onerror=window.__pwned=1>",
    "\"'><svg onload=window.__pwned=2>",
    "</title><script>__pwned=3</script>",
    "javascript:window.__pwned=4",
]


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[tuple[DaemonThread, DevicePeer]]:
    peer = DevicePeer("t1", link_path=tmp_path / "ttyT1").start()
    d = DaemonThread(make_config(tmp_path, {"t1": tmp_path / "ttyT1"})).start()
    wait_for(lambda: d.board("t1")["status"]["link"] == "online", what="online")
    yield d, peer
    d.stop()
    peer.stop()


def test_hostile_names_stay_text_everywhere_with_the_csp_enforced(
    venue: tuple[DaemonThread, DevicePeer],
) -> None:
    daemon, peer = venue
    players = [HOSTILE[0], HOSTILE[2]]
    status, reply = http(
        daemon.url + "/api/tables/t1/match", {"players": players, "best_of": 1}, token=TOKEN
    )
    assert status == 200, reply
    peer.play([{"ev": "strike"}, {"ev": "pot", "ball": "red"}, {"ev": "rest"}])
    wait_for(lambda: daemon.board("t1")["state"]["scores"] == [1, 0], what="pot on the board")
    # The board shows the pot before its commit; the match list, after.
    matches = wait_for(
        lambda: http(daemon.url + "/api/matches?table=t1")[1]["matches"], what="the match stored"
    )
    match_id = matches[0]["match_id"]
    profile = tempfile.mkdtemp(prefix="baulk-chromium-")
    executed: list[str] = []
    try:
        with playwright_api.sync_playwright() as p:
            ctx = p.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
            )
            page = ctx.new_page()
            page.on("dialog", lambda d: (executed.append(d.message), d.dismiss()))
            for path in (
                "/table/t1",
                "/table/t1?lang=fa",
                "/venue",
                "/overlay/t1",
                "/",
                f"/report/{match_id}",
                f"/report/{match_id}?lang=fa",
            ):
                page.goto(daemon.url + path)
                end = time.monotonic() + 15
                while time.monotonic() < end and HOSTILE[0] not in (
                    page.text_content("body") or ""
                ):
                    time.sleep(0.1)
                text = page.text_content("body") or ""
                assert HOSTILE[0] in text, path  # drawn, as text
                assert page.evaluate("window.__pwned") is None, path
                assert page.locator("body img[src=x], body svg[onload]").count() == 0, path
                assert page.locator("script:not([src])").count() == 0, path
            ctx.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert executed == []
