"""The host's imports run one way (docs/DESIGN.md, "Layout and layers").

The rule itself is import-linter's (pyproject.toml, ``[tool.importlinter]``;
``make check`` runs ``lint-imports``): every subpackage of ``host/`` (and each
of the few modules beside them) sits in one layer, and imports only those
below it, type-only imports (``if TYPE_CHECKING:``) too: a layer that needs a
later one's type takes a protocol instead.  Nothing but ``host/cli/main.py``
imports a command.  Here: that the contracts cover everything, and that each
subpackage's docstring, which says what it owns and what it may import,
agrees with the order.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "host"
CONTRACTS: dict[str, dict[str, Any]] = {
    c["id"]: c
    for c in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"][
        "contracts"
    ]
}
# The order, earliest (lowest) first, as the layers contract lists it (top first).
LAYERS: list[tuple[str, ...]] = [
    tuple(n.strip() for n in layer.split("|"))
    for layer in reversed(CONTRACTS["host-layers"]["layers"])
]
ORDER = [name for names in LAYERS for name in names]
MOST_TOP_MODULES = 8  # beside the subpackages: only what every layer shares


def place(module: str) -> int:
    """Where baulk.host.<module> sits in ORDER (its first part names it)."""
    top = module.split(".")[0]
    if top not in ORDER:
        raise AssertionError(f"baulk.host.{top} is in no layer: add it to the host-layers contract")
    return ORDER.index(top)


def subpackages() -> list[Path]:
    return sorted(p.parent for p in HOST.glob("*/__init__.py"))


def test_every_folder_and_module_has_a_place() -> None:
    for folder in subpackages():
        assert folder.name in ORDER, f"host/{folder.name}/ is in no layer: add it to the contract"
    tops = sorted(p.stem for p in HOST.glob("*.py") if p.name != "__init__.py")
    for stem in tops:
        assert stem in ORDER, f"host/{stem}.py is in no layer: add it to the contract"
    assert len(tops) <= MOST_TOP_MODULES, (
        f"{len(tops)} modules directly in host/ ({', '.join(tops)}): "
        "give a capability its own subpackage"
    )


def test_every_command_is_held_apart() -> None:
    # The independence contract names the commands: every module of cli/ but
    # the command line itself (main) and what the commands share (service,
    # daemon_api).
    commands = sorted(
        f"baulk.host.cli.{p.stem}"
        for p in (HOST / "cli").glob("*.py")
        if p.stem not in ("__init__", "main", "service", "daemon_api")
    )
    assert sorted(CONTRACTS["one-command-line"]["modules"]) == commands


@pytest.mark.parametrize("folder", subpackages(), ids=lambda p: p.name)
def test_each_subpackage_says_what_it_owns_and_may_import(folder: Path) -> None:
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8")))
    assert doc, (
        f"host/{folder.name}/__init__.py needs a docstring: what it owns, what it may import"
    )
    assert "Owns:" in doc, f"host/{folder.name}: say what it owns ('Owns: …')"
    assert "May import:" in doc, f"host/{folder.name}: say what it may import ('May import: …')"
    allowed = doc.split("May import:", 1)[1]
    allowed = allowed[: allowed.lower().find("never")] if "never" in allowed.lower() else allowed
    # Every baulk.host package the sentence allows by name comes before this one.
    for name in ORDER:
        if f"``{name}``" in allowed or f"``baulk.host.{name}``" in allowed:
            assert place(name) <= place(folder.name), (
                f"host/{folder.name}/ says it may import {name}, which comes after it"
            )


def test_a_type_only_import_upwards_is_caught(tmp_path: Path) -> None:
    # The linter as configured here: a lower layer that imports a higher one
    # for a type alone is refused (grimp counts TYPE_CHECKING imports).
    pkg = tmp_path / "probe"
    for sub in ("low", "high"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "high" / "top.py").write_text("")
    (pkg / "low" / "bottom.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from probe.high import top\n"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.importlinter]\nroot_package = "probe"\n'
        '[[tool.importlinter.contracts]]\nname = "layers"\ntype = "layers"\n'
        'containers = ["probe"]\nlayers = ["high", "low"]\n'
    )
    done = subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports"), "--no-cache"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "probe.low.bottom -> probe.high.top" in done.stdout
