"""firmware/manifest.py, the allow-list of what goes onto the board: it holds
every module the firmware imports from main.py on, and nothing only the host
or the simulator needs."""

from __future__ import annotations

import ast
from pathlib import Path

from baulk.firmware import manifest
from baulk.host.cli import firmware as firmware_cmd

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"baulk.firmware": ROOT / "firmware", "baulk.protocol": ROOT / "protocol"}


def _module_file(name: str) -> Path | None:
    for package, folder in PACKAGES.items():
        if name == package or name.startswith(package + "."):
            base = folder.joinpath(*name[len(package) :].split(".")[1:])
            for candidate in (base / "__init__.py", base.with_suffix(".py")):
                if candidate.is_file():
                    return candidate
    return None


def _module_name(path: Path) -> str:
    for package, folder in PACKAGES.items():
        if path.is_relative_to(folder):
            parts = [package, *path.relative_to(folder).with_suffix("").parts]
            return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    raise AssertionError(f"{path} is outside the device packages")


# Imports a board never runs: the host's half of the catalogue, which a Session
# loads only in the host's role.
NOT_ON_THE_BOARD = {("protocol/session.py", "baulk.protocol.host_catalogue")}


def _fallbacks(tree: ast.AST) -> set[ast.AST]:
    """Nodes inside ``except ImportError:``: CPython's stand-ins for what
    MicroPython has built in (framebuf, micropython.const)."""
    inside: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and ast.unparse(node.type or ast.Name("")) in (
            "ImportError",
            "(ImportError, TypeError)",
        ):
            inside.update(ast.walk(node))
    return inside


def _imports(path: Path) -> set[str]:
    """The baulk modules a device file imports on the board (and their packages)."""
    here = _module_name(path).split(".")
    if path.name != "__init__.py":
        here = here[:-1]
    rel = path.relative_to(ROOT).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _fallbacks(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if node in skip:
            continue
        if isinstance(node, ast.ImportFrom) and node.level:
            base = here[: len(here) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else []))
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("baulk."):
            found.add(str(node.module))
    parts = [_module_name(path)]
    while "." in parts[-1]:
        parts.append(parts[-1].rsplit(".", 1)[0])
    return {name for name in found | set(parts[1:]) if (rel, name) not in NOT_ON_THE_BOARD}


def _closure(start: Path) -> set[Path]:
    seen: set[Path] = set()
    todo = [start]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in _imports(path):
            found = _module_file(name)
            if found is not None:
                todo.append(found)
    return seen


def listed() -> set[Path]:
    return {ROOT / rel for rel in firmware_cmd.device_sources()}


def test_every_listed_file_exists_once() -> None:
    files = firmware_cmd.device_sources()
    assert len(files) == len(set(files))
    for rel in files:
        assert (ROOT / rel).is_file(), f"firmware/manifest.py lists {rel}, which is not there"


def test_everything_the_firmware_imports_from_main_is_listed() -> None:
    needed = _closure(ROOT / "firmware" / "main.py")
    # main.py picks the board's pin map by name at run time.
    needed |= _closure(ROOT / "firmware" / "boards" / "pico.py")
    needed |= _closure(ROOT / "firmware" / "boards" / "esp32.py")
    missing = sorted(p.relative_to(ROOT).as_posix() for p in needed - listed())
    assert not missing, f"the board imports these; firmware/manifest.py leaves them off: {missing}"


def test_nothing_for_the_host_or_the_simulator_goes_onto_the_board() -> None:
    for path in listed():
        rel = path.relative_to(ROOT).as_posix()
        assert "/sim/" not in rel and not rel.startswith("host/"), rel
        for name in _imports(path):
            assert not name.startswith(("baulk.host", "baulk.firmware.sim")), (rel, name)
            assert name not in ("baulk.protocol.host_codec", "baulk.protocol.host_catalogue"), (
                rel,
                name,
            )


def test_the_manifest_is_data_the_board_never_imports() -> None:
    assert ROOT / "firmware" / "manifest.py" not in listed()
    assert all(isinstance(folder, str) and files for folder, files in manifest.BOARD)


def test_the_update_modules_and_all_they_import_are_listed() -> None:
    needed = _closure(ROOT / "firmware" / "update" / "mode.py")
    assert ROOT / "firmware" / "update" / "stage.py" in needed
    missing = sorted(p.relative_to(ROOT).as_posix() for p in needed - listed())
    assert not missing, missing


def test_the_boot_selector_is_outside_the_slots_and_imports_nothing_of_baulk() -> None:
    main = ROOT / manifest.BOOT
    assert main.is_file() and main not in listed()
    tree = ast.parse(main.read_text(encoding="utf-8"))
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert names == {"os", "sys"}
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]


def test_the_match_code_never_imports_the_update() -> None:
    # The update is a mode of its own: the match's heap never holds it.
    needed = _closure(ROOT / "firmware" / "app.py")
    assert not [p for p in needed if "update" in p.parts or p.name == "boot.py"]
    # main.py imports it only after the match has left the heap.
    main = (ROOT / "firmware" / "main.py").read_text(encoding="utf-8")
    body = main[main.index("def main():") :]
    assert body.index('unload(\n        "app", "engine"') < body.index("from .update import mode")
