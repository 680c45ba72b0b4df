# Whole-firmware scenarios on the simulated board, run under MicroPython (the
# npm WebAssembly port) and CPython alike by tests/firmware/test_fw_whole.py:
#   mp_firmware.py SCENARIO [EVENTS.json]
# Prints one JSON object: what came out of the serial port and the display.
import json
import os
import sys

from baulk.firmware import keypad_flow as kf
from baulk.firmware.engine import Engine
from baulk.firmware.sim.board import Config, SimBoard, between, nearest
from baulk.firmware.sim.script import Driver
from baulk.protocol import frame, messages
from baulk.protocol.session import HOST, Session

FLASH = sys.argv[3] if len(sys.argv) > 3 else "/flash"


def fresh_flash():
    try:
        os.mkdir(FLASH)
    except OSError:
        pass
    j = FLASH + "/journal"
    try:
        for n in os.listdir(j):
            os.remove(j + "/" + n)
    except OSError:
        pass


class Host:
    """The venue host at the other end of the serial port: the real protocol
    Session, taking every event the device sends, exactly once, in order."""

    def __init__(self, board, last=0, delivered=0):
        # last, delivered: the store's ends (a host restarted on an older store)
        self.board = board
        self.session = Session(HOST, board.clock.now, {0: "test-host"}, 64, 8, last, delivered)
        self.reader = frame.FrameReader()
        self.writer = frame.FrameWriter()
        self.events = []  # (seq, body)
        self.checks = []  # (seq, body): pocket checks, in the same stream
        self.health = []  # health bodies, newest last
        self.errors = []  # error bodies the device sent
        self.checkpoints = []  # (seq, body)
        self.logs = []  # log bodies the device sent
        self.states = 0
        self.connected = True
        self.frames = 0
        board.on_tick = self.pump

    def pump(self):
        b = self.board
        data = b.serial.take()
        if not self.connected:
            return
        now = b.clock.now
        for f in self.reader.feed(data):
            self.frames += 1
            self.session.on_frame(f, now)
        for what, mtype, seq, body in self.session.drain():
            if what == "deliver" and mtype == messages.EVENT:
                self.events.append((seq, body))
            elif what == "deliver" and mtype == 17:  # pocket_check (SPEC.md 7.1)
                self.checks.append((seq, body))
            elif what == "message" and mtype == 16:  # health
                self.health.append(body)
            elif what == "deliver" and mtype == messages.CHECKPOINT:
                self.checkpoints.append((seq, body))
            elif what == "message" and mtype == messages.STATE:
                self.states += 1
            elif what == "message" and mtype == messages.ERROR:
                self.errors.append(body)
            elif what == "message" and mtype == messages.LOG:
                self.logs.append(body)
        for m in self.session.poll(now):
            b.serial.inject(bytes(self.writer.build(m[0], m[1], m[2], m[3])))

    def acked(self):
        return self.session.sender.base - 1

    def setup(self, players, best_of):
        self.session.send(messages.SETUP_MATCH, {7: players, 8: best_of})

    def summary(self):
        out = []
        for seq, body in self.events:
            ev = messages.wire_to_event(body)
            ev.pop("t", None)
            ev["seq"] = seq
            ev["scores"] = body[-1]
            if -2 in body:
                ev["rejected"] = body[-2]
            if -4 in body:
                ev["src"] = body[-4]
            out.append(ev)
        return out


def comparable(state):
    for k in ("players", "player", "rejected"):
        state.pop(k, None)
    return state


def boot(cfg=None):
    fresh_flash()
    b = SimBoard(flash=FLASH, cfg=cfg, tick_ms=5)
    b.boot()
    return b


def started():
    """A fresh board, the host at the other end, and a match set up by it."""
    b = boot()
    host = Host(b)
    b.settle(1500)  # hello, welcome
    host.setup(["Ali", "Reza"], 3)
    b.settle(300)
    return b, host


