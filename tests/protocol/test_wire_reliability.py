"""The reliability layer and the session, step by step, with a virtual clock."""

from __future__ import annotations

import binascii
from typing import Any

import pytest

from baulk.protocol import cobs, frame, host_codec, messages
from baulk.protocol import reliability as R
from baulk.protocol.session import DEVICE, HOST, Session


@pytest.mark.parametrize(
    ("seq16", "ref", "full"),
    [(5, 5, 5), (4, 5, 4), (0, 65535, 65536), (65535, 65536, 65535), (4464, 69990, 70000)],
)
def test_extend_recovers_the_full_sequence_number(seq16: int, ref: int, full: int) -> None:
    assert R.extend(seq16, ref) == full


def test_sender_journal_refuses_past_its_capacity() -> None:
    s = R.Sender(capacity=4, window=2)
    assert [s.offer(i) for i in range(6)] == [1, 2, 3, 4, 0, 0]
    assert len(s) == 4 and s.peak == 4


def test_sender_window_and_cumulative_ack() -> None:
    s = R.Sender(capacity=8, window=3)
    for i in range(5):
        s.offer(f"m{i}")
    assert [x[0] for x in s.poll(0)] == [1, 2, 3]
    assert s.poll(1) == ()  # window full
    assert s.on_ack(2, 10) == 2
    assert [x[0] for x in s.poll(10)] == [4, 5]
    assert s.on_ack(99, 11) == 0  # beyond anything sent: ignored
    assert s.on_ack(1, 11) == 0  # stale
    assert s.on_ack(5, 12) == 3 and len(s) == 0


def test_sender_retransmits_with_doubling_backoff() -> None:
    s = R.Sender(capacity=8, window=4, rto_ms=100, rto_max_ms=400)
    s.offer("a")
    s.offer("b")
    assert [(q, r) for q, _, r in s.poll(0)] == [(1, False), (2, False)]
    times = []
    t = 0
    while len(times) < 4:
        t += 1
        out = s.poll(t)
        if out:
            assert [(q, r) for q, _, r in out] == [(1, True), (2, True)]  # go back N
            times.append(t)
    assert times == [100, 300, 700, 1100]  # 100, 200, 400, 400 (capped)
    s.on_ack(2, 1200)
    assert s.rto == 100 and s.deadline == -1


def test_duplicate_acks_trigger_a_fast_retransmission() -> None:
    s = R.Sender(capacity=8, window=4, rto_ms=1000)
    for i in range(4):
        s.offer(i)
    s.poll(0)
    s.on_ack(1, 5)
    s.on_ack(1, 6)
    assert s.poll(7) == ()
    s.on_ack(1, 8)  # second duplicate
    assert [q for q, _, _ in s.poll(9)] == [2, 3, 4]


def test_receiver_delivers_once_in_order_and_buffers_ahead() -> None:
    r = R.Receiver(window=4)
    assert r.on_frame(2, "b") == ()
    assert r.take_ack() == 0
    assert list(r.on_frame(1, "a")) == [(1, "a"), (2, "b")]
    assert r.on_frame(2, "b") == () and r.duplicates == 1
    assert r.on_frame(9, "far") == ()  # beyond the window: dropped
    assert r.take_ack() == 2 and r.take_ack() == -1


def test_host_receiver_acks_only_what_is_committed() -> None:
    r = R.Receiver(window=4, auto_commit=False)
    r.on_frame(1, "a")
    r.on_frame(2, "b")
    # No ack of the old point: the sender would take it for a duplicate ack
    # and resend its whole window.  The ack waits for the store's commit.
    assert r.take_ack() == -1
    r.commit(2)
    assert r.take_ack() == 2
    r.on_frame(2, "b")  # a duplicate is acked again at once
    assert r.take_ack() == 2
    r.on_frame(4, "d")  # ahead of a gap: the ack shows where the gap is
    assert r.take_ack() == 2


def test_resync_follows_a_restarted_or_gapped_peer() -> None:
    r = R.Receiver(window=4, delivered=50)
    r.resync(peer_base=1, peer_last=3)  # journal wiped: numbering restarted
    assert r.delivered == 0
    r = R.Receiver(window=4, delivered=50)
    r.resync(peer_base=60, peer_last=70)  # peer abandoned 51..59
    assert r.delivered == 59 and r.gaps == 9
    r = R.Receiver(window=4, delivered=50)
    r.resync(peer_base=45, peer_last=70)  # ordinary resume
    assert r.delivered == 50


