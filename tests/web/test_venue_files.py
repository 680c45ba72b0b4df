"""What docs/VENUE.md ships: the systemd units (checked by systemd's own
systemd-analyze where it is installed) and the self-hosted font, which must
be the npm package's files with their licence."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from baulk.host.web.http import STATIC

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "docs" / "systemd"
FONTS = STATIC / "fonts"
NPM_FONTS = ROOT / "node_modules" / "@fontsource" / "vazirmatn"


def verify(unit: Path, tmp: Path, user: bool = False) -> subprocess.CompletedProcess[str]:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is missing")
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp)}
    args = ["systemd-analyze", "verify", *(["--user"] if user else []), str(unit)]
    return subprocess.run(args, capture_output=True, text=True, env=env, check=False)


def test_the_baulk_service_unit_is_valid_and_runs_baulk_run(tmp_path: Path) -> None:
    text = (UNITS / "baulk.service").read_text()
    (exec_start,) = re.findall(r"^ExecStart=(.*)$", text, re.M)
    program, *args = exec_start.split()
    assert program.endswith("/bin/baulk") and args[:2] == ["run", "--config"]
    # The same unit with this checkout's baulk: systemd checks every key and
    # that the program exists.
    local = tmp_path / "baulk.service"
    local.write_text(text.replace(program, str(Path(sys.executable).with_name("baulk"))))
    result = verify(local, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Unknown key" not in result.stderr
    assert re.search(r"^Restart=on-failure$", text, re.M)
    assert re.search(r"^WantedBy=multi-user.target$", text, re.M)


def test_the_kiosk_unit_is_valid(tmp_path: Path) -> None:
    result = verify(UNITS / "baulk-kiosk.service", tmp_path, user=True)
    assert result.returncode == 0, result.stderr
    assert "Unknown key" not in result.stderr


def test_the_font_is_the_npm_packages_with_its_licence() -> None:
    served = sorted(FONTS.glob("*.woff2"))
    assert len(served) == 6
    for font in served:
        original = NPM_FONTS / "files" / font.name
        assert original.is_file(), f"{font.name} is not in @fontsource/vazirmatn (npm ci)"
        assert font.read_bytes() == original.read_bytes(), font.name
    licence = (FONTS / "OFL.txt").read_text()
    assert "SIL Open Font License" in licence
    assert licence == (NPM_FONTS / "LICENSE").read_text()
    css = (STATIC / "fonts.css").read_text()
    for url in re.findall(r"url\(/static/fonts/([^)]+)\)", css):
        assert (FONTS / url).is_file(), url