def scenario_signals():
    # Keys and sensor signals in; frames and display contents out.
    b = boot()
    host = Host(b)
    b.settle(1500)  # hello, welcome
    screens = {"boot": b.text()}
    host.setup(["Ali", "Reza"], 3)
    b.settle(300)
    screens["match"] = b.text()
    d = Driver(b)
    d.perform({"ev": "strike"})
    d.perform({"ev": "pot", "ball": "red", "pocket": "tl"})
    d.perform({"ev": "rest"})
    b.settle(300)
    screens["red"] = b.text()
    b.keys("nom", "black")
    d.perform({"ev": "strike"})
    d.perform({"ev": "pot", "ball": "black", "pocket": "br"})
    d.perform({"ev": "rest"})
    d.perform({"ev": "strike"})
    d.perform({"ev": "rest"})
    b.keys("foul", "red", "yellow")  # wrong ball first, the yellow
    b.settle(300)
    screens["foul"] = b.text()
    b.keys("again")
    b.settle(300)
    screens["again"] = b.text()
    return {
        "events": host.summary(),
        "screens": screens,
        "states": host.states,
        "acked": b.app.journal.acked,
        "bad_frames": host.session.bad_frames,
    }


def scenario_keypad(path):
    # A whole frame from the keypad alone: no strike, rest or pocket sensors.
    with open(path) as f:
        events = json.load(f)
    cfg = Config(STRIKE=None, REST=None, RAIL=None)
    b = boot(cfg)
    d = Driver(b, by_hand=True)
    ref = Engine()
    diverged = None
    for i, ev in enumerate(events):
        ref.apply(ev)
        d.perform(ev)
        # strokes are entered by hand: compare between strokes
        settled = not ref.stroke_open
        if (
            settled
            and diverged is None
            and comparable(b.app.engine.state()) != comparable(ref.state())
        ):
            diverged = i
    b.settle(300)
    return {
        "events": len(events),
        "journal": sum(1 for r in b.app.journal.records(1, 1 << 30) if not r[1]),  # events
        "diverged": diverged,
        "same": comparable(b.app.engine.state()) == comparable(ref.state()),
        "history": b.app.engine.state()["history"],
        "screen": b.text(),
    }


def scenario_power_cut():
    # A power cut in the middle of a stroke, with events the host never acked.
    b, host = started()
    d = Driver(b)
    for ev in ({"ev": "strike"}, {"ev": "pot", "ball": "red", "pocket": "tl"}, {"ev": "rest"}):
        d.perform(ev)
    b.keys("nom", "blue")
    host.connected = False  # the cable goes; the device keeps scoring
    d.perform({"ev": "strike"})
    d.perform({"ev": "pot", "ball": "blue", "pocket": "ml"})
    d.perform({"ev": "pot", "ball": "red", "pocket": "tr"})  # a foul, still mid-stroke
    before = b.app.engine.to_json()
    unacked = b.app.journal.next - 1 - b.app.journal.acked
    b.reset()
    after = b.app.engine.to_json()
    seen = len(host.events)
    host.connected = True
    host.reader = frame.FrameReader()
    b.settle(3000)  # the handshake again, then the journal is resent
    resent = host.summary()[seen:]
    d.perform({"ev": "rest"})
    b.settle(500)
    return {
        "same_state": before == after,
        "stroke_open": b.app.engine.stroke_open,
        "unacked_before_cut": unacked,
        "resent": resent,
        "seqs": [s for s, _ in host.events],
        "checkpoints": [[s, body[0]] for s, body in host.checkpoints],
        "boots": [body.get(-3) for _, body in host.events],
        "final": b.app.engine.state()["scores"],
        "last_foul": b.app.engine.state()["last_foul"],
        "screen": b.text(),
    }


