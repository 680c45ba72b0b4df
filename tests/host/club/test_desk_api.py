"""The desk's take-backs and bounds through the running daemon and its API
(issue 23): amounts and free text refused at the request, before anything
reaches the store and without stalling the daemon; a bill never below zero;
void, reopen, reversal, refund and items, each appended with who; the
version check of two phones on one table; the daily CSV that adds up by
column."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from baulk.host.club import money, tariffs
from tests.host.club.test_sessions import get, play_a_frame, post, start
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http

pytestmark = pytest.mark.slow
MIN = 60_000
SLACK = 20_000  # the test's own seconds, kept out of a rounding step


def club(**kw: Any) -> tariffs.Billing:
    return tariffs.parse(
        {
            "billing": {"timezone": "UTC", **kw},
            "tariff": [
                {
                    "name": "club",
                    "currency": "IRT",
                    "per_hour": 60_000,
                    "per_frame": 10_000,
                    "minimum_min": 30,
                    "round_min": 5,
                }
            ],
            "item": [
                {"name": "Tea", "name_fa": "چای", "price": 20_000},
                {"name": "Pint", "price": 3, "currency": "GBP"},
            ],
        },
        {"t1"},
    )


# Who acted is the signed-in account, never a name in the body: each person
# here acts with an API token of his own, named after him.
STAFF = {"Sara": "desk", "Reza": "desk", "Owner": "owner"}
TOKENS: dict[str, str] = {}


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[tuple[DaemonThread, DevicePeer]]:
    d, peer = start(tmp_path, billing_config=club())
    for name, role in STAFF.items():
        status, made = http(d.url + "/api/staff/tokens", {"name": name, "role": role}, TOKEN)
        assert status == 200, made
        TOKENS[name] = made["token"]
    yield d, peer
    d.stop()
    peer.stop()


def post_as(who: str, d: DaemonThread, path: str, body: Any = None) -> Any:
    return post(d, path, body, token=TOKENS[who])


def open_one(d: DaemonThread, who: str = "Sara") -> dict[str, Any]:
    status, reply = post_as(who, d, "/api/tables/t1/session")
    assert status == 200, reply
    bill: dict[str, Any] = reply["bill"]
    return bill


def rows_of(d: DaemonThread) -> int:
    assert d.daemon is not None
    db = d.daemon.reader.db
    return int(
        db.execute(
            "SELECT (SELECT count(*) FROM bill_corrections) + (SELECT count(*) FROM bill_items) "
            "+ (SELECT count(*) FROM session_marks)"
        ).fetchone()[0]
    )


def test_bad_amounts_and_text_are_refused_at_once_and_change_nothing(
    venue: tuple[DaemonThread, DevicePeer], monkeypatch: pytest.MonkeyPatch
) -> None:
    d, _ = venue
    # "At once" is what the daemon does, not how long a busy machine takes:
    # every amount that reaches the desk's arithmetic (money.parse, called in
    # the daemon's thread of this process) is counted, and none may be
    # longer than an amount's text can be, so no huge number is ever built.
    parsed: list[object] = []
    real_parse = money.parse

    def counted(value: object, *args: Any) -> int:
        parsed.append(value)
        return real_parse(value, *args)

    monkeypatch.setattr(money, "parse", counted)
    sid = open_one(d)["session_id"]
    path = f"/api/sessions/{sid}/corrections"
    # 400: the body breaks its model (host/web/request_models.py); 409: a rule
    # of the state, here the bill's total and its currency's range
    cases: list[tuple[Any, int, str]] = [
        ({"amount": 1e308, "reason": "x"}, 400, "must be a plain decimal number"),
        ({"amount": "1e999997", "reason": "x"}, 400, "must be a plain decimal number"),
        ({"amount": "9" * 15_000, "reason": "x"}, 400, "must be a plain decimal number"),
        ({"amount": 10**13, "reason": "x"}, 400, "must be a plain decimal number"),
        ({"amount": "10000000000000", "reason": "x"}, 409, "must be from"),
        ({"amount": "-100000000", "reason": "extra zeros"}, 409, "below zero"),
        ({"amount": -5000, "reason": "x", "payer": "p" * 15_000}, 400, "payer is longer than 48"),
        ({"amount": -5000, "reason": "x", "payer": "Ali\x00"}, 400, "payer must not hold control"),
        ({"amount": -5000, "reason": "x", "payer": "Ali\x1b[2J"}, 400, "payer must not hold"),
        ({"amount": -5000, "reason": "x", "payer": "\u202eilA"}, 400, "payer must not hold"),
        ({"amount": -5000, "reason": "r" * 201}, 400, "reason is longer than 200"),
        ({"amount": -5000, "reason": "x", "version": 7}, 400, "version must be"),
    ]
    for body, code, words in cases:
        parsed.clear()
        status, error = post(d, path, body)
        assert status == code and words in error["error"], (body, error)
        # a broken body (400) is refused by its model before the handler
        # runs; a rule of the state (409) reads an amount of bounded text
        assert len(parsed) == (1 if code == 409 else 0), (body, parsed)
        assert all(len(str(v)) <= money.TEXT_MOST for v in parsed), (body, parsed)
    assert rows_of(d) == 0  # nothing reached the store
    # a 60,000 bill takes a 5,000 discount, and the minus where CLDR puts it
    status, ok = post(d, path, {"amount": "-5000", "reason": "regular customer"})
    assert status == 200 and ok["bill"]["total"] == 25_000  # 30 min minimum = 30,000
    assert ok["receipt"]["fa"]["rows"][-1]["amount"] == "\u200e−۵٬۰۰۰ تومان"
    # and in Persian the refusal is Persian
    status, fa = http(d.url + path + "?lang=fa", {"amount": "lots", "reason": "x"}, token=TOKEN)
    assert status == 400 and fa["message"].startswith("مبلغ باید عددی ساده باشد")


def test_void_reopen_reverse_refund_and_items_are_appended_with_who(
    venue: tuple[DaemonThread, DevicePeer],
) -> None:
    d, peer = venue
    assert d.daemon is not None
    clock = d.daemon.sessions.clock
    bill = open_one(d, "Sara")
    sid = bill["session_id"]
    play_a_frame(peer, d, 10_000)
    clock.advance(20 * MIN)
    # items: from the price list, in the table's currency only
    # not on the price list, priced in another currency: the state's (409)
    assert post(d, f"/api/sessions/{sid}/items", {"item": "Pint"})[0] == 409
    assert post(d, f"/api/sessions/{sid}/items", {"item": "Caviar"})[0] == 409
    assert post(d, f"/api/sessions/{sid}/items", {"item": "Tea", "quantity": 99})[0] == 400
    status, r = post_as("Sara", d, f"/api/sessions/{sid}/items", {"item": "Tea", "quantity": 2})
    assert status == 200 and r["bill"]["items_total"] == 40_000
    item_id = r["bill"]["items"][0]["id"]
    status, r = post_as("Sara", d, f"/api/sessions/{sid}/items/{item_id}/take-back", {})
    assert status == 200 and r["bill"]["items_total"] == 0
    assert post(d, f"/api/sessions/{sid}/items/{item_id}/take-back", {})[0] == 409  # once
    post(d, f"/api/sessions/{sid}/items", {"item": "Tea"})
    # close at 20 minutes: the 30-minute minimum, a frame, a tea
    status, closed = post_as("Sara", d, f"/api/sessions/{sid}/close", {})
    assert status == 200 and closed["bill"]["total"] == 30_000 + 10_000 + 20_000
    # reopened: it runs on from its first open, one minimum
    clock.advance(2 * MIN)
    status, r = post_as("Sara", d, f"/api/sessions/{sid}/reopen", {"reason": "still playing"})
    assert status == 200 and r["bill"]["open"]
    assert post(d, "/api/tables/t1/session")[0] == 409  # it is the table's open session
    clock.advance(18 * MIN - SLACK)  # 40 minutes since it opened
    status, closed = post_as("Reza", d, f"/api/sessions/{sid}/close", {})
    bill = closed["bill"]
    assert bill["billed_minutes"] == 40 and bill["total"] == 40_000 + 10_000 + 20_000
    assert (bill["opened_by"], bill["closed_by"]) == ("Sara", "Reza")
    # a correction and its reversal, a refund
    status, r = post(d, f"/api/sessions/{sid}/corrections", {"amount": 5000, "reason": "a pint"})
    fix_id = r["bill"]["corrections"][0]["id"]
    status, r = post_as(
        "Owner", d, f"/api/sessions/{sid}/corrections/{fix_id}/reverse", {"reason": "it was a tea"}
    )
    # a desk clerk may not take money back for good: the owner's
    assert (
        post_as("Sara", d, f"/api/sessions/{sid}/refunds", {"amount": 1, "reason": "x"})[0] == 403
    )
    assert status == 200 and r["bill"]["total"] == 70_000
    assert post(d, f"/api/sessions/{sid}/corrections/{fix_id}/reverse", {"reason": "x"})[0] == 409
    assert post(d, f"/api/sessions/{sid}/refunds", {"amount": 80_000, "reason": "x"})[0] == 409
    status, r = post(d, f"/api/sessions/{sid}/refunds", {"amount": "20000", "reason": "cold tea"})
    assert status == 200 and r["bill"]["total"] == 50_000 and r["bill"]["refunds_total"] == -20_000
    # void (the owner's): nothing to pay, and nothing changes on it afterwards
    status, r = post_as("Owner", d, f"/api/sessions/{sid}/void", {"reason": "wrong table"})
    assert status == 200 and r["bill"]["state"] == "void" and r["bill"]["total"] == 0
    assert post(d, f"/api/sessions/{sid}/corrections", {"amount": 1, "reason": "x"})[0] == 409
    assert post(d, f"/api/sessions/{sid}/reopen", {})[0] == 409
    kinds = [(m["kind"], m["who"]) for m in r["bill"]["marks"]]
    assert kinds == [("close", "Sara"), ("reopen", "Sara"), ("close", "Reza"), ("void", "Owner")]
    assert [c["kind"] for c in r["bill"]["corrections"]] == ["correction", "reversal", "refund"]
    assert [c["who"] for c in r["bill"]["corrections"]] == ["operator", "Owner", "operator"]
    history = r["receipt"]["en"]["history"]
    assert len(history) == 1 + 4 + 3 + 3  # opened, the marks, the corrections, the items
    # the operator token's built-in name is said in the receipt's language
    said = ["".join(p if isinstance(p, str) else p["name"] for p in h["parts"]) for h in history]
    assert any(line.endswith(" by the operator") for line in said), said
    persian = r["receipt"]["fa"]["history"]
    flat = ["".join(p if isinstance(p, str) else p["name"] for p in h["parts"]) for h in persian]
    assert any(line.endswith(" به دست اپراتور") for line in flat), flat
    assert not any("operator" in line for line in flat)


def test_a_tap_on_an_older_view_is_refused_the_table_changed(
    venue: tuple[DaemonThread, DevicePeer],
) -> None:
    d, _ = venue
    bill = open_one(d)
    sid, seen = bill["session_id"], bill["version"]
    # phone A adds an item; phone B, still showing the bill before it, closes
    status, a = post(d, f"/api/sessions/{sid}/items", {"item": "Tea", "version": seen})
    assert status == 200 and a["bill"]["version"] != seen
    status, b = post(d, f"/api/sessions/{sid}/close", {"version": seen})
    assert status == 409 and b["error"] == "the table changed: look again"
    status, stored = get(d, f"/api/sessions/{sid}")
    assert stored["bill"]["open"]  # nothing changed
    status, b = post(d, f"/api/sessions/{sid}/close", {"version": a["bill"]["version"]})
    assert status == 200 and not b["bill"]["open"]


def test_the_daily_csv_adds_up_by_column(venue: tuple[DaemonThread, DevicePeer]) -> None:
    d, peer = venue
    assert d.daemon is not None
    clock = d.daemon.sessions.clock
    first = open_one(d, "Sara")["session_id"]
    play_a_frame(peer, d, 10_000)
    clock.advance(35 * MIN - SLACK)
    post(d, f"/api/sessions/{first}/items", {"item": "Tea"})
    post_as("Sara", d, f"/api/sessions/{first}/close", {})
    second = open_one(d, "Reza")["session_id"]
    clock.advance(50 * MIN - SLACK)
    post_as("Reza", d, f"/api/sessions/{second}/close", {})
    post(d, f"/api/sessions/{second}/corrections", {"amount": -5000, "reason": "late start"})
    status, text = http_text(d, "/api/reports/day.csv")
    assert status == 200
    rows = list(csv.reader(io.StringIO(text)))
    head = rows[0]
    blank = rows.index([])
    sessions, totals = rows[1:blank], rows[blank + 1 :]
    venue_rows = [r for r in totals if r[1] == "Venue"]
    assert len(sessions) == 2 and len(venue_rows) == 1
    # by hand: 35 min -> 35 billed (35,000) + a frame 10,000 + tea 20,000 = 65,000;
    # 50 min -> 50,000 - 5,000 = 45,000.  110,000 in all.
    col = {name: i for i, name in enumerate(head)}
    assert [r[col["total"]] for r in sessions] == ["65000", "45000"]
    assert venue_rows[0][col["total"]] == "110000"
    for name in (
        "minutes_open",
        "minutes_billed",
        "minutes_in_play",
        "frames",
        "charged",
        "items",
        "corrections",
        "refunds",
        "void",
        "total",
    ):
        column = [r[col[name]] for r in sessions]
        assert sum(float(x) for x in column) == float(venue_rows[0][col[name]]), name
    # every money row adds up across too
    money = ("charged", "items", "corrections", "refunds", "void")
    for r in [*sessions, *venue_rows]:
        assert sum(float(r[col[m]]) for m in money) == float(r[col["total"]])
    assert [(r[col["opened_by"]], r[col["closed_by"]]) for r in sessions] == [
        ("Sara", "Sara"),
        ("Reza", "Reza"),
    ]


def http_text(d: DaemonThread, path: str) -> tuple[int, str]:
    import urllib.request

    req = urllib.request.Request(d.url + path, headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return int(r.status), r.read().decode("utf-8")


@pytest.mark.parametrize("written", ["%C2%B2", "%DB%B1", "1%C2%B2", "9" * 13])
def test_an_id_that_is_not_plain_digits_is_no_row_and_no_traceback(
    venue: tuple[DaemonThread, DevicePeer], written: str, caplog: pytest.LogCaptureFixture
) -> None:
    # '²' passes str.isdigit() and int() refuses it (it logged a traceback in
    # the activity log's write); '۱' int() takes as 1, which nobody wrote.
    d, _ = venue
    open_one(d)
    for path in (f"/api/sessions/{written}/close", f"/api/staff/tokens/{written}/revoke"):
        status, reply = post_as("Owner", d, path, {})
        assert status == 404, (path, reply)
    status, reply = get(d, "/api/sessions/1")
    assert reply["bill"]["open"]  # session 1 was not closed by '۱'
    assert not [r for r in caplog.records if r.exc_info], caplog.text
