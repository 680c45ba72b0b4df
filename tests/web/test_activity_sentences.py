"""The activity log reads as sentences in the reader's language: every route
of the role table that changes anything has its action's sentence in English
and in Persian, an old row logged by its route pattern reads as that route's
sentence, and every row about a session carries its table, so the table
filter finds a table's money."""

from __future__ import annotations

import re
from typing import Any

import pytest

from baulk.host.staff import activity
from baulk.host.staff.roles import ROUTES, SAFE_METHODS
from baulk.host.web.staff_pages import sentence, sentence_text
from baulk.host.web.words import words
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, wait_for
from tests.host.test_desk_api import post_as, venue  # noqa: F401 (fixture)

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
    status, got = post_as("Sara", d, f"/api/sessions/{n}/items", {"item": "Tea", "quantity": 1})
    assert status == 200, got
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
    assert f"Added 1 × Tea to session {n} on t1" in said
    fa = [r for r in _log(d, "table=t1&limit=100&lang=fa")["rows"] if r["session_id"] == n]
    for r in fa:
        text = "".join(p for p in r["sentence"] if isinstance(p, str))
        assert not LATIN.search(text), r["sentence"]
    # and no other table's filter has them
    status, other = http(d.url + "/api/staff/activity?table=t9&limit=100", None, TOKEN)
    assert status != 200 or all(r["session_id"] != n for r in other["rows"])
    assert sentence(rows[0], "en")
