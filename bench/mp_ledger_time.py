# The hash chain's cost per event and a checkpoint's, on the device's own code
# (firmware/journal.py), under MicroPython or CPython.
#   mp_ledger_time.py EVENTS.jsonl DIR [REPEAT]
# EVENTS.jsonl holds event bodies as the journal keeps them ({"k": [key,
# value], ...} pairs, keys as integers).  Prints total milliseconds of:
#   encode_ms   the baseline: CBOR-encoding each body into the journal's buffer
#   chain_ms    the chain on those bytes (SHA-256 of head and body, CRC-32 mark)
#   append_ms   Journal.append whole (encode, chain, the write to flash)
#   checkpoint_ms / checkpoints  Journal.checkpoint (HMAC-SHA256, write to flash)
#   hmac_ms / hmacs  hmac_sha256 alone on a full checkpoint's message
import json
import os
import sys
import time

from baulk.firmware import journal as jr
from baulk.protocol import cbor

try:
    ticks_ms = time.ticks_ms
    ticks_diff = time.ticks_diff
except AttributeError:  # CPython

    def ticks_ms():
        return time.perf_counter_ns() / 1e6

    def ticks_diff(a, b):
        return a - b


KEY = b"baulk simulator key, not secret!"


def bodies_of(path):
    out = []
    with open(path) as f:
        for line in f:
            if line.strip():
                out.append({int(k): v for k, v in json.loads(line)})
    return out


def wipe(root):
    try:
        for n in os.listdir(root):
            os.remove(root + "/" + n)
    except OSError:
        pass


def main(path, root, repeat):
    bodies = bodies_of(path)
    buf = bytearray(1024)
    w = cbor.Writer(buf)
    spans = []
    t0 = ticks_ms()
    for _ in range(repeat):
        for b in bodies:
            w.pos = 0
            w.value(b)
    t1 = ticks_ms()
    data = bytearray()
    for b in bodies:
        raw = cbor.dumps(b, 1024)
        spans.append((len(data), len(data) + len(raw)))
        data.extend(raw)
    j = jr.Journal(root)
    t2 = ticks_ms()
    for _ in range(repeat):
        for a, z in spans:
            j.nmarks = 0
            j._chain(data, a, z, 0, 1)
    t3 = ticks_ms()
    wipe(root)
    j = jr.Journal(root)
    j.open()
    n = 0
    cps = 0
    cp_ms = 0
    t4 = ticks_ms()
    for b in bodies:
        j.append(b, 0)
        n += 1
        if j.nmarks >= jr.MARKS:
            c0 = ticks_ms()
            j.checkpoint(KEY)
            cp_ms += ticks_diff(ticks_ms(), c0)
            cps += 1
    append_ms = ticks_diff(ticks_ms(), t4) - cp_ms
    msg = bytes(8) + bytes(32) + bytes(4 * jr.MARKS)
    hmacs = 200 * repeat
    t5 = ticks_ms()
    for _ in range(hmacs):
        jr.hmac_sha256(KEY, msg)
    t6 = ticks_ms()
    print(
        "events=%d encode_ms=%s chain_ms=%s appended=%d append_ms=%s checkpoints=%d "
        "checkpoint_ms=%s hmacs=%d hmac_ms=%s"
        % (
            len(bodies) * repeat,
            ticks_diff(t1, t0),
            ticks_diff(t3, t2),
            n,
            append_ms,
            cps,
            cp_ms,
            hmacs,
            ticks_diff(t6, t5),
        )
    )


main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 1)