# -- sessions --------------------------------------------------------------


class Pair:
    """A device and a host session wired back to back through the real codecs."""

    def __init__(self) -> None:
        self.now = 0
        self.dev = Session(DEVICE, 0, {0: "fw 1", 1: "table-1", 2: 77}, capacity=16, window=4)
        self.host = Session(HOST, 0, {0: "host 1"}, capacity=16, window=4)
        self.link_up = True
        self.at_host: list[tuple[Any, ...]] = []
        self.at_dev: list[tuple[Any, ...]] = []

    def step(self, ms: int = 10) -> None:
        self.now += ms
        for m in self.dev.poll(self.now):
            if self.link_up:
                self.host.on_frame(host_codec.decode_frame(frame.encode_frame(*m)), self.now)
        for m in self.host.poll(self.now):
            if self.link_up:
                self.dev.on_frame(frame.decode_frame(host_codec.encode_frame(*m)), self.now)
        self.at_host += self.host.drain()
        self.at_dev += self.dev.drain()

    def run(self, ms: int) -> None:
        for _ in range(ms // 10):
            self.step()


def test_handshake_opens_both_sides() -> None:
    p = Pair()
    p.step()
    assert p.dev.open and p.host.open
    assert p.at_host[0][0] == "open" and p.at_host[0][3][1] == "table-1"
    assert p.at_dev[0][0] == "open"


def test_events_and_commands_flow_both_ways() -> None:
    p = Pair()
    p.step()
    for i in range(10):
        p.dev.send(
            messages.EVENT, messages.event_body({"ev": "pot", "ball": "red", "t": i}, [i, 0])
        )
        p.host.send(messages.COMMAND, messages.event_to_wire({"ev": "undo", "t": i}))
    p.run(500)
    ev = [x for x in p.at_host if x[0] == "deliver"]
    cmd = [x for x in p.at_dev if x[0] == "deliver"]
    assert [x[2] for x in ev] == list(range(1, 11))
    assert [x[3][13] for x in cmd] == list(range(10))
    assert len(p.dev.sender) == 0 and len(p.host.sender) == 0


def test_a_dead_link_is_noticed_within_3_seconds_and_resumed() -> None:
    p = Pair()
    p.run(1000)
    p.link_up = False
    cut = p.now
    while p.dev.open or p.host.open:
        p.step()
    assert p.now - cut <= 3000
    assert ("down", 0, 0, None) in p.at_dev and ("down", 0, 0, None) in p.at_host
    seq = p.dev.send(messages.EVENT, messages.event_body({"ev": "rest"}, [0, 0]))
    assert seq == 1
    p.link_up = True
    p.run(1500)
    assert p.dev.open and p.host.open
    assert [x[2] for x in p.at_host if x[0] == "deliver"] == [1]


def test_heartbeats_keep_an_idle_link_open() -> None:
    p = Pair()
    p.run(10_000)
    assert p.dev.open and p.host.open and p.dev.downs == 0


@pytest.mark.parametrize("side", ["device", "host"])
def test_major_version_mismatch_is_refused_on_both_sides(side: str) -> None:
    host = Session(HOST, 0, {0: "host 1"})
    dev = Session(DEVICE, 0, {0: "fw 9", 1: "t", 2: 5})
    out = dev.poll(0)
    wire = frame.encode_frame(*out[0])
    if side == "device":  # the device speaks 2.0
        raw = bytearray(cobs.decode(wire[:-1]))
        raw[0] = 0x20
        wire = _restamp(bytes(raw[:-4]) + bytes(4))
    host.on_frame(host_codec.decode_frame(wire), 0)
    if side == "host":
        assert host.open
        return
    assert not host.open
    notes = host.drain()
    assert notes[0][0] == "refused" and "2.0 on the device" in notes[0][3]
    reply = host.poll(1)
    assert reply[0][0] == messages.WELCOME and "major versions differ" in reply[0][3][4]
    # the device, reading that welcome, refuses too and says so
    dev.on_frame(frame.decode_frame(frame.encode_frame(*reply[0])), 2)
    assert not dev.open and dev.refused is not None
    assert dev.drain()[0][0] == "refused"


def _restamp(raw: bytes) -> bytes:
    """Re-stuff an unstuffed frame whose header was edited, with a fresh CRC."""
    body = raw[:-4]
    return cobs.encode(body + binascii.crc32(body).to_bytes(4, "little"))


def test_device_refuses_a_host_of_another_major() -> None:
    dev = Session(DEVICE, 0, {0: "fw 1", 1: "t", 2: 5})
    dev.poll(0)
    welcome = Session(HOST, 0, {0: "host 9"})._welcome()
    raw = bytearray(cobs.decode(frame.encode_frame(*welcome)[:-1]))
    raw[0] = 0x30
    dev.on_frame(frame.decode_frame(_restamp(bytes(raw))), 1)
    assert not dev.open
    assert "3.0 on the host" in (dev.refused or "")
    err = dev.poll(2)
    assert err[0][0] == messages.ERROR and err[0][3][0] == messages.ERR_VERSION


def test_unknown_reliable_type_is_acked_and_ignored() -> None:
    p = Pair()
    p.step()
    # a newer host sends type 200, reliable, then an ordinary command
    p.host.sender.offer((200, {0: 1}))
    p.host.send(messages.COMMAND, messages.event_to_wire({"ev": "undo"}))
    p.run(200)
    kinds = [x[0] for x in p.at_dev if x[0] in ("ignored", "deliver")]
    assert kinds == ["ignored", "deliver"]
    assert len(p.host.sender) == 0


def test_invalid_reliable_body_is_acked_reported_and_skipped() -> None:
    p = Pair()
    p.step()
    p.dev.sender.offer((messages.EVENT, {0: 2}))  # no scores: fails its check
    p.dev.send(messages.EVENT, messages.event_body({"ev": "rest"}, [0, 0]))
    p.run(200)
    got = [(x[0], x[2]) for x in p.at_host if x[0] in ("invalid", "deliver")]
    assert got == [("invalid", 1), ("deliver", 2)]
    assert len(p.dev.sender) == 0


def test_unreliable_messages_arrive_and_the_outbox_is_bounded() -> None:
    p = Pair()
    p.step()
    for i in range(20):
        p.dev.send(messages.LOG, {0: 1, 1: f"line {i}"})
    assert p.dev.dropped_unreliable == 12
    p.step()
    logs = [x[3][1] for x in p.at_host if x[0] == "message" and x[1] == messages.LOG]
    assert logs == [f"line {i}" for i in range(12, 20)]


@pytest.mark.parametrize("announce_newest", [True, False])
def test_reset_with_a_journal_longer_than_ram_delivers_nothing_twice(
    announce_newest: bool,
) -> None:
    # The host took in events 1..100, but its acks past 80 were lost before
    # the device reset.  The device's flash journal holds 81..100 unacked; only
    # 16 fit in the session at once.  Its hello must announce 100, the newest
    # it has assigned (SPEC.md 7.6): announcing only what sits in RAM (96)
    # makes the host take it for a device that restarted its numbering, and
    # it then delivers 81..100 a second time.
    p = Pair()
    p.step()
    for i in range(100):
        p.dev.send(messages.EVENT, messages.event_body({"ev": "strike", "t": i}, [0, 0]))
        p.run(40)
    assert [x[2] for x in p.at_host if x[0] == "deliver"] == list(range(1, 101))
    p.at_host.clear()
    p.dev = Session(
        DEVICE,
        p.now,
        {0: "fw 1", 1: "table-1", 2: 78},
        capacity=16,
        window=4,
        last=80,
        newest=100 if announce_newest else 0,
    )
    pending = list(range(81, 101))
    for _ in range(400):
        while pending and p.dev.sender.free() > 0:
            seq = p.dev.send(
                messages.EVENT, messages.event_body({"ev": "rest", "t": pending[0]}, [0, 0])
            )
            assert seq == pending.pop(0)
        p.step()
    delivered = [x[2] for x in p.at_host if x[0] == "deliver"]
    if announce_newest:
        assert delivered == []
    else:
        assert delivered[:16] == list(range(81, 97)), "the old hello delivered twice"
