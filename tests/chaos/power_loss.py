"""Power loss on the device, shared by tests/chaos/test_power_loss.py (short)
and bench/chaos_power.py (full); with operator actions and host restarts,
tests/chaos/exactly_once.py builds on it.

The whole firmware runs on the simulated board in virtual time, on a
:class:`~baulk.firmware.sim.flash.TearingFlash`: after a random number of
bytes written (or directory operations) the power goes, mid-write.  The board
boots again on what the flash holds, and then:

* the journal is consistent: every record (event or checkpoint) whose append
  had finished is still there, byte for byte, and at most the one being
  written at the cut is added (it reached the flash but was never sent: it
  is sent now);
* the frame resumes exactly: the engine after the boot equals (its whole
  image, undo log included) a fresh engine that replays the device's record;
* the hash chain resumes exactly: the journal's head, its marks and the
  action ids it remembers equal those computed again from the device's
  record, and every checkpoint's head and MAC are the record's;
* at the end a host on the serial line has every journaled record exactly
  once, in order;
* the table light, switched by the host at random moments, comes back from
  flash as the device last acknowledged it (or as a later message it took
  just before the cut), and ends as the host last commanded.
"""

from __future__ import annotations

import binascii
import hashlib
import hmac
import itertools
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

from baulk.firmware import journal as journal_mod
from baulk.firmware.app import replay_one
from baulk.firmware.engine import Engine
from baulk.firmware.sim.board import SIM_KEY, SimBoard
from baulk.firmware.sim.flash import PowerCut, TearingFlash
from baulk.firmware.sim.script import Driver, new_match_keys
from baulk.host.sim.matches import MatchPlayer
from baulk.protocol import cbor, frame, messages
from baulk.protocol.session import HOST, Session
from tests.chaos.kit import JournalTap

KEY = bytes.fromhex(SIM_KEY)
Record = tuple[int, dict[Any, Any]]  # (kind, body) of a journal record


class _Player(MatchPlayer):
    """Chooses lawful events from the firmware's engine; the firmware applies them."""

    def __init__(self, seed: int, engine: Engine) -> None:
        super().__init__(seed)
        self.engine = engine

    def apply(self, ev: dict[str, Any]) -> dict[str, Any]:
        return ev


class Host:
    """The host end of the serial line: acks, and keeps what it was given
    (events and checkpoints, by seq)."""

    def __init__(self, board: SimBoard) -> None:
        self.board = board
        self.session = Session(HOST, board.clock.now, {0: "chaos-host"}, 64, 8)
        self.reader = frame.FrameReader()
        self.writer = frame.FrameWriter()
        self.delivered: list[tuple[int, dict[Any, Any]]] = []
        self.lights: list[tuple[int, bool]] = []  # (seq, on) of each light message sent

    def light(self, on: bool) -> None:
        seq = self.session.send(messages.LIGHT, {0: on})
        if seq:
            self.lights.append((seq, on))

    def light_states_allowed(self) -> set[bool]:
        """What the relay may show after a boot: the state of the newest light
        message the device acknowledged, or of any it took after that."""
        acked = self.session.sender.base - 1
        done = [i for i, (seq, _) in enumerate(self.lights) if seq <= acked]
        if not done:
            return {False} | {on for _, on in self.lights}
        return {on for _, on in self.lights[done[-1] :]}

    def pump(self) -> None:
        b = self.board
        now = b.clock.now
        s = self.session
        for f in self.reader.feed(b.serial.take()):
            s.on_frame(f, now)
        for what, mtype, seq, body in s.drain():
            self.on(what, mtype, seq, body)
        for m in s.poll(now):
            b.serial.inject(bytes(self.writer.build(m[0], m[1], m[2], m[3])))

    def on(self, what: str, mtype: int, seq: int, body: Any) -> None:
        if what == "deliver" and mtype in (messages.EVENT, messages.CHECKPOINT):
            self.delivered.append((seq, body))


class Broken(AssertionError):
    pass


