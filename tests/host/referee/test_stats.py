"""Statistics and ball accounting from the events: the hand-worked match
(tests/host/hand_worked_match.py) through the shadow referee into a real
SQLite store, read back by the store's queries; the player registry's keys
and search; the accounting in random play with undo."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from baulk.firmware import names
from baulk.host.referee.frame_figures import ball_account
from baulk.host.referee.match_play import FrameNotes, FramePlay, Pot, Stroke
from baulk.host.referee.rebuild import rebuild
from baulk.host.referee.shadow import ShadowReferee
from baulk.host.store import Batch, EventRow, Store, StoreReader
from baulk.host.store import stats_queries as queries
from baulk.host.store.player_names import name_words, player_key
from baulk.protocol.messages import SRC_HOST, SRC_KEYPAD, SRC_SENSOR
from tests.host.hand_worked_match import (
    ALI_FIGURES,
    EVENTS,
    FRAME1_ACCOUNT,
    REZA_FIGURES,
    figures_as_worked,
)
from tests.test_engine_properties import games

Event = dict[str, Any]


def store_events(path: Path, events: list[tuple[Event, int]], table: str = "t1") -> str:
    """Play events through a shadow referee into the store, as the daemon
    does; returns the match id."""
    store = Store(path)
    shadow = ShadowReferee(table)
    rows = []
    for i, (ev, src) in enumerate(events, 1):
        a = shadow.apply(ev, (1, i), src=src)
        e = shadow.engine
        rows.append(
            EventRow(
                table, 1, i, 1_764_450_000_000 + i * 1000, ev, [e.s0, e.s1], src=src, applied=a
            )
        )
    store.write(Batch(events=rows))
    store.close()
    assert shadow.match_id is not None
    return shadow.match_id


@pytest.fixture
def hand_worked(tmp_path: Path) -> Iterator[tuple[StoreReader, str]]:
    match_id = store_events(tmp_path / "s.sqlite", EVENTS)
    reader = StoreReader(tmp_path / "s.sqlite")
    yield reader, match_id
    reader.close()


def test_hand_worked_match_figures_per_player(hand_worked: tuple[StoreReader, str]) -> None:
    reader, match_id = hand_worked
    stats = reader.match_statistics(match_id)
    assert [(p["side"], p["name"], p["key"]) for p in stats] == [
        (0, "Ali Reza", "alireza"),
        (1, "رضا", "رضا"),
    ]
    assert figures_as_worked(stats[0]) == ALI_FIGURES
    assert figures_as_worked(stats[1]) == REZA_FIGURES


def test_player_figures_over_his_matches(hand_worked: tuple[StoreReader, str]) -> None:
    reader, match_id = hand_worked
    ali = queries.player_statistics(reader.db, "alireza")
    assert figures_as_worked(ali) == ALI_FIGURES
    assert (ali["matches"], ali["matches_won"]) == (1, 0)
    reza = queries.player_statistics(reader.db, player_key("رضا"))
    assert (reza["matches"], reza["matches_won"]) == (1, 1)
    recent = queries.player_matches(reader.db, "alireza")
    assert [(m["match_id"], m["side"], m["won"], m["frames_won"]) for m in recent] == [
        (match_id, 0, False, [1, 2])
    ]


def test_accounting_catches_a_pot_keyed_with_no_beam_break(
    hand_worked: tuple[StoreReader, str],
) -> None:
    reader, match_id = hand_worked
    accounts = reader.frame_accounts(match_id)
    assert accounts[1] == FRAME1_ACCOUNT
    # Frame 2 was all sensors: nothing keyed, every pocket's balls its own.
    assert accounts[2]["recorded"] == {"sensor": 4, "keyed": 0, "total": 4}
    assert accounts[2]["keyed_pots"] == []
    assert accounts[2]["balanced"]


def test_the_same_pot_by_its_sensor_is_not_counted_against_it(tmp_path: Path) -> None:
    # Frame 1 again with the keypad's first red seen by the tl beam instead:
    # the account moves that ball from "keyed" to the sensor.
    events = list(EVENTS)
    i = next(n for n, (ev, src) in enumerate(events) if src == SRC_KEYPAD and ev["ev"] == "pot")
    events[i] = ({**events[i][0], "pocket": "tl"}, SRC_SENSOR)
    match_id = store_events(tmp_path / "s.sqlite", events)
    reader = StoreReader(tmp_path / "s.sqlite")
    frame1 = reader.frame_accounts(match_id)[1]
    reader.close()
    assert frame1["recorded"] == {"sensor": 7, "keyed": 2, "total": 9}
    assert frame1["pockets"]["tl"] == {"sensor": 2, "keyed": 1, "undone": 0, "refused": 0}
    assert frame1["pockets"]["none"]["keyed"] == 1
    assert [k["seq"] for k in frame1["keyed_pots"]] == [25, 40]


def test_refused_sensor_pots_and_balls_that_fall_by_themselves(tmp_path: Path) -> None:
    events: list[tuple[Event, int]] = [
        ({"ev": "match", "players": ["A", "B"], "best_of": 1, "reds": 6}, SRC_HOST),
        ({"ev": "strike"}, SRC_SENSOR),
        ({"ev": "pot", "ball": "red", "pocket": "ml"}, SRC_SENSOR),
        ({"ev": "pot", "ball": "black", "pocket": "mr"}, SRC_SENSOR),  # two at once: a foul
        ({"ev": "rest"}, SRC_SENSOR),
        ({"ev": "pot", "ball": "red", "pocket": "bl"}, SRC_SENSOR),  # R3.12.1: fell by itself
        ({"ev": "strike"}, SRC_SENSOR),
        ({"ev": "pot", "ball": "black", "pocket": "tl"}, SRC_SENSOR),  # not on: a foul, re-spotted
        ({"ev": "pot", "ball": "black", "pocket": "tl"}, SRC_SENSOR),  # a glitch: refused
        ({"ev": "rest"}, SRC_SENSOR),
        ({"ev": "concede"}, SRC_KEYPAD),
    ]
    match_id = store_events(tmp_path / "s.sqlite", events)
    reader = StoreReader(tmp_path / "s.sqlite")
    account = reader.frame_accounts(match_id)[1]
    reader.close()
    assert account["must_leave"] == {
        "reds": 1,  # the one potted in the first stroke; the one that fell went back
        "colours": 0,
        "respots": 2,
        "returned": 1,
        "total": 4,
    }
    assert account["recorded"] == {"sensor": 4, "keyed": 0, "total": 4}
    assert account["balanced"]
    assert account["pockets"]["tl"] == {"sensor": 1, "keyed": 0, "undone": 0, "refused": 1}
    assert account["pockets"]["bl"]["sensor"] == 1


def test_an_account_without_the_frames_end_does_not_balance() -> None:
    # The account says so when it cannot reconcile: here the frame's last
    # action is missing, so nothing is known to have stayed down.
    stroke = Stroke(1, 0, 0, 0, 15, 0x7E, None, None)
    stroke.pots.append(Pot("red", "tl", SRC_SENSOR, 1))
    play = FramePlay(1, [stroke], FrameNotes(), [(0, 0, "A"), (1, 0, "B")], 15, False)
    account = ball_account(play)
    assert account.recorded == 1 and account.must_leave == 0 and not account.balanced


def test_stats_are_the_same_after_rebuild(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    match_id = store_events(path, EVENTS)
    before = dump_stats(path)
    rebuild(path)
    assert dump_stats(path) == before
    reader = StoreReader(path)
    try:
        assert figures_as_worked(reader.match_statistics(match_id)[0]) == ALI_FIGURES
    finally:
        reader.close()


STATS_TABLES = ("players", "match_players", "player_frames", "player_fouls", "frame_accounts")


def dump_stats(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the statistics' tables, in key order."""
    reader = StoreReader(path)
    try:
        return {
            t: [tuple(r) for r in reader.db.execute(f"SELECT * FROM {t} ORDER BY 1, 2, 3")]
            for t in STATS_TABLES
        }
    finally:
        reader.close()


