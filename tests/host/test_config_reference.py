"""The config is declared once (host/config.py, its section models): the
reference in docs/CONFIG.md is written from the declarations and is current,
the defaults the code starts from are the declared ones, and a wrong value of
any key is refused with one sentence that names that key."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from baulk.host import config as config_mod
from baulk.host import settings_schema

ROOT = Path(__file__).resolve().parents[2]


def test_the_reference_in_the_docs_is_current() -> None:
    written = subprocess.run(
        [sys.executable, "-m", "baulk.host.config"], capture_output=True, text=True, check=True
    ).stdout
    assert written == config_mod.reference()
    assert (ROOT / "docs" / "CONFIG.md").read_text(encoding="utf-8") == written, (
        "regenerate: .venv/bin/python -m baulk.host.config > docs/CONFIG.md"
    )


def test_every_declared_key_is_in_the_reference() -> None:
    text = config_mod.reference()
    for section in config_mod.SECTIONS:
        assert f"## `{section.TITLE}`" in text
        for name, info in settings_schema.keys_of(section).items():
            assert f"| `{name}` | {settings_schema.rule_of(info)} |" in text
            assert info.description, f"{section.TITLE} {name} has no help"


def test_the_defaults_the_code_starts_from_are_the_declared_ones() -> None:
    empty = config_mod.parse({}, env={})
    for f in dataclasses.fields(config_mod.Config):
        if f.name != "billing":  # its timezone is the PC's (test_billing_config.py)
            assert getattr(empty, f.name) == getattr(config_mod.Config(), f.name), f.name
    backup = config_mod.parse({"backup": {"replica": "/mnt/b"}}, env={}).backup
    assert backup == config_mod.BackupConfig(Path("/mnt/b"))


SECRETS = {"server.operator_token", "mqtt.password"}


def test_the_secrets_are_declared_so() -> None:
    declared = {
        f"{s.TITLE.strip('[]')}.{name}"
        for s in config_mod.SECTIONS
        for name, info in s.model_fields.items()
        if isinstance(info.json_schema_extra, dict) and info.json_schema_extra.get("secret")
    }
    assert declared == SECRETS


WRONG = {"wrong": 12345}  # a value no key of any type takes


# What a section must hold besides the key tried, so that the key's is the mistake.
NEEDED: dict[str, dict[str, Any]] = {
    "[[table]]": {"id": "t1", "port": "/dev/ttyACM0"},
    "[backup]": {"replica": "/mnt/b"},
    "[printer]": {"connection": "file", "device": "/dev/usb/lp0"},
    "[[tariff]]": {"name": "standard", "currency": "GBP", "per_hour": 5},
    "[[tariff.peak]]": {"days": ["fri"], "from": "18:00", "to": "22:00", "per_hour": 9},
    "[[item]]": {"name": "Tea", "price": 2, "currency": "GBP"},
}


def _within(title: str, body: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """A document with ``body`` as the first entry of the section ``title``
    (inside the first of its owner's, for ``[[tariff.peak]]``), and where it is."""
    *owners, name_of = title.strip("[]").split(".")
    doc: dict[str, Any] = {name_of: [body] if title.startswith("[[") else body}
    where = f"{name_of}[0]" if title.startswith("[[") else name_of
    for owner in reversed(owners):
        doc = {owner: [{**NEEDED[f"[[{owner}]]"], **doc}]}
        where = f"{owner}[0].{where}"
    return doc, where


def _cases() -> list[tuple[str, dict[str, Any], str]]:
    cases = []
    for section in config_mod.SECTIONS:
        for name in settings_schema.keys_of(section):
            doc, where = _within(section.TITLE, {**NEEDED.get(section.TITLE, {}), name: WRONG})
            cases.append((f"{where}.{name}", doc, str(WRONG)))
    return cases


@pytest.mark.parametrize(("where", "doc", "bad"), _cases(), ids=[c[0] for c in _cases()])
def test_a_wrong_value_of_any_key_names_that_key(where: str, doc: dict[str, Any], bad: str) -> None:
    with pytest.raises(config_mod.ConfigError) as why:
        config_mod.parse(doc, env={})
    said = str(why.value)
    assert said.startswith(f"{where} must be "), said
    assert "\n" not in said and len(said) < 400
    if where in SECRETS:
        assert bad not in said  # a secret is never shown back, even mistyped


@pytest.mark.parametrize("where", ["x = {}", "[mqtt]\nurl = {}", "[[table]]\nid = {}"])
def test_a_file_nested_too_deeply_is_refused_with_a_sentence(tmp_path: Path, where: str) -> None:
    path = tmp_path / "deep.toml"
    path.write_text(where.format("[" * 2000 + "]" * 2000), encoding="utf-8")
    with pytest.raises(config_mod.ConfigError, match="nested too deeply"):
        config_mod.load(path, env={})


@pytest.mark.slow  # it starts baulk
@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('[server]\nport = "8047"', "server.port must be an integer, not '8047'"),
        ("[[table]]\nid = 't1'\nport = '/dev/x'\nbaud = 9601", "table[0].baud must be a serial"),
        ("[mqtt]\nkeepalive = 1", "mqtt.keepalive must be 5..3600, not 1"),
        ("[billing]\nidle_alert_min = 0", "billing.idle_alert_min must be 1..1440, not 0"),
        (
            "[[tariff]]\nname = 'a'\ncurrency = 'GBP'\nper_hour = -5",
            "tariff[0].per_hour must not be negative, not -5",
        ),
        ("[[item]]\nname = 'Tea'\nprice = 2\nhue = 1", "item[0]: unknown key 'hue'"),
    ],
)
def test_baulk_run_stops_at_a_bad_value_with_its_sentence_and_touches_nothing(
    tmp_path: Path, line: str, said: str
) -> None:
    config = tmp_path / "baulk.toml"
    config.write_text(f'[store]\npath = "venue.sqlite"\n{line}\n', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "baulk.host.cli.main", "run", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "BAULK_TOKEN": ""},
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f"baulk run: {said}") and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1  # one sentence
    assert sorted(p.name for p in tmp_path.iterdir()) == ["baulk.toml"]  # no store made
