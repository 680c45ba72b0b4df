"""Which rules engine scored a table: the build stamps the release's version
and its engine's into the firmware's hello (host/cli/firmware.py stamped,
host/release/bundle.py firmware_text), and the shadow referee judges only a
table whose engine it runs: another's it follows without raising anything,
rather than false alarms (docs/UPDATES.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from baulk.firmware import manifest
from baulk.host.cli import firmware as firmware_cmd
from baulk.host.referee.shadow import ShadowReferee
from baulk.host.release import bundle

ROOT = Path(__file__).resolve().parents[3]
MATCH = {"ev": "match", "players": ["Ali", "Reza"], "best_of": 3}


def test_the_build_stamps_the_version_and_the_engine_into_the_hello() -> None:
    source = (ROOT / "firmware" / "app.py").read_text(encoding="utf-8")
    out = firmware_cmd.stamped(source)
    said = bundle.firmware_text(bundle.release_version(), manifest.ENGINE)
    assert f'FIRMWARE = "{said}"' in out and out.count("FIRMWARE = ") == 1
    assert out.replace(said, "baulk-fw 0.1") == source  # that line alone changed
    assert len(said.encode()) <= bundle.FIRMWARE_MOST  # the match's heap (bundle.py)
    assert bundle.engine_of(said) == manifest.ENGINE
    with pytest.raises(ValueError):
        firmware_cmd.stamped(source.replace("FIRMWARE = ", "FIRMWARE: str = "))


@pytest.mark.parametrize(
    ("fw", "engine"),
    [
        ("baulk 0.1.0 e1", 1),
        ("baulk 2.3.4 e17", 17),
        ("baulk-fw 0.1", None),  # a firmware from before the engine said its version
        ("baulk 0.1.0 ex", None),
        ("something else e2", None),
        ("", None),
    ],
)
def test_the_engine_a_hello_names(fw: str, engine: int | None) -> None:
    assert bundle.engine_of(fw) == engine


def scores_differ(shadow: ShadowReferee) -> None:
    shadow.apply(MATCH, (1, 1), device_scores=[0, 0])
    shadow.apply({"ev": "strike"}, (1, 2), device_scores=[0, 0])
    # the device scored a red as 7: under another engine it may be right
    shadow.apply({"ev": "pot", "ball": "red", "pocket": "tl"}, (1, 3), device_scores=[7, 0])


def test_the_shadow_judges_a_table_of_its_own_engine() -> None:
    shadow = ShadowReferee("t1")
    scores_differ(shadow)
    assert shadow.mismatches == 1 and shadow.board_extras()["verified"] is True


def test_the_shadow_follows_but_does_not_judge_another_engine() -> None:
    shadow = ShadowReferee("t1")
    shadow.not_judged = {"table": manifest.ENGINE + 1, "host": manifest.ENGINE}
    scores_differ(shadow)
    extras = shadow.board_extras()
    assert shadow.mismatches == 0 and shadow.unjudged == 1 and extras["alerts"] == []
    assert extras["verified"] is False and extras["not_judged"] == shadow.not_judged
    assert shadow.events == 3 and shadow.in_context  # it followed the match all the same


def test_a_firmware_name_too_long_for_the_matchs_heap_is_refused() -> None:
    with pytest.raises(bundle.BundleError):
        bundle.firmware_text((10, 200, 3000), 1)