def scenario_restored_host():
    # The host's store is restored from a backup that ends before the last
    # events it acknowledged: the device sends them again from its journal.
    b, host = started()
    d = Driver(b)
    for ev in ({"ev": "strike"}, {"ev": "pot", "ball": "red", "pocket": "tl"}, {"ev": "rest"}):
        d.perform(ev)
    b.keys("nom", "black")
    for ev in ({"ev": "strike"}, {"ev": "pot", "ball": "black", "pocket": "br"}, {"ev": "rest"}):
        d.perform(ev)
    b.settle(500)
    j = b.app.journal
    before = {"acked": j.acked, "seqs": [s for s, _ in host.events]}
    # The host dies with its disk; its store comes back from a backup that
    # holds events 1..3 and the host's own first message.
    restored = Host(b, last=host.session.sender.last, delivered=3)
    b.settle(4000)  # the device finds the link dead, says hello, is welcomed
    during = {"acked": j.acked, "oldest": j.oldest()}
    d.perform({"ev": "strike"})
    d.perform({"ev": "rest"})
    b.settle(500)
    return {
        "before": before,
        "during": during,
        "seqs": [s for s, _ in restored.events],
        "checkpoints": [s for s, _ in restored.checkpoints],
        "events": [messages.wire_to_event(body)["ev"] for _, body in restored.events],
        "acked_after": j.acked,
        "gaps": restored.session.receiver.gaps,
        "final": b.app.engine.state()["scores"],
    }


def scenario_edges():
    b, host = started()
    d = Driver(b)
    out = {}
    # two reds into the same pocket, the second 60 ms behind the first (at
    # 1.5 m/s a ball's passage takes 35 ms: any sooner and they would touch): two pots
    d.perform({"ev": "strike"})
    t = b.clock.now + 5
    b.pot(0, 0, at=t)
    b.pot(0, 0, at=t + 60)
    b.advance(200)
    # a beam glitch shorter than the debounce: nothing
    b.beam(1, width=2)
    b.advance(100)
    out["glitches"] = b.app.health.body()[1][1]  # the beam's count, moved to the health counts
    d.perform({"ev": "rest"})
    b.settle(200)
    n = len(host.events)
    # a bouncing key: one press (a colour nominated once)
    b.press("nom", bounce=7)
    b.advance(200)
    out["after_bounce"] = b.text()
    b.press("pink", bounce=5)
    b.advance(300)
    # a reading halfway between pink and red: unknown, the referee is asked
    d.perform({"ev": "strike"})
    b.pot(2, 5, rgbc=between(5, nearest(5)))
    b.advance(200)
    out["asked"] = b.text()
    out["pots_while_asking"] = len([1 for _, e in host.events[n:] if e[0] == 2])
    b.keys("pink")
    d.perform({"ev": "rest"})
    b.settle(300)
    out["events"] = host.summary()
    out["screen"] = b.text()
    out["confidence"] = b.app.last_colour[1]
    return out


def faded_red():
    """The reference red, a fifth of the way to the white and half as bright
    (chalked, worn): its colour reads as a brown's."""
    from baulk.firmware.sim import pocket_model as pm

    s = pm.BallSet()
    red, white = s.rho[0], s.rho[7]
    s.rho[0] = [0.5 * (0.8 * red[k] + 0.2 * white[k]) for k in range(3)]
    return s


def scenario_faded():
    # A ball that is not on, read where a ball that is on reads once faded:
    # asked at the frame's start (reds on), named once a colour is on.
    from baulk.firmware.sim import pocket_model as pm

    b, host = started()
    app = b.app
    faded = faded_red()
    out = {}
    b.strike()
    b.roll(2, pm.Passage(0, b.clock.now + 5, 1.5, ballset=faded))
    b.advance(400)
    out["reds_on"] = [app.flow.step == kf.ASK_POT, app.flow.question]
    b.keys("red", gap=20, hold=40)
    b.keys("ok", gap=20, hold=40)  # the balls at rest: a colour is on
    b.settle(200)
    b.strike()
    b.roll(2, pm.Passage(0, b.clock.now + 5, 1.5, ballset=faded))
    b.advance(400)
    out["colour_on"] = app.flow.step == kf.ASK_POT
    b.settle(200)
    out["pots"] = [e["ball"] for e in host.summary() if e["ev"] == "pot"]
    return out


