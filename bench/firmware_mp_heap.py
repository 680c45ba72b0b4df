# Heap of the whole firmware under MicroPython, run with --stepped so garbage
# is collected between steps (host/sim/micropython.mjs).  A simulated board plays a
# whole match from an events file (JSON Lines) through its sensors and keypad,
# with a host at the other end of the serial port acknowledging.
#   firmware_mp_heap.py EVENTS.jsonl [LANG [check]] [samples MODULES ON_DEMAND BOOT_ONLY]
# (one match, or many back to back: the soak).  LANG "fa" puts the handset in
# Persian right after boot, with its texts from fa.bin beside the firmware;
# "check": the referee runs a pocket check before the match.
#
# Prints key=value figures in bytes at the end.  What the simulator itself
# holds (its modules, the simulated devices and pins, the host's session) is
# measured and left out.  So are the modules that are C on the boards but
# Python on this port (its binascii, os and time come from micropython-lib and
# sit in its frozen code): they are imported first, as a board has them built in.
#
# "samples" (bench/firmware_bench.py): the firmware's modules (MODULES, by
# their import names, comma-separated) are imported one a step before the
# simulator, so every name the firmware can intern is interned before the
# simulator's own; those it loads only on demand (ON_DEMAND) or only to boot
# (BOOT_ONLY) are dropped again, as the firmware drops them when they are
# done.  Every step then prints "@ LABEL BYTES" and the interned names' line of
# micropython.qstr_info(), and
# the names themselves are listed at the start, after the firmware's import and
# at the end: bench/firmware_bench.py takes the name table apart from the
# objects (MicroPython grows that table by whole steps, and on this port the
# simulator's names share it with the firmware's).
import gc
import json
import os
import sys

import micropython

PATH = sys.argv[1]
LANG = sys.argv[2] if len(sys.argv) > 2 else "en"
CHECK = "check" in sys.argv[3:]
SAMPLES = "samples" in sys.argv
MODULES = []
ON_DEMAND = []
BOOT_ONLY = []
if SAMPLES:
    at = sys.argv.index("samples")
    MODULES = sys.argv[at + 1].split(",")
    ON_DEMAND = sys.argv[at + 2].split(",") if sys.argv[at + 2] else []
    BOOT_ONLY = sys.argv[at + 3].split(",") if sys.argv[at + 3] else []
# "selector PATH": the boot selector's source, run as the board's /boot.py
# before the firmware's modules.
SELECTOR = sys.argv[sys.argv.index("selector") + 1] if "selector" in sys.argv else None
# "model": the pots fall through the pocket model instead (its objects then
# count as the firmware's).
IDEAL = "model" not in sys.argv[3:]
F = {}
MAX_FRAMES = 4096  # frame-start samples kept (a 1,000-frame soak needs 1,000)
run = {"phase": 0, "file": None, "events": 0, "frames": None, "nframes": 0, "peak": 0, "mod": 0}


def sample(label, used, names=False):
    if SAMPLES:
        print("@", label, used)
        if names:  # any argument lists the names
            micropython.qstr_info(1)
            print("@ end-of-names")
        else:
            micropython.qstr_info()


def drop(name):
    """A module out of sys.modules and its package (what app.py does with one
    loaded on demand), so that the collector frees it."""
    sys.modules.pop(name, None)
    parent, _, child = name.rpartition(".")
    p = sys.modules.get(parent)
    if p is not None and child in p.__dict__:
        delattr(p, child)


