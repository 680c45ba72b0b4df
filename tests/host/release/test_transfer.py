"""The host's Transfer (host/release/transfer.py) sends a real release, the
firmware tree `baulk firmware build` writes, to the update mode of the real
firmware (firmware/update/mode.py) over a modelled 115200-baud line
(tests/host/release/update_line.py): whole on a clean line, whole on a line
that loses frames, resumed after a power cut without sending a file byte
twice beyond what was on the line, and refused with the table's reason for
a tag made for another table."""

from __future__ import annotations

from pathlib import Path

import pytest

from baulk.firmware import boot
from baulk.firmware.update import record, stage
from baulk.host.release import bundle
from tests.host.release import update_line

pytestmark = pytest.mark.slow  # it builds the firmware
KEY = bytes(range(32))


def flash(tmp_path: Path) -> str:
    root = tmp_path / "flash"
    (root / "lib").mkdir(parents=True)  # a board deployed the legacy way
    return str(root)


def staged_whole(root: str, b: bundle.Bundle) -> None:
    slot, _lib, trial = boot.choose(root)
    assert (slot, trial) == ("a", True)
    assert record.load(root)[record.TRIAL_V] == ".".join(map(str, b.version))
    assert stage.check_slot(root + "/fw/a", KEY) is None
    for path, data in b.files:
        assert (Path(root) / "fw" / "a" / path).read_bytes() == data, path


def test_a_release_goes_whole_over_a_clean_line_near_the_lines_floor(
    release: bundle.Bundle, tmp_path: Path
) -> None:
    root = flash(tmp_path)
    got = update_line.push(root, KEY, release)
    assert got.transfer.phase == "committed"
    staged_whole(root, release)
    # nothing sent twice, and the line busy nearly all the time: the
    # window keeps chunks on it while the table answers
    assert got.transfer.sent_bytes == got.transfer.total
    assert got.ms < got.floor_ms * 1.15, (got.ms, got.floor_ms)


def test_a_line_that_loses_frames_still_delivers_the_release_whole(
    release: bundle.Bundle, tmp_path: Path
) -> None:
    root = flash(tmp_path)
    got = update_line.push(root, KEY, release, loss=0.02, seed=3)
    assert got.transfer.phase == "committed"
    staged_whole(root, release)
    assert got.transfer.sent_bytes > got.transfer.total  # the losses were sent again


def test_a_power_cut_mid_stream_resumes_from_the_flash(
    release: bundle.Bundle, tmp_path: Path
) -> None:
    root = flash(tmp_path)
    half = len(release.to_bytes()) // 2
    got = update_line.push(root, KEY, release, cut_at=half)
    assert got.restarts == 1 and got.transfer.phase == "committed"
    staged_whole(root, release)
    # the head again, and what was on the line when the power went: not the
    # first half of the files again
    again = got.transfer.sent_bytes - got.transfer.total
    assert 0 < again < len(release.manifest) + 8 * 1024, again


def test_a_tag_for_another_table_is_refused_with_the_tables_reason(
    release: bundle.Bundle, tmp_path: Path
) -> None:
    root = flash(tmp_path)
    got = update_line.push(root, KEY, release, tag_key=bytes(range(1, 33)))
    assert (got.transfer.phase, got.transfer.reason) == ("refused", "tag")
    assert not (Path(root) / "fw" / "a" / "manifest").exists()
    assert boot.choose(root)[0] == "legacy"