def scenario_question_power_cut():
    # The power goes while the handset asks which ball an unclear pot was: the
    # question survives on flash, is asked again after the reset, and the pot
    # reaches the host exactly once.
    b, host = started()
    d = Driver(b)
    d.perform({"ev": "strike"})
    b.pot(2, 5, rgbc=between(5, nearest(5)))
    b.advance(200)
    out = {"asked": b.text()}
    b.reset()
    host.reader = frame.FrameReader()
    b.settle(3000)
    out["asked_again"] = b.text()
    out["stroke_open_after_reset"] = b.app.engine.stroke_open
    b.keys("pink")
    d.perform({"ev": "rest"})
    b.settle(500)
    out["events"] = host.summary()
    out["scores"] = b.app.engine.state()["scores"]
    # Another reset now finds no open question: nothing is asked or sent twice.
    b.reset()
    b.settle(3000)
    out["after_second_reset"] = b.text()
    out["events_after"] = host.summary()
    return out


def scenario_bad_keys():
    b, host = started()
    out = {}
    before = b.app.engine.to_json()
    b.keys("free")
    b.advance(200)
    out["free_ball_screen"] = b.text()
    out["free_ball_same"] = b.app.engine.to_json() == before
    b.keys("nom", "pink")
    b.advance(200)
    out["nominate_screen"] = b.text()
    out["nominate_same"] = b.app.engine.to_json() == before
    b.settle(7000)  # the message times out
    out["later"] = b.text()
    b.settle(300)
    out["events"] = host.summary()
    return out


def light_on_flash():
    from baulk.protocol import cbor

    with open(FLASH + "/journal/meta", "rb") as f:
        return cbor.loads(f.read()).get(4)


def scenario_light():
    # The table light: switched by the host's `light` message, on flash before
    # the ack, kept through a host outage, restored after a power cut.
    b, host = started()
    out = {"at_boot": b.light()}
    seq = host.session.send(messages.LIGHT, {0: True})
    flash_at_ack = None
    while host.acked() < seq:
        b.advance(1)
    flash_at_ack = light_on_flash()  # what the flash held when the ack arrived
    out["on"] = b.light()
    out["flash_at_ack"] = flash_at_ack
    host.connected = False  # the host goes away (a crash, a pulled cable)
    b.settle(6000)
    out["link_up_in_outage"] = b.app.link.up
    out["on_in_outage"] = b.light()
    b.reset()  # and the power goes too
    out["on_after_power_cut"] = b.light()  # restored at boot, with no host
    host.connected = True
    host.reader = frame.FrameReader()
    b.settle(3000)
    out["link_up_again"] = b.app.link.up
    again = host.session.send(messages.LIGHT, {0: True})  # the host repeats it after a handshake
    b.settle(300)
    out["repeat_acked"] = host.acked() >= again
    out["switchings_on"] = b.pins[b.cfg.LIGHT].switchings
    off = host.session.send(messages.LIGHT, {0: False})
    b.settle(300)
    out["off"] = b.light()
    out["off_acked"] = host.acked() >= off
    b.reset()
    out["off_after_power_cut"] = b.light()
    out["delivered"] = b.app.journal.delivered
    out["events"] = len(host.events)  # a light makes no event
    # A board without a relay in its pin map takes the message and does nothing.
    plain = boot(Config(LIGHT=None))
    bare = Host(plain)
    plain.settle(1500)
    n = bare.session.send(messages.LIGHT, {0: True})
    plain.settle(300)
    out["no_relay_acked"] = bare.acked() >= n
    out["no_relay_kept"] = plain.app.journal.light
    return out


def read_jsonl(path):
    events = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                events.append(json.loads(line))
    return events


def scenario_contract(listing):
    # Every rules scenario of the engine contract that the keypad can express,
    # entered on the keypad alone: the same state as the engine fed directly.
    from baulk.firmware.sim.script import expressible

    with open(listing) as f:
        paths = [p.strip() for p in f if p.strip()]
    cfg = Config(STRIKE=None, REST=None, RAIL=None)
    done = []
    skipped = []
    failed = []
    kinds = {}
    for path in paths:
        events = read_jsonl(path)
        ref = Engine()
        plan = []
        ok = True
        for ev in events:
            if not isinstance(ev, dict) or not isinstance(ev.get("ev"), str):
                ok = False
                break
            stroke_was_open = ref.stroke_open
            try:
                ref.apply(ev)
                accepted = True
            except Exception:
                accepted = False
            if not expressible(ev):
                if accepted:
                    ok = False  # the keypad cannot say it, yet it matters
                    break
                continue  # refused anyway: nothing changes either way
            if ev["ev"] == "pot" and not stroke_was_open:
                ok = False  # a ball falling by itself: no key for that
                break
            plan.append(ev)
        if not ok or not plan or plan[0]["ev"] != "match":
            skipped.append(path)
            continue
        b = boot(cfg)
        d = Driver(b, by_hand=True)
        for ev in plan:
            d.perform(ev)
            kinds[ev["ev"]] = kinds.get(ev["ev"], 0) + 1
        b.settle(100)
        if comparable(b.app.engine.state()) == comparable(ref.state()):
            done.append(path)
        else:
            failed.append(path)
    return {"done": len(done), "skipped": len(skipped), "failed": failed, "kinds": kinds}


