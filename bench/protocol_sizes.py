"""Bytes on the wire for each message type, beside a JSON encoding of the same
content, and the time each takes on a 115200-baud line (10 bits a byte): the
physical floor for its latency.

    .venv/bin/python bench/protocol_sizes.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from protocol_common import BAUD, one_of_each

from baulk.protocol import frame
from baulk.protocol import messages as M


def main() -> None:
    print("| message | wire bytes | JSON bytes | wire / JSON | at 115200 baud |")
    print("| --- | ---: | ---: | ---: | ---: |")
    tot_w = tot_j = 0
    for label, mtype, seq, body, named in one_of_each():
        flags = frame.FLAG_REL if M.is_reliable(mtype) else 0
        wire = frame.encode_frame(mtype, flags, seq, body)
        # a JSON line with the same content and names for codes (no CRC)
        js = json.dumps(named, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        tot_w += len(wire)
        tot_j += len(js)
        ms = len(wire) * 10 / BAUD * 1000
        print(f"| {label} | {len(wire)} | {len(js)} | {len(wire) / len(js):.2f} | {ms:.2f} ms |")
    print(f"| all of the above | {tot_w} | {tot_j} | {tot_w / tot_j:.2f} | |")
    pot = M.event_body({"ev": "pot", "ball": "red", "pocket": "tl"}, [45, 120])
    n = len(frame.encode_frame(M.EVENT, frame.FLAG_REL, 41, pot))
    print()
    print(f"pot event: {n} bytes on the wire (budget 24), {n * 10 / BAUD * 1000:.2f} ms at 115200")


if __name__ == "__main__":
    main()