# ---------------------------------------------------------------------- the registry
@pytest.mark.parametrize(
    "spellings",
    [
        ["Ali Reza", "  ali   REZA ", "AliReza", "ALI-REZA"],
        ["محمد‌رضا", "محمد رضا", "محمدرضا", "محمد\u200dرضا"],  # half space, space, none, ZWJ
        ["علي", "علی"],  # Arabic and Persian yeh
        ["كاظم", "کاظم"],  # Arabic and Persian kaf
        ["فاطمة", "فاطمه"],  # teh marbuta
        ["Player ۱۲", "Player ١٢", "player 12"],  # Persian, Arabic-Indic and Latin digits
        ["José", "Jose"],
        ["Ronnie O'Sullivan", "Ronnie O’Sullivan", "ronnie osullivan"],
        ["ﻋﻠﻲ", "علی"],  # presentation forms
    ],
)
def test_one_player_key_for_every_spelling(spellings: list[str]) -> None:
    assert len({player_key(s) for s in spellings}) == 1, [player_key(s) for s in spellings]


@pytest.mark.parametrize(
    ("a", "b"), [("Ali", "Alia"), ("علی", "عالی"), ("Player 12", "Player 21"), ("A B", "A C")]
)
def test_different_names_keep_different_keys(a: str, b: str) -> None:
    assert player_key(a) != player_key(b)


def test_no_key_is_empty() -> None:
    assert player_key("...") == "..." and player_key("\u200c") == "?"
    assert name_words("محمد‌رضا") == "محمد رضا"


