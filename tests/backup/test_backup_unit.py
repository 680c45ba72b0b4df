"""docs/systemd/baulk-backup.service, checked by systemd's own
systemd-analyze where it is installed: it runs ``baulk backup``, stops after
``baulk run`` and signals baulk alone (so Litestream makes its last sync)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from tests.web.test_venue_files import UNITS, verify


def test_the_backup_unit_is_valid_and_runs_baulk_backup(tmp_path: Path) -> None:
    text = (UNITS / "baulk-backup.service").read_text()
    (exec_start,) = re.findall(r"^ExecStart=(.*)$", text, re.M)
    program, *args = exec_start.split()
    assert program.endswith("/bin/baulk") and args == [
        "backup",
        "--config",
        "/etc/baulk/baulk.toml",
    ]
    local = tmp_path / "baulk-backup.service"
    local.write_text(text.replace(program, str(Path(sys.executable).with_name("baulk"))))
    result = verify(local, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Unknown key" not in result.stderr
    assert re.search(r"^Before=baulk.service$", text, re.M)  # so it stops after baulk run
    assert re.search(r"^KillMode=mixed$", text, re.M)
    assert re.search(r"^WantedBy=multi-user.target$", text, re.M)
