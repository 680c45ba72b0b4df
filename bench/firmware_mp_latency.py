# Beam break to frame bytes written, on the simulated board, under MicroPython
# (npm WebAssembly port) or CPython:
#   firmware_mp_latency.py EVENTS.jsonl [FLASH_DIR]
# A whole match is played through the sensors and keypad with a host acking at
# the other end.  For every pot, the main-loop pass that takes the confirmed
# beam break is timed from its start to the write of the event's frame (ring ->
# beam filter -> colour read -> engine -> journal on flash -> session -> COBS
# frame -> port).  Baselines from the same run: the engine's apply() of the same
# pot alone, and the time the frame takes on the wire at 115200 baud.
# Prints key=value figures (microseconds, bytes).
import json
import os
import sys
import time

from baulk.firmware.engine import Engine
from baulk.firmware.sim.board import Config, SimBoard
from baulk.firmware.sim.script import Driver
from baulk.protocol import cbor, cobs, frame, messages
from baulk.protocol.session import HOST, Session

try:  # MicroPython's WebAssembly port: ticks_us counts whole milliseconds there
    import js  # type: ignore[import-not-found]

    def now_us():
        return int(js.performance.now() * 1000)

except ImportError:
    try:
        now_us = time.ticks_us  # type: ignore[attr-defined]  (a board)
    except AttributeError:  # CPython

        def now_us():
            return time.perf_counter_ns() // 1000


PATH = sys.argv[1]
FLASH = sys.argv[2] if len(sys.argv) > 2 else "/flash"
try:  # noqa: SIM105 (no contextlib on MicroPython)
    os.mkdir(FLASH)
except OSError:
    pass
j = FLASH + "/journal"
try:
    for n in os.listdir(j):
        os.remove(j + "/" + n)
except OSError:
    pass

# The colour is read at once (no settle delay) so the pass that confirms the
# break carries the pot all the way to the wire.
b = SimBoard(flash=FLASH, cfg=Config(COLOUR_DELAY_MS=0), tick_ms=2)
b.boot()
app = b.app
st = {"start": 0, "pot": False, "lat": [], "wire": [], "bytes": []}
host = Session(HOST, b.clock.now, {0: "bench-host"}, 64, 8)
reader = frame.FrameReader()
writer = frame.FrameWriter()


def pump():
    data = b.serial.take()
    now = b.clock.now
    for f in reader.feed(data):
        host.on_frame(f, now)
    host.drain()
    for m in host.poll(now):
        b.serial.inject(bytes(writer.build(m[0], m[1], m[2], m[3])))


b.on_tick = pump
port_write = b.serial.write


def timed_write(data):
    t = now_us()
    n = port_write(data)
    if st["pot"]:
        raw = cobs.decode(bytes(data)[:-1])
        if raw[1] == messages.EVENT and (raw[2] & frame.FLAG_RETX) == 0:
            body = cbor.loads(raw, frame.HEADER_LEN, len(raw) - frame.CRC_LEN)
            if body.get(0) == 2:  # a pot (names.EVENTS)
                st["lat"].append(t - st["start"])
                st["bytes"].append(len(data))
                st["pot"] = False
    return n


b.serial.write = timed_write
tick = app.tick


def timed_tick():
    st["start"] = now_us()
    st["pot"] = True
    tick()
    st["pot"] = False


app.tick = timed_tick
b.settle(1500)

events = []
with open(PATH) as f:
    for line in f:
        if line.strip():
            events.append(json.loads(line))
d = Driver(b)
ref = Engine()
apply_us = []
for ev in events:
    if ev["ev"] == "pot":
        n = len(st["lat"])
        d.perform(ev)
        if len(st["lat"]) == n:
            st["lat"].append(-1)  # no frame in the confirming pass (should not happen)
            st["bytes"].append(0)
        t0 = now_us()
        try:  # noqa: SIM105
            ref.apply(ev)
        except Exception:
            pass
        apply_us.append(now_us() - t0)
    else:
        d.perform(ev)
        try:  # noqa: SIM105
            ref.apply(ev)
        except Exception:
            pass
b.settle(1000)

lat = sorted(x for x in st["lat"] if x >= 0)
missing = len([x for x in st["lat"] if x < 0])
apply_us.sort()
size = sorted(x for x in st["bytes"] if x)


def pct(xs, p):
    return xs[min(len(xs) - 1, len(xs) * p // 100)] if xs else -1


print(f"pots={len(lat)}")
print(f"missing={missing}")
print(f"latency_median_us={pct(lat, 50)}")
print(f"latency_p95_us={pct(lat, 95)}")
print(f"latency_max_us={(lat[-1] if lat else -1)}")
print(f"apply_median_us={pct(apply_us, 50)}")
print(f"frame_bytes_median={pct(size, 50)}")
print(f"wire_us_median={(pct(size, 50) * 10 * 1000000 // 115200)}")
print(f"acked={app.journal.acked}")
print(f"events={(app.journal.next - 1)}")
