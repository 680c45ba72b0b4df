"""What a backup's summary says of the table sessions it holds: how many are
open, closed and void (issue 31: every store made since a close became a mark
was said to hold only open sessions)."""

from __future__ import annotations

from pathlib import Path

from baulk.host.backup import restore
from baulk.host.club.tariffs import parse
from baulk.host.store import SessionWrite
from tests.host.billing_kit import HandVenue, stamp

HOUR = 3_600_000


def test_the_counts_say_what_is_open_closed_and_void(tmp_path: Path) -> None:
    tariff = parse({"tariff": [{"name": "day", "currency": "GBP", "per_hour": 6}]}).tariffs[0]
    venue = HandVenue(tmp_path / "store.sqlite")
    at = 1_700_000_000_000
    try:
        for table in ("t1", "t2", "t3"):  # three sessions closed at the desk
            sid = venue.open(table, tariff, stamp(at, 1_000))
            venue.close(sid, stamp(at + HOUR, 1_000 + HOUR))
        voided = venue.open("t1", tariff, stamp(at + 2 * HOUR, 1_000 + 2 * HOUR))
        venue.write(SessionWrite("void", voided, "t1", "desk", at + 2 * HOUR, reason="mistake"))
        venue.open("t2", tariff, stamp(at + 3 * HOUR, 1_000 + 3 * HOUR))  # still open
    finally:
        venue.close_all()
    summary = restore.summarize(tmp_path / "store.sqlite")
    assert (
        summary.sessions,
        summary.open_sessions,
        summary.closed_sessions,
        summary.void_sessions,
    ) == (5, 1, 3, 1)
    assert "5 table sessions (1 open, 3 closed, 1 void)" in summary.line()
