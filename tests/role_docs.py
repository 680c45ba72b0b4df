"""The role table of docs/API.md ("Staff and roles"), made from the one role
table, host/staff/roles.py ``ROUTES``: routes with the same rule on one
line, in the table's order.  tests/web/test_role_docs.py fails when the
doc is not what this makes; refresh it with

    .venv/bin/python -m tests.role_docs
"""

from __future__ import annotations

import re
from pathlib import Path

from baulk.host.staff import roles

API_MD = Path(__file__).resolve().parents[1] / "docs" / "API.md"
BEGIN = "<!-- the role table: made by `python -m tests.role_docs` from host/staff/roles.py -->"
END = "<!-- end of the role table -->"


def who(rule: roles.Rule, patterns: list[str]) -> str:
    if rule == roles.PUBLIC:
        return "anyone"
    if rule == roles.SIGNED_IN:
        return "any signed-in role"
    assert isinstance(rule, frozenset)
    said = ", ".join(r for r in roles.ROLES if r in rule)
    limited = roles.REFEREE in rule and any("{" + roles.TABLE_KEY + "}" in p for p in patterns)
    return said + (" (a referee limited to tables: only those)" if limited else "")


def table() -> str:
    """The Markdown table: each rule's routes, in the order they are listed."""
    groups: dict[roles.Rule, list[str]] = {}
    for (method, pattern), rule in roles.ROUTES.items():
        groups.setdefault(rule, []).append(f"{method} {pattern}")
    lines = ["| routes | who may use them |", "| --- | --- |"]
    for rule, routes in groups.items():
        cells = ", ".join(f"`{r}`" for r in routes)
        lines.append(f"| {cells} | {who(rule, routes)} |")
    return "\n".join(lines)


def block() -> str:
    return f"{BEGIN}\n{table()}\n{END}"


def current(text: str) -> str | None:
    """The block as the doc has it, or None without one."""
    found = re.search(re.escape(BEGIN) + ".*?" + re.escape(END), text, re.S)
    return found.group(0) if found else None


def main() -> None:
    text = API_MD.read_text(encoding="utf-8")
    old = current(text)
    assert old is not None, f"{API_MD} has no role table block"
    API_MD.write_text(text.replace(old, block()), encoding="utf-8")


if __name__ == "__main__":
    main()
