"""The update's time per table over its link at 115200 baud, against the
line's floor: the real pico release (`baulk firmware build` and `bundle`)
sent by the host's Transfer to the real update mode (firmware/update/mode.py)
over the modelled UART of tests/host/release/update_line.py, clean, with
frames lost, and with a power cut half way.

.venv/bin/python bench/firmware_update_link.py [--loss 0.01,0.02] [--seeds 3]

The floor is the stream's bytes alone at 11,520 B/s (8N1: ten bits a byte);
the figure adds the frames' own bytes, the chunks sent again, and the waits
for the table's answers.  The board's own time to write and check its flash
is not in it (a Pico's littlefs writes 1 KB in a few ms, inside the time the
next chunk takes on the line).  Every table has its own line, so a venue's
tables update side by side in the same time each.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baulk.host.cli import firmware as firmware_cmd
from baulk.host.release import bundle
from tests.host.release import update_line

KEY = bytes(range(32))


def run(b: bundle.Bundle, tmp: Path, name: str, **kw: object) -> tuple[str, update_line.Result]:
    root = tmp / name
    (root / "lib").mkdir(parents=True)
    got = update_line.push(str(root), KEY, b, **kw)  # type: ignore[arg-type]
    assert got.transfer.phase == "committed", (name, got.transfer.phase, got.transfer.reason)
    return name, got


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--loss", default="0.01,0.02", help="frame loss rates to try")
    ap.add_argument("--seeds", type=int, default=3, help="runs per loss rate")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        firmware_cmd.build("pico", tmp / "build")
        b = bundle.make(tmp / "build", "pico", firmware_cmd.ARCH["pico"])
        rows = [run(b, tmp, "clean line")]
        for loss in (float(x) for x in a.loss.split(",")):
            for seed in range(1, a.seeds + 1):
                rows.append(
                    run(b, tmp, f"{loss:.0%} of frames lost, seed {seed}", loss=loss, seed=seed)
                )
        rows.append(run(b, tmp, "power cut half way", cut_at=len(b.to_bytes()) // 2))
    total = rows[0][1].transfer.total
    floor = rows[0][1].floor_ms / 1000
    print(f"stream: {total:,} B (tag, manifest {len(b.manifest):,} B, {len(b.files)} files)")
    print(f"line's floor at 115200 baud: {floor:.1f} s")
    print("| run | time | against the floor | bytes on the line, host to table | resent |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, r in rows:
        resent = r.transfer.sent_bytes - r.transfer.total
        print(
            f"| {name} | {r.ms / 1000:.1f} s | {r.ms / r.floor_ms:.2f}x | "
            f"{r.down_bytes:,} B | {resent:,} B |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
