"""Run Python code under the real MicroPython interpreter (npm WebAssembly port).

The firmware and the device half of the protocol must behave identically under
CPython and MicroPython; tests, benchmarks and ``baulk replay --engine
micropython`` all go through this one door.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

RUNNER = Path(__file__).resolve().with_name("micropython.mjs")
DEFAULT_HEAP = 1 << 20


class MicroPythonUnavailable(RuntimeError):
    """Node.js or the npm MicroPython package is missing."""


def node_binary() -> str:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        raise MicroPythonUnavailable("Node.js is not installed (make setup installs it)")
    return node


def command(
    script: str | Path,
    args: Sequence[str] = (),
    files: Sequence[str | Path] = (),
    heap: int = DEFAULT_HEAP,
    lib: str | Path | None = None,
    stepped: bool = False,
    romfs: str | Path | None = None,
) -> list[str]:
    cmd = [node_binary(), str(RUNNER), "--heap", str(heap)]
    for f in files:
        cmd += ["--file", str(f)]
    if lib is not None:
        cmd += ["--lib", str(lib)]
    if stepped:
        cmd.append("--stepped")
    if romfs is not None:
        cmd += ["--romfs", str(romfs)]
    return [*cmd, str(script), *args]


def run(
    script: str | Path,
    args: Sequence[str] = (),
    files: Sequence[str | Path] = (),
    heap: int = DEFAULT_HEAP,
    timeout: float = 300,
    lib: str | Path | None = None,
    stepped: bool = False,
    romfs: str | Path | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``script`` under MicroPython and capture its output as bytes.

    ``lib`` mounts a prepared tree (such as .mpy files) at /lib instead of the
    sources; ``stepped`` drives the script's step() with a garbage collection
    between calls (see micropython.mjs); ``romfs`` mounts a ROMFS image at /rom,
    as a board's read-only flash partition, so its .mpy run in place.
    """
    return subprocess.run(
        command(script, args, files, heap, lib, stepped, romfs),
        capture_output=True,
        timeout=timeout,
        check=False,
    )
