"""Encode plus frame cost per pot event (engine dict -> event body -> CBOR ->
header, CRC, COBS), with the device codec under CPython and under MicroPython
(the npm WebAssembly port, run by Node.js on this machine: a relative figure,
not a board's).

    .venv/bin/python bench/protocol_encode.py
"""

from __future__ import annotations

import time
from pathlib import Path

from baulk.host.sim import micropython
from baulk.protocol import frame
from baulk.protocol import messages as M

EV = {"ev": "pot", "ball": "red", "pocket": "tl"}
N = 20_000


def cpython_us() -> float:
    w = frame.FrameWriter()
    scores = [45, 120]
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for i in range(N):
            w.build(M.EVENT, 1, i, M.event_body(EV, scores))
        best = min(best, time.perf_counter() - t0)
    return best / N * 1e6


def main() -> None:
    print(f"cpython: {cpython_us():.1f} us/event (encode + frame, best of 5 x {N})")
    script = Path(__file__).with_name("protocol_encode_mp.py")
    r = micropython.run(script, args=["2000"])
    if r.returncode != 0:
        raise SystemExit(r.stderr.decode())
    print(r.stdout.decode().strip(), "(best of 5 x 2000)")


if __name__ == "__main__":
    main()
