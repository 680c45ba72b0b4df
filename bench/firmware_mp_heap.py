# Heap of the whole firmware under MicroPython, run with --stepped so garbage
# is collected between steps (host/sim/micropython.mjs).  A simulated board plays a
# whole match from an events file (JSON Lines) through its sensors and keypad,
# with a host at the other end of the serial port acknowledging.
#   firmware_mp_heap.py EVENTS.jsonl [LANG [check]]   (one match, or many back to back: the
#   soak; LANG "fa" puts the handset in Persian right after boot, with its
#   texts from fa.bin beside the firmware)
# Prints key=value figures in bytes.  What the simulator itself holds (its
# modules, the simulated devices, the host's session) is measured and left out;
# the simulated pins the firmware's drivers wrap are counted in (on a board
# they are static), so the firmware figures err high.
import gc
import json
import os
import sys

PATH = sys.argv[1]
LANG = sys.argv[2] if len(sys.argv) > 2 else "en"
# "check": the referee runs a pocket check before the match (firmware/
# pocket_check.py is loaded then, and stays: its names are interned for good).
CHECK = len(sys.argv) > 3 and sys.argv[3] == "check"
F = {}
MAX_FRAMES = 4096  # frame-start samples kept (a 1,000-frame soak needs 1,000)
run = {"phase": 0, "file": None, "events": 0, "frames": None, "nframes": 0, "peak": 0}


def mem():
    return gc.mem_alloc()


def step():
    used = mem()  # the runner collected garbage just before this call
    p = run["phase"]
    if p == 0:
        F["interpreter"] = used
        try:  # noqa: SIM105 (no contextlib on MicroPython)
            os.mkdir("/flash")
        except OSError:
            pass
        from baulk.firmware.sim import board, devices, font  # noqa: F401  (simulator only)
    elif p == 1:
        F["sim_modules"] = used
        from baulk.firmware.engine import Engine  # noqa: F401
    elif p == 2:
        F["engine_code"] = used - F["sim_modules"]
        from baulk.protocol import session  # noqa: F401
    elif p == 3:
        F["protocol_code"] = used - F["sim_modules"] - F["engine_code"]
        from baulk.firmware import app  # noqa: F401
        from baulk.firmware.boards import pico  # noqa: F401
        from baulk.firmware.hw import kit  # noqa: F401
    elif p == 4:
        F["code"] = used - F["sim_modules"]
        from baulk.firmware.sim.board import SimBoard

        run["board"] = SimBoard(flash="/flash", tick_ms=5)
    elif p == 5:
        # The simulated devices (I2C bus, sensors, the display's own RAM, the
        # serial line) stand for hardware, not heap: left out like the
        # simulator's modules.  The firmware's drivers are made in boot().
        F["sim_devices"] = used - F["sim_modules"] - F["code"]
        run["board"].boot()
        if LANG == "fa":
            run["board"].app.handset.settings({0: 1}, 0)
    elif p == 6:
        F["after_boot"] = used - F["sim_modules"] - F["sim_devices"]
        F["data_after_boot"] = F["after_boot"] - F["code"]
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
    elif p == 7:
        F["simulator_host"] = used - run["before_host"]
        run["base"] = run["before_host"] - F["after_boot"]
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
    elif p == 8:
        firmware = used - F["simulator_host"] - run["base"]
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
        line = run["file"].readline()
        if line:
            run["driver"].perform(json.loads(line))
            run["events"] += 1
            return True
        run["file"].close()
        b.settle(2000)
    elif p == 9:
        firmware = used - F["simulator_host"] - run["base"]
        b = run["board"]
        F["after_match"] = firmware
        F["peak_in_match"] = run["peak"]
        F["events"] = run["events"]
        starts = run["frames"][: run["nframes"]]
        F["frames_played"] = len(starts)
        F["journal_lost"] = b.app.journal.lost
        F["host_events"] = run["host"].events
        F["host_checkpoints"] = run["host"].checkpoints
        F["host_checks"] = run["host"].checks
        F["journal_acked"] = b.app.journal.acked
        F["frame_starts"] = "/".join(str(x) for x in starts)
        for k in sorted(F):
            print(f"{k}={F[k]}")
        return False
    run["phase"] = p + 1
    return True
