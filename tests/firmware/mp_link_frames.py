# The device's receive path fed one frame at a time: each case gets a fresh
# firmware Link (firmware/link.py) on a port of its own, with the handshake
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
from baulk.protocol import frame
from baulk.protocol import messages as M

WELCOME = frame.encode_frame(M.WELCOME, 0, 0, {0: "host 1", 1: 0, 2: 1, 3: 0})


class Port:
    """The serial port as the Link sees it: any(), readinto(), write()."""

    def __init__(self):
        self.inp = b""
        self.out = []

    def any(self):
        return len(self.inp)

    def readinto(self, buf):
        n = min(len(buf), len(self.inp))
        buf[:n] = self.inp[:n]
        self.inp = self.inp[n:]
        return n

    def write(self, data):
        self.out.append(bytes(data))


def hexof(b):
    return "".join("%02x" % x for x in b)


def one(opened, wire):
    port = Port()
    link = Link(port, 0, "baulk-fw test", "table-1", 77, 0, 0)
    link.transmit(0)  # its hello; the next is due at 1000
    if opened:
        port.inp = WELCOME
        del link.receive(5)[:]  # its "open"
        link.transmit(5)
    port.out = []
    raised = None
    inbox = []
    try:
        port.inp = wire
        got = link.receive(10)
        while got:
            what, mtype, seq, _ = got.pop(0)
            inbox.append([what, mtype, seq])
        link.transmit(10)
    except Exception as e:  # the finding: nothing may come out of the link
        raised = "%s: %s" % (type(e).__name__, e)
    return {"raised": raised, "inbox": inbox, "sent": [hexof(b) for b in port.out]}


def main(path):
    with open(path) as fh:
        job = json.load(fh)
    out = [one(opened, bytes.fromhex(h)) for opened, h in job["cases"]]
    print(json.dumps(out))


main(sys.argv[1])