def run(
    seed: int,
    cuts: int,
    max_budget: int = 6000,
    best_of: int = 3,
    host: type[Host] = Host,
    between_strokes: Any = None,
    keep: dict[str, Any] | None = None,
    until: Any = None,
) -> dict[str, Any]:
    """Play until `cuts` power cuts happened (starting a new match whenever one
    ends); check the journal, the chain and the engine after every boot.
    ``between_strokes(host, rng)`` runs after every stroke (operator actions);
    ``keep`` gets the device's record and the host; at the end the board
    runs on until ``until(host)`` holds (a minute of virtual time at most)."""
    rng = random.Random(seed)
    tmp = Path(tempfile.mkdtemp(prefix="baulk-power-"))
    flash = TearingFlash()
    flash.install(journal_mod)
    tap = JournalTap().install()
    record: dict[int, Record] = {}  # the device's record: seq -> (kind, body)
    figures = {
        "cuts": 0,
        "cuts_in_boot": 0,
        "torn_writes": 0,
        "inflight_kept": 0,  # cut after the record reached flash, before it was sent
        "inflight_undone": 0,  # cut before: the record never was (nor was it sent)
        "strokes": 0,
        "matches": 0,
        "lost": 0,
        "doubled": 0,
        "out_of_order": 0,
        "light_switches": 0,
        "light_checks": 0,
        "light_wrong": 0,
    }
    try:
        board = SimBoard(flash=str(tmp), tick_ms=5)
        board.boot()
        h = host(board)
        board.on_tick = h.pump
        board.settle(1500)
        driver = Driver(board)
        _arm(flash, rng, max_budget)
        player = _Player(seed, board.app.engine)
        while figures["cuts"] < cuts:
            try:
                app = board.app
                e = app.engine
                if not e.active or e.match_over:
                    figures["matches"] += int(e.match_over)
                    board.keys(*new_match_keys(best_of))
                    board.settle(300)
                    continue
                if e.stroke_open:  # after a cut mid-stroke: the balls stop
                    board.signal(board.cfg.REST, 1 - board.cfg.REST_MOVING)
                    board.advance(board.hw.rest.quiet_ms + 100)
                    if e.stroke_open:
                        board.keys("ok")
                    continue
                if rng.random() < 0.15:  # the desk opens or closes a session
                    h.light(not (h.lights and h.lights[-1][1]))
                    figures["light_switches"] += 1
                for ev in player.play_stroke():
                    driver.perform(ev)
                board.advance(rng.randint(50, 400))
                figures["strokes"] += 1
                if between_strokes is not None:
                    between_strokes(h, rng)
            except PowerCut:
                figures["cuts"] += 1
                _power_cycle(board, flash, rng, max_budget, figures)
                _check_boot(board, tap, record, figures)
                figures["light_checks"] += 1
                allowed = h.light_states_allowed()
                if board.light() not in allowed or board.light() != board.app.journal.light:
                    figures["light_wrong"] += 1
                driver = Driver(board)
                player = _Player(seed + figures["cuts"], board.app.engine)
        flash.disarm()
        board.settle(5000)  # the host catches up
        for _ in range(120):
            if until is None or until(h):
                break
            board.settle(500)
        figures["light_at_end"] = board.light()
        figures["light_wanted_at_end"] = bool(h.lights and h.lights[-1][1])
        _take(tap, record)
        got = [seq for seq, _ in h.delivered]
        want = sorted(record)
        figures["journaled"] = len(want)
        figures["journaled_events"] = sum(1 for k, _ in record.values() if not k)
        figures["delivered"] = len(got)
        figures["lost"] = len(set(want) - set(got))
        figures["doubled"] = len(got) - len(set(got))
        figures["out_of_order"] = sum(1 for a, b in itertools.pairwise(got) if b < a)
        figures["differing"] = sum(
            1 for seq, body in h.delivered if seq in record and record[seq][1] != _norm(body)
        )
        figures["bytes_written"] = flash.bytes_written
        figures["torn_writes"] = flash.torn
        if keep is not None:
            keep.update(record=record, host=h)
        figures.pop("_ref", None)
        return figures
    finally:
        tap.remove()
        flash.uninstall(journal_mod)
        shutil.rmtree(tmp, ignore_errors=True)


def _power_cycle(
    board: SimBoard,
    flash: TearingFlash,
    rng: random.Random,
    max_budget: int,
    figures: dict[str, Any],
) -> None:
    board.levels.clear()  # the balls stop, the keys are let go
    board.pressed.clear()
    board.sched.clear()
    _arm(flash, rng, max_budget)
    while True:
        try:
            board.reset()
            return
        except PowerCut:  # the power went again while it booted
            figures["cuts_in_boot"] += 1
            _arm(flash, rng, max_budget)


