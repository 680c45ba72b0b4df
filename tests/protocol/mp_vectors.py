# Checks protocol/vectors/vectors.json with the device codec.  Runs under
# MicroPython (tests/protocol/test_wire_vectors.py starts it through Node.js)
# and under CPython alike.  Prints one line per failure, then "checked N".
#   micropython mp_vectors.py VECTORS.json
import json
import sys
from hashlib import sha256

from mp_common import from_json, to_json

from baulk.firmware.journal import hmac_sha256
from baulk.protocol import crc, frame
from baulk.protocol import host_catalogue as C
from baulk.protocol import messages as M

# update_data's bounds (SPEC.md 2): private on the device (frame.py), so
# spelled out here; tests/test_wire_codes.py holds them to host_codec's.
UPDATE_FRAME = 1049
UPDATE_WIRE = 1055


def check_checkpoint(v, body):
    # The chain, marks and MAC again, by the device's own means.
    head = bytes(32)
    marks = b""
    for e in v["chain_events"]:
        e = bytes.fromhex(e)
        h = sha256(head)
        h.update(e)
        head = h.digest()
        marks += crc.crc32(e).to_bytes(4, "big")
    msg = body[0].to_bytes(4, "big") + body[1].to_bytes(4, "big") + head + marks
    mac = hmac_sha256(bytes.fromhex(v["chain_key"]), msg)
    if (head, marks, mac) != (body[2], body[3], body[4]):
        print("FAIL %s: the device makes another head, marks or MAC" % v["name"])
        return 1
    return 0


def main(path):
    with open(path) as fh:
        vectors = json.load(fh)
    bad = 0
    n = 0
    for v in vectors["valid"]:
        n += 1
        wire = bytes.fromhex(v["hex"])
        f = frame.decode_frame(wire)
        got = C.outcome(f)
        if got is not None:
            print("FAIL %s: decoded as %s" % (v["name"], got))
            bad += 1
            continue
        if to_json(f.body) != v["body"] or f.mtype != v["type"] or f.seq != v["seq"]:
            print("FAIL %s: decoded %r" % (v["name"], to_json(f.body)))
            bad += 1
        # through the stream readers too: a match's, to which a frame over
        # MAX_WIRE is oversize, and the update mode's (SPEC.md 2)
        for cap in (frame.MAX_WIRE, UPDATE_WIRE):
            want = "oversize" if len(wire) > cap else None
            frames = frame.FrameReader(cap).feed(wire)
            if len(frames) != 1 or C.outcome(frames[0]) != want:
                print("FAIL %s: the reader of %d bytes disagrees" % (v["name"], cap))
                bad += 1
        if v["version"] == frame.VERSION_BYTE:
            # update_data's longer frames, which a device never sends: a
            # writer as long as the update mode's
            w = frame.FrameWriter(UPDATE_FRAME if len(wire) > frame.MAX_WIRE else frame.MAX_FRAME)
            again = bytes(w.build(v["type"], v["flags"], v["seq"], from_json(v["body"])))
            if again != wire:
                print("FAIL %s: encoded %s" % (v["name"], "".join("%02x" % b for b in again)))
                bad += 1
        meaning = v["meaning"]
        if v["type"] in (M.EVENT, M.COMMAND, M.SETUP_MATCH):
            # a setup_match's match: the keys of its table alone (SPEC.md 7.6)
            table = C.SCHEMA[M.SETUP_MATCH] if v["type"] == M.SETUP_MATCH else None
            ev = M.wire_to_event(f.body, table)
            if ev != meaning["input"]:
                print("FAIL %s: input %r" % (v["name"], ev))
                bad += 1
            if M.event_to_wire(meaning["input"]) != M.event_to_wire(ev):
                print("FAIL %s: input does not encode back" % v["name"])
                bad += 1
        elif v["type"] == M.CHECKPOINT and "chain_events" in v:
            bad += check_checkpoint(v, f.body)
        elif v["type"] == M.STATE:
            at, st = C.wire_to_state(f.body)
            if at != meaning["at"] or st != meaning["state"]:
                print("FAIL %s: state %r" % (v["name"], st))
                bad += 1
            # keys the snapshot does not know (a newer minor's) are not made again
            want = from_json(v["state_encodes_to"]) if "state_encodes_to" in v else f.body
            if M.state_to_wire(meaning["state"], at) != want:
                print("FAIL %s: state does not encode back" % v["name"])
                bad += 1
    for v in vectors["invalid"]:
        n += 1
        got = C.outcome(frame.decode_frame(bytes.fromhex(v["hex"])))
        if got != v["error"]:
            print("FAIL %s: %s, want %s" % (v["name"], got, v["error"]))
            bad += 1
        # the same bytes through the stream readers, after garbage: a match's
        # and the update mode's, as for the valid ones
        wire = bytes.fromhex(v["hex"])
        for cap in (frame.MAX_WIRE, UPDATE_WIRE):
            want = "oversize" if len(wire) > cap else v["error"]
            frames = frame.FrameReader(cap).feed(b"\x13\x37\x00" + wire)
            if not frames or C.outcome(frames[-1]) != want:
                print("FAIL %s: the stream reader of %d bytes disagrees" % (v["name"], cap))
                bad += 1
        if "input" in v:
            # what the device's encoder makes of the engine input (SPEC.md 7.3)
            wire = M.event_to_wire(v["input"])
            if to_json(wire) != v["body"] or M.wire_to_event(wire) != v["input"]:
                print("FAIL %s: encoded %r" % (v["name"], to_json(wire)))
                bad += 1
            elif M.check(v["type"], wire) is None:
                print("FAIL %s: its body passed the check" % v["name"])
                bad += 1
    print("checked %d" % n)
    if bad:
        sys.exit(1)


main(sys.argv[1])
