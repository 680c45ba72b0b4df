"""The device side of a firmware update (firmware/update/, firmware/boot.py)
under CPython: staging into the slot not running, the checks, the boot
record's switch, the boot selector's trial and rollback.  The same driver
runs under MicroPython in test_fw_update_mp.py; power cuts in
test_fw_update_power.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from baulk.firmware import boot, manifest
from baulk.firmware.update import format as fm
from baulk.firmware.update import record, stage
from tests.firmware import mp_update as drv


def _root(tmp_path: Path) -> str:
    return str(tmp_path / "flash")


def test_happy_path_stage_check_commit_trial_confirm(tmp_path: Path) -> None:
    out = drv.happy(_root(tmp_path))
    assert out["legacy_boot"] == ["legacy", "0.9.0"]
    assert out["update1"] is None  # staged, checked and committed
    assert out["record_after_commit"][record.TRIAL : record.TRIES + 1] == ["a", "1.0.0", "0"]
    assert out["trial_boot"] == ["a", "1.0.0"]  # the first update goes to slot a
    assert out["confirmed"] is True
    rec = out["record_after_confirm"]
    assert rec[record.ACTIVE : record.ACTIVE_V + 1] == ["a", "1.0.0"]
    assert rec[record.PREV] == "legacy" and rec[record.TRIAL] == "-"
    assert rec[record.FLOOR] == "1.0.0" and rec[record.LAST : record.LAST_V + 1] == [
        "confirmed",
        "1.0.0",
    ]
    assert out["boots_after"] == [["a", "1.0.0"]] * 4
    assert out["update2"] is None and out["trial2_boot"] == ["b", "1.1.0"]  # the other slot
    assert out["boots_after2"] == [["b", "1.1.0"]] * 2
    assert out["record"][record.FLOOR] == "1.1.0"
    assert out["checks"] == [None, None] and out["same_reader"]


def test_bad_bundles_are_refused_with_their_reason_and_the_running_slot_stays(
    tmp_path: Path,
) -> None:
    out = drv.bad(_root(tmp_path))
    # refused by begin(): the reason, and not one byte of the flash changed
    for name, why in [
        ("tag", "tag"),
        ("board", "board"),
        ("arch", "arch"),
        ("abi", "abi"),
        ("downgrade", "downgrade"),
        ("same", "same"),
        ("dotdot", "path"),
        ("absolute", "path"),
        ("outside", "path"),
        ("long", "path"),
        ("garbage", "manifest"),
    ]:
        assert out[name] == [why, True], name
    # staged, then refused by the check from flash: no trial, 1.1.0 boots on
    assert out["hash"] == ["hash", "-", ["a", "1.1.0"]]
    assert out["truncated"] == ["size", "-", ["a", "1.1.0"]]
    # a gap refused, a repeat ignored, an overlap refused; the stream in order passes
    assert out["reorder"] == ["gap", None, "dup", "overlap", None, True, None]
    assert out["reorder_boot"] == ["b", "1.2.0"] and out["reorder_confirm"]
    # below the floor (1.2.0 now): refused, unless the owner asks for it
    assert out["down_refused"] == "downgrade"
    assert out["down_owner"] == [None, None, None, ["a", "1.1.5"]]
    # a flash without room beside the running release: refused, nothing
    # written; one block more (what the other slot holds counts as room) and
    # it is taken
    assert out["held"] and out["space"] == ["space", True] and out["room"] is None


def test_a_trial_that_never_confirms_or_cannot_start_rolls_back(tmp_path: Path) -> None:
    out = drv.rollback(_root(tmp_path))
    tries = manifest.TRIAL_BOOTS  # the selector's literal, held to it here
    assert out["unconfirmed_boots"] == [["b", "2.0.0"]] * tries + [["a", "1.0.0"]] * 2
    assert out["after"] == ["a", "1.0.0", "-", "rolledback", "2.0.0"]
    assert out["confirm_refused"] is False  # nothing on trial to confirm
    assert out["broken"] is None  # a release whose import raises stages and checks fine
    assert out["broken_boot"] == ["a", "1.0.0"]  # ... and is rolled back in the same boot
    assert out["after_broken"] == ["a", "-", "rolledback", "2.0.1"]
    assert out["then"] == ["a", "1.0.0"]


def _staged(root: str, v: str, upto: int | None = None) -> tuple[Any, tuple[bytes, bytes, bytes]]:
    b = drv.bundle(v)
    st, why = drv.begin(root, b)
    assert why is None
    s = b[2] if upto is None else b[2][:upto]
    assert drv.send(st, s, 0, drv.Rng(5), most=40) is None
    return st, b


def test_staging_resumes_from_what_is_on_flash(tmp_path: Path) -> None:
    root = _root(tmp_path)
    drv.fresh(root)
    _st, b = _staged(root, "1.0.0", upto=777)
    again = stage.Stage(root)  # a restart: nothing but the flash
    assert again.resume_offset() == 777
    assert again.resume_offset(b[0]) == 777
    assert again.resume_offset(drv.bundle("1.0.1")[0]) is None  # another bundle: begin again
    assert again.chunk(700, b[2][700:800]) == "overlap"
    assert again.check(drv.KEY) == "size"
    assert drv.send(again, b[2], 777, drv.Rng(6)) is None
    assert again.chunk(len(b[2]), b"x") == "size"  # beyond the manifest's bytes
    assert again.commit(drv.KEY) is None


def test_check_reads_every_file_back_from_flash(tmp_path: Path) -> None:
    root = _root(tmp_path)
    drv.fresh(root)
    st, _b = _staged(root, "1.0.0")
    blob = Path(st.dir) / "lib/fwt/blob.bin"
    data = bytearray(blob.read_bytes())
    data[300] ^= 1
    blob.write_bytes(bytes(data))
    assert st.check(drv.KEY) == "hash"
    assert st.commit(drv.KEY) == "hash" and record.load(root)[record.TRIAL] == "-"
    assert st.check(drv.OTHER_KEY) == "tag"  # the staged manifest is checked against its tag


def test_a_new_stage_first_unnames_a_committed_trial_and_a_running_trial_refuses(
    tmp_path: Path,
) -> None:
    root = _root(tmp_path)
    drv.fresh(root)
    st, _b = _staged(root, "1.0.0")
    assert st.commit(drv.KEY) is None
    assert record.load(root)[record.TRIAL] == "a"
    # committed, not booted yet: staging 1.0.1 goes into the same slot, so the
    # record stops naming it before the first byte changes there
    st2, why = drv.begin(root, drv.bundle("1.0.1"))
    assert why is None and st2.slot == "a" and record.load(root)[record.TRIAL] == "-"
    assert drv.send(st2, drv.bundle("1.0.1")[2], 0, drv.Rng(7)) is None
    assert st2.commit(drv.KEY) is None
    assert drv.start(root) == ["a", "1.0.1"]  # now on trial, unconfirmed
    assert drv.begin(root, drv.bundle("1.0.2"))[1] == "trial"


def test_the_selector_and_the_record_share_one_format(tmp_path: Path) -> None:
    root = _root(tmp_path)
    Path(root, "fw").mkdir(parents=True)
    assert boot.load(root) is None and boot.choose(root) == ("legacy", None, False)
    assert record.load(root) == record.fresh()
    rec = ["b", "1.2.3", "a", "1.2.0", "a", "1.3.0", "2", "1.2.3", "rolledback", "1.2.9"]
    record.save(root, rec)
    assert boot.load(root) == rec
    boot.save(root, [*rec[:6], "1", *rec[7:]])
    assert record.load(root)[record.TRIES] == "1"
    line = Path(root, "fw", "boot").read_text()
    assert line.startswith("baulk-boot 1 b 1.2.3 ")
    Path(root, "fw", "boot").write_text(line.replace("1.2.3", "9.2.3", 1))  # fails its sum
    assert boot.load(root) is None and record.load(root) == record.fresh()
    Path(root, "fw", "boot.tmp").write_text("half a rec")  # a stale tmp is harmless
    record.save(root, rec)
    assert boot.load(root) == rec


def test_manifest_bounds() -> None:
    mb, _tag, _s = drv.bundle("1.0.0")
    m = stage.parse(mb)
    assert isinstance(m, dict) and m[fm.M_SIZE] == len(_s)
    assert stage.parse(b"\xff" * 10) == "manifest"
    assert stage.parse(b"\x00" * (fm.MAX_MANIFEST + 1)) == "manifest"
    many = [(f"lib/f{i}", b"x") for i in range(fm.MAX_FILES + 1)]
    assert stage.parse(drv.bundle("1.0.0", files=many)[0]) == "manifest"
    twice = [("lib/f", b"x"), ("lib/f", b"y")]
    assert stage.parse(drv.bundle("1.0.0", files=twice)[0]) == "path"
    assert stage.parse(drv.bundle("1.0.0", files=[("lib/./f", b"x")])[0]) == "path"


def test_power_cuts_smoke(tmp_path: Path) -> None:
    f = drv.power(_root(tmp_path), 25, 3)
    assert f["cuts"] == 25 and f["broken"] == [], f


def test_tearing_flash_is_uninstalled_after_the_power_run(tmp_path: Path) -> None:
    drv.power(_root(tmp_path), 3, 4)
    for m in (stage, record, boot):
        assert m.os.__name__ == "os" and m.open is open


def test_boot_py_run_as_the_boards_boot_leaves_nothing_of_itself() -> None:
    # On a board without /fw/boot (the legacy install) it picks nothing, and
    # deletes every name it defined: its code is garbage before /main.py runs.
    g: dict[str, object] = {"__name__": "__main__"}
    exec(Path(boot.__file__).read_text(encoding="utf-8"), g)
    assert sorted(k for k in g if not k.startswith("__")) == []
