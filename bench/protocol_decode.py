"""Host decode throughput in frames/s, as a ratio to plain cbor2.loads on the
same bodies, measured in the same run.

* decode: host_codec.decode_frame(check=False): COBS, CRC, header, and the body
  through hardened cbor2 (depth, no indefinite lengths, no duplicate keys, no
  tags, no trailing bytes, its keys integers or text);
* decode + check: host_codec.decode_frame(): the same, then the catalogue check
  and the subset walk, which is what the daemon runs;
* stream: StreamDecoder.feed on the whole byte stream in 4 KiB reads.

Each figure is the best of many short rounds, the methods taking turns, each
round timed by the thread's own CPU clock: on a machine busy with other work
the time this process spends waiting for a core is not counted, for the
baseline and the decoder alike.

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

from baulk.protocol import cobs, host_codec

N = 20_000


def best_rates(
    methods: dict[str, tuple[Callable[[Any], object], Sequence[Any]]], rounds: int = 60
) -> dict[str, float]:
    """Items per second of each method: the best of `rounds` rounds, the
    methods taking turns round by round."""
    best = dict.fromkeys(methods, float("inf"))
    for _ in range(rounds):
        for name, (fn, items) in methods.items():
            t0 = time.thread_time()
            for x in items:
                fn(x)
            best[name] = min(best[name], time.thread_time() - t0)
    return {name: len(methods[name][1]) / t for name, t in best.items()}


def main() -> None:
    frames = stream(N)
    bodies = []
    for f in frames:
        raw = cobs.decode(f[:-1])
        bodies.append(bytes(raw[5:-4]))
    pots = [f for f in frames if f[2] == 3]  # event frames
    pot_bodies = [b for f, b in zip(frames, bodies, strict=True) if f[2] == 3]
    data = b"".join(frames[:1000])
    reads = [data[i : i + 4096] for i in range(0, len(data), 4096)]

    def feed_all(_: object) -> None:
        s = host_codec.StreamDecoder()
        for r in reads:
            s.feed(r)

    # Short rounds (1,000 frames) so that few of them are interrupted.
    r = best_rates(
        {
            "base": (cbor2.loads, bodies[:1000]),
            "dec": (lambda f: host_codec.decode_frame(f, False), frames[:1000]),
            "full": (host_codec.decode_frame, frames[:1000]),
            "pbase": (cbor2.loads, pot_bodies[:1000]),
            "pfull": (host_codec.decode_frame, pots[:1000]),
        }
    )
    base, dec, full, pbase, pfull = r["base"], r["dec"], r["full"], r["pbase"], r["pfull"]
    st = best_rates({"st": (feed_all, [0])})["st"] * 1000
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
