# What a session answers one frame that arrives after its handshake, in the
# words of the vectors' "answer" (SPEC.md 3, 6, 7.1, 7.3): the wrong_direction
# and session vectors of protocol/vectors/vectors.json.  Runs under
# MicroPython (tests/protocol/test_wire_vectors.py starts it through Node.js)
# and CPython alike; prints one line per failure, then "checked N".
#   micropython mp_session.py VECTORS.json
#
# The device's vectors run first: the host's Session imports host_catalogue,
# which completes the catalogue with what only a device sends, and a board
# never holds that.
import json
import sys

from baulk.protocol import frame
from baulk.protocol import messages as M
from baulk.protocol.session import DEVICE, HOST, Session

WELCOME = frame.encode_frame(M.WELCOME, 0, 0, {0: "host 1", 1: 0, 2: 1, 3: 0})
HELLO = frame.encode_frame(M.HELLO, 0, 0, {0: "fw 1", 1: "table-1", 2: 77, 3: 0, 4: 1, 5: 0})


def opened(role, decode):
    """A session of `role` whose handshake is done: the peer's next number is 1."""
    if role == DEVICE:
        s = Session(DEVICE, 0, {0: "fw 1", 1: "table-1", 2: 77}, capacity=16, window=4)
        s.poll(10)  # its hello
        s.on_frame(decode(WELCOME), 10)
    else:
        s = Session(HOST, 0, {0: "host 1"}, capacity=16, window=4)
        s.on_frame(decode(HELLO), 10)
    if not s.open:
        raise AssertionError("no handshake")
    s.drain()
    s.poll(20)  # whatever the handshake left to send
    return s


def answer(role, wire, decode=frame.decode_frame):
    """What the session did with the frame: "delivered", "taken", "error N,
    acked", "dropped, counted", or else what it did, spelt out."""
    s = opened(role, decode)
    ignored = s.ignored
    f = decode(wire)
    s.on_frame(f, 30)
    inbox = [tuple(x[:3]) for x in s.drain()]
    sent = s.poll(40)
    errors = [(m[3][0], m[3].get(2), m[3].get(3)) for m in sent if m[0] == M.ERROR]
    acked = [m for m in sent if m[0] == M.ACK]
    t, seq = f.mtype, f.seq
    if inbox == [("deliver", t, seq)] and not errors and acked:
        return "delivered"
    if inbox == [("message", t, 0)] and not sent:
        return "taken"
    for what, code in (("invalid", M.ERR_BODY), ("ignored", M.ERR_UNSUPPORTED)):
        if inbox == [(what, t, seq)] and errors == [(code, t, seq)] and acked:
            return "error %d, acked" % code
    if not inbox and not sent and s.ignored == ignored + 1:
        return "dropped, counted"
    return "inbox %r, sent %r" % (inbox, sent)


def main(path):
    with open(path) as fh:
        vectors = json.load(fh)
    bad = 0
    n = 0
    for role, receiver in ((DEVICE, "device"), (HOST, "host")):
        for v in vectors["wrong_direction"] + vectors["session"]:
            if v["receiver"] != receiver:
                continue
            n += 1
            got = answer(role, bytes.fromhex(v["hex"]))
            if got != v["answer"]:
                print("FAIL %s: %s, want %s" % (v["name"], got, v["answer"]))
                bad += 1
    print("checked %d" % n)
    if bad:
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1])