def scenario_isr_alloc():
    # The interrupt handlers and the keypad's timer callback run with the heap
    # locked: any allocation would raise MemoryError (as in a hard IRQ).
    import micropython

    from baulk.firmware.hw.inputs import EDGE_RAIL, EDGE_STRIKE, EdgeRing, Keypad
    from baulk.firmware.hw.pockets import Pockets
    from baulk.firmware.sim.devices import SimI2C, SimPin, VirtualClock

    clock = VirtualClock(5)
    ring = EdgeRing(clock.ticks_ms)
    pins = [SimPin(i, 0) for i in range(8)]
    Pockets(pins[:6], ring, 1, SimI2C(), 0x70, ())
    ring.watch(pins[6], EDGE_RAIL)
    ring.watch(pins[7], EDGE_STRIKE)
    rows = [SimPin(10 + i, 1) for i in range(4)]
    cols = [SimPin(20 + i, 1) for i in range(5)]
    kp = Keypad(rows, cols, bytes(range(20)))
    cols[2].level = 0  # a key held in column 2: every row reads it
    out = {}
    import gc

    before = gc.mem_alloc()  # this port collects no garbage while Python runs
    micropython.heap_lock()
    try:
        i = 0
        while i < 40:  # 40 edges over 8 inputs (the ring holds 63)
            pins[i & 7].drive((i >> 3) & 1 ^ 1)
            clock.now += 1
            i += 1
        i = 0
        while i < 6:
            kp.scan()
            i += 1
        error = None
    except MemoryError:
        error = "MemoryError"
    micropython.heap_unlock()
    out["allocated"] = gc.mem_alloc() - before
    out["error"] = error
    out["edges"] = (ring.head - ring.tail) & ring.mask
    keys = []
    k = kp.get()
    while k >= 0:
        keys.append(k)
        k = kp.get()
    out["keys"] = keys
    return out


def scenario_ledger():
    # The chain, the checkpoints and the action ids: a frame-ending concession
    # signed at once, a repeated action applied once, across a power cut.
    from baulk.firmware.journal import hmac_sha256

    b, host = started()
    d = Driver(b)
    act = {0: 15, -6: (3 << 40) | 7}  # undo
    for ev in ({"ev": "strike"}, {"ev": "pot", "ball": "red", "pocket": "tl"}, {"ev": "rest"}):
        d.perform(ev)
    host.session.send(messages.COMMAND, act)
    b.settle(300)
    b.reset()
    b.settle(1500)
    host.session.send(messages.COMMAND, act)  # a restarted host sends it again
    b.settle(300)
    d.perform({"ev": "concede"})  # the frame: a frame's end
    b.settle(500)
    j = b.app.journal
    return {
        "seqs": [s for s, _ in host.events],
        "checkpoints": [
            [s, {str(k): (v.hex() if type(v) is bytes else v) for k, v in c.items()}]
            for s, c in host.checkpoints
        ],
        "answers": sum(1 for _, e in host.events if e.get(-6) == act[-6]),
        "head": j.head.hex(),
        "hmac": hmac_sha256(b"k" * 70, b"message").hex(),
        "acts": j.acts.hex(),
    }


