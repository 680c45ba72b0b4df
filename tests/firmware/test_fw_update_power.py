"""Power cuts through a firmware update, short form (bench/firmware_update_power.py
runs the full one): on a TearingFlash cut at a random byte or directory
operation anywhere in staging, the check and commit, the trial's boot and
its confirm, every boot after a cut finds a whole release (the old one or
the new one, matching its manifest file for file) and the one the record
names, and the update then resumes from flash and finishes (or, for a trial
that never confirms, is rolled back to the old release)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.firmware import mp_update as drv

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(("seed", "fat"), [(1, False), (2, False), (3, True)])
def test_every_boot_after_a_cut_finds_a_whole_release_and_staging_resumes(
    seed: int, fat: bool, tmp_path: Path
) -> None:
    # fat: a filesystem that cannot rename over the record, so it is removed
    # first; a cut between the two leaves only the new record's .tmp
    f = drv.power(str(tmp_path / "flash"), 200, seed, fat)
    assert f["cuts"] == 200 and f["broken"] == [], f
    assert f["torn_writes"] > 80  # cuts really landed mid-write
    # the cuts fell in every stage of an update
    assert set(f["phases"]) == {"begin", "chunk", "commit", "boot", "confirm"}, f
    assert min(f["phases"].values()) >= 5, f
    assert f["resumed"] > 50  # staging went on from what the flash held
    # one update in eight never confirms: the selector rolled each one back
    assert f["hung"] > 10 and f["rolled_back"] >= f["hung"] - 1, f
    assert f["boots"] > f["cuts"] and f["updates"] > 100
