"""The journal's hash chain and checkpoints, and operator actions applied
once: the firmware's own code against Python's hashlib, hmac and zlib, on the
simulated board in virtual time (tests/chaos/power_loss.py checks the same
after thousands of power cuts)."""

from __future__ import annotations

import binascii
import contextlib
import hashlib
import hmac
from pathlib import Path
from typing import Any

import pytest

from baulk.firmware import journal as jr
from baulk.firmware import names
from baulk.firmware.engine import Engine, Rejected
from baulk.firmware.sim.board import SIM_KEY, SimBoard
from baulk.firmware.sim.script import Driver
from baulk.host.sim.matches import generate_match
from baulk.protocol import cbor, frame, messages
from baulk.protocol.session import HOST, Session

KEY = bytes.fromhex(SIM_KEY)
UNDO = names.EVENTS.index("undo")


@pytest.mark.parametrize("key_len", [0, 1, 31, 32, 64, 65, 200])
@pytest.mark.parametrize("msg_len", [0, 1, 55, 64, 300])
def test_hmac_from_hashlib_is_rfc_2104(key_len: int, msg_len: int) -> None:
    key = bytes(range(7, 7 + key_len % 250)) * (key_len // 250 + 1)
    key = key[:key_len]
    msg = bytes((i * 31) & 0xFF for i in range(msg_len))
    assert jr.hmac_sha256(key, msg) == hmac.new(key, msg, hashlib.sha256).digest()


def chain_of(bodies: list[dict[Any, Any]]) -> tuple[bytes, bytes]:
    head, marks = bytes(32), b""
    for b in bodies:
        raw = cbor.dumps(b, 1024)
        head = hashlib.sha256(head + raw).digest()
        marks += binascii.crc32(raw).to_bytes(4, "big")
    return head, marks


def test_the_journal_chains_the_bytes_it_journals_and_signs_the_head(tmp_path: Path) -> None:
    j = jr.Journal(str(tmp_path / "j"))
    j.open()
    bodies = [
        messages.event_body({"ev": "pot", "ball": "red", "pocket": "tl", "t": 10 * i}, [i, 0])
        for i in range(5)
    ]
    for b in bodies:
        j.append(b, 0)
    head, marks = chain_of(bodies)
    assert (j.head, bytes(j.marks[: 4 * j.nmarks]), j.last_event) == (head, marks, 5)
    seq, cp = j.checkpoint(KEY)
    assert seq == 6 and j.nmarks == 0
    msg = (5).to_bytes(4, "big") + j.boot.to_bytes(4, "big") + head + marks
    assert cp == {0: 5, 1: j.boot, 2: head, 3: marks, 4: hmac.new(KEY, msg, "sha256").digest()}
    more = messages.event_body({"ev": "rest"}, [5, 0])
    assert j.append(more, 0) == 7
    # what is on flash: the events, the checkpoint flagged as one
    assert [(s, k) for s, k, _ in j.records(1, 100)] == [(i, 0) for i in range(1, 6)] + [
        (6, 2),
        (7, 0),
    ]
    assert next(b for _, k, b in j.records(1, 100) if k) == cp


def test_the_chain_and_the_action_ids_survive_a_reboot_with_or_without_an_image(
    tmp_path: Path,
) -> None:
    root = str(tmp_path / "j")
    j = jr.Journal(root)
    j.open()
    e = Engine()
    bodies = []
    for i, ev in enumerate(generate_match(5, best_of=3)[:300]):
        with contextlib.suppress(Rejected):  # refused input is journaled all the same
            e.apply(dict(ev))
        act = (9 << 32) | i if i % 7 == 0 else 0
        body = messages.event_body(ev, [e.s0, e.s1], src=2 if act else 0, cmd=i, act=act)
        bodies.append(body)
        j.append(body, 0)
        if j.nmarks >= jr.MARKS:
            j.checkpoint(KEY)
        if j.image_due():
            j.checkpoint(KEY)
            j.write_image(e)
    assert j.image_seq > 0  # an image covers the start; the records after it replay
    again = jr.Journal(root)
    again.open()
    again.restore(Engine(), lambda eng, body: None)
    head, _ = chain_of(bodies)
    assert (again.head, again.last_event) == (j.head, j.last_event)
    assert again.head == head
    assert bytes(again.marks[: 4 * again.nmarks]) == bytes(j.marks[: 4 * j.nmarks])
    assert again.acts == j.acts
    ids = [b[-6] for b in bodies if -6 in b]
    assert [again.applied(a) for a in ids[-jr.ACTIONS :]] == [True] * jr.ACTIONS
    assert not again.applied(ids[-jr.ACTIONS - 1])  # bounded: the older ones are forgotten
    assert not again.applied(12345)


def test_an_image_written_before_the_chain_still_loads(tmp_path: Path) -> None:
    root = str(tmp_path / "j")
    j = jr.Journal(root)
    j.open()
    e = Engine()
    e.apply({"ev": "match", "players": ["Ali", "Reza"], "best_of": 3})
    j.append(
        messages.event_body({"ev": "match", "players": ["Ali", "Reza"], "best_of": 3}, [0, 0]), 0
    )
    old = [1, 1, 0, 0, *e.image()]  # version 1: seq, time, delivered, then the engine
    data = cbor.dumps(old, 8192)
    j._write("image", data, len(data))
    again = jr.Journal(root)
    again.open()
    fresh = Engine()
    again.restore(fresh, lambda eng, body: None)
    assert fresh.image() == e.image()
    assert again.head == bytes(32)  # the chain starts over from here


class Table:
    """The firmware on the simulated board, a host session at the other end."""

    def __init__(self, flash: Path) -> None:
        self.board = SimBoard(flash=str(flash), tick_ms=5)
        self.board.boot()
        self.host = Session(HOST, self.board.clock.now, {0: "test-host"}, 64, 8)
        self.reader = frame.FrameReader()
        self.writer = frame.FrameWriter()
        self.got: list[tuple[int, int, dict[Any, Any]]] = []  # (type, seq, body)
        self.board.on_tick = self.pump
        self.board.settle(1500)

    def pump(self) -> None:
        b = self.board
        now = b.clock.now
        for f in self.reader.feed(b.serial.take()):
            self.host.on_frame(f, now)
        for what, mtype, seq, body in self.host.drain():
            if what == "deliver":
                self.got.append((mtype, seq, body))
        for m in self.host.poll(now):
            b.serial.inject(bytes(self.writer.build(*m)))

    def send(self, mtype: int, body: dict[Any, Any]) -> None:
        assert self.host.send(mtype, body)
        self.board.settle(300)

    def answers(self, act: int) -> int:
        return sum(1 for t, _, b in self.got if t == messages.EVENT and b.get(-6) == act)


def test_a_repeated_action_changes_nothing_even_after_a_power_cut(tmp_path: Path) -> None:
    t = Table(tmp_path)
    setup = {7: ["Ali", "Reza"], 8: 3, -6: 1 << 40}
    t.send(messages.SETUP_MATCH, setup)
    t.send(messages.SETUP_MATCH, setup)  # a restarted host sends it again
    assert t.answers(1 << 40) == 1
    events = [b for m, _, b in t.got if m == messages.EVENT]
    assert events[-1][-4] == messages.SRC_HOST and events[-1][-6] == 1 << 40
    Driver(t.board).perform({"ev": "strike"})
    undo = {0: UNDO, -6: (1 << 40) + 1}
    t.send(messages.COMMAND, undo)
    state = t.board.app.engine.image()
    t.board.reset()  # the power goes; the id is on flash with its answer
    t.board.settle(1500)
    t.send(messages.COMMAND, undo)
    assert t.answers((1 << 40) + 1) == 1
    assert t.board.app.engine.image() == state  # the repeat undid nothing more
    # the device remembers the last ACTIONS ids: an older one would apply again
    for n in range(jr.ACTIONS):
        t.send(messages.COMMAND, {0: UNDO, -6: (2 << 40) + n})
    t.send(messages.COMMAND, undo)
    assert t.answers((1 << 40) + 1) == 2


@pytest.mark.slow
def test_a_checkpoint_follows_every_frame_end_and_every_32_events(tmp_path: Path) -> None:
    t = Table(tmp_path)
    events = generate_match(8, best_of=3)
    t.send(messages.SETUP_MATCH, {7: events[0]["players"], 8: 3})
    d = Driver(t.board)
    for ev in events[1:]:
        d.perform(ev)
    t.board.settle(2000)
    stream = sorted(t.got, key=lambda g: g[1])
    assert [g[1] for g in stream] == list(range(1, len(stream) + 1))  # one stream, both kinds
    unsigned = 0  # events since the last checkpoint
    for mtype, seq, body in stream:
        if mtype == messages.CHECKPOINT:
            assert body[0] == seq - 1 and len(body[3]) == 4 * unsigned  # the events just before
            unsigned = 0
        else:
            unsigned += 1
            assert unsigned <= jr.MARKS
    # every frame's end (a change of the finished frames) is signed at once
    finished = 0
    e = Engine()
    for i, (mtype, seq, body) in enumerate(stream):
        if mtype != messages.EVENT or -2 in body:
            continue
        before = e.hist_len
        e.apply(messages.wire_to_event(body))
        if e.hist_len != before:
            finished += 1
            assert stream[i + 1][0] == messages.CHECKPOINT, f"frame end at seq {seq}"
    assert t.board.app.engine.match_over and finished == t.board.app.engine.hist_len >= 2


def test_the_device_signs_the_hosts_money_head_into_a_checkpoint_at_once(tmp_path: Path) -> None:
    """SPEC.md 7.8, "Anchors": the checkpoint after an anchor carries the
    host's money head under a MAC of its own, which the host's verifier
    checks, while its plain MAC holds as before; a reset does not make the
    device sign the same anchor again."""
    from baulk.host.referee.verify import anchor_mac_of, mac_of
    from baulk.protocol import host_codec

    t = Table(tmp_path)
    t.send(messages.SETUP_MATCH, {7: ["Ali", "Reza"], 8: 3})
    money = hashlib.sha256(b"three money rows").digest()
    t.send(host_codec.ANCHOR, {0: 3, 1: money})
    (cp,) = [b for m, _, b in t.got if m == messages.CHECKPOINT and 5 in b]
    key = bytes.fromhex(SIM_KEY)
    assert (cp[5], cp[6]) == (3, money)
    assert cp[7] == anchor_mac_of(key, cp[0], cp[1], cp[2], 3, money)
    assert cp[4] == mac_of(key, cp[0], cp[1], cp[2], cp[3])
    assert cp[0] == max(s for m, s, _ in t.got if m == messages.EVENT)  # after the newest event
    signed = len(t.got)
    t.board.reset()
    t.board.settle(1500)
    assert not [b for m, _, b in t.got[signed:] if m == messages.CHECKPOINT and 5 in b]
