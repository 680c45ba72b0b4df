"""``baulk firmware build`` / ``deploy``: mpy-cross per board, sizes, mpremote commands."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from baulk.host.cli import firmware as firmware_cmd
from baulk.host.cli import main as cli
from baulk.host.sim import micropython

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("mp_firmware.py")


def with_test_host(lib: Path) -> None:
    """The scenario's host checks what the device sends: the host's catalogue."""
    shutil.copy(ROOT / "protocol" / "host_catalogue.py", lib / "baulk" / "protocol")


@pytest.mark.parametrize(("board", "arch"), [("pico", "armv6m"), ("esp32", "xtensawin")])
def test_build_compiles_every_device_module_and_prints_sizes(
    board: str, arch: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["firmware", "build", "--board", board, "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    lib = tmp_path / "lib" / "baulk"
    built = sorted(p.relative_to(tmp_path).as_posix() for p in lib.rglob("*.mpy"))
    expected = {
        f"lib/baulk/{p.with_suffix('.mpy').as_posix()}" for p in firmware_cmd.device_sources(board)
    }
    assert set(built) == expected | {"lib/baulk/__init__.mpy"}
    for name in ("app", "engine", "journal", "keypad_flow", "hw/pockets", f"boards/{board}"):
        assert f"lib/baulk/firmware/{name}.mpy" in built
    other = "esp32" if board == "pico" else "pico"  # a slot holds its own board's pin map only
    assert f"lib/baulk/firmware/boards/{other}.mpy" not in built
    for host_only in ("/sim/", "host_codec", "host_catalogue"):  # host and simulator only
        assert not any(host_only in b for b in built)
    total = sum((tmp_path / b).stat().st_size for b in built)
    for b in built:  # each file's size is printed, and the total
        assert f"{b}" in printed
    assert f"total ({board}, {arch})" in printed and f"{total} B" in printed
    assert total <= firmware_cmd.MPY_BUDGET
    image = tmp_path / "romfs.img"  # the same tree, packed for a ROMFS partition
    assert "ROMFS image romfs.img" in printed and f"{image.stat().st_size} B" in printed
    assert (tmp_path / "main.py").read_text() == firmware_cmd.MAIN_PY
    # the boot selector, as source (the board compiles it at each reset)
    assert (tmp_path / "boot.py").read_text() == (ROOT / "firmware" / "boot.py").read_text()
    # the .mpy carry the architecture asked for (header byte 2: arch << 2)
    header = (lib / "firmware" / "app.mpy").read_bytes()[:4]
    assert header[0] == ord("M")


@pytest.mark.micropython
def test_the_built_tree_runs_the_firmware_under_micropython(tmp_path: Path) -> None:
    firmware_cmd.build("pico", tmp_path)
    sim = tmp_path / "lib" / "baulk" / "firmware" / "sim"  # the simulator is not on a board
    shutil.copytree(ROOT / "firmware" / "sim", sim)
    with_test_host(tmp_path / "lib")
    done = micropython.run(SCRIPT, ["signals"], lib=tmp_path / "lib", heap=32 << 20)
    assert done.returncode == 0, done.stderr.decode()
    assert len(json.loads(done.stdout)["events"]) == 12


@pytest.mark.micropython
def test_the_romfs_image_runs_the_firmware_in_place_under_micropython(tmp_path: Path) -> None:
    """The image `build` writes is mounted at /rom, the firmware imports from
    it (not from a copy in /lib), and plays the same signals scenario."""
    firmware_cmd.build("pico", tmp_path)
    lib = tmp_path / "lib"
    shutil.copytree(ROOT / "firmware" / "sim", lib / "baulk" / "firmware" / "sim")
    with_test_host(lib)
    image = tmp_path / "with-sim.img"
    image.write_bytes(firmware_cmd.romfs_image(lib))
    assert image.read_bytes()[:3] == b"\xd2\xcd\x31"  # the ROMFS header
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import baulk.firmware.app as app, baulk.protocol.session as session\n"
        "print(app.__file__, session.__file__)\n"
    )
    done = micropython.run(probe, romfs=image)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.split() == [
        b"/rom/lib/baulk/firmware/app.mpy",
        b"/rom/lib/baulk/protocol/session.mpy",
    ]
    done = micropython.run(SCRIPT, ["signals"], romfs=image, heap=32 << 20)
    assert done.returncode == 0, done.stderr.decode()
    assert len(json.loads(done.stdout)["events"]) == 12


def test_deploy_dry_run_prints_the_mpremote_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["firmware", "deploy", "--port", "/dev/ttyACM0", "--out", str(tmp_path), "--dry-run"]
    assert cli.main(argv) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("$ ")]
    out = tmp_path.resolve()
    assert [ln.split(" ", 2)[2] for ln in lines] == [
        "connect /dev/ttyACM0 fs rm -r :lib/baulk",
        "connect /dev/ttyACM0 fs rm -r :fw",  # a cable's release runs, not an old slot
        f"connect /dev/ttyACM0 fs cp -r {out}/lib :",
        f"connect /dev/ttyACM0 fs cp {out}/boot.py :boot.py",
        f"connect /dev/ttyACM0 fs cp {out}/main.py :main.py",
        "connect /dev/ttyACM0 reset",
    ]
    assert all(ln.split(" ")[1].endswith("mpremote") for ln in lines)
    assert (tmp_path / "main.py").exists()  # it built first


def test_deploy_romfs_writes_the_image_into_the_rom_partition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["firmware", "deploy", "--port", "/dev/ttyACM0", "--out", str(tmp_path)]
    assert cli.main([*argv, "--romfs", "--dry-run"]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("$ ")]
    out = tmp_path.resolve()
    assert [ln.split(" ", 2)[2] for ln in lines] == [
        "connect /dev/ttyACM0 fs rm -r :lib/baulk",
        "connect /dev/ttyACM0 fs rm -r :fw",  # a cable's release runs, not an old slot
        f"connect /dev/ttyACM0 romfs deploy {out}/romfs.img",
        f"connect /dev/ttyACM0 fs cp {out}/boot.py :boot.py",
        f"connect /dev/ttyACM0 fs cp {out}/main.py :main.py",
        "connect /dev/ttyACM0 reset",
    ]
    assert (tmp_path / "romfs.img").stat().st_size > 0


def test_deploy_needs_a_port(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["firmware", "deploy"])
    assert "--port" in capsys.readouterr().err


def test_deploy_with_a_key_puts_it_on_the_board_and_makes_one_when_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "t1.key"
    argv = ["firmware", "deploy", "--port", "/dev/ttyACM0", "--out", str(tmp_path / "b")]
    assert cli.main([*argv, "--key", str(key), "--dry-run"]) == 0
    assert not key.exists()  # a dry run makes nothing
    capsys.readouterr()
    # what a real deploy does before its first mpremote command
    assert "a new one in" in firmware_cmd.device_key(key, create=True)
    text = key.read_text().strip()
    assert len(bytes.fromhex(text)) == 32 and key.stat().st_mode & 0o777 == 0o600
    assert cli.main([*argv, "--key", str(key), "--dry-run"]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("$ ")]
    assert f"connect /dev/ttyACM0 fs cp {key} :device_key" in [ln.split(" ", 2)[2] for ln in lines]
    assert key.read_text().strip() == text  # an existing key is kept


def test_deploy_refuses_a_key_file_that_holds_no_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "bad.key"
    key.write_text("0123")
    argv = ["firmware", "deploy", "--port", "/dev/ttyACM0", "--out", str(tmp_path), "--dry-run"]
    assert cli.main([*argv, "--key", str(key)]) == 2
    err = capsys.readouterr().err
    assert "32 bytes" in err and "Traceback" not in err
