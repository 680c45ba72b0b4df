"""Power cuts through the table's own firmware update, full form (the short
one is tests/firmware/test_fw_update_power.py): a TearingFlash cut at random
bytes and directory operations through staging, check, commit, the trial's
boot and confirm; every boot after a cut must find a whole release, the old
or the new one, and the update must resume and finish
(tests/firmware/mp_update.py, Power).

.venv/bin/python bench/firmware_update_power.py [--cuts 1200] [--seed 1] [--mp-cuts 300] [--fat]

--fat: the flash refuses to rename over a file, as FAT does (the boot record
is then removed before the new one is renamed in).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baulk.host.sim import micropython
from tests.firmware import mp_update


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cuts", type=int, default=1200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mp-cuts", type=int, default=300, help="under MicroPython too (0: not)")
    ap.add_argument("--fat", action="store_true", help="renames as FAT does them")
    a = ap.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.monotonic()
        f = mp_update.power(tmp + "/flash", a.cuts, a.seed, a.fat)
        f["seconds"] = round(time.monotonic() - t0, 1)
        print("cpython", json.dumps(f))
        bad += len(f["broken"])
    if a.mp_cuts:
        t0 = time.monotonic()
        script = Path(mp_update.__file__)
        done = micropython.run(
            script,
            ["power", "/flash_upd", str(a.mp_cuts), str(a.seed)] + (["fat"] if a.fat else []),
            heap=8 << 20,
        )
        if done.returncode:
            print(done.stderr.decode()[-2000:])
            return 1
        g = json.loads(done.stdout)
        g["seconds"] = round(time.monotonic() - t0, 1)
        print("micropython", json.dumps(g))
        bad += len(g["broken"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