# -- the main loop under asyncio, with the test as its scheduler ----------------------
# firmware/main.py's _run() and App.run() as on the board, driven here by a
# stand-in for asyncio with virtual time: each round moves the board's clock
# on by one pass, fires its signals, runs every task to its next await, and
# lets the host answer.  MicroPython's asyncio on this port has no run(), and
# the board's clock is virtual anyway.
class _Wait:
    def __init__(self, ms=0, flag=None):
        self.flag = flag

    def __iter__(self):
        while self.flag is not None and not self.flag.on:
            yield self
        if self.flag is None:
            yield self
        else:
            self.flag.on = False

    __await__ = __iter__


class _Flag:  # ThreadSafeFlag
    def __init__(self):
        self.on = False

    def set(self):
        self.on = True

    def wait(self):
        return _Wait(flag=self)


class _Task:
    def __init__(self, coro):
        self.coro = coro
        self.done = False

    def cancel(self):
        self.done = True


class _Loop:
    sleep_ms = _Wait
    ThreadSafeFlag = _Flag

    def __init__(self):
        self.tasks = []

    def create_task(self, coro):
        t = _Task(coro)
        self.tasks.insert(0, t)  # the waker runs before the main loop in each round
        return t

    def rounds(self, b, host, coro, until, most=20000):
        """Drive coro (and the tasks it makes) until until() holds."""
        self.tasks.append(_Task(coro))
        for _ in range(most):
            if until():
                return True
            b.clock.now += b.tick_ms
            b.pump()
            for t in list(self.tasks):
                if not t.done:
                    t.coro.send(None)  # a fault that escaped the loop raises here
            host.pump()
        return until()


def scenario_faults():
    # Handlers that raise, under the real main loop: each is told to the host
    # once a second at most, and the loop goes on.  The host's command sent
    # with the message whose handler raised is applied all the same.
    loop = _Loop()
    sys.modules["asyncio"] = loop  # what `import asyncio` in main.py and app.py finds
    from baulk.firmware.main import _run

    b, host = started()
    app = b.app
    calls = []

    def broken_handset(mtype, seq, body):
        calls.append("handset")
        raise RuntimeError("injected: the handset's file cannot be written")

    app._handset = broken_handset
    host.session.send(messages.SETTINGS, {0: 1})
    host.session.send(messages.COMMAND, messages.event_to_wire({"ev": "strike"}))
    coro = _run(app)
    answered = lambda: any(e.get(-4) == 2 and e[0] == 1 for _, e in host.events)  # noqa: E731
    ok = [loop.rounds(b, host, coro, answered)]
    # a key press whose handler raises, twice within a second: told once
    flow_key = app.flow.key

    def broken_key(k):
        calls.append("key")
        raise KeyError(k)

    app.flow.key = broken_key
    b.clock.now += 1500
    b.press("menu")
    b.press("menu", at=b.clock.now + 300)
    ok.append(loop.rounds(b, host, coro, lambda: calls.count("key") == 2))
    app.flow.key = flow_key
    # the edges of a pot raise in the pass the beam's interrupt wakes: the
    # edges stay in the ring and the pot is scored in the next pass
    edges = app._edges

    def broken_edges(now):
        if app.hw.ring.pending() and "edges" not in calls:
            calls.append("edges")
            raise OSError("injected: the pocket's pin cannot be read")
        edges(now)

    app._edges = broken_edges
    b.clock.now += 1500
    b.pot(0, 0)  # a red in the top left
    potted = lambda: any(e[0] == 2 for _, e in host.events)  # noqa: E731
    ok.append(loop.rounds(b, host, coro, potted))
    coro.close()
    return {
        "ok": ok,
        "calls": calls,
        "logs": [[log[0], log[1].split(", File ")[0]] for log in host.logs],
        "where": [
            log[1].split(", File ", 1)[1] if ", File " in log[1] else None for log in host.logs
        ],
        "events": host.summary(),
        "lang": app.handset.lang,
    }


if __name__ == "__main__":  # (mp_handset.py imports the host and helpers above)
    name = sys.argv[1]
    if name == "keypad":
        result = scenario_keypad(sys.argv[2])
    elif name == "contract":
        result = scenario_contract(sys.argv[2])
    else:
        result = globals()["scenario_" + name]()
    print(json.dumps(result))
