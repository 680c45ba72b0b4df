# The money chain's anchor on the whole firmware (SPEC.md 7.8, "Anchors"),
# run under MicroPython and CPython by tests/firmware/test_fw_anchor.py:
#   mp_anchor.py [FLASH]
# Prints one JSON object: the checkpoints the device sent.
import json
import sys

import mp_firmware
from mp_firmware import started

HEAD = bytes(range(32))  # a money chain's head after 3 rows, as the host sends it
ANCHOR = 22  # host_codec.ANCHOR (private on the device)


def scenario():
    b, host = started()
    host.session.send(ANCHOR, {0: 3, 1: HEAD})
    b.settle(300)
    return {
        "checkpoints": [
            {str(k): (v.hex() if type(v) is bytes else v) for k, v in c.items()}
            for _, c in host.checkpoints
        ],
        "newest_event": max(s for s, _ in host.events),
        "errors": host.errors,
    }


if __name__ == "__main__":
    if len(sys.argv) > 1:
        mp_firmware.FLASH = sys.argv[1]
    print(json.dumps(scenario()))
