"""Bills of sessions worked out by hand (docs/BILLING.md): the events go
through the real shadow referee and store writer with device times the test
chooses, the session's stamps are chosen too, and every figure below was
worked out on paper first."""

from __future__ import annotations

import csv
import io
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from baulk.host.club import money, receipts, views
from baulk.host.club.tariffs import parse
from tests.host.billing_kit import HandVenue, scenario_events, stamp, timed

MIN = 60_000
S = {"ev": "strike"}
R = {"ev": "rest"}
RED = {"ev": "pot", "ball": "red"}


def wall(*args: int) -> int:
    return int(datetime(*args, tzinfo=UTC).timestamp() * 1000)


def tariff(**kw: object) -> object:
    billing = parse({"billing": {"timezone": kw.pop("tz", "UTC")}, "tariff": [kw]})
    return billing.tariffs[0]


@pytest.fixture
def venue(tmp_path: Path) -> HandVenue:
    v = HandVenue(tmp_path / "store.sqlite")
    yield v
    v.close_all()


def test_per_hour_across_the_peak_boundary(venue: HandVenue) -> None:
    # Friday 7 March 2025, London (GMT): open 17:20, 82 minutes by the PC's
    # monotonic clock.  Rounded up to 15 minutes: 90.  17:20-18:00 is 40 min
    # off-peak at 6.00/h = 4.00; 18:00-18:50 is 50 min peak at 9.00/h = 7.50.
    t = tariff(
        name="evening",
        currency="GBP",
        per_hour=6,
        round_min=15,
        minimum_min=30,
        peak=[{"days": ["fri"], "from": "18:00", "to": "22:00", "per_hour": 9.0}],
        tz="Europe/London",
    )
    opened = wall(2025, 3, 7, 17, 20)
    sid = venue.open("t1", t, stamp(opened, 5_000_000))
    venue.close(sid, stamp(opened + 82 * MIN, 5_000_000 + 82 * MIN))
    bill = venue.bill(sid)
    assert bill["minutes_open"] == 82 and bill["billed_minutes"] == 90
    assert [(x["minutes"], x["per_hour"], x["peak"], x["amount"]) for x in bill["lines"]] == [
        (40, 600, False, 400),
        (50, 900, True, 750),
    ]
    assert bill["total"] == 1150 and bill["clock"] == "monotonic"
    assert money.fmt(bill["total"], "GBP", "en") == "£11.50"
    assert bill["payers"] == [{"payer": None, "amount": 1150}]


@pytest.mark.parametrize("shift_h", [3, -5])
def test_the_wall_clock_set_forward_or_back_changes_nothing(venue: HandVenue, shift_h: int) -> None:
    # The same session as above, but the PC's clock was set 3 h forward (or
    # 5 h back) before it closed: the close stamp's wall clock is off, its
    # monotonic clock is not, and the bill is the same to the penny.
    t = tariff(
        name="evening",
        currency="GBP",
        per_hour=6,
        round_min=15,
        peak=[{"days": ["fri"], "from": "18:00", "to": "22:00", "per_hour": 9}],
        tz="Europe/London",
    )
    opened = wall(2025, 3, 7, 17, 20)
    sid = venue.open("t1", t, stamp(opened, 5_000_000))
    venue.close(sid, stamp(opened + 82 * MIN + shift_h * 3_600_000, 5_000_000 + 82 * MIN))
    bill = venue.bill(sid)
    assert bill["total"] == 1150 and bill["minutes_open"] == 82
    assert bill["closed_ms"] == opened + 82 * MIN  # when it closed, by the clock that timed it


def test_peak_hours_are_local_across_a_change_to_summer_time(venue: HandVenue) -> None:
    # Sunday 30 March 2025, London: at 01:00 GMT the clocks go to 02:00 BST.
    # Open 00:30 GMT for 3 h by the monotonic clock: it ends at 04:30 BST.
    # Off-peak 00:30 GMT-03:00 BST is 90 min (600/h: 900), the peak
    # 03:00-04:00 BST 60 min (1,200/h: 1,200), then 30 min off-peak (300).
    t = tariff(
        name="sunday",
        currency="GBP",
        per_hour=6,
        peak=[{"days": ["sun"], "from": "03:00", "to": "04:00", "per_hour": 12}],
        tz="Europe/London",
    )
    opened = wall(2025, 3, 30, 0, 30)
    sid = venue.open("t1", t, stamp(opened, 0))
    venue.close(sid, stamp(opened + 180 * MIN, 180 * MIN))
    bill = venue.bill(sid)
    assert [(x["minutes"], x["per_hour"], x["peak"], x["amount"]) for x in bill["lines"]] == [
        (90, 600, False, 900),
        (60, 1200, True, 1200),
        (30, 600, False, 300),
    ]
    assert bill["total"] == 2400


