# The device's receive path fed one frame at a time: each case gets a fresh
# firmware Link (firmware/link.py) on a simulated port of its own, with the handshake
# done first or not, then its frame, and what the Link did is written down.
# Runs under MicroPython (the npm WebAssembly port) and CPython alike, for
# tests/firmware/test_fw_link_frames.py:
#   mp_link_frames.py JOB.json      JOB: {"cases": [[open, hex], ...]}
# Prints one JSON list: per case {"raised": text or null, "inbox": [[what,
# type, seq], ...], "sent": [hex of each frame written, ...]}.  Nothing of
# the host's catalogue is loaded: the device knows only its own.
import json
import sys

from baulk.firmware.link import Link
from baulk.firmware.sim.devices import SimUart
from baulk.protocol import frame
from baulk.protocol import messages as M

WELCOME = frame.encode_frame(M.WELCOME, 0, 0, {0: "host 1", 1: 0, 2: 1, 3: 0})


def hexof(b):
    return "".join("%02x" % x for x in b)


def one(opened, wire):
    port = SimUart()  # any(), readinto(), write(), as the Link sees a port
    link = Link(port, 0, "baulk-fw test", "table-1", 77, 0, 0)
    link.transmit(0)  # its hello; the next is due at 1000
    if opened:
        port.inject(WELCOME)
        del link.receive(5)[:]  # its "open"
        link.transmit(5)
    port.tx = bytearray()
    raised = None
    inbox = []
    try:
        port.inject(wire)
        got = link.receive(10)
        while got:
            what, mtype, seq, _ = got.pop(0)
            inbox.append([what, mtype, seq])
        link.transmit(10)
    except Exception as e:  # the finding: nothing may come out of the link
        raised = "%s: %s" % (type(e).__name__, e)
    sent = [hexof(f + b"\x00") for f in bytes(port.tx).split(b"\x00")[:-1]]
    return {"raised": raised, "inbox": inbox, "sent": sent}


def main(path):
    with open(path) as fh:
        job = json.load(fh)
    out = [one(opened, bytes.fromhex(h)) for opened, h in job["cases"]]
    print(json.dumps(out))


main(sys.argv[1])