def step():
    used = gc.mem_alloc()  # the runner collected garbage just before this call
    p = run["phase"]
    if p == 0:
        F["interpreter"] = used
        # C modules on a board; micropython-lib's Python on this port
        import binascii  # noqa: F401
        import time  # noqa: F401

        try:  # noqa: SIM105 (no contextlib on MicroPython)
            os.mkdir("/flash")
        except OSError:
            pass
    elif p == 1:
        i = run["mod"]
        if i == 0:
            F["standins"] = used - F["interpreter"]
            sample("standins", used, True)
            if SELECTOR:
                # The board's /boot.py first, as at every reset: the boot
                # selector (firmware/boot.py), compiled from its source, picks
                # the slot from the boot record (none here: the legacy
                # install) and deletes its own names.  What it interned
                # stays, and counts as the firmware's.
                with open(SELECTOR) as f:
                    code = compile(f.read(), "boot.py", "exec")
                exec(code, {"__name__": "__main__"})
                del code
        else:
            sample("module " + MODULES[i - 1], used)
        if i < len(MODULES):  # the firmware's modules, one a step
            __import__(MODULES[i])
            run["mod"] = i + 1
            return True
        for name in ON_DEMAND + BOOT_ONLY:
            drop(name)
    elif p == 2:
        sample("firmware", used, True)
        from baulk.firmware.sim import board, devices, font, script  # noqa: F401  (simulator only)
        from baulk.protocol import host_catalogue  # noqa: F401  (the test host's session loads it)
    elif p == 3:
        F["sim_modules"] = used - F["interpreter"] - F["standins"]
        from baulk.firmware.engine import Engine  # noqa: F401
    elif p == 4:
        F["engine_code"] = used - F["sim_modules"] - F["interpreter"] - F["standins"]
        from baulk.protocol import session  # noqa: F401
    elif p == 5:
        F["protocol_code"] = used - F["sim_modules"] - F["engine_code"] - F["interpreter"]
        F["protocol_code"] -= F["standins"]
        from baulk.firmware import app  # noqa: F401
    elif p == 6:
        F["code"] = used - F["sim_modules"] - F["interpreter"] - F["standins"]
        from baulk.firmware.sim.board import SimBoard

        run["board"] = SimBoard(flash="/flash", tick_ms=5)
        # Each pot a centred ball's reading, held while the beam is dark: the
        # firmware samples it window by window as it does a real passage,
        # into the same preallocated sums.  The pocket model's passages would
        # bring its own objects (floats, a passage's state) into the heap,
        # counted here as the firmware's: up to 1.2 KB in a long frame.
        run["board"].ideal = IDEAL
        for name in BOOT_ONLY:  # the simulator's pin map took the board's (boot drops it)
            drop(name)
        # The pocket model's view tables (made on first use) are the
        # simulator's: made here, once, so that they are not counted as the
        # firmware's.  A passage in flight at a sample still is (a few
        # hundred bytes of the simulator's, counted against the firmware).
        from baulk.firmware.sim import pocket_model

        pocket_model.ideal_reading(7, 4.0)
        # So are each pocket's scene (the room, the ball set, the model's
        # generator): made before the sample, not by the first pot into it.
        for pocket in range(6):
            run["board"].scene(pocket)
    elif p == 7:
        # The simulated devices (I2C bus, sensors, the display's own RAM, the
        # serial line, the pins) stand for hardware, not heap: left out like
        # the simulator's modules.  The firmware's drivers are made in boot().
        F["sim_devices"] = used - F["sim_modules"] - F["code"] - F["interpreter"]
        F["sim_devices"] -= F["standins"]
        sample("simulator", used, True)
        run["board"].boot()
        if LANG == "fa":
            run["board"].app.handset.settings({0: 1}, 0)
    elif p == 8:
        F["after_boot"] = used - F["sim_modules"] - F["sim_devices"] - F["interpreter"]
        F["after_boot"] -= F["standins"]
        F["data_after_boot"] = F["after_boot"] - F["code"]
        sample("boot", used)
        run["before_host"] = used
        from baulk.firmware.sim.script import Driver
        from baulk.protocol import frame, messages
        from baulk.protocol.session import HOST, Session

        b = run["board"]

        class Host:
            def __init__(self):
                self.session = Session(HOST, b.clock.now, {0: "bench-host"}, 64, 8)
                self.reader = frame.FrameReader()
                self.writer = frame.FrameWriter()
                self.events = 0
                self.checkpoints = 0
                self.checks = 0  # pocket checks' results (type 17)
                # The money chain's head the desk's rows make (SPEC.md 7.8,
                # "Anchors"), sent at every frame's start as a desk selling
                # between frames would: the device signs each at once.
                self.money = bytes(range(32))
                self.anchors = 0

            def pump(self):
                data = b.serial.take()
                now = b.clock.now
                s = self.session
                for f in self.reader.feed(data):
                    s.on_frame(f, now)
                for what, mtype, _seq, _body in s.drain():
                    if what == "deliver" and mtype == messages.EVENT:
                        self.events += 1
                    elif what == "deliver" and mtype == messages.CHECKPOINT:
                        self.checkpoints += 1
                    elif what == "deliver" and mtype == 17:  # pocket_check
                        self.checks += 1
                for m in s.poll(now):
                    b.serial.inject(bytes(self.writer.build(m[0], m[1], m[2], m[3])))

        run["host"] = Host()
        b.on_tick = run["host"].pump
        run["driver"] = Driver(b)
        run["file"] = open(PATH)  # noqa: SIM115 (read one line a step)
        # Allocated here, so it is counted with the test host: a list that
        # grew by a sample each frame read as the firmware's heap growing.
        run["frames"] = [0] * MAX_FRAMES
    elif p == 9:
        F["simulator_host"] = used - run["before_host"]
        run["base"] = run["before_host"] - F["after_boot"]
        sample("host", used)
        b = run["board"]
        b.settle(1500)  # handshake
        if CHECK:
            from baulk.firmware.sim.board import reading_for

            b.keys("menu", "black", "blue")  # the handset's pocket check
            b.advance(200)
            for pocket in range(6):  # the white through each pocket in turn
                b.pot(pocket, 7, rgbc=reading_for(7))
                b.advance(300)
            b.settle(500)
    elif p == 10:
        firmware = used - F["simulator_host"] - run["base"]
        sample("m", used)
        if firmware > run["peak"]:
            run["peak"] = firmware
        b = run["board"]
        e = b.app.engine
        # The heap at each frame start (a new match restarts the count, so
        # watch for a change, not for a higher number).
        if e.active and e.frame != run.get("at"):
            run["at"] = e.frame
            if run["nframes"] < MAX_FRAMES:
                run["frames"][run["nframes"]] = firmware
                run["nframes"] += 1
            host = run["host"]
            host.anchors += 1
            host.session.send(22, {0: host.anchors, 1: host.money})  # host_codec.ANCHOR
        line = run["file"].readline()
        if line:
            ev = json.loads(line)
            run["driver"].perform(ev)
            if ev["ev"] == "pot":
                # Until the ball has left the collar: a passage in flight is
                # the pocket model's objects (the simulator's, some hundreds
                # of bytes), which a sample would count as the firmware's.
                b.advance(200)
                run["driver"].answer(ev["ball"])  # the referee, when the sensors ask
            run["events"] += 1
            return True
        run["file"].close()
        b.settle(2000)
    elif p == 11:
        firmware = used - F["simulator_host"] - run["base"]
        sample("end", used, True)
        b = run["board"]
        F["after_match"] = firmware
        F["peak_in_match"] = run["peak"]
        F["events"] = run["events"]
        starts = run["frames"][: run["nframes"]]
        F["frames_played"] = len(starts)
        F["journal_lost"] = b.app.journal.lost
        F["host_events"] = run["host"].events
        F["host_checkpoints"] = run["host"].checkpoints
        F["host_anchors"] = run["host"].anchors
        F["host_checks"] = run["host"].checks
        F["journal_acked"] = b.app.journal.acked
        F["frame_starts"] = "/".join(str(x) for x in starts)
        for k in sorted(F):
            print(f"{k}={F[k]}")
        if SAMPLES:
            print("@ api", " ".join(api_names()))
        return False
    run["phase"] = p + 1
    return True


def api_names():
    """The names MicroPython's own modules and types define (their members):
    a board that runs the firmware has every one the firmware uses in its
    ROM.  Of the Python stand-ins only their C functions count."""
    out = set()
    import array
    import asyncio
    import binascii
    import hashlib
    import select
    import struct
    import time

    import framebuf

    python = type(api_names)
    for m in (array, asyncio, framebuf, gc, hashlib, json, micropython, select, struct, sys):
        out.add(m.__name__)
        out.update(dir(m))
    for m in (binascii, os, time):  # Python here: only the C functions they hold
        out.add(m.__name__)
        for k in dir(m):
            v = getattr(m, k)
            if callable(v) and type(v) is not python and type(v) is not type:
                out.add(k)
    import builtins

    out.update(dir(builtins))
    for t in (str, bytes, bytearray, list, dict, tuple, set, int, memoryview, object, type,
              BaseException, array.array, framebuf.FrameBuffer, hashlib.sha256):  # fmt: skip
        out.update(dir(t))
    return sorted(out)
