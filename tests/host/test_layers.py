"""The host's imports run one way (docs/DESIGN.md, "Layout and layers"):
link, then store, then state, then the web side and MQTT, then the command
line.  A module may import its own layer and those before it, never one after;
nothing but ``host/cli.py`` imports a command."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

HOST = Path(__file__).resolve().parents[2] / "host"

# Module names below baulk.host, by layer, in import order.  "tools" are what
# any layer may use: settings, the MicroPython runner, the match simulator.
LAYERS: list[tuple[str, set[str]]] = [
    (
        "tools",
        {
            "config",
            "micropython",
            "mp_replay",
            "sim_match",
            "table_sim",
            "text_render",
            "handset_font",
            "handset_texts",
        },
    ),
    ("link", {"link"}),
    ("store", {"store"}),
    (
        "state",
        {
            "shadow",
            "live",
            "tables",
            "devices",
            "actions",
            "daemon",
            "rebuild",
            "handset",
            "match_play",
            "frame_figures",
        },
    ),
    ("web and MQTT", {"web", "reports", "mqtt", "verify"}),
    (
        "command",
        {"cli", "service", "run_cmd", "demo_cmd", "board_cmd", "firmware_cmd", "verify_cmd"},
    ),
]
LAYERS[-1][1].add("replay_cmd")
# Table sessions and billing (docs/BILLING.md): clocks, money and tariffs are
# tools; bills and the sessions keeper are state; their pages are web.
LAYERS[0][1].update({"clock", "money", "tariffs"})
LAYERS[3][1].update({"bills", "sessions"})
LAYERS[4][1].add("billing_views")
COMMANDS = {name for name in LAYERS[-1][1] if name.endswith("_cmd")}


def layer_of(module: str) -> int:
    """The layer of baulk.host.<module> (its first part names it)."""
    top = module.split(".")[0]
    for i, (_, members) in enumerate(LAYERS):
        if top in members:
            return i
    raise AssertionError(f"baulk.host.{module} is in no layer: add it to LAYERS")


def host_modules() -> list[Path]:
    return sorted(p for p in HOST.rglob("*.py") if p.name != "__init__.py" or p.parent != HOST)


def name_of(path: Path) -> str:
    parts = list(path.relative_to(HOST).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path) -> set[str]:
    """The baulk.host modules a file imports (names below baulk.host)."""
    package = ["baulk", "host", *name_of(path).split(".")]
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
            targets = [module]
            if module == "baulk.host":
                targets = [f"baulk.host.{a.name}" for a in node.names]
        else:
            continue
        found.update(t[len("baulk.host.") :] for t in targets if t.startswith("baulk.host."))
    return found


@pytest.mark.parametrize("path", host_modules(), ids=lambda p: name_of(p) or "host")
def test_imports_point_only_to_earlier_layers(path: Path) -> None:
    me = name_of(path)
    mine = layer_of(me)
    for other in imported(path):
        assert layer_of(other) <= mine, (
            f"baulk.host.{me} ({LAYERS[mine][0]}) imports baulk.host.{other} "
            f"({LAYERS[layer_of(other)][0]}), a later layer"
        )
        if other.split(".")[0] in COMMANDS:
            assert me == "cli", f"baulk.host.{me} imports the command {other}"


def test_the_check_sees_the_imports() -> None:
    # It must find real edges, or it proves nothing.
    assert {"link", "store", "shadow", "live", "devices", "actions"} <= imported(HOST / "daemon.py")
    assert "daemon" in imported(HOST / "service.py")
    assert {"run_cmd", "demo_cmd"} <= imported(HOST / "cli.py")
    assert "store.records" in imported(HOST / "store" / "writer.py")
