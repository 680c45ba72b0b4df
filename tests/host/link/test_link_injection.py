"""A frame put on the line by something else cannot take the place of the
table's own event: a CRC-valid frame with a body the host cannot use, at a
sequence number the table has yet to send, is not acknowledged as that
number.  The host asks for the number again and raises an alert, and the
table's real events with those numbers are stored, each once.  A table that
really sent a bad body still makes progress: its own retransmissions of that
very frame are taken as an invalid message."""

from __future__ import annotations

import binascii
import logging
from pathlib import Path

import pytest

from baulk.host.sim.matches import generate_match
from baulk.protocol import cobs, frame, messages
from tests.host.device_peer import DevicePeer, send_raw
from tests.host.harness import DaemonThread, stored_events, wait_for

pytestmark = pytest.mark.slow

# What an injection can put on the line with a CRC that holds: a body that
# is not CBOR, a body that fails the event's check, a type unknown to the
# host, and a type only the host sends.
FORGED = [
    (messages.EVENT, None),
    (messages.EVENT, {0: 999, -1: [147, 0]}),
    (99, {0: 1}),
    (messages.COMMAND, {0: 1}),
]


def forged(mtype: int, seq: int, body: object) -> bytes:
    """A frame with a CRC that holds, flagged reliable, at ``seq``."""
    if body is None:  # 0xff: a lone "break" code, not a CBOR item
        raw = bytes((frame.VERSION_BYTE, mtype, frame.FLAG_REL, seq & 0xFF, seq >> 8)) + b"\xff"
        raw += binascii.crc32(raw).to_bytes(4, "little")
        return bytes(cobs.encode(raw)) + b"\x00"
    return bytes(frame.encode_frame(mtype, frame.FLAG_REL, seq, body))


def test_forged_frames_at_the_next_numbers_do_not_take_the_tables_events(
    tmp_path: Path, peer: DevicePeer, daemon: DaemonThread, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="baulk.link")
    events = generate_match(5, best_of=3)[:80]
    peer.play(events[:40])
    wait_for(lambda: peer.acked() == 40, what="the first 40 acked")
    for i, (mtype, body) in enumerate(FORGED * 2):
        send_raw(peer, forged(mtype, 41 + i, body))  # the numbers the table sends next
    status = wait_for(
        lambda: (
            (s := daemon.board("t1")["status"]["stream"])["asked_again"] >= len(FORGED) * 2 and s
        ),
        what="the host asked again",
    )
    assert status["asked_again_last"]["seq"] == 40 + len(FORGED) * 2
    peer.play(events[40:])
    wait_for(lambda: peer.acked() == len(events), what="every real event acked")
    rows = stored_events(tmp_path / "store.sqlite")
    assert [s for _, s, _ in rows] == list(range(1, len(events) + 1))
    assert [ev for _, _, ev in rows] == events  # nothing invalid took a real number
    told = [
        r.getMessage() for r in caplog.records if "asking the table for it again" in r.getMessage()
    ]
    assert len(told) == len(FORGED) * 2 and "seq 41 came with a body" in told[0]


def test_a_table_that_really_sends_a_bad_body_still_makes_progress(
    tmp_path: Path, peer: DevicePeer, daemon: DaemonThread
) -> None:
    events = generate_match(6, best_of=3)[:30]
    peer.play(events[:10])
    wait_for(lambda: peer.acked() == 10, what="the first 10 acked")
    with peer.lock:  # the table's own sender: it retransmits until acknowledged
        assert peer.session.send(messages.EVENT, {0: 999, -1: [0, 0]}) == 11
    peer.play(events[10:])
    wait_for(lambda: peer.acked() == len(events) + 1, what="every event acked, the bad one too")
    rows = stored_events(tmp_path / "store.sqlite")
    assert [s for _, s, _ in rows] == list(range(1, len(events) + 2))
    assert rows[10][2] is None  # stored as invalid, at its own number
    assert [ev for _, _, ev in rows[:10] + rows[11:]] == events
    assert daemon.board("t1")["status"]["stream"]["asked_again"] == 1
