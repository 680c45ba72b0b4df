"""The update mode's heap (firmware/update/mode.py): what the board holds
while it takes a release, the match's modules out of the heap by then
(firmware/main.py), measured under the real MicroPython (npm WebAssembly
port) with the code in place from ROMFS, as bench/firmware_bench.py measures
the match.

.venv/bin/python bench/firmware_update_heap.py

The real pico release goes to the mode in 1 KB frames, one a step of the
runner, which collects the garbage between steps; each step reads the live
heap first (bench/mp_update_heap.py).  The figure to hold beside it is
the match's worst case (bench/firmware_bench.py): the update mode never
shares the heap with the match, so beside its own it holds only the board's
wiring and the protocol modules the match imported.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baulk.host.cli import firmware as firmware_cmd
from baulk.host.release import bundle
from baulk.host.sim import micropython

HERE = Path(__file__).resolve().parent
KEY = bytes(range(32))


def main() -> int:
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        firmware_cmd.build("pico", tmp / "build")
        b = bundle.make(tmp / "build", "pico", firmware_cmd.ARCH["pico"])
        stream = tmp / "stream.bin"
        stream.write_bytes(bundle.tag(KEY, b.manifest) + b.to_bytes())
        # the code in ROMFS, as the bench runs the match: the firmware's
        # .mpy tree with the simulator's port beside it
        lib = tmp / "mp" / "lib"
        firmware_cmd.build("pico", tmp / "mp")
        sim = lib / "baulk" / "firmware" / "sim"
        sim.mkdir(parents=True, exist_ok=True)
        for src in sorted((HERE.parent / "firmware" / "sim").glob("*.py")):
            firmware_cmd.subprocess.run(
                [firmware_cmd.mpy_cross(), "-o", str(sim / (src.stem + ".mpy")), str(src)],
                check=True,
            )
        image = tmp / "rom.img"
        image.write_bytes(firmware_cmd.romfs_image(lib))
        done = micropython.run(
            HERE / "mp_update_heap.py",
            [str(stream), str(b.mpy)],
            files=[stream],
            romfs=image,
            heap=1 << 20,
            timeout=600,
            stepped=True,
        )
    if done.returncode:
        print(done.stderr.decode()[-2000:], file=sys.stderr)
        return 1
    got = dict(line.split("=", 1) for line in done.stdout.decode().split() if "=" in line)
    print(f"stream: {int(got['stream_bytes']):,} B; the mode ended {got['done']} ({got['end']})")
    print("| figure | bytes |")
    print("| --- | ---: |")
    print(f"| the update mode's modules, imported (ROMFS) | {int(got['module_bytes']):,} |")
    print(f"| its objects at their peak while it takes the stream | "
          f"{int(got['peak_above_start']):,} |")  # fmt: skip
    print(f"| both together | {int(got['peak_above_import']):,} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
