# The pocket check and the sensor health counts on the simulated board, run
# under MicroPython (npm WebAssembly port) and CPython alike by
# tests/firmware/test_fw_pockets.py:
#   mp_pockets.py SCENARIO TEXTS NAMES.json [FLASH]
# (the arguments of mp_handset.py, whose screens in both languages it takes).
# Prints one JSON object: what reached the host (pocket checks, health
# counts, errors), the engine before and after, and the screens.
import json
import sys

import mp_handset
from mp_firmware import Host
from mp_handset import Screens, boot, send_names

from baulk.firmware.sim.board import between, nearest, reading_for
from baulk.firmware.sim.script import Driver

WHITE = 7
CHECK_REQUEST = 18  # SPEC.md 7.1 (private in messages.py)
ML = 2
BL = 4


def started():
    b = boot()
    host = Host(b)
    b.settle(1500)
    return b, host


def drop(b, pocket, rgbc=None, beam=True):
    """The referee drops the white into a pocket: in front of its colour
    sensor, through its beam (a dead beam sees nothing)."""
    if beam and rgbc is None:
        b.pot(pocket, WHITE)  # through the collar, as the pocket model has it
    elif beam:
        b.pot(pocket, WHITE, rgbc=rgbc, width=30)  # a ball that reads as given
    else:
        b.set_reading(pocket, rgbc if rgbc is not None else reading_for(WHITE))
    b.advance(300)


def run_check(b, readings=None, dead=(), start=("menu", "black", "blue"), shots=None):
    """A whole check: started from the handset's menu (or already by the
    host: start=()), each pocket in turn; shots: a Screens to take the
    screens with."""
    if start:
        b.keys(*start)
    b.advance(200)
    if shots is not None:
        shots.shot("check_start")
    readings = readings or {}
    for p in range(6):
        if p in dead:
            b.set_reading(p, readings.get(p, reading_for(WHITE)))
            b.keys("ok")  # the referee saw the ball go: the beam did not
            b.advance(200)
        else:
            drop(b, p, readings.get(p))
        if p == 2 and shots is not None:
            shots.shot("check_progress")
    b.settle(300)


def check_of(body):
    return {
        "verdicts": body[0],
        "reasons": body[1],
        "break_ms": body[2],
        "confidence": body[3],
        "read": body[4],
        "cmd": body.get(5),
    }


def health_of(body):
    return {
        "balls": body[0],
        "glitches": body[1],
        "unclear": body[2],
        "corrections": body[3],
        "unplaced": body.get(4),
        "faulty": body.get(5),
        "weak": body.get(6),
        "checking": body.get(7, False),
        "cmd": body.get(8),
    }


def scenario_healthy():
    # A healthy table: every pocket ok; the check's balls reach no engine.
    b, host = started()
    host.setup(["Ali", "Reza"], 3)
    b.settle(300)
    send_names(host, b, "singles")
    s = Screens(b, host)
    before = b.app.engine.to_json()
    events = len(host.events)
    run_check(b, shots=s)
    s.shot("check_done")
    checking = b.app.check is not None
    b.keys("ok")
    b.settle(300)
    s.shot("after_check")
    return {
        "checks": [check_of(c) for _, c in host.checks],
        "seqs": [q for q, _ in host.events] + [q for q, _ in host.checks],
        "health": [health_of(h) for h in host.health],
        "same_engine": b.app.engine.to_json() == before,
        "events_during_check": len(host.events) - events,
        "checking_until_ok": checking,
        "check_after_ok": b.app.check is not None,
        "screens": s.out,
        "changed": s.changed,
        "errors": host.errors,
    }


def scenario_dead_beam():
    # The beam of pocket bl is dead: the referee presses OK for its ball; bl
    # is faulty, and a pot there is keyed by hand (a correction).
    b, host = started()
    host.setup(["Ali", "Reza"], 3)
    b.settle(300)
    send_names(host, b, "singles")
    s = Screens(b, host)
    run_check(b, dead=(BL,))
    s.shot("check_faulty")
    b.keys("ok")
    b.settle(300)
    d = Driver(b)
    d.perform({"ev": "strike"})
    b.set_reading(BL, reading_for(0))  # a red drops into bl: nothing sees it
    b.advance(300)
    b.keys("red")  # the referee keys it
    d.perform({"ev": "rest"})
    b.settle(1500)
    b.app.health.pending = 2  # the next counts now, not in a minute
    b.settle(300)
    return {
        "checks": [check_of(c) for _, c in host.checks],
        "health": health_of(host.health[-1]),
        "events": host.summary(),
        "screens": s.out,
        "changed": s.changed,
    }


