"""The update mode over the table's port (firmware/update/mode.py), under
the real MicroPython (npm WebAssembly port) and CPython alike: a careless
host on a noisy line (chunks lost, repeated and sent ahead of their turn)
still stages the release whole, a power cut mid-stream resumes after what
the flash holds, a bundle the table must not take is refused with its
reason and nothing changed, and what is not an update_data ends nothing.
The driver is tests/firmware/mp_update.py's `link` scenario."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.firmware.test_fw_update_mp import _cpython, _mp

pytestmark = pytest.mark.micropython

READY, RECEIVING, CHECKING, COMMITTED, REFUSED, CONFIRMED = range(6)


@pytest.fixture(scope="module")
def link() -> dict[str, Any]:
    return _mp("link")


def test_the_same_under_both_interpreters(link: dict[str, Any], tmp_path: Path) -> None:
    assert link == _cpython(tmp_path, "link")


def test_a_noisy_line_still_stages_and_commits_the_release(link: dict[str, Any]) -> None:
    committed, first, done, last = link["first"]
    assert first == [READY, 0, None]  # the mode's first word: from byte 0
    assert committed[0] == COMMITTED and done == COMMITTED
    assert last == [RECEIVING, CHECKING, COMMITTED]
    assert link["first_sent_over"]  # the noise did cost resends
    assert link["legacy_boot"] == ["legacy", "0.9.0"]
    assert link["trial_boot"] == ["a", "1.0.0"]


def test_confirm_makes_the_trial_active_and_only_a_trial(link: dict[str, Any]) -> None:
    said, done, active = link["confirm"]
    assert said == [[CONFIRMED, 0, None]] and done == CONFIRMED and active == "1.0.0"
    assert link["boot_after_confirm"] == ["a", "1.0.0"]
    assert link["confirm_again"] == [[[REFUSED, 0, "confirm"]], REFUSED]


def test_a_power_cut_mid_stream_resumes_after_what_the_flash_holds(link: dict[str, Any]) -> None:
    assert link["resumed"] == [True, True]  # past the head, at the very byte the flash held
    assert link["resumed_commit"][0] == COMMITTED
    assert link["trial2_boot"] == ["b", "1.1.0"]


@pytest.mark.parametrize("why", ["tag", "board", "same", "downgrade"])
def test_a_bundle_the_table_must_not_take_is_refused_and_nothing_changes(
    link: dict[str, Any], why: str
) -> None:
    status, unchanged, done = link[why]
    assert status == [REFUSED, 0, why]
    assert unchanged and done is None  # the mode waits on for another stream


def test_a_file_that_fails_its_hash_is_refused_at_the_commit(link: dict[str, Any]) -> None:
    status, trial, boot = link["hash"]
    assert status == [REFUSED, 0, "hash"] and trial == "-"
    assert boot == ["b", "1.1.0"]  # the running version, untouched


def test_what_is_not_an_update_data_ends_nothing(link: dict[str, Any]) -> None:
    # [statuses so far, state, offset] after each odd frame: garbage and
    # another type get no answer; a bad or early update_data gets where the
    # stream ends (0), so the host sends from there
    assert link["odd"] == [
        [1, READY, 0],
        [1, READY, 0],
        [1, RECEIVING, 0],
        [2, RECEIVING, 0],
        [3, RECEIVING, 0],
        [3, RECEIVING, 0],
        [4, RECEIVING, 0],
    ]
    assert link["odd_after"] == [None, True]
    assert link["quiet"] == [None, READY]  # 10 s of nothing: back to the match