def test_a_pc_reboot_during_a_session_falls_back_to_the_wall_clock(venue: HandVenue) -> None:
    t = tariff(name="flat", currency="GBP", per_hour=6)
    opened = wall(2025, 3, 3, 10, 0)
    sid = venue.open("t1", t, stamp(opened, 9_000_000, "boot-a"))
    venue.close(sid, stamp(opened + 30 * MIN, 1_000, "boot-b"))  # monotonic restarted
    bill = venue.bill(sid)
    assert bill["clock"] == "wall" and bill["minutes_open"] == 30 and bill["total"] == 300
    assert "wall clock" in receipts.receipt(bill, "Table 1", "")["en"]["notes"][0]


def _best_of_5_frames() -> list[dict[str, object]]:
    """A best-of-5 (six reds), Reza winning 3-1, and when each frame is played:
    frame 1 ends on a re-spotted black (Reza 44-37, Ali lost), 20 minutes in
    play; frame 2 Reza concedes (Reza lost), 10 min; frames 3 and 4 Ali
    concedes (Ali lost), 12 and 8 min."""
    f1 = scenario_events("respotted_black_toss_pot_wins")[1:]
    f2 = [S, R, S, RED, R, S, R, {"ev": "concede"}]
    f3 = [S, R, S, RED, R, S, R, {"ev": "concede"}]
    f4 = [S, RED, R, S, R, {"ev": "concede"}]
    match = {"ev": "match", "players": ["Ali", "Reza"], "best_of": 5, "reds": 6, "t": 0}
    return [
        match,
        *timed(f1, MIN, 21 * MIN),
        *timed(f2, 22 * MIN, 32 * MIN),
        *timed(f3, 33 * MIN, 45 * MIN),
        *timed(f4, 46 * MIN, 54 * MIN),
    ]


