# Runs under MicroPython (bench/protocol_encode.py starts it): encode + frame
# cost of a pot event with the device codec, in microseconds per event.
import sys
import time

from baulk.protocol import frame
from baulk.protocol import messages as M

N = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
EV = {"ev": "pot", "ball": "red", "pocket": "tl"}


def run(n):
    w = frame.FrameWriter()
    scores = [45, 120]
    t0 = time.ticks_us()
    for i in range(n):
        w.build(M.EVENT, 1, i, M.event_body(EV, scores))
    return time.ticks_diff(time.ticks_us(), t0)


run(100)  # warm up
best = min(run(N) for _ in range(5))
print(f"micropython {sys.implementation._machine}: {best / N:.1f} us/event")
