"""The activity log reads as sentences in the reader's language: every route
of the role table that changes anything has its action's sentence in English
and in Persian, an old row logged by its route pattern reads as that route's
sentence, a money action says its amount as every amount is said, an action
the table never answered in time reads as its sentence, queued, and every row
about a session carries its table, so the table filter finds a table's money."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from baulk.host.club.money import Amount, fmt, parse
from baulk.host.sentences import Message, kept, say, unkept
from baulk.host.staff import activity
from baulk.host.staff.roles import ROUTES, SAFE_METHODS
from baulk.host.web.staff_pages import sentence, sentence_text
from baulk.host.web.words import words
from tests.host.club.test_desk_api import post_as, venue  # noqa: F401 (fixture)
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, make_config, wait_for

LATIN = re.compile(r"[A-Za-z]")


def test_every_changing_route_has_a_sentence_in_both_languages() -> None:
    changing = [pattern for (method, pattern) in ROUTES if method not in SAFE_METHODS]
    assert len(changing) > 20
    missing = [p for p in changing if p not in activity.ACTIONS]
    assert missing == [], "routes logged by their pattern, not a sentence"
    keys = {activity.sentence_key(n) for n in activity.SENTENCE_NAMES} | {"did_command"}
    table = words()
    for key in keys:
        assert key in table["en"] and key in table["fa"], key
        en, fa = table["en"][key], table["fa"][key]
        assert not LATIN.search(re.sub(r"\{[a-z]+\}", "", fa)), (key, fa)
        assert set(re.findall(r"\{[a-z]+\}", en)) == set(re.findall(r"\{[a-z]+\}", fa)), key
    # a money action's words with its amount, both languages
    for name in activity.MONEY_NAMES:
        key = activity.sentence_key(name) + "_amount"
        assert "{amount}" in table["en"][key] and "{amount}" in table["fa"][key], key
        assert not LATIN.search(re.sub(r"\{[a-z]+\}", "", table["fa"][key])), key
        plain = set(re.findall(r"\{[a-z]+\}", table["en"][activity.sentence_key(name)]))
        assert set(re.findall(r"\{[a-z]+\}", table["en"][key])) == plain | {"{amount}"}, key
        assert set(re.findall(r"\{[a-z]+\}", table["fa"][key])) == plain | {"{amount}"}, key
    # every action word the page's action column shows, both languages
    for name in activity.SENTENCE_NAMES | {"command"}:
        key = "action_" + re.sub(r"[ -]", "_", name)
        assert key in table["en"] and key in table["fa"], key


def row(action: str, what: str, table: str | None = "t1", session: int | None = 3) -> Any:
    return {"action": action, "what": what, "table_id": table, "session_id": session}


@pytest.mark.parametrize(
    ("r", "en", "fa"),
    [
        (
            # written before the route had a name: read as its sentence
            row(
                "POST /api/sessions/{session}/items",
                'POST /api/sessions/3/items {"item":"Tea","quantity":2}',
            ),
            "Added 2 × Tea to session 3 on t1",
            "۲ × \u2068Tea\u2069 به جلسهٔ ۳ روی \u2068t1\u2069 افزود",
        ),
        (
            row(
                "user add",
                'POST /api/staff/users {"name":"Dina","role":"desk","pin":"***"}',
                None,
                None,
            ),
            "Added the account Dina (desk)",
            "حساب \u2068Dina\u2069 (پیشخوان) را افزود",
        ),
        (
            row("undo", 'POST /api/tables/t1/command {"ev":"undo"}', "t1", None),
            "Sent undo to t1",
            "برگرداندن را به \u2068t1\u2069 فرستاد",
        ),
        (
            row("command", "POST /api/tables/t1/command", "t1", None),
            "Sent command to t1",
            "فرمان را به \u2068t1\u2069 فرستاد",
        ),
        (
            row("session void", 'POST /api/sessions/3/void {"reason":"x","undo":true}'),
            "Undid the void of session 3 on t1",
            "باطل شدن جلسهٔ ۳ روی \u2068t1\u2069 را برگرداند",
        ),
        (
            row("item take-back", "POST /api/sessions/3/items/7/take-back {}"),
            "Took back item line 7 of session 3 on t1",
            "ردیف ۷ اقلام جلسهٔ ۳ روی \u2068t1\u2069 را پس گرفت",
        ),
    ],
)
def test_a_row_reads_as_a_sentence(r: Any, en: str, fa: str) -> None:
    assert sentence_text(r, "en") == en
    assert sentence_text(r, "fa") == fa


def _log(d: DaemonThread, query: str) -> dict[str, Any]:
    status, got = http(d.url + "/api/staff/activity?" + query, None, TOKEN)
    assert status == 200, got
    return dict(got)


def test_the_table_filter_finds_a_sessions_money(
    venue: tuple[DaemonThread, DevicePeer],  # noqa: F811
) -> None:
    d, _ = venue
    status, opened = post_as("Sara", d, "/api/tables/t1/session")
    assert status == 200, opened
    n = opened["bill"]["session_id"]
    status, got_tea = post_as("Sara", d, f"/api/sessions/{n}/items", {"item": "Tea", "quantity": 1})
    assert status == 200, got_tea
    status, got = post_as(
        "Owner", d, f"/api/sessions/{n}/corrections", {"amount": -5000, "reason": "late start"}
    )
    assert status == 200, got
    status, got = post_as("Owner", d, f"/api/sessions/{n}/void", {"reason": "test"})
    assert status == 200, got

    def money() -> list[dict[str, Any]]:
        rows = _log(d, "table=t1&limit=100")["rows"]
        return [r for r in rows if r["session_id"] == n]

    rows = wait_for(lambda: len(money()) >= 3 and money(), what="the session's rows")
    assert {r["action_name"] for r in rows} >= {"item_add", "correction", "session_void"}
    assert all(r["table_id"] == "t1" for r in rows)
    said = {"".join(p if isinstance(p, str) else p["name"] for p in r["sentence"]) for r in rows}
    # each money action with its amount, as every amount is said
    cur = got_tea["bill"]["currency"]
    price = fmt(got_tea["bill"]["items"][0]["price"], cur, "en")
    assert f"Added 1 × Tea ({price}) to session {n} on t1" in said
    assert f"Corrected the bill of session {n} on t1 by {fmt(parse(-5000, cur), cur, 'en')}" in said
    fa = [r for r in _log(d, "table=t1&limit=100&lang=fa")["rows"] if r["session_id"] == n]
    for r in fa:
        text = "".join(p for p in r["sentence"] if isinstance(p, str))
        assert not LATIN.search(text), r["sentence"]
    said_fa = " ".join("".join(p for p in r["sentence"] if isinstance(p, str)) for r in fa)
    assert fmt(parse(-5000, cur), cur, "fa") in said_fa, said_fa
    # and no other table's filter has them
    status, other = http(d.url + "/api/staff/activity?table=t9&limit=100", None, TOKEN)
    assert status != 200 or all(r["session_id"] != n for r in other["rows"])
    assert sentence(rows[0], "en")


# Session 3's money rows, as the store holds them (host/store/club_queries.py).
SESSION_3 = activity.SessionMoney(
    "IRT",
    items=[
        {"id": 7, "created_wall_ms": 1_000, "item": "Tea", "price": 20_000, "quantity": 2,
         "reverses": None},
        {"id": 8, "created_wall_ms": 3_000, "item": "Tea", "price": 25_000, "quantity": 1,
         "reverses": None},
    ],
    corrections=[{"id": 4, "amount": -5_000}],
)  # fmt: skip


@pytest.mark.parametrize(
    ("r", "en", "fa"),
    [
        (
            # the price of the moment: 20,000 then (25,000 from a later line)
            {**row("item add", 'POST /api/sessions/3/items {"item":"Tea","quantity":2}'),
             "wall_ms": 2_000},
            "Added 2 × Tea (40,000 Toman) to session 3 on t1",
            "۲ × \u2068Tea\u2069 (۴۰٬۰۰۰ تومان) به جلسهٔ ۳ روی \u2068t1\u2069 افزود",
        ),
        (
            row("item take-back", "POST /api/sessions/3/items/7/take-back {}"),
            "Took back item line 7 (-40,000 Toman) of session 3 on t1",
            "ردیف ۷ اقلام (\u200e\u2212۴۰٬۰۰۰ تومان) جلسهٔ ۳ روی \u2068t1\u2069 را پس گرفت",
        ),
        (
            row("correction", 'POST /api/sessions/3/corrections {"amount":"-5000","reason":"x"}'),
            "Corrected the bill of session 3 on t1 by -5,000 Toman",
            "صورت‌حساب جلسهٔ ۳ روی \u2068t1\u2069 را به اندازهٔ \u200e\u2212۵٬۰۰۰ تومان اصلاح کرد",
        ),
        (
            row("correction take-back", "POST /api/sessions/3/corrections/4/reverse {}"),
            "Took back correction 4 (5,000 Toman) of session 3 on t1",
            "اصلاح ۴ (۵٬۰۰۰ تومان) جلسهٔ ۳ روی \u2068t1\u2069 را پس گرفت",
        ),
        (
            row("refund", 'POST /api/sessions/3/refunds {"amount":12000,"reason":"x"}'),
            "Refunded 12,000 Toman on session 3 on t1",
            "۱۲٬۰۰۰ تومان از جلسهٔ ۳ روی \u2068t1\u2069 پس داد",
        ),
    ],
)  # fmt: skip
def test_a_money_action_says_its_amount(r: Any, en: str, fa: str) -> None:
    assert sentence_text(r, "en", SESSION_3) == en
    assert sentence_text(r, "fa", SESSION_3) == fa
    # each amount as every amount is said (host/club/money.py fmt)
    assert any(fmt(n, "IRT", "fa") in fa for n in (40_000, -40_000, -5_000, 5_000, 12_000))


def test_an_amount_the_rows_do_not_tell_is_left_out() -> None:
    # a correction refused as typed, a line that is not the session's
    typed = row("correction", 'POST /api/sessions/3/corrections {"amount":"5 toman","reason":"x"}')
    assert sentence_text(typed, "en", SESSION_3) == "Corrected the bill of session 3 on t1"
    gone = row("item take-back", "POST /api/sessions/3/items/99/take-back {}")
    assert sentence_text(gone, "en", SESSION_3) == "Took back item line 99 of session 3 on t1"


SET_UP = {"en": "Set up a match on t1", "fa": "مسابقه‌ای روی \u2068t1\u2069 شروع کرد"}


@pytest.mark.slow
def test_an_action_the_table_never_answered_reads_as_its_sentence_queued(tmp_path: Path) -> None:
    # The timeout path: no table answers on the link (none is there), so no
    # answer comes in time and the action is stored and queued (202); its
    # row of the log reads as the action's sentence, its result "queued".
    d = DaemonThread(make_config(tmp_path, {"t1": tmp_path / "ttyT1"})).start()
    try:
        body = {"players": ["Ali", "Reza"], "best_of": 3}
        status, reply = http(d.url + "/api/tables/t1/match", body, TOKEN)
        assert status == 202 and reply["status"] == "queued", reply
        d.flush()
        wait_for(
            lambda: any(r["action"] == "match set-up" for r in _log(d, "")["rows"]),
            what="the set-up's row",
        )
        for lang, said in SET_UP.items():
            (r,) = [r for r in _log(d, f"lang={lang}")["rows"] if r["action"] == "match set-up"]
            assert r["result"] == "queued" and r["table_id"] == "t1", r
            assert sentence_text(r, lang) == said
    finally:
        d.stop()


def test_a_refusal_is_kept_by_its_id_and_values(
    venue: tuple[DaemonThread, DevicePeer],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A refused request's row keeps its sentence by id and values: the page
    says it in the reader's language from the catalogue, and never reads
    the English back (a row of an older baulk, with its English alone, still
    is)."""
    d, _ = venue
    status, refused = post_as("Owner", d, "/api/sessions/987654/void", {"reason": "test"})
    assert 400 <= status < 500, refused
    msgid = refused["id"]

    def kept_rows() -> list[dict[str, Any]]:
        assert d.daemon is not None
        rows = d.daemon.reader.db.execute(
            "SELECT why, why_said FROM staff_activity WHERE what LIKE '%987654%'"
        ).fetchall()
        return [{"why": w, "why_said": s} for w, s in rows]

    (kept_row,) = wait_for(kept_rows, what="the refusal's row")
    said = unkept(kept_row["why_said"])
    assert said is not None and said.msgid == msgid, kept_row
    assert str(said) == kept_row["why"] == refused["error"]

    def no_reading_back(text: str) -> Any:
        raise AssertionError(f"read back: {text!r}")

    monkeypatch.setattr(activity, "read_back", no_reading_back)
    rows = [r for r in _log(d, "limit=100&lang=fa")["rows"] if "987654" in r["what"]]
    assert rows and rows[0]["why_text"] == say(said, "fa"), rows
    assert "why_said" not in rows[0]
    assert activity.why_in(kept_row, "en") == refused["error"]
    monkeypatch.undo()
    # an older baulk's row: its English alone, read back by the templates
    old = {"why": refused["error"], "why_said": None}
    assert activity.why_in(old, "fa") == say(said, "fa")


def test_a_kept_sentence_comes_back_as_it_went() -> None:
    nested = Message(
        "{what} must not hold emoji or symbols ({text}): "
        "the boards and the handset cannot draw them",
        what=Message("PIN"),
        text="U+1F600",
    )
    choice = Message("only {roles} may do this", roles=("owner", "desk"))
    amount = Message("session {n} is closed", n=Amount(-250, "EUR"))  # said its own way
    for m in (nested, choice, Message("session {n} is closed", n=3), amount):
        assert unkept(kept(m, 1000)) == m
    back = unkept(kept(amount, 1000))
    assert back is not None and say(back, "fa") == say(amount, "fa")
    assert kept("plain text", 1000) is None  # no id: the English alone
    assert kept(nested, 20) is None  # too long to keep: the English alone
    for bad in (None, "", "not json", '{"id": 3}', '{"id": "x {n}", "values": {}}', "[1]"):
        assert unkept(bad) is None, bad
