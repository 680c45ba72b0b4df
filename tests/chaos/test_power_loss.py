"""Power loss on the device, short form (bench/chaos_power.py is the full
one): the real firmware on the simulated board, on a flash that tears a write
at any byte or cuts before a rename; see tests/chaos/power_loss.py."""

from __future__ import annotations

import pytest

from tests.chaos.power_loss import run

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("seed", [1, 2])
def test_journal_stays_consistent_and_the_frame_resumes_exactly(seed: int) -> None:
    f = run(seed, cuts=150)
    assert f["cuts"] == 150
    assert f["torn_writes"] > 50  # cuts really landed mid-write
    assert f["lost"] == 0 and f["doubled"] == 0 and f["out_of_order"] == 0, f
    assert f["differing"] == 0, f
    assert f["delivered"] == f["journaled"] > 300, f
    assert f["light_switches"] > 20 and f["light_checks"] == f["cuts"]
    assert f["light_wrong"] == 0, f
    assert f["light_at_end"] == f["light_wanted_at_end"]


def test_tearing_flash_keeps_exactly_the_bytes_written_before_the_cut(tmp_path) -> None:
    from baulk.firmware.sim.flash import PowerCut, TearingFlash

    flash = TearingFlash()
    flash.arm(5)
    path = str(tmp_path / "f")
    with pytest.raises(PowerCut), flash.open(path, "wb") as f:
        f.write(b"0123456789")
    assert open(path, "rb").read() == b"01234"  # noqa: SIM115
    flash.arm_ops(1)
    with pytest.raises(PowerCut):
        flash.rename(path, path + "2")  # cut before the rename: nothing moved
    assert open(path, "rb").read() == b"01234"  # noqa: SIM115
    flash.disarm()
    flash.rename(path, path + "2")
    assert open(path + "2", "rb").read() == b"01234"  # noqa: SIM115


@pytest.mark.micropython
def test_tearing_flash_and_journal_under_micropython() -> None:
    from pathlib import Path

    from baulk.host.sim import micropython

    done = micropython.run(Path(__file__).parents[2] / "bench" / "mp_chaos_power.py")
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    f = dict(line.split("=", 1) for line in done.stdout.decode().split())
    assert "broken" not in f
    assert int(f["cuts"]) > 10  # a cut at every byte and operation of one append
    assert int(f["kept"]) + int(f["undone"]) == int(f["cuts"])