def test_loser_pays_over_a_best_of_5_with_a_respotted_black_and_a_conceded_frame(
    venue: HandVenue,
) -> None:
    # 60,000 toman an hour (1,000 a minute), 10,000 a frame, loser pays.
    # Open 63 min -> 65 billed (5-minute steps): 65,000 of table time, shared
    # by minutes in play (20:10:12:8 of 50): 26,000 / 13,000 / 15,600 /
    # 10,400, plus 10,000 per frame, each to the frame's loser.
    # Ali lost frames 1, 3, 4: 26,000 + 15,600 + 10,400 + 30,000 = 82,000.
    # Reza lost frame 2: 13,000 + 10,000 = 23,000.  Total 105,000.
    t = tariff(
        name="club",
        currency="IRT",
        per_hour=60_000,
        per_frame=10_000,
        round_min=5,
        minimum_min=30,
        loser_pays=True,
        tz="Asia/Tehran",
    )
    opened = wall(2025, 3, 1, 16, 0)
    sid = venue.open("t1", t, stamp(opened, 100 * MIN))
    venue.play("t1", _best_of_5_frames())
    venue.close(sid, stamp(opened + 63 * MIN, 163 * MIN))
    bill = venue.bill(sid)
    assert bill["frames_played"] == 4 and bill["minutes_in_play"] == 50
    assert [(f["frame"], f["loser"], f["play_s"] // 60, f["amount"]) for f in bill["frames"]] == [
        (1, "Ali", 20, 36_000),
        (2, "Reza", 10, 23_000),
        (3, "Ali", 12, 25_600),
        (4, "Ali", 8, 20_400),
    ]
    assert bill["charged"] == bill["total"] == 105_000
    assert {p["payer"]: p["amount"] for p in bill["payers"]} == {
        None: 0,
        "Ali": 82_000,
        "Reza": 23_000,
    }
    fa = receipts.receipt(bill, "میز ۱", "")["fa"]
    assert fa["total"] == "۱۰۵٬۰۰۰ تومان"
    assert [p["amount"] for p in fa["payers"]] == ["۸۲٬۰۰۰ تومان", "۲۳٬۰۰۰ تومان"]


def test_per_frame_charges_finished_frames_only(venue: HandVenue) -> None:
    # 2.50 a frame; frames 1 and 2 conceded, frame 3 still in play at the
    # close (2 min of play so far): 2 x 2.50 = 5.00; 10 + 10 + 2 = 22 min in play.
    t = tariff(name="frames", currency="EUR", per_frame=2.5)
    opened = wall(2025, 3, 4, 20, 0)
    sid = venue.open("t2", t, stamp(opened, 0))
    match = {"ev": "match", "players": ["Sara", "Mina"], "best_of": 5, "t": 0}
    f1 = [S, R, S, RED, R, S, R, {"ev": "concede"}]  # Sara concedes: Mina wins
    f2 = [S, R, S, RED, R, S, R, {"ev": "concede"}]  # Mina concedes: Sara wins
    f3 = [S, RED, R]
    venue.play(
        "t2",
        [
            match,
            *timed(f1, MIN, 11 * MIN),
            *timed(f2, 12 * MIN, 22 * MIN),
            *timed(f3, 23 * MIN, 25 * MIN),
        ],
    )
    venue.close(sid, stamp(opened + 30 * MIN, 30 * MIN))
    bill = venue.bill(sid)
    assert bill["lines"] == [{"kind": "frames", "count": 2, "per_frame": 250, "amount": 500}]
    assert bill["total"] == 500 and bill["frames_played"] == 2
    assert bill["minutes_in_play"] == 22
    assert [(f["frame"], f["finished"], f["loser"]) for f in bill["frames"]] == [
        (1, True, "Sara"),
        (2, True, "Mina"),
        (3, False, None),
    ]
    assert money.fmt(bill["total"], "EUR", "en") == "€5.00"


def test_an_awarded_frame_and_a_correction_appended(venue: HandVenue) -> None:
    # 500,000 rial a frame, loser pays: the referee awards frame 1 to Reza
    # although Ali leads 1-0, so Ali pays 500,000; then the desk takes
    # 100,000 off Ali's share, with a reason.
    t = tariff(name="rial", currency="IRR", per_frame=500_000, loser_pays=True)
    sid = venue.open("t3", t, stamp(wall(2025, 3, 5, 12, 0), 0))
    events = [
        {"ev": "match", "players": ["Ali", "Reza"], "best_of": 3},
        S,
        RED,
        R,
        S,
        R,
        {"ev": "award", "side": 1},
    ]
    venue.play("t3", timed(events, 0, 5 * MIN))
    venue.close(sid, stamp(wall(2025, 3, 5, 12, 10), 10 * MIN))
    before = venue.bill(sid)
    assert [(f["winner"], f["loser"], f["amount"]) for f in before["frames"]] == [
        ("Reza", "Ali", 500_000)
    ]
    venue.correct(sid, -100_000, "regular customer", payer="Ali")
    after = venue.bill(sid)
    assert after["charged"] == before["charged"] == before["total"] == 500_000
    assert after["total"] == 400_000
    assert after["corrections"][0]["reason"] == "regular customer"
    assert {p["payer"]: p["amount"] for p in after["payers"]} == {None: 0, "Ali": 400_000}
    # appended, never overwritten: the store refuses to change or drop it
    db = sqlite3.connect(venue.path)
    for sql in ("UPDATE bill_corrections SET amount = 0", "DELETE FROM bill_corrections"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute(sql)
    with pytest.raises(sqlite3.IntegrityError, match="never changed"):
        db.execute("UPDATE table_sessions SET closed_wall_ms = 0 WHERE id = ?", (sid,))
    for table in ("session_marks",):  # its close: appended, never changed
        for sql in (f"UPDATE {table} SET id = id", f"DELETE FROM {table}"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                db.execute(sql)
    db.close()


def test_csv_cells_never_run_as_formulas(venue: HandVenue) -> None:
    t = tariff(name="frames", currency="GBP", per_frame=1)
    sid = venue.open("t1", t, stamp(wall(2025, 3, 6, 12, 0), 0))
    events = [{"ev": "match", "players": ['=HYPERLINK("x")', "+Reza"], "best_of": 1}, S, R]
    events += [{"ev": "concede"}]
    venue.play("t1", timed(events, 0, MIN))
    venue.close(sid, stamp(wall(2025, 3, 6, 12, 5), 5 * MIN))
    venue.correct(sid, -50, "@SUM(A1)")
    text = receipts.bill_csv(venue.bill(sid), "en")
    cells = [c for row in csv.reader(io.StringIO(text)) for c in row]
    assert "'+Reza" in cells and "'@SUM(A1)" in cells  # the loser, the reason
    assert not any(c[:1] in ("=", "+", "@") for c in cells)
    assert "-0.50" in cells  # a negative amount stays a number
    assert all(views.csv_cell(x) == x for x in ("-12.50", "3", "Ali"))
    assert views.csv_cell("-1+2") == "'-1+2"


def test_baulk_rebuild_makes_frame_play_again_from_the_events(venue: HandVenue) -> None:
    from baulk.host.referee.rebuild import rebuild

    venue.play("t1", _best_of_5_frames())
    db = sqlite3.connect(venue.path)
    query = "SELECT * FROM frame_play ORDER BY match_id, frame"
    before = db.execute(query).fetchall()
    assert len(before) == 4 and all(row[5] is not None for row in before)  # four ended frames
    db.execute("DELETE FROM frame_play")
    db.commit()
    rebuild(venue.path)
    assert db.execute(query).fetchall() == before
    db.close()
