"""The byte limits of a name and of a line of free text are declared once,
in host/name_rules.py: the desk's sessions, the request models and every
other host module take them from there, so the desk and the web edge can
never disagree on how long a payer or a reason may be."""

from __future__ import annotations

import ast
from pathlib import Path

from baulk.host import name_rules

HOST = Path(__file__).resolve().parents[2] / "host"
LIMITS = {name_rules.NAME_BYTES, name_rules.TEXT_BYTES}
# Bounds that happen to be the same number but are not a name's or a text's.
UNRELATED = {"DEVICE_BYTES"}  # host/staff/registry.py: how much of a User-Agent is kept


def _own_copies(path: Path) -> list[str]:
    """Module-level ``SOMETHING_BYTES = 48`` (or 200): a limit kept by hand."""
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if (
                    isinstance(target, ast.Name)
                    and target.id.endswith("_BYTES")
                    and target.id not in UNRELATED
                    and node.value.value in LIMITS
                ):
                    found.append(f"{path.relative_to(HOST)}: {target.id} = {node.value.value}")
    return found


def test_no_host_module_keeps_its_own_copy_of_the_name_and_text_limits() -> None:
    copies = [
        c for p in sorted(HOST.rglob("*.py")) if p.name != "name_rules.py" for c in _own_copies(p)
    ]
    assert copies == []
