"""No rule the engine implements lacks a scenario, and the published table is current."""

from __future__ import annotations

from .rules_coverage import DOC, ENGINE_RULES, coverage, render


def test_every_engine_rule_has_a_scenario() -> None:
    table = coverage()
    empty = [rule for rule, _ in ENGINE_RULES if not table[rule]]
    assert not empty, f"rules with no scenario: {empty}"


def test_coverage_page_is_current() -> None:
    assert DOC.read_text() == render(), "regenerate docs/RULES-COVERAGE.md"
