"""Tampering at random with a signed record, short form (bench/chaos_tamper.py
is the full one): every change, deletion and insertion, in the store or in an
exported report, is found and located (tests/chaos/tamper.py)."""

from __future__ import annotations

import pytest

from baulk.host.referee.verify import VERIFIED
from tests.chaos.tamper import run

pytestmark = pytest.mark.slow


def test_every_tampering_is_detected_and_located() -> None:
    f = run(seed=2, trials=48, best_of=1)
    assert f["clean_store"] == VERIFIED and f["clean_report"] == VERIFIED
    assert f["clean_annotated_report"] == VERIFIED  # the venue's corrected names
    assert f["detected"] == f["trials"] == 48, f["missed"]
    assert f["located"] == f["trials"], f["missed"]
    assert len(f["by_kind"]) >= 10  # store and report, each kind of change