def scenario_drift():
    # The colour sensor of pocket ml drifts: first so far that it cannot name
    # the white (faulty), so its pots are asked of the referee; cleaned
    # half-way, it is weak at the next check (asked for by the host, between
    # frames); the pots go by the sensor again.  A check mid-frame is refused.
    b, host = started()
    s = Screens(b, host)
    drifted = {ML: between(WHITE, nearest(WHITE), 45)}
    run_check(b, readings=drifted)
    s.shot("check_drift")
    b.keys("ok")
    b.settle(300)
    host.setup(["Ali", "Reza"], 3)
    b.settle(300)
    send_names(host, b, "singles")
    d = Driver(b)
    d.perform({"ev": "strike"})
    b.pot(ML, 0)  # a red, read cleanly: the pocket is faulty all the same
    b.advance(300)
    s.shot("ask_faulty")
    asked = b.app.flow.step
    b.keys("red")
    d.perform({"ev": "rest"})
    b.settle(300)
    # Mid-frame: refused on the handset and from the host; nothing changes.
    before = (b.app.engine.to_json(), b.app.journal.next)
    b.keys("menu", "black", "blue")
    b.advance(200)
    s.shot("check_refused")
    host.session.send(CHECK_REQUEST, {0: "desk"})
    b.settle(400)
    refused = {
        "same": (b.app.engine.to_json(), b.app.journal.next) == before,
        "checking": b.app.check is not None,
        "errors": [e for e in host.errors if e.get(2) == CHECK_REQUEST],
    }
    b.keys("concede", "red", "ok")  # Reza concedes the frame: between frames now
    b.settle(300)
    cmd = host.session.send(CHECK_REQUEST, {0: "desk"})
    b.settle(400)
    started_by_host = health_of(host.health[-1])
    run_check(b, readings={ML: between(WHITE, nearest(WHITE), 30)}, start=())
    b.keys("ok")
    b.settle(300)
    n = len(host.events)
    d.perform({"ev": "strike"})
    b.pot(ML, 0)
    b.advance(300)
    not_asked = b.app.flow.step
    d.perform({"ev": "rest"})
    b.settle(300)
    return {
        "checks": [check_of(c) for _, c in host.checks],
        "asked": asked,
        "refused": refused,
        "cmd": cmd,
        "started_by_host": started_by_host,
        "health": health_of(host.health[-1]),
        "not_asked": not_asked,
        "after": [e for e in host.summary()[n:] if e["ev"] == "pot"],
        "screens": s.out,
        "changed": s.changed,
    }


def scenario_power_cut():
    # Counts of every kind, a faulty pocket, then the power goes: all of it
    # comes back from flash and reaches the host again.
    b, host = started()
    run_check(b, dead=(BL,))
    b.keys("ok")
    b.settle(300)
    host.setup(["Ali", "Reza"], 3)
    b.settle(300)
    d = Driver(b)
    d.perform({"ev": "strike"})
    d.perform({"ev": "pot", "ball": "red", "pocket": "tl"})  # a ball in tl
    b.beam(1, width=2)  # a glitch in tr
    b.advance(100)
    d.perform({"ev": "rest"})
    b.keys("undo", "ok")  # the referee takes the stroke back ...
    b.settle(200)
    d.perform({"ev": "strike"})
    b.keys("yellow")  # ... and keys a yellow instead: a correction of tl
    d.perform({"ev": "rest"})
    b.keys("nom", "black")
    d.perform({"ev": "strike"})
    b.pot(ML, 6, rgbc=between(6, nearest(6)))  # unclear: the referee is asked
    b.advance(300)
    b.keys("black")
    d.perform({"ev": "rest"})
    d.perform({"ev": "strike"})
    b.keys("red")  # a red keyed where no sensor saw it (no pocket: unplaced)
    d.perform({"ev": "rest"})
    b.settle(1500)  # the counts reach flash within a second
    counts = b.app.health.body()
    b.reset()
    after = b.app.health.body()
    host.reader = mp_handset.mp_firmware.frame.FrameReader()
    seen = len(host.health)
    b.settle(3000)  # the handshake again: the counts go to the host
    return {
        "before": health_of(counts),
        "after": health_of(after),
        "sent_after_reset": [health_of(h) for h in host.health[seen:]],
        "events": [e for e in host.summary() if e["ev"] in ("pot", "undo")],
    }


if __name__ == "__main__":
    print(json.dumps(globals()["scenario_" + sys.argv[1]]()))