def test_registry_search_by_prefix_and_by_word(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    matches = [["Ali Reza", "Mohammad Ali"], ["علي کریمی", "Alireza Ahmadi"], ["Ali Reza", "Bob"]]
    store = Store(path)
    for n, players in enumerate(matches):
        shadow = ShadowReferee(f"t{n}")
        ev = {"ev": "match", "players": players, "best_of": 1}
        a = shadow.apply(ev, (1, 1), at_ms=1000 + n)
        store.write(Batch(events=[EventRow(f"t{n}", 1, 1, 1000 + n, ev, [0, 0], applied=a)]))
    store.close()
    reader = StoreReader(path)
    try:

        def found(text: str) -> list[str]:
            return [p["name"] for p in queries.search_players(reader.db, text, 10)]

        # Names that start with it first (the most matches first), then a word.
        assert found("ali") == ["Ali Reza", "Alireza Ahmadi", "Mohammad Ali"]
        assert found("ALI R") == ["Ali Reza", "Alireza Ahmadi"]
        assert found("علی") == ["علي کریمی"]  # typed with the Persian yeh, stored with the Arabic
        assert found("کریمی") == ["علي کریمی"]
        assert found("zzz") == []
        assert found("")[:2] == ["Ali Reza", "Bob"]  # seen last first
        ali = queries.player(reader.db, "alireza")
        assert ali is not None and ali["matches"] == 2
    finally:
        reader.close()


# ---------------------------------------------------------------------- random play
# BAULK_PROP_EXAMPLES=5000 for a longer hunt (as tests/test_engine_properties.py).
EXAMPLES = int(os.environ.get("BAULK_PROP_EXAMPLES", "60"))


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_play_follows_the_engines_undo_and_every_frame_balances(
    game: tuple[Event, list[Event]],
) -> None:
    first, events = game
    logging.disable(logging.WARNING)  # the shadow's mismatch warnings: no device here
    try:
        shadow = ShadowReferee("t")
        shadow.apply(first, (1, 0))
        for i, ev in enumerate(events, 1):
            a = shadow.apply(ev, (1, i), src=i % 3)
            for record in a.frame_records:
                assert record.account.balanced, (ev, record.account)
            e = shadow.engine
            if e.active:
                # The play holds exactly the engine's undoable actions: the
                # strokes where the engine's log has a strike, in order.
                starts = e._action_starts()
                strikes = [e.log[j] & 0x7F == names.EVENTS.index("strike") for j in starts]
                assert [isinstance(x, Stroke) for x in shadow.play.actions] == strikes
    finally:
        logging.disable(logging.NOTSET)


def test_every_source_name_has_a_source_code() -> None:
    from baulk.host.store.frame_records import source_name

    assert [source_name(c) for c in (SRC_SENSOR, SRC_KEYPAD, SRC_HOST)] == [
        "sensor",
        "keypad",
        "host",
    ]


def test_doubles_figures_go_to_the_partner_who_played(tmp_path: Path) -> None:
    # Order of play (R3.18): A1, B1, A2, B2.  A2's stroke gets a late foul.
    s, k = SRC_SENSOR, SRC_KEYPAD
    events: list[tuple[Event, int]] = [
        ({"ev": "match", "players": [["A1", "A2"], ["B1", "B2"]], "best_of": 1}, SRC_HOST),
        ({"ev": "strike", "t": 1000}, s),  # A1 breaks off
        ({"ev": "rest", "t": 5000}, s),
        ({"ev": "strike", "t": 12000}, s),  # B1: shot 7 s
        ({"ev": "pot", "ball": "red", "pocket": "tl", "t": 13000}, s),
        ({"ev": "rest", "t": 15000}, s),
        ({"ev": "strike", "t": 24000}, s),  # B1 again: shot 9 s
        ({"ev": "rest", "t": 27000}, s),  # B1's visit: 1
        ({"ev": "strike", "t": 40000}, s),  # A2: shot 13 s
        ({"ev": "rest", "t": 43000}, s),
        ({"ev": "foul", "kind": "push", "t": 44000}, k),  # A2's foul: 4 to B
        ({"ev": "strike", "t": 60000}, s),  # B2: shot 17 s
        ({"ev": "rest", "t": 62000}, s),
        ({"ev": "concede", "match": True, "t": 70000}, k),  # A concedes
    ]
    match_id = store_events(tmp_path / "s.sqlite", events)
    reader = StoreReader(tmp_path / "s.sqlite")
    try:
        stats = {p["name"]: p for p in reader.match_statistics(match_id)}
    finally:
        reader.close()
    assert [(p["side"], p["member"]) for p in stats.values()] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    strokes = {n: (p["strokes"], p["shot_ms"]["median"], p["visits"]) for n, p in stats.items()}
    assert strokes == {
        "A1": (1, None, 1),
        "A2": (1, 13000, 1),
        "B1": (2, 8000, 1),
        "B2": (1, 17000, 1),
    }
    assert stats["A2"]["fouls"] == {
        "count": 1,
        "points": 4,
        "kinds": [{"kind": "push", "count": 1, "points": 4}],
    }
    assert stats["B1"]["points"] == 1 and stats["A1"]["fouls"]["count"] == 0
    assert [p["frames_won"] for p in stats.values()] == [0, 0, 1, 1]
