"""Every module has one import name: ``baulk.firmware``, ``baulk.protocol``,
``baulk.host``.  The folders sit at the top of the repository, so from its root
``firmware.engine`` would otherwise load a second copy of the engine, whose
``Rejected`` neither copy catches from the other; that second path refuses to
import, under CPython and under MicroPython."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from baulk.firmware import engine
from baulk.host.sim import micropython

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("firmware", "protocol", "host")


def test_a_module_reached_by_every_baulk_path_is_one_object() -> None:
    # The engine as the host imports it, as the protocol reaches it (relative
    # imports), and by importlib: one module, one Rejected.
    from baulk.protocol import messages

    assert importlib.import_module("baulk.firmware.engine") is engine
    assert messages.names is importlib.import_module("baulk.firmware.names")
    assert engine.names is messages.names
    assert sys.modules["baulk.firmware.engine"].Rejected is engine.Rejected


@pytest.mark.parametrize("folder", FOLDERS)
def test_a_folder_name_is_not_a_second_import_path(folder: str) -> None:
    # From the repository root (on sys.path first, as `python -c` puts it).
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        f"try:\n    import {folder}\nexcept ImportError as e:\n    print('refused:', e)\n"
        "else:\n    print('imported')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(ROOT)], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == f"refused: import baulk.{folder}, not {folder}"


@pytest.mark.micropython
def test_the_board_refuses_a_second_path_too(tmp_path: Path) -> None:
    # On the board the tree is /lib/baulk/; with /lib/baulk on sys.path the
    # folder names would be importable there as well.
    script = tmp_path / "second_name.py"
    script.write_text(
        "import sys\n"
        "from baulk.firmware import engine\n"
        "sys.path.append('/lib/baulk')\n"
        "for name in ('firmware', 'protocol'):\n"
        "    try:\n"
        "        __import__(name)\n"
        "        print(name, 'imported')\n"
        "    except ImportError as e:\n"
        "        print(name, 'refused:', e)\n"
        "print(engine.Rejected is __import__('baulk.firmware.engine').firmware.engine.Rejected)\n"
    )
    done = micropython.run(script)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().split("\n")[:3] == [
        "firmware refused: import baulk.firmware, not firmware",
        "protocol refused: import baulk.protocol, not protocol",
        "True",
    ]
