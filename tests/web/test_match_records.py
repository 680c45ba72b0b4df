"""The records the desk keeps: corrected names (boards, report, sheet, list,
and after a restart), the index's list of matches with each one's status
(a match replaced before anything was scored is left out), and the printed
result sheet."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.states import maximum_147
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, make_config, wait_for


def start(tmp_path: Path) -> DaemonThread:
    d = DaemonThread(make_config(tmp_path, {"t1": tmp_path / "ttyT1"})).start()
    wait_for(lambda: d.board("t1")["status"]["link"] == "online", what="online")
    return d


def play(d: DaemonThread, peer: DevicePeer, events: list[dict[str, Any]]) -> None:
    peer.play(events)
    wait_for(
        lambda: (
            d.board("t1")["state"] is not None
            and d.board("t1")["state"]["scores"] == peer.engine.state()["scores"]
            and peer.acked() == peer.last_seq()
        ),
        what="the table on the board",
    )
    d.flush()


def setup(d: DaemonThread, players: list[Any], who: str | None = None) -> None:
    body: dict[str, Any] = {"players": players, "best_of": 3}
    if who:
        body["who"] = who
    status, reply = http(d.url + "/api/tables/t1/match", body, token=TOKEN)
    assert status == 200, reply


def matches(d: DaemonThread, query: str = "") -> list[dict[str, Any]]:
    status, body = http(d.url + "/api/matches" + query)
    assert status == 200, body
    found: list[dict[str, Any]] = body["matches"]
    return found


def test_the_list_says_each_matchs_status_and_leaves_out_replaced_empty_ones(
    tmp_path: Path, peer: DevicePeer
) -> None:
    d = start(tmp_path)
    try:
        setup(d, ["Typo", "Reza"])  # replaced at once: nothing scored
        setup(d, ["Ali", "Reza"])
        play(d, peer, [{"ev": "strike"}, {"ev": "pot", "ball": "red"}, {"ev": "rest"}])
        setup(d, ["Mina", "Sara"])  # replaces a match that had a point scored
        d.flush()
        listed = matches(d)
        assert [(m["players"][0], m["status"]) for m in listed] == [
            ("Mina", "in_play"),
            ("Ali", "abandoned"),
            ("Typo", "empty"),
        ]
        assert [m["players"][0] for m in matches(d, "?skip_empty=1")] == ["Mina", "Ali"]
        assert http(d.url + "/api/matches?skip_empty=yes")[0] == 400
        peer.play([{"ev": "award", "side": 0, "match": True}])
        wait_for(lambda: d.board("t1")["state"]["match_over"], what="the match awarded")
        d.flush()
        assert matches(d, "?skip_empty=1")[0]["status"] == "finished"
    finally:
        d.stop()


@pytest.mark.slow
def test_corrected_names_reach_the_boards_reports_and_sheet_and_stay(
    tmp_path: Path, peer: DevicePeer
) -> None:
    d = start(tmp_path)
    names_url = "/api/tables/t1/names"
    try:
        assert http(d.url + names_url, {"players": ["A", "B"]}, token=TOKEN)[0] == 409  # no match
        setup(d, ["Ali Zadn", "Reza"], who="Sara Referee")
        play(d, peer, maximum_147(["Ali Zadn", "Reza"])[1:])
        match_id = d.board("t1")["match"]["match_id"]
        # Wrong form (a pair for singles: the match's, 409; a name and a pair: the
        # body's, 400), bad names: refused, nothing kept.
        status, body = http(d.url + names_url, {"players": [["A", "B"], ["C", "D"]]}, token=TOKEN)
        assert status == 409 and "form" in body["error"]
        status, body = http(d.url + names_url, {"players": [["A", "B"], "C"]}, token=TOKEN)
        assert status == 400 and "not a name and a team" in body["error"]
        assert http(d.url + names_url, {"players": ["", "Reza"]}, token=TOKEN)[0] == 400
        assert http(d.url + names_url, {"players": ["Ali Zand", "Reza"]})[0] == 401
        assert d.board("t1")["match"]["names"] == ["Ali Zadn", "Reza"]
        status, body = http(
            d.url + names_url, {"players": ["Ali Zand", "Reza"], "who": "desk"}, token=TOKEN
        )
        assert status == 200 and body == {"status": "done", "names": ["Ali Zand", "Reza"]}
        assert d.board("t1")["match"]["names"] == ["Ali Zand", "Reza"]
        report = http(d.url + f"/api/matches/{match_id}")[1]["report"]
        assert report["match"]["names"] == ["Ali Zand", "Reza"]
        assert [b["player"] for b in report["breaks"]] == ["Ali Zand"]
        # The correction is the venue's: carried as its annotation, with who.
        fix = report["annotations"]["names"]
        assert fix["signed"] == ["Ali Zadn", "Reza"] and fix["players"] == ["Ali Zand", "Reza"]
        assert fix["who"] == "operator"  # the signed-in account (the operator token)
        for lang, said in (("en", "Names corrected by the venue"), ("fa", "باشگاه اصلاح")):
            page = http(d.url + f"/report/{match_id}?lang={lang}")[1]
            assert said in page and "Ali Zadn" in page
        assert matches(d)[0]["players"] == ["Ali Zand", "Reza"]
        sheet = http(d.url + f"/report/{match_id}/sheet")[1]
        assert "Ali Zand" in sheet and "Ali Zadn" not in sheet
    finally:
        d.stop()
    d = start(tmp_path)  # after a restart, from the store
    try:
        assert d.board("t1")["match"]["names"] == ["Ali Zand", "Reza"]
    finally:
        d.stop()


def test_the_result_sheet(tmp_path: Path, peer: DevicePeer) -> None:
    d = start(tmp_path)
    try:
        setup(d, ["Ali", "Reza"], who="Sara Referee")
        play(d, peer, maximum_147(["Ali", "Reza"])[1:])
        match_id = d.board("t1")["match"]["match_id"]
        status, page = http(d.url + f"/report/{match_id}/sheet")
        assert status == 200
        for text in (
            "Result sheet",
            '<bdi dir="auto">Table t1</bdi>',
            '<bdi dir="auto">Sara Referee</bdi>',
            "Breaks of 50 and over",
            "<td class='num'>147</td>",
            'class="sign"',
        ):
            assert text in page, text
        assert page.count('class="sign"') == 3  # the referee and both players
        assert 'data-ms="' in page  # the date, written by the page in its calendar
        status, fa = http(d.url + f"/report/{match_id}/sheet?lang=fa")
        assert "برگه‌ی نتیجه‌ی مسابقه" in fa and "۱۴۷" in fa and 'dir="rtl"' in fa
        assert http(d.url + "/report/no-such-match/sheet")[0] == 404
        # Without a referee's name the sheet leaves a line to write it on.
        setup(d, ["Mina", "Sara"])
        play(d, peer, [{"ev": "strike"}, {"ev": "pot", "ball": "red"}, {"ev": "rest"}])
        other = d.board("t1")["match"]["match_id"]
        blank = http(d.url + f"/report/{other}/sheet")[1]
        assert 'class="blank"' in blank and "Sara Referee" not in blank
    finally:
        d.stop()


def test_vocabulary_names_the_engines_balls_and_fouls(tmp_path: Path) -> None:
    d = DaemonThread(make_config(tmp_path, {})).start()
    try:
        body = http(d.url + "/api/vocabulary")[1]
        from baulk.firmware import names

        assert body["balls"] == list(names.BALLS)
        kinds = body["foul_kinds"]
        assert kinds["ball_on"] + kinds["higher"] + kinds["seven"] == list(names.FOUL_KINDS)
        assert json.dumps(body)
    finally:
        d.stop()
