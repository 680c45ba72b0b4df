"""The money chain's anchor end to end: a real daemon and a simulated table
running the real firmware over a pseudo-terminal.  Every money row the desk
writes sends the chain's head to the session's table (host/venue/anchors.py);
the device signs it into a checkpoint, the daemon stores it, and the day's
check finds every row of the bill anchored.  A price then changed, with the
chain rewritten to match, is caught by the head the table signed."""

from __future__ import annotations

import dataclasses
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from baulk.firmware.sim.board import SIM_KEY
from baulk.host.club import tariffs
from baulk.host.staff import takings
from baulk.host.store import money_chain
from tests.chaos.money_tamper import rewrite_chain
from tests.e2e.sim_driver import simulated_tables
from tests.host.club.test_audited_take_backs import check
from tests.host.club.test_takings import by_hand
from tests.host.harness import TOKEN, DaemonThread, http, wait_for

pytestmark = pytest.mark.slow
KEYS = takings.Keys(everyone=bytes.fromhex(SIM_KEY))
CLUB = {
    "billing": {"timezone": "UTC"},
    "tariff": [{"name": "std", "currency": "IRT", "per_hour": 60_000, "per_frame": 10_000}],
    "item": [{"name": "Tea", "name_fa": "چای", "price": 113_000}],
}


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[DaemonThread]:
    billing = tariffs.parse(CLUB, {"t1"})
    edit = lambda c: dataclasses.replace(c, billing=billing)  # noqa: E731
    with simulated_tables(tmp_path, ("t1",), seed=4, edit=edit) as (daemon, _):
        yield daemon


def desk(d: DaemonThread, path: str, body: Any = None) -> dict[str, Any]:
    status, reply = http(d.url + path, body if body is not None else {}, TOKEN)
    assert status == 200, reply
    bill: dict[str, Any] = reply["bill"]
    return bill


def signed(path: Path) -> tuple[int, int]:
    """(rows chained, the most rows a stored checkpoint anchors)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        n, _ = money_chain.head_of(db)
        top = db.execute("SELECT coalesce(max(money_n), 0) FROM checkpoints").fetchone()[0]
        return n, int(top)
    finally:
        db.close()


def test_every_money_row_is_anchored_by_the_table_and_a_rewrite_is_caught(
    venue: DaemonThread,
) -> None:
    d = venue
    assert d.daemon is not None
    path = d.daemon.config.store_path
    sid = desk(d, "/api/tables/t1/session")["session_id"]
    desk(d, f"/api/sessions/{sid}/items", {"item": "Tea", "quantity": 2})
    desk(d, f"/api/sessions/{sid}/close")
    # open, item, close: each sent on; the table signs the newest head it gets
    wait_for(lambda: signed(path) == (3, 3), what="the table's checkpoint anchoring 3 rows")
    bill = check(d)
    assert bill["status"] == "verified", bill
    assert bill["unanchored"] == []
    by_hand(path, "bill_items", "UPDATE bill_items SET price = 104000")
    rewrite_chain(random.Random(0), path)  # the chain made again to match
    bill = check(d)
    assert bill["status"] == "flagged"
    findings = bill["findings"]
    assert isinstance(findings, list)
    assert any(f["kind"] == "money anchor" and f"bill {sid}" in f["text"] for f in findings)
