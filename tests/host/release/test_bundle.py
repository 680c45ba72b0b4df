"""A firmware bundle built from this tree (host/release/bundle.py) is the
one the table reads (firmware/update/stage.py): staged in chunks of 512
bytes into the slot not running, checked from flash, committed, and booted
as the trial by the boot selector, file for file the built tree.  A bundle
made for another table, or edited on the venue PC, is refused."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from baulk.firmware import boot
from baulk.firmware import manifest as board_manifest
from baulk.firmware.update import format as fm
from baulk.firmware.update import record, stage
from baulk.host.cli import firmware as firmware_cmd
from baulk.host.release import bundle

# a real build (mpy-cross and the handset's texts, 3 s) and the command's own
# (5 s): make test runs them, make check the bounds alone
BUILT = pytest.mark.slow

KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))
CHUNK = 512


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bundle.Bundle]:
    out = tmp_path_factory.mktemp("build")
    firmware_cmd.build("pico", out)
    return out, bundle.make(out, "pico", firmware_cmd.ARCH["pico"])


def flash(tmp_path: Path) -> str:
    root = tmp_path / "flash"
    (root / "lib").mkdir(parents=True)  # a board deployed the legacy way
    return str(root)


def stage_all(root: str, b: bundle.Bundle, key: bytes, data: bytes | None = None) -> str | None:
    """Stage ``b`` as the table does, tagged under ``key``, its file bytes
    (or ``data`` in their place) in CHUNK-byte chunks, and commit it: None,
    or the word the table refused it with."""
    s = stage.Stage(root)
    why = s.begin(b.manifest, bundle.tag(key, b.manifest), KEY, (0, 0, 0), (0, 0, 0), "pico",
                  "armv6m", b.mpy)  # fmt: skip
    if why is not None:
        return str(why)
    data = b.stream() if data is None else data
    for at in range(0, len(data), CHUNK):
        assert s.chunk(at, data[at : at + CHUNK]) is None
    got = s.commit(KEY)
    return None if got is None else str(got)


@BUILT
def test_the_built_tree_stages_checks_commits_and_boots_as_the_trial(
    built: tuple[Path, bundle.Bundle], tmp_path: Path
) -> None:
    out, b = built
    assert b.board == "pico" and b.arch == "armv6m" and b.engine == board_manifest.ENGINE
    assert b.version == bundle.release_version() and len(b.manifest) <= fm.MAX_MANIFEST
    # every file of the tree, the handset's Persian too, under lib/ of the slot
    paths = [p for p, _ in b.files]
    assert "lib/baulk/firmware/main.mpy" in paths and "lib/baulk/firmware/fa.bin" in paths
    assert len(paths) == len(list((out / "lib").rglob("*.*")))
    root = flash(tmp_path)
    assert stage_all(root, b, KEY) is None
    slot, lib, trial = boot.choose(root)
    assert (slot, trial) == ("a", True) and lib == root + "/fw/a/lib"
    rec = record.load(root)
    assert rec[record.TRIAL_V] == ".".join(map(str, b.version))
    for path, data in b.files:
        assert (Path(root) / "fw" / "a" / path).read_bytes() == data, path
    # the file on disk reads back as the same bundle
    again = bundle.read(b.to_bytes())
    assert again == b


@BUILT
def test_a_tag_made_for_another_table_is_refused_and_nothing_is_written(
    built: tuple[Path, bundle.Bundle], tmp_path: Path
) -> None:
    _, b = built
    root = flash(tmp_path)
    assert stage_all(root, b, OTHER_KEY) == "tag"
    assert not os.path.exists(root + "/fw")


@BUILT
@pytest.mark.parametrize("where", ["manifest", "file", "tail", "length", "magic"])
def test_a_bundle_edited_on_the_venue_pc_is_not_read(
    built: tuple[Path, bundle.Bundle], where: str
) -> None:
    _, b = built
    raw = bytearray(b.to_bytes())
    start = fm.HEAD_BYTES + len(b.manifest)
    if where == "manifest":  # a file's SHA-256 in it
        raw[fm.HEAD_BYTES + b.manifest.find(hashlib.sha256(b.files[0][1]).digest())] ^= 1
    elif where == "file":
        raw[start + 100] ^= 1
    elif where == "tail":
        raw += b"\x00"
    elif where == "length":
        raw[4:8] = (fm.MAX_MANIFEST + 1).to_bytes(4, "big")
    else:
        raw[0:4] = b"BKFX"
    with pytest.raises(bundle.BundleError):
        bundle.read(bytes(raw))


@BUILT
def test_a_file_edited_after_the_tag_is_refused_by_the_table(
    built: tuple[Path, bundle.Bundle], tmp_path: Path
) -> None:
    # The venue PC holds the keys, so it can tag anything (docs: what an
    # attacker on the PC can do); what the table refuses is a file that is
    # not the one its tagged manifest names.
    _, b = built
    root = flash(tmp_path)
    data = bytearray(b.stream())
    data[-1] ^= 0xFF
    assert stage_all(root, b, KEY, bytes(data)) == "hash"
    assert boot.choose(root)[0] == "legacy"


def test_no_bundle_is_made_that_a_table_would_refuse() -> None:
    one = [("lib/a.mpy", b"M\x06\x00\x1f")]
    with pytest.raises(bundle.BundleError, match="under lib/"):
        bundle.assemble("pico", "armv6m", (1, 0, 0), 1, 6, [("main.py", b"x")])
    with pytest.raises(bundle.BundleError, match="under lib/"):
        bundle.assemble("pico", "armv6m", (1, 0, 0), 1, 6, [("lib/../boot.py", b"x")])
    with pytest.raises(bundle.BundleError, match="files"):
        bundle.assemble("pico", "armv6m", (1, 0, 0), 1, 6, one * (fm.MAX_FILES + 1))
    with pytest.raises(bundle.BundleError, match="manifest"):
        many = [(f"lib/{'x' * 50}{i:02}", b"") for i in range(fm.MAX_FILES)]
        bundle.assemble("pico", "armv6m", (1, 0, 0), 1, 6, many)
    assert bundle.mpy_abi(b"M\x06\x01\x1f") == 6 | 1 << 8
    with pytest.raises(bundle.BundleError):
        bundle.mpy_abi(b"PK\x03\x04")


@BUILT
def test_the_command_writes_the_bundle_and_says_what_is_in_it(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "baulk.host.cli.main", "firmware", "bundle", "--board", "esp32",
         "--out", str(tmp_path / "build"), "--dest", str(tmp_path / "releases")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    written = list((tmp_path / "releases").glob("*.bkfw"))
    assert [p.name for p in written] == [
        f"baulk-{'.'.join(map(str, bundle.release_version()))}-esp32.bkfw"
    ]
    b = bundle.read(written[0].read_bytes())
    assert b.arch == "xtensawin" and b.board == "esp32"
    digest = hashlib.sha256(written[0].read_bytes()).hexdigest()
    assert digest in done.stdout and f"{len(b.files)} files" in done.stdout
