"""The host's imports run one way (docs/DESIGN.md, "Layout and layers").

The rule is kept by folder: every subpackage of ``host/`` (and each of the
few modules beside them) sits in one place of the order below, and a module
may import its own subpackage and those before it, never one after.  Type-only
imports (``if TYPE_CHECKING:``) count too: a layer that needs a later one's
type takes a protocol instead.  Nothing but ``host/cli/main.py`` imports a
command.  Each subpackage's docstring says what it owns and what it may
import, and that sentence is checked against the order.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

HOST = Path(__file__).resolve().parents[2] / "host"

# The order, earliest first: (DESIGN.md's layer, the names below baulk.host it holds).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("shared", ("errors", "sides", "name_rules", "logsafe")),  # modules every layer may use
    ("tools", ("sim",)),  # the simulator and the MicroPython runner
    ("link", ("link",)),
    ("store", ("store",)),
    ("rules", ("referee",)),
    ("club", ("club",)),
    ("staff", ("staff",)),  # accounts, roles, sign-ins, the activity log
    ("settings", ("config",)),  # the venue's settings: its tables, server, club
    ("backup", ("backup",)),  # the store replicated, in a process of its own
    ("state", ("handset", "venue")),  # in this order: the venue drives the handsets
    ("web and MQTT", ("web", "mqtt")),
    ("command", ("cli",)),
]
ORDER = [name for _, names in LAYERS for name in names]
MOST_TOP_MODULES = 8  # beside the subpackages: only what every layer shares


def place(module: str) -> int:
    """Where baulk.host.<module> sits in ORDER (its first part names it)."""
    top = module.split(".")[0]
    if top not in ORDER:
        raise AssertionError(f"baulk.host.{top} is in no layer: add it to LAYERS")
    return ORDER.index(top)


def layer_name(module: str) -> str:
    top = module.split(".")[0]
    return next(layer for layer, names in LAYERS if top in names)


def host_modules() -> list[Path]:
    return sorted(p for p in HOST.rglob("*.py") if p != HOST / "__init__.py")


def name_of(path: Path, root: Path = HOST) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path, root: Path = HOST) -> set[str]:
    """The baulk.host modules a file imports (names below baulk.host)."""
    package = ["baulk", "host", *name_of(path, root).split(".")]
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level + 1]
            if node.module:
                targets = [".".join([*base, node.module])]
            else:
                targets = [".".join([*base, a.name]) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            targets = [f"{module}.{a.name}" for a in node.names] if module else []
            targets.append(module)
        else:
            continue
        found.update(t[len("baulk.host.") :] for t in targets if t.startswith("baulk.host."))
    return found


def subpackages() -> list[Path]:
    return sorted(p.parent for p in HOST.glob("*/__init__.py"))


def module_part(name: str) -> str:
    """``cli.service.wait_for_stop_signal`` -> ``cli.service``: the longest
    leading part that is a module or package of host/ (``from m import x``
    may name a module or a function)."""
    parts = name.split(".")
    for n in range(len(parts), 1, -1):
        where = HOST.joinpath(*parts[:n])
        if where.with_suffix(".py").is_file() or (where / "__init__.py").is_file():
            return ".".join(parts[:n])
    return parts[0]


def violations(path: Path, root: Path = HOST) -> list[str]:
    """Each import of ``path`` that breaks the order, as a sentence."""
    me = name_of(path, root)
    mine = place(me)
    found = []
    for other in sorted({module_part(name) for name in imported(path, root)}):
        if place(other) > mine:
            found.append(
                f"baulk.host.{me} ({layer_name(me)}) imports baulk.host.{other} "
                f"({layer_name(other)}), which comes after it"
            )
        elif (
            other.startswith("cli.")
            and other not in ("cli.main", "cli.service")
            and me != "cli.main"
        ):
            found.append(f"baulk.host.{me} imports the command {other}: only cli/main.py does")
    return found


@pytest.mark.parametrize("path", host_modules(), ids=name_of)
def test_imports_point_only_to_earlier_layers(path: Path) -> None:
    assert violations(path) == []


def test_every_folder_and_module_has_a_place() -> None:
    for folder in subpackages():
        assert folder.name in ORDER, f"host/{folder.name}/ is in no layer: add it to LAYERS"
    tops = sorted(p.stem for p in HOST.glob("*.py") if p.name != "__init__.py")
    for stem in tops:
        assert stem in ORDER, f"host/{stem}.py is in no layer: add it to LAYERS"
    assert len(tops) <= MOST_TOP_MODULES, (
        f"{len(tops)} modules directly in host/ ({', '.join(tops)}): "
        "give a capability its own subpackage"
    )


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


def test_the_check_sees_the_imports() -> None:
    # It must find real edges, or it proves nothing.
    daemon = imported(HOST / "venue" / "daemon.py")
    assert {"link.channel", "store", "referee.shadow", "venue.live", "venue.actions"} <= daemon
    assert "venue.daemon" in imported(HOST / "cli" / "service.py")
    assert {"cli.run", "cli.demo"} <= imported(HOST / "cli" / "main.py")
    assert "store.records" in imported(HOST / "store" / "writer.py")


def test_a_later_import_is_caught(tmp_path: Path) -> None:
    # The rule itself: a store module that imports the venue, even for a type
    # only, and a web module that imports a command, are both refused.
    (tmp_path / "store").mkdir()
    (tmp_path / "web").mkdir()
    store = tmp_path / "store" / "probe.py"
    store.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from baulk.host.venue.daemon import Daemon\n"
    )
    web = tmp_path / "web" / "probe.py"
    web.write_text("from baulk.host.cli import demo\n")
    assert violations(store, tmp_path) == [
        "baulk.host.store.probe (store) imports baulk.host.venue.daemon (state), "
        "which comes after it"
    ]
    assert any("imports baulk.host.cli.demo (command)" in v for v in violations(web, tmp_path))
