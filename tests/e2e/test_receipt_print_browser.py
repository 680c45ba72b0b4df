"""A normal bill's receipt fits one A6 page (issue 31: it ran to 3-4),
in English and Persian, as Chromium prints it to PDF: a session with two
frames played on the real firmware, a few items, a correction.  The page
count and size are read back from the PDF with pypdf."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from tests.e2e import test_desk_browser
from tests.e2e.chromium import shot
from tests.e2e.sim_driver import TableDriver
from tests.e2e.test_desk_browser import new_page, page_size_mm, sign_in, two_frames
from tests.host.harness import TOKEN, DaemonThread, http, wait_for

desk = test_desk_browser.desk  # the desk page's venue, a fixture of its own there

pytestmark = pytest.mark.browser


def post(d: DaemonThread, path: str, body: dict[str, Any]) -> dict[str, Any]:
    status, reply = http(d.url + path, body, TOKEN)
    assert status == 200, reply
    return dict(reply)


def played(d: DaemonThread) -> int:
    status, reply = http(d.url + "/api/sessions/1", None, TOKEN)
    assert status == 200, reply
    return int(reply["bill"]["frames_played"])


def a_normal_bill(d: DaemonThread, table: TableDriver) -> None:
    """Session 1: two frames (Reza concedes one, Ali the other), three teas
    and a coffee's worth of tea, closed, and a correction to the table."""
    post(d, "/api/tables/t1/session", {})
    two_frames(d, table)
    wait_for(lambda: played(d) == 2, what="two frames played")
    for quantity in (1, 2, 1):
        post(d, "/api/sessions/1/items", {"item": "Tea", "quantity": quantity})
    post(d, "/api/sessions/1/close", {})
    post(d, "/api/sessions/1/corrections", {"amount": "-5000", "reason": "regular customer"})


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_normal_bill_fits_one_a6_page(
    browser: Any, desk: tuple[DaemonThread, TableDriver], lang: str
) -> None:
    d, table = desk
    a_normal_bill(d, table)
    page = new_page(browser)
    page.goto(d.url + "/desk/receipt/1?paper=a6" + ("&lang=fa" if lang == "fa" else ""))
    sign_in(page)
    page.wait_for_selector("#receipt tr.correction")
    assert page.locator("#receipt tr.item").count() == 3
    assert page.locator("#receipt tr.frame").count() == 2
    page.emulate_media(media="print")
    pdf = page.pdf(prefer_css_page_size=True)
    (Path(__file__).with_name("artifacts") / f"receipt_a6_normal_{lang}.pdf").write_bytes(pdf)
    width, height = page_size_mm(pdf)
    assert abs(width - 105) < 0.5 and abs(height - 148) < 0.5, (width, height)
    assert len(PdfReader(io.BytesIO(pdf)).pages) == 1
    # as the page looks on paper: 93 mm inside the margins at 96 px an inch
    page.set_viewport_size({"width": 352, "height": 514})
    shot(page, f"receipt_a6_normal_{lang}", full_page=True)
    page.context.close()
