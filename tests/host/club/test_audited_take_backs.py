"""The owner's check of a day (``verify --day``, host/staff/takings.py)
counts a bill's corrections, refunds and their take-backs against the
activity log's rows for them (issue 31: a correction taken back on the
receipt page was reported as "unaudited": the take-back's row was not
counted), and still finds the one written behind the desk's back."""

from __future__ import annotations

import sqlite3

import pytest

from baulk.firmware.sim.board import SIM_KEY
from baulk.host.club import daily
from baulk.host.staff import takings
from baulk.host.store import StoreReader
from tests.host.club.test_desk_api import open_one, post_as, venue
from tests.host.device_peer import DevicePeer
from tests.host.harness import DaemonThread

__all__ = ["venue"]  # the fixture, as test_desk_api makes it
KEYS = takings.Keys(everyone=bytes.fromhex(SIM_KEY))


def check(d: DaemonThread) -> dict[str, object]:
    assert d.daemon is not None
    d.flush()  # the activity log's rows ride in the writer's next commit
    now = d.daemon.sessions.clock.now()
    billing = d.daemon.config.billing
    reader = StoreReader(d.daemon.config.store_path)
    try:
        day = takings.check_day(
            reader, billing, daily.business_day(now.wall_ms, billing), KEYS, now
        )
    finally:
        reader.close()
    (bill,) = day["bills"]
    return dict(bill)


@pytest.mark.slow
def test_take_backs_made_at_the_desk_are_audited(venue: tuple[DaemonThread, DevicePeer]) -> None:
    d, _ = venue
    sid = open_one(d, "Sara")["session_id"]
    assert post_as("Sara", d, f"/api/sessions/{sid}/close", {})[0] == 200
    money = f"/api/sessions/{sid}"
    status, r = post_as("Owner", d, money + "/corrections", {"amount": 5000, "reason": "a pint"})
    assert status == 200
    fix = r["bill"]["corrections"][0]["id"]
    status, r = post_as("Owner", d, money + f"/corrections/{fix}/reverse", {"reason": "a tea"})
    assert status == 200
    status, r = post_as("Owner", d, money + "/refunds", {"amount": 1000, "reason": "cold tea"})
    assert status == 200
    refund = r["bill"]["corrections"][-1]["id"]
    status, r = post_as("Owner", d, money + f"/corrections/{refund}/reverse", {"reason": "warm"})
    assert status == 200 and len(r["bill"]["corrections"]) == 4
    bill = check(d)
    assert bill["status"] == "verified", bill
    # one written into the file behind the desk's back is still found
    db = sqlite3.connect(d.daemon.config.store_path if d.daemon else "", isolation_level=None)
    try:
        db.execute(
            "INSERT INTO bill_corrections (session_id, created_wall_ms, who, amount, reason) "
            "VALUES (?, 0, 'Sara', -500, 'regular')",
            (sid,),
        )
    finally:
        db.close()
    bill = check(d)
    # never chained (host/store/money_chain.py), and not in the activity log
    assert bill["status"] == "flagged"
    findings = bill["findings"]
    assert isinstance(findings, list)
    assert [f["kind"] for f in findings] == ["money inserted", "unaudited"], findings
    assert "5 corrections in the store, 4 in the activity log" in findings[1]["text"]