def _arm(flash: TearingFlash, rng: random.Random, max_budget: int) -> None:
    if rng.random() < 0.3:  # at a rename or a remove
        flash.arm_ops(rng.randint(1, 12))
    else:  # at any byte of a write
        flash.arm(rng.randint(1, max_budget))


def _take(tap: JournalTap, record: dict[int, Record]) -> None:
    for seq, kind, body in tap.records_all():
        record.setdefault(seq, (kind, _norm(body)))
    tap.records.clear()


def _check_boot(
    board: SimBoard, tap: JournalTap, record: dict[int, Record], figures: dict[str, Any]
) -> None:
    _take(tap, record)  # what was journaled, and the checkpoint of the boot if any
    j = board.app.journal
    recovered = j.next - 1
    missing = [seq for seq in range(1, recovered + 1) if seq not in record]
    if len(missing) == 1:  # the record being written at the cut reached the flash
        ((seq, kind, body),) = list(j.records(missing[0], 1))
        record[seq] = (kind, body)
        figures["inflight_kept"] += 1
    elif not missing and max(record, default=0) == recovered:
        figures["inflight_undone"] += 1
    else:
        raise Broken(f"journal holds up to seq {recovered}; not journaled: {missing[:10]}")
    # every record still on flash is the one the device journaled
    first = j.segs[0] if j.segs else recovered + 1
    on_flash = list(j.records(first, 1 << 30))
    if [s for s, _, _ in on_flash] != list(range(first, recovered + 1)):
        raise Broken(f"journal seqs are not contiguous: {[s for s, _, _ in on_flash]}")
    for seq, kind, body in on_flash:
        if record.get(seq) != (kind, body):
            raise Broken(f"seq {seq} on flash differs from what was journaled")
    if j.lost:
        raise Broken(f"the journal dropped {j.lost} records")
    # the frame and the chain resume exactly: a reference replays the device's
    # record (kept between boots, so each check costs only the records since)
    ref = figures.setdefault("_ref", Reference())
    ref.take(record, recovered)
    if ref.engine.image() != board.app.engine.image():
        raise Broken(f"after the cut the engine differs from a replay of seqs 1..{recovered}")
    ref.compare(j)


class Reference:
    """The engine, the hash chain, the marks and the action ids, computed
    again from the device's record, independently of the journal's code."""

    def __init__(self) -> None:
        self.engine = Engine()
        self.seq = 0
        self.head = bytes(32)
        self.marks = b""
        self.actions: list[int] = []
        self.last_event = 0

    def take(self, record: dict[int, Record], upto: int) -> None:
        for seq in range(self.seq + 1, upto + 1):
            kind, body = record[seq]
            if kind:
                self._checkpoint(seq, body)
                continue
            raw = cbor.dumps(body, 1024)  # the bytes journaled: the canonical encoding
            self.head = hashlib.sha256(self.head + raw).digest()
            self.marks += binascii.crc32(raw).to_bytes(4, "big")
            self.last_event = seq
            if body.get(-6):
                self.actions = [*self.actions, body[-6]][-journal_mod.ACTIONS :]
            replay_one(self.engine, body)
        self.seq = max(self.seq, upto)

    def _checkpoint(self, seq: int, body: dict[Any, Any]) -> None:
        msg = body[0].to_bytes(4, "big") + body[1].to_bytes(4, "big") + body[2] + body[3]
        if (body[0], body[2], body[3]) != (self.last_event, self.head, self.marks):
            raise Broken(f"checkpoint {seq} is not the chain's head after event {body[0]}")
        if not hmac.compare_digest(hmac.new(KEY, msg, hashlib.sha256).digest(), body[4]):
            raise Broken(f"checkpoint {seq}: its MAC does not hold under the board's key")
        self.marks = b""

    def compare(self, j: Any) -> None:
        acts = [int.from_bytes(j.acts[i : i + 8], "big") for i in range(0, len(j.acts), 8)]
        got = (j.head, bytes(j.marks[: 4 * j.nmarks]), [a for a in acts if a], j.last_event)
        want = (self.head, self.marks, self.actions, self.last_event)
        if got != want:
            raise Broken(f"after the cut the chain differs from the record: {got} != {want}")


def _norm(body: dict[Any, Any]) -> Any:
    return cbor.loads(cbor.dumps(body, 2048))
