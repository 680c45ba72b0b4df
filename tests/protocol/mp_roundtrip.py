# Encodes and decodes a batch of messages with the device codec, one process
# for the whole batch.  Input JSON: {"encode": [[type, flags, seq, body], ...],
# "decode": [hex, ...]} with bodies as mp_common.to_json writes them.  Output
# JSON on stdout: {"encoded": [hex, ...], "decoded": [[outcome, type, seq, body], ...]}.
import json
import sys

from mp_common import from_json, to_json

from baulk.protocol import frame
from baulk.protocol import host_catalogue as C


def main(path):
    with open(path) as fh:
        job = json.load(fh)
    w = frame.FrameWriter()
    enc = []
    for mtype, flags, seq, body in job["encode"]:
        wire = w.build(mtype, flags, seq, from_json(body))
        enc.append("".join("%02x" % b for b in wire))
    dec = []
    for h in job["decode"]:
        f = frame.decode_frame(bytes.fromhex(h))
        dec.append([C.outcome(f), f.mtype, f.seq, to_json(f.body)])
    print(json.dumps({"encoded": enc, "decoded": dec}))


main(sys.argv[1])
