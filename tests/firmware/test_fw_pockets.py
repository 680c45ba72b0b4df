"""The pre-match pocket check and the sensors' health counts, under real
MicroPython (npm WebAssembly port) with the simulated board, and under
CPython (tests/firmware/mp_pockets.py): a healthy table, a dead beam, a
colour sensor whose readings drift, a check refused mid-frame, and the
counts through a power cut.  The check's screens are drawn in English and in
Persian; each Persian one is held against the bitmap it must show
(tests/firmware/test_fw_handset.py composes them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from baulk.firmware import keypad_flow
from baulk.firmware.hw import colour
from baulk.protocol import messages
from tests.firmware import test_fw_handset as handset_runs
from tests.firmware.test_fw_handset import (
    SINGLES,
    T,
    brk,
    check_screen,
    frame,
    keep_artifacts,
    link,
    on,
    pages,
    score,
)

pytestmark = pytest.mark.micropython

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
SCRIPT = HERE / "mp_pockets.py"
OK, WEAK, FAULTY = 0, 1, 2  # host_catalogue.CHECK_VERDICTS
NONE, NO_BREAK, UNCLEAR, LOW_CONFIDENCE = 0, 1, 7, 8  # host_catalogue.CHECK_REASONS
WHITE, NO_BALL = 7, 255
BL, ML = 1 << 4, 1 << 2


def on_micropython(scenario: str) -> Any:
    return handset_runs.on_micropython(scenario, SCRIPT)


def on_cpython(scenario: str, flash: Path) -> Any:
    return handset_runs.on_cpython(scenario, flash, SCRIPT)


def persian(out: dict[str, Any], prefix: str, screens: dict[str, list[Any]]) -> None:
    keep_artifacts(prefix, out["screens"])
    for name, rows in screens.items():
        check_screen(name, out["screens"][name]["fa"], rows, SINGLES)
    # Switched to Persian and back by the host, nothing changed, and every
    # text had its Persian.
    assert out["changed"] == []
    assert all(s["missing"] == 0 for s in out["screens"].values())


def test_a_healthy_table_passes_every_pocket_and_plays_on_unchanged() -> None:
    out = on_micropython("healthy")
    [check] = out["checks"]
    assert check["verdicts"] == [OK] * 6 and check["reasons"] == [NONE] * 6
    assert check["read"] == [WHITE] * 6 and min(check["confidence"]) >= 70
    assert check["break_ms"] == [33] * 6  # the modelled white's shadow at 1.5 m/s (POCKET-MODEL.md)
    assert check["cmd"] is None  # started on the handset
    # The check's balls are no pots: the match and its events are as they were,
    # and the result took its place in the stream after the match event.
    assert out["same_engine"] and out["events_during_check"] == 0
    assert out["seqs"] == [1, 2]
    assert out["checking_until_ok"] and not out["check_after_ok"]
    health = out["health"]
    assert any(h["checking"] for h in health)
    assert health[-1]["checking"] is False and health[-1]["balls"] == [1] * 6
    assert health[-1]["faulty"] == 0 and health[-1]["weak"] == 0
    rows = out["screens"]
    assert rows["check_start"]["rows"][:3] == ["POCKET CHECK", "drop the white", "into pocket tl"]
    assert rows["check_progress"]["rows"][4:6] == ["tl ok      tr ok", "ml ok"]
    assert rows["check_done"]["rows"][:2] == ["CHECK DONE", "all pockets ok"]
    assert rows["after_check"]["rows"][1] == ">Ali           0"
    persian(
        out,
        "pockets-",
        {
            "check_start": pages(
                [[T("POCKET CHECK")]],
                [[T("drop the white")], [T("into pocket "), T("tl")], [T("OK unseen  BACK")]],
            ),
            # a pocket a row, three rows a page below the title
            "check_progress": pages(
                [[T("POCKET CHECK")]],
                [[T("drop the white")], [T("into pocket "), T("mr")], [T("tl"), T("ok")]],
                [[T("tr"), T("ok")], [T("ml"), T("ok")], [T("OK unseen  BACK")]],
            ),
            "check_done": pages([[T("CHECK DONE")]], [[T("all pockets ok")], [T("OK close")]]),
        },
    )


def test_a_dead_beam_is_faulty_and_its_pots_are_keyed_by_the_referee() -> None:
    out = on_micropython("dead_beam")
    [check] = out["checks"]
    assert check["verdicts"] == [OK, OK, OK, OK, FAULTY, OK]
    assert check["reasons"][4] == NO_BREAK and check["break_ms"][4] == 0
    assert check["read"][4] == NO_BALL  # no break: nothing was read
    health = out["health"]
    assert health["faulty"] == BL and health["weak"] == 0
    assert health["balls"] == [1, 1, 1, 1, 0, 1]
    # The red the beam missed, keyed by hand: a pot with no pocket, counted.
    pot = [e for e in out["events"] if e["ev"] == "pot"]
    assert pot == [{"ev": "pot", "ball": "red", "seq": 4, "scores": [0, 0], "src": 1}]
    assert health["unplaced"] == 1 and health["corrections"] == [0] * 6
    assert out["screens"]["check_faulty"]["rows"][:2] == ["CHECK DONE", "bl faulty"]
    persian(
        out,
        "pockets-",
        {"check_faulty": pages([[T("CHECK DONE")]], [[T("bl"), T("faulty")], [T("OK close")]])},
    )


def test_a_drifting_colour_sensor_is_found_and_its_pots_asked_of_the_referee() -> None:
    out = on_micropython("drift")
    first, second = out["checks"]
    # Drifted halfway to the yellow: the white cannot be named (faulty).
    assert first["verdicts"] == [OK, OK, FAULTY, OK, OK, OK]
    assert first["reasons"][2] == UNCLEAR and first["confidence"][2] < colour.THRESHOLD
    # A faulty pocket's pot is asked of the referee however clear its reading.
    assert out["asked"] == keypad_flow.ASK_POT
    assert out["screens"]["ask_faulty"]["rows"][:3] == ["POT ml", "which ball?", "(pocket faulty)"]
    # Cleaned part of the way, at a check the host asked for between frames:
    # weak (the white, unsure), no longer faulty.
    assert out["started_by_host"]["checking"] and out["started_by_host"]["cmd"] == out["cmd"]
    assert second["cmd"] == out["cmd"]
    assert second["verdicts"] == [OK, OK, WEAK, OK, OK, OK]
    assert second["reasons"][2] == LOW_CONFIDENCE and second["read"][2] == WHITE
    assert out["health"]["faulty"] == 0 and out["health"]["weak"] == ML
    # ... so its pots go by the sensor again.
    assert out["not_asked"] == keypad_flow.IDLE
    assert [{k: e[k] for k in ("ball", "pocket", "scores")} for e in out["after"]] == [
        {"ball": "red", "pocket": "ml", "scores": [0, 0]}
    ]
    assert "src" not in out["after"][0]  # the sensor's
    persian(
        out,
        "pockets-",
        {
            "check_drift": pages([[T("CHECK DONE")]], [[T("ml"), T("faulty")], [T("OK close")]]),
            "ask_faulty": pages(
                [[T("POT "), T("ml")]],
                [[T("which ball? (pocket faulty)")], None, [T("ball key  BACK")]],
            ),
        },
    )


def test_a_check_mid_frame_is_refused_with_a_reason_and_changes_nothing() -> None:
    out = on_micropython("drift")
    refused = out["refused"]
    why = "no pocket check mid-frame: check before the match or between frames"
    assert refused["same"] and not refused["checking"]
    [error] = refused["errors"]
    assert error["0"] == messages.ERR_REFUSED and error["1"] == why
    assert error["3"] < out["cmd"]  # the refused request's seq; the later one was taken
    screen = out["screens"]["check_refused"]
    assert screen["rows"][2:7] == [
        "! no pocket",
        "check mid-frame:",
        "check before the",
        "match or between",
        "frames",
    ]
    persian(
        {**out, "screens": {"check_refused": screen}},
        "pockets-",
        {
            "check_refused": pages(
                score(1, 0, 0),
                [[T(why, 0)], [T(why, 1)]],
                [[T(why, 2)], None],
                [on("colour", 14), brk(1, 146)],
                [frame(1, 3, 0, 0), link(5)],
            )
        },
    )


def test_the_counts_and_a_faulty_pocket_survive_a_power_cut() -> None:
    out = on_micropython("power_cut")
    before = out["before"]
    assert before["balls"] == [2, 1, 2, 1, 0, 1]  # the check's white, then play
    assert before["glitches"] == [0, 1, 0, 0, 0, 0]
    assert before["unclear"] == [0, 0, 1, 0, 0, 0]
    # The red in tl the referee took back and keyed as a yellow; a red keyed
    # where no sensor saw one (no pocket: unplaced).
    assert before["corrections"] == [1, 0, 0, 0, 0, 0] and before["unplaced"] == 1
    assert before["faulty"] == BL
    assert out["after"] == before
    assert out["sent_after_reset"] and out["sent_after_reset"][0] == before


@pytest.mark.parametrize("scenario", ["healthy", "dead_beam", "drift", "power_cut"])
def test_cpython_and_micropython_agree(scenario: str, tmp_path: Path) -> None:
    assert on_cpython(scenario, tmp_path) == on_micropython(scenario)


def test_the_check_writes_the_health_counts_where_the_app_reads_them() -> None:
    # pocket_check.py keeps its own copies of two places in app.py's counts.
    from tests.test_wire_codes import _consts

    app = _consts(ROOT / "firmware" / "app.py")
    check = _consts(ROOT / "firmware" / "pocket_check.py")
    assert {k: check[k] for k in ("_H_FAULTY", "_H_WEAK")} == {
        k: app[k] for k in ("_H_FAULTY", "_H_WEAK")
    }
