"""Tampering at random with a closed day's money rows, short form
(bench/chaos_tamper.py --money is the full one): every update, insertion and
deletion by hand in SQLite, with the chain left or rewritten to match, is
found by ``verify --day`` and located to its bill (tests/chaos/money_tamper.py)."""

from __future__ import annotations

import pytest

from tests.chaos.money_tamper import run

pytestmark = pytest.mark.slow


def test_every_change_to_a_money_row_is_detected_and_located() -> None:
    f = run(seed=3, trials=30)
    assert set(f["clean"].values()) == {"verified"}, f["clean"]
    assert f["clean_findings"] == 0 and f["clean_unanchored"] == 0  # every row anchored
    for mode in ("naive", "rewritten"):
        m = f[mode]
        assert m["detected"] == m["trials"] == 30, (mode, m["missed"])
        assert set(m["by_op"]) == {"update", "insert", "delete"}
    naive, rewritten = f["naive"], f["rewritten"]
    assert naive["located"] == naive["trials"], naive["missed"]
    # With the chain rewritten, a deleted row's bill is gone from every
    # record the file holds: the signed heads say where in the chain (the
    # entry), and the bill named is that of the row now there.  Every other
    # change is located to its bill.
    assert set(rewritten["unlocated_by_op"]) <= {"delete"}, rewritten["missed"]
