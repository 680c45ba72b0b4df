# The sensor capture (firmware/capture.py) on the simulated board, run under
# MicroPython (the npm WebAssembly port) and CPython alike by
# tests/firmware/test_fw_capture.py:
#   mp_capture.py SCENARIO [- FLASH]
# Prints one JSON object: the traces that came out of the serial port, the
# errors, the events, and whether the module is loaded.
import json
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0] if "/" in __file__ else ".")
from mp_firmware import Host, boot

from baulk.protocol import messages

_CAPTURE_REQUEST = 20  # SPEC.md 7.1 (private in messages.py)
_TRACE = 21


class CaptureHost(Host):
    """The test host, which also keeps the traces (unreliable, type 21)."""

    def __init__(self, board):
        super().__init__(board)
        self.traces = []
        drain = self.session.drain

        def keep():
            out = []
            for item in drain():
                if item[0] == "message" and item[1] == _TRACE:
                    self.traces.append(item[3])
                else:
                    out.append(item)
            return out

        self.session.drain = keep

    def capture(self, body):
        return self.session.send(_CAPTURE_REQUEST, body)


def loaded():
    return "baulk.firmware.capture" in sys.modules


def hexes(traces):
    out = []
    for t in traces:
        d = {}
        for k in t:
            v = t[k]
            d[str(k)] = v.hex() if type(v) is bytes else v
        out.append(d)
    return out


def records(traces):
    """(edges, windows, marks) of all the traces, each record a list, times in device ms."""
    edges = []
    windows = []
    marks = []
    for t in traces:
        base = t[2]
        e = t[3]
        for i in range(0, len(e) - 3, 4):
            edges.append([e[i], e[i + 1], base + (e[i + 2] | e[i + 3] << 8)])
        w = t[4]
        for i in range(0, len(w) - 11, 12):
            r = [w[i], w[i + 1], base + (w[i + 2] | w[i + 3] << 8)]
            for k in range(4):
                r.append(w[i + 4 + 2 * k] | w[i + 5 + 2 * k] << 8)
            windows.append(r)
        m = t.get(5, b"")
        for i in range(0, len(m) - 3, 4):
            marks.append([m[i], m[i + 1], base + (m[i + 2] | m[i + 3] << 8)])
    return edges, windows, marks


def scenario_passages():
    # No match: a capture of 3 passages, three balls through the model's
    # collar; it ends by itself and its module leaves.
    b = boot()
    host = CaptureHost(b)
    b.settle(1500)
    out = {"before": loaded()}
    seq = host.capture({0: True, 3: 3, 4: "desk"})
    b.settle(200)
    out["running"] = loaded() and b.app.capture is not None
    for pocket, ball in ((0, 0), (3, 6), (5, 7)):
        b.pot(pocket, ball)
        b.advance(400)
    b.settle(400)
    out["after"] = loaded() or b.app.capture is not None
    out["seq"] = seq
    out["traces"] = hexes(host.traces)
    e, w, m = records(host.traces)
    out["edges"] = e
    out["windows"] = w
    out["marks"] = m
    out["errors"] = host.errors
    out["events"] = host.summary()
    stream = []
    for s, body in host.events:
        ev = messages.wire_to_event(body)
        if -2 in body:
            ev["rejected"] = body[-2]
        ev["src"] = body.get(-4, 0)
        stream.append([s, ev])
    out["stream"] = stream
    return out


def scenario_refused():
    # During a match a capture is refused unless asked for with `during`;
    # with it, it runs until the host stops it.  Without `during`, a match
    # set up ends it.
    b = boot()
    host = CaptureHost(b)
    b.settle(1500)
    host.setup(["Ali", "Reza"], 3)
    b.settle(300)
    out = {}
    host.capture({0: True})
    b.settle(300)
    out["refused"] = [e[1] for e in host.errors if e.get(2) == _CAPTURE_REQUEST]
    out["loaded_after_refusal"] = loaded()
    host.capture({0: True, 1: True, 2: 5})
    b.settle(300)
    out["during"] = b.app.capture is not None
    b.pot(1, 2)
    b.advance(400)
    host.capture({0: False})
    b.settle(300)
    out["stopped"] = b.app.capture is None and not loaded()
    out["ends"] = [t.get(7, 0) for t in host.traces]
    out["windows_during"] = len(records(host.traces)[1])
    out["events"] = host.summary()
    return out


def scenario_match_ends_it():
    b = boot()
    host = CaptureHost(b)
    b.settle(1500)
    host.capture({0: True, 2: 60})
    b.settle(200)
    host.setup(["Ali", "Reza"], 3)
    b.settle(300)
    return {"ends": [t.get(7, 0) for t in host.traces], "loaded": loaded(),
            "capture": b.app.capture is not None}  # fmt: skip


if __name__ == "__main__":
    print(json.dumps(globals()["scenario_" + sys.argv[1]]()))
