# Engine cost per event, under MicroPython or CPython.
#   mp_engine_time.py SCENARIO
# Two passes over the same lines: json.loads alone (the baseline), then
# json.loads plus Engine.apply.  Prints total milliseconds of each.
import json
import sys
import time

from baulk.firmware.engine import Engine, Rejected

try:
    ticks_ms = time.ticks_ms
    ticks_diff = time.ticks_diff
except AttributeError:  # CPython

    def ticks_ms():
        return time.perf_counter_ns() / 1e6

    def ticks_diff(a, b):
        return a - b


def main(path, repeat):
    with open(path) as f:
        lines = f.read().split("\n")
    lines = [line for line in lines if line]
    t0 = ticks_ms()
    for _ in range(repeat):
        for line in lines:
            json.loads(line)
    t1 = ticks_ms()
    for _ in range(repeat):
        engine = Engine()
        for line in lines:
            try:
                engine.apply(json.loads(line))
            except Rejected:
                pass
    t2 = ticks_ms()
    events = len(lines) * repeat
    print("events=%d parse_ms=%s total_ms=%s" % (events, ticks_diff(t1, t0), ticks_diff(t2, t1)))


main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1)
