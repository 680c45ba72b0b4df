"""Host decode throughput in frames/s, as a ratio to plain cbor2.loads on the
same bodies, measured in the same run.

* decode: host_codec.decode_frame(check=False): COBS, CRC, header, and the body
  through hardened cbor2 (depth, no indefinite lengths, no duplicate keys, no
  tags, no trailing bytes);
* decode + check: host_codec.decode_frame(): the same, then the catalogue check
  and the subset walk, which is what the daemon runs;
* stream: StreamDecoder.feed on the whole byte stream in 4 KiB reads.

    .venv/bin/python bench/protocol_decode.py
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cbor2

sys.path.insert(0, str(Path(__file__).resolve().parent))

from protocol_common import stream

from baulk.protocol import host_codec

N = 20_000


def rate(fn: Callable[[Any], object], items: Sequence[Any], rounds: int = 7) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for x in items:
            fn(x)
        best = min(best, time.perf_counter() - t0)
    return len(items) / best


def main() -> None:
    frames = stream(N)
    bodies = []
    for f in frames:
        raw = host_codec._unstuff(f[:-1])
        assert raw is not None
        bodies.append(bytes(raw[5:-4]))
    pots = [f for f in frames if f[2] == 3]  # event frames
    pot_bodies = [b for f, b in zip(frames, bodies, strict=True) if f[2] == 3]
    data = b"".join(frames)
    reads = [data[i : i + 4096] for i in range(0, len(data), 4096)]

    def feed_all(_: object) -> None:
        s = host_codec.StreamDecoder()
        for r in reads:
            s.feed(r)

    base = rate(cbor2.loads, bodies)
    dec = rate(lambda f: host_codec.decode_frame(f, False), frames)
    full = rate(host_codec.decode_frame, frames)
    st = rate(feed_all, [0], rounds=5) * len(frames)
    pbase = rate(cbor2.loads, pot_bodies)
    pfull = rate(host_codec.decode_frame, pots)
    print(f"mix of {N} frames (60% events, 20% acks, 10% heartbeats, 10% states)")
    print("| decoder | frames/s | cbor2.loads / it |")
    print("| --- | ---: | ---: |")
    print(f"| cbor2.loads on the bodies (baseline) | {base:,.0f} | 1.0 |")
    print(f"| decode (framing, CRC, hardened cbor2) | {dec:,.0f} | {base / dec:.1f} |")
    print(f"| decode + catalogue check | {full:,.0f} | {base / full:.1f} |")
    print(f"| StreamDecoder.feed, 4 KiB reads | {st:,.0f} | {base / st:.1f} |")
    print(f"| event frames only: decode + check | {pfull:,.0f} | {pbase / pfull:.1f} |")


if __name__ == "__main__":
    main()
