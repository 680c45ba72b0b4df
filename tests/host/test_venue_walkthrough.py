"""docs/VENUE.md alone gives a working desk: the config it has a venue write,
section by section, loads as one file, with a tariff for every table, the
price list, the printer and the owner's check's keys."""

from __future__ import annotations

import re
from pathlib import Path

from baulk.host import config as config_mod

VENUE = Path(__file__).resolve().parents[2] / "docs" / "VENUE.md"


def test_the_walkthroughs_config_loads_whole(tmp_path: Path) -> None:
    blocks = re.findall(r"```toml\n(.*?)```", VENUE.read_text(encoding="utf-8"), re.S)
    # HTTPS's files are made in its own section (4): left out here, not faked
    lines = [ln.strip() for b in blocks for ln in b.splitlines() if not ln.startswith("tls_")]
    path = tmp_path / "baulk.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    cfg = config_mod.load(path, env={})
    assert [t.id for t in cfg.tables] == ["t1", "t2"]
    assert all(cfg.billing.tariff_for(t.id) is not None for t in cfg.tables)
    assert [i.name for i in cfg.billing.items] == ["Tea", "Cue hire"]
    assert cfg.billing.printer is not None and cfg.billing.printer.connection == "network"
    assert cfg.verify_keys == Path("/etc/baulk/keys") and cfg.backup is not None
