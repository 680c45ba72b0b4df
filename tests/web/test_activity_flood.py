"""The activity log cannot be flooded or misread (docs/VENUE.md, "Staff"):
whatever strangers do, from however many addresses (wrong and held-back
sign-ins, names that are no account, actions without a sign-in, wrong
tokens), the log takes at most ``activity.ROWS_A_MINUTE_MOST`` rows of them
a minute, counts every one, and shows a tried name as tried, never as the
account's own action.  The day's page shows the newest rows first, so the
owner's own action after the flood is on its first page; the CSV has every
row of the day."""

from __future__ import annotations

import csv
import http.client
import io
import json
import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from baulk.host.staff import activity
from baulk.host.web import auth
from baulk.host.web.http import THROTTLE_KEY
from tests.host.harness import DaemonThread, morning
from tests.web.client import Browser
from tests.web.test_signin import PASSWORD, activity_rows, add, signed

# A daemon of its own, argon2, and some thousands of requests: make test.
pytestmark = pytest.mark.slow

ADDRESSES = [f"127.0.0.{n}" for n in range(21, 29)]  # eight strangers
MINUTES = 3
ROUNDS = 20  # each address sends each kind of request this many times a minute


def _send(d: DaemonThread, source: str, path: str, body: Any, headers: dict[str, str]) -> int:
    """One request from ``source`` (an address of the loopback network: the
    daemon sees it as the stranger's own)."""
    host, port = d.url.split("//")[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30, source_address=(source, 0))
    try:
        sent = {"Content-Type": "application/json", **headers}
        conn.request("POST", path, body=json.dumps(body).encode(), headers=sent)
        r = conn.getresponse()
        r.read()
        return r.status
    finally:
        conn.close()


# What a stranger tries: (path, body, headers)
TRIES: list[tuple[str, dict[str, Any], dict[str, str]]] = [
    ("/console/signin", {"name": "Omid", "password": "not his password"}, {}),
    ("/console/signin", {"name": "omid ", "password": "nor this one"}, {}),  # the same account
    ("/console/signin", {"name": "Dina", "pin": "0000"}, {}),
    ("/console/signin", {"name": "nobody", "password": "whatever it is"}, {}),
    ("/console/signin", {"token": "a guessed operator token"}, {}),
    ("/api/tables/t1/command", {"ev": "undo"}, {}),
    ("/api/staff/users", {"name": "Mallory", "role": "owner"}, {"Authorization": "Bearer guess"}),
    ("/console/signout", {}, {}),
]


def _flood(d: DaemonThread, source: str) -> Counter[int]:
    got: Counter[int] = Counter()
    for _ in range(ROUNDS):
        for path, body, headers in TRIES:
            got[_send(d, source, path, body, headers)] += 1
    return got


SUMMED = re.compile(r"(\d+) requests without a credential, summed up")


def _summed(what: str) -> int:
    found = SUMMED.fullmatch(what)
    assert found is not None, what
    return int(found.group(1))


