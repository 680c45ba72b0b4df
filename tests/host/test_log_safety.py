"""The daemon's log is safe from what it writes down: a table's log lines
and error texts cannot forge a line or drive the terminal (host/logsafe.py),
and an error that repeats is told once, then counted."""

from __future__ import annotations

import logging

import pytest

from baulk.host.logsafe import Tally, printable
from baulk.protocol import messages
from tests.host.device_peer import DevicePeer
from tests.host.harness import DaemonThread, wait_for

FORGED = "ok\n2026-12-01 10:00:00,000 ERROR baulk.store: forged\x1b[31m\u202eReza\\x41"


def test_text_from_outside_is_one_harmless_line() -> None:
    line = printable(FORGED)
    assert "\n" not in line and "\x1b" not in line and "\u202e" not in line
    assert line == (
        "ok\\n2026-12-01 10:00:00,000 ERROR baulk.store: forged\\x1b[31m\\u202eReza\\\\x41"
    )
    assert printable("Reza\u200cزاده") == "Reza\\u200cزاده"  # a format character, shown
    assert printable("x" * 300, 10) == "x" * 10 + "…"
    assert printable(b"\x00") == "b'\\\\x00'"


def test_a_repeated_error_is_told_once_then_counted(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    tally = Tally(logging.getLogger("test.tally"), every_s=10)
    for i in range(1000):
        tally.tell("kind", logging.ERROR, f"boom {i}", now=100.0 + i / 1000)
    tally.tell("kind", logging.ERROR, "boom again", now=111.0)
    tally.tell("other", logging.ERROR, "other", now=111.0)
    assert [r.getMessage() for r in caplog.records] == [
        "boom 0",
        "boom again (1000 times in the last 11 s)",
        "other",
    ]
    tally.tell("other", logging.ERROR, "other", now=112.0)
    tally.report(now=130.0)
    assert caplog.records[-1].getMessage() == "other (1 times in the last 19 s)"


@pytest.mark.slow
def test_a_tables_log_and_error_texts_are_escaped_in_the_daemons_log(
    daemon: DaemonThread, peer: DevicePeer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="baulk")
    with peer.lock:
        peer.session.send(messages.LOG, {0: 3, 1: FORGED})
        peer.session.send(messages.ERROR, {0: 2, 1: FORGED})
    lines = wait_for(
        lambda: [r.getMessage() for r in caplog.records if "forged" in r.getMessage()],
        what="the table's texts in the log",
    )
    assert len(lines) == 2 and lines[0].startswith("table t1 says: ok\\n2026-12-01")
    assert all("\n" not in x and "\x1b" not in x and "\u202e" not in x for x in lines)
