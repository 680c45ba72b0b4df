# The update mode's heap under MicroPython, run by bench/firmware_update_heap.py
# with the runner's --stepped (host/sim/micropython.mjs): it calls step()
# again and again and collects the garbage between two calls, so each call's
# first reading is the live heap (the WebAssembly port cannot collect what a
# running call's C stack still points to).
#   mp_update_heap.py STREAM_FILE MPY
# STREAM_FILE holds a real release's stream (its tag for KEY, then the bundle
# file); the mode (firmware/update/mode.py, from ROMFS as on a board that
# runs its code in place) takes it in 1 KB update_data frames over a
# simulated port, one a step.  The figures: what the mode's modules cost
# once imported, and the mode's live objects at their peak above that (the
# simulated port, this script's reader and writer, and the protocol modules
# a board still holds from its match are live before and counted apart).
import gc
import os
import sys

from baulk.firmware.sim.devices import SimUart
from baulk.protocol import frame

KEY = bytes(range(32))
ROOT = "/flash_heap"
S = {"phase": 0, "off": 0, "now": 0, "peak": 0}


def step():
    used = gc.mem_alloc()  # the runner collected the garbage just before
    p = S["phase"]
    if p == 0:
        try:
            os.mkdir(ROOT)
        except OSError:
            pass
        S["port"] = SimUart()
        S["reader"] = frame.FrameReader()
        S["writer"] = frame.FrameWriter(1049)  # update_data's longest (SPEC.md 2)
        S["chunk"] = bytearray(1024)
        with open(sys.argv[1], "rb") as f:
            S["size"] = f.seek(0, 2)
        S["phase"] = 1
        return True
    if p == 1:
        S["base"] = used
        from baulk.firmware.update import mode

        S["mode"] = mode.Mode(S["port"], KEY, ROOT, "pico", "armv6m", int(sys.argv[2]), 0, 0)
        S["phase"] = 2
        return True
    if p == 2:
        S["start"] = S["peak"] = used
        S["phase"] = 3
    S["peak"] = max(S["peak"], used)
    port, m, off = S["port"], S["mode"], S["off"]
    if off < S["size"]:
        chunk = S["chunk"]
        with open(sys.argv[1], "rb") as f:
            f.seek(off)
            n = f.readinto(chunk)
        body = {0: off, 1: bytes(memoryview(chunk)[:n])}
        port.inject(S["writer"].build(25, 0, 0, body))
        S["now"] += 5
        m.poll(S["now"])
        S["off"] = S["reader"].feed(port.take())[-1].body[1]
        return True
    port.inject(S["writer"].build(25, 0, 0, {0: S["size"], 2: True}))
    m.poll(S["now"] + 5)
    states = [x.body[0] for x in S["reader"].feed(port.take())]
    print("stream_bytes=%d" % S["size"])
    print("module_bytes=%d" % (S["start"] - S["base"]))
    print("peak_above_start=%d" % (S["peak"] - S["start"]))
    print("peak_above_import=%d" % (S["peak"] - S["base"]))
    print("end=%s" % ",".join(str(s) for s in states))
    print("done=%s" % m.done)
    return False
