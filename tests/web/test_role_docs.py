"""docs/API.md's role table is the role table (issue 31: the doc said the
desk may correct a bill, which host/staff/roles.py refuses her): it is made
from ``ROUTES`` (tests/role_docs.py), and the doc's other role lines say
nothing of their own."""

from __future__ import annotations

from baulk.host.staff import roles
from tests import role_docs


def test_the_docs_role_table_is_made_from_the_role_table() -> None:
    text = role_docs.API_MD.read_text(encoding="utf-8")
    assert role_docs.current(text) == role_docs.block(), (
        "docs/API.md's role table is not current: run `.venv/bin/python -m tests.role_docs`"
    )


def test_every_listed_route_is_in_the_docs_role_table() -> None:
    made = role_docs.table()
    for method, pattern in roles.ROUTES:
        assert f"`{method} {pattern}`" in made


def test_the_desk_actions_table_claims_no_roles_of_its_own() -> None:
    # one declaration: the actions' table points at the role table, it has
    # no role column of its own to disagree with
    text = role_docs.API_MD.read_text(encoding="utf-8")
    start = text.index("### Actions")
    actions = text[start : text.index("### Reading", start)]
    assert "| request | role |" not in actions
