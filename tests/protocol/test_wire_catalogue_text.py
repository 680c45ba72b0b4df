"""The catalogue is text in flash (protocol/messages.py), read a line at a
time on the board; the host reads the same text once into dicts
(host_catalogue.py).  Under MicroPython, with the device's text alone, the
accessors give what the host's views say for every type, body and engine
key, and find no key by a part of a line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from baulk.protocol import host_catalogue as C

from .conftest import HERE, run_mp

pytestmark = pytest.mark.micropython

# Device-received types: host_catalogue adds the bodies only a device sends,
# and health, trace and update_status; a board has neither.
DEVICE_SENT = {1, 3, 4, 11, 16, 17, 19, 21, 24}
HOST_ONLY = {16, 21, 24}  # types the board's catalogue does not hold at all
NOT_RAW = ["", " ", "ev 0", "ball ", "ball\n  pocket", "  ball", "bal", "balls", "BALL", "+raw"]


def plain(v: Any) -> Any:
    return [plain(x) for x in v] if isinstance(v, tuple | list) else v


def test_the_text_reads_as_the_hosts_views_under_micropython(tmp_path: Path) -> None:
    raw = [[n, k, [n, *plain(C.RAW[n][1:]), C.SCHEMA[3][k][4]]] for k, n in C.RAW_BY_KEY.items()]
    want = {
        "types": [[t, None if t in HOST_ONLY else plain(C.TYPES.get(t))] for t in range(0, 27)],
        "schemas": [
            [
                t,
                None
                if t in DEVICE_SENT
                else [[k, plain(C.SCHEMA[t][k])] for k in sorted(C.SCHEMA[t])],
            ]
            for t in C.TYPES
        ],
        "raw": raw,
        "not_raw": NOT_RAW,
        "not_raw_keys": [-1, len(raw), 99],
    }
    expected = tmp_path / "expected.json"
    expected.write_text(json.dumps(want))
    r = run_mp("mp_catalogue.py", str(expected), files=(expected, HERE / "mp_catalogue.py"))
    out = r.stdout.decode()
    assert "FAIL" not in out, out
    checked = len(want["types"]) + len(want["schemas"]) + len(raw) + len(NOT_RAW) + 3
    assert f"checked {checked}" in out