def test_a_flood_from_eight_addresses_stays_within_the_cap_and_the_owner_is_on_page_one(
    daemon: DaemonThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    d = daemon
    assert d.daemon is not None and d.web is not None
    # The 429's half-second pause slows a guesser; here it would only slow the test.
    monkeypatch.setattr(auth, "PAUSE_S", 0.0)
    clock = d.daemon.sessions.clock
    morning(clock, d.cfg.billing.timezone)  # the whole flood within one business day
    add(d, "Omid", "owner")
    add(d, "Dina", "desk", pin="2468")
    owner = Browser(d.url)
    headers = signed(owner, {"name": "Omid", "password": PASSWORD})  # his own phone, before
    sent: Counter[int] = Counter()
    for _ in range(MINUTES):
        clock.advance(60_000 - clock.mono_ms() % 60_000)  # the flood starts a minute
        with ThreadPoolExecutor(len(ADDRESSES)) as pool:
            for got in pool.map(lambda a: _flood(d, a), ADDRESSES):
                sent += got
    strangers = sum(sent.values())
    assert strangers == len(ADDRESSES) * ROUNDS * len(TRIES) * MINUTES
    assert sent[429] > 0 and sent[401] > 0  # held back and refused, both
    guessing = d.web.runner.app[THROTTLE_KEY]
    assert guessing.held > 0
    # After the flood the owner acts, from his phone: the minute over is
    # summed up as his action comes in.
    clock.advance(60_000)
    made = owner.send(
        "POST", "/api/staff/tokens", {"name": "scoreboard", "role": "referee"}, headers
    )
    assert made.status == 200, made.body
    d.flush()
    rows = activity_rows(d.cfg.store_path)
    theirs = [r for r in rows if r["who"] is None]
    by_minute = Counter(r["mono_ms"] // 60_000 for r in theirs)
    assert len(by_minute) >= MINUTES
    assert max(by_minute.values()) <= activity.ROWS_A_MINUTE_MOST, by_minute
    # every request is counted: logged one by one, or in a summing-up row
    one_by_one = [r for r in theirs if r["action"] != "refusals"]
    summed = [r for r in theirs if r["action"] == "refusals"]
    counted = sum(_summed(r["what"]) for r in summed)
    assert len(one_by_one) + counted == strangers
    # summed up by the name tried, the account's however it was typed
    omid = [r for r in summed if (r["tried"] or "").casefold() == "omid"]
    assert len(omid) >= MINUTES
    assert all("held back, from 8 addresses: not logged one by one" in r["why"] for r in omid)
    # a name tried is never who acted: only the owner's own rows name him
    assert {r["action"] for r in rows if r["who"] == "Omid"} == {"sign-in", "token add"}
    assert any(r["tried"] == "Omid" and r["action"] == "sign-in" for r in one_by_one)
    # The page: the newest rows first, his action on the first page.
    page = owner.send("GET", "/api/staff/activity", None, headers).body
    assert page["rows"][0]["who"] == "Omid" and page["rows"][0]["action"] == "token add"
    assert page["count"] == len(rows)
    ids = [r["id"] for r in page["rows"]]
    assert ids == sorted(ids, reverse=True)
    assert "Omid" in page["people"] and "nobody" not in page["people"]
    # ... and pages through the rest, each row once
    seen: list[int] = []
    after: int | None = None
    while True:
        more = owner.send(
            "GET", "/api/staff/activity?limit=50" + (f"&before={after}" if after else ""),
            None, headers,
        )  # fmt: skip
        assert more.status == 200, more.body
        seen += [r["id"] for r in more.body["rows"]]
        after = more.body["next"]
        if after is None:
            break
    assert seen == [r["id"] for r in reversed(rows)]
    assert owner.send("GET", "/api/staff/activity?before=x1", None, headers).status == 400
    # A tried name reads as tried, in Persian too.
    fa = owner.send("GET", "/api/staff/activity?lang=fa&limit=1000", None, headers).body
    tried = next(
        r for r in fa["rows"] if r["tried"] in ("Omid", "omid") and r["action"] == "refusals"
    )
    assert tried["who"] is None and "از ۸ نشانی" in tried["why_text"]
    # The CSV has every row of the day.
    answer = owner.send("GET", "/api/staff/activity.csv", None, headers)
    assert answer.status == 200
    table = list(csv.reader(io.StringIO(answer.body)))
    assert table[0][:3] == ["time", "who", "tried"]
    assert len(table) - 1 == len(rows)
    print(
        f"\nactivity flood: {strangers} strangers' requests from {len(ADDRESSES)} addresses in "
        f"{MINUTES} minutes -> at most {max(by_minute.values())} rows a minute "
        f"(cap {activity.ROWS_A_MINUTE_MOST}); {len(theirs)} rows in all"
    )


def test_a_summing_up_row_counts_by_name_and_keeps_the_cap() -> None:
    """The cap by itself, with a clock of its own: a thousand names tried in
    a minute still make at most ROWS_A_MINUTE_MOST rows."""
    from baulk.host.club.clock import Stamp

    quiet = activity.QuietRefusals()
    logged = 0
    for i in range(5000):
        at = Stamp(1_000_000 + i, 60_000 + i, "boot")  # one minute
        logged += quiet.admit(at, f"name {i % 1500}", f"10.0.0.{i % 8}", i % 3 == 0)
    rows = quiet.due(120_000)  # the next minute: the one before is summed up
    assert logged == activity.QUIET_MOST
    assert len(rows) == activity.SUMMED_MOST + 1
    total = sum(_summed(r.values["what"]) for r in rows)
    assert logged + total == 5000
    assert rows[-1].values["tried"] is None and "under other names" in rows[-1].values["why"]
    assert all(r.values["who"] is None for r in rows)
    assert quiet.due(180_000) == []  # each once
