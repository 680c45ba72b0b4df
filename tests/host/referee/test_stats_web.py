"""The player registry's API and page, and the statistics' words, on a real
store file with the hand-worked match (aiohttp's test server: no daemon)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from baulk.firmware import names
from baulk.host.referee import reports
from baulk.host.referee import stats_html as h
from baulk.host.store import StoreReader
from baulk.host.store.frame_records import SOURCE_NAMES
from baulk.host.web import players, request_models
from tests.host.hand_worked_match import ALI, EVENTS, REZA
from tests.host.referee.test_stats import store_events

Check = Callable[[TestClient[Any, Any]], Awaitable[None]]


def with_client(store: Path, check: Check) -> None:
    async def run() -> None:
        # the players' routes with what holds their queries to their models,
        # as the daemon's app has it
        app = web.Application(middlewares=[request_models.queries])
        players.add_routes(app, store)
        async with TestClient(TestServer(app)) as client:
            await check(client)

    asyncio.run(run())


@pytest.fixture
def store(tmp_path: Path) -> Path:
    store_events(tmp_path / "s.sqlite", EVENTS)
    return tmp_path / "s.sqlite"


def test_search_for_the_match_form(store: Path) -> None:
    async def check(client: TestClient[Any, Any]) -> None:
        r = await client.get("/api/players", params={"q": "ali r"})
        body = await r.json()
        assert r.status == 200 and body["schema"] == 1
        assert [(p["key"], p["name"], p["matches"]) for p in body["players"]] == [
            ("alireza", ALI, 1)
        ]
        assert body["players"][0]["page"] == "/player/alireza"
        r = await client.get("/api/players", params={"q": "رض"})
        assert [p["name"] for p in (await r.json())["players"]] == [REZA]
        r = await client.get("/api/players", params={"q": "nobody"})
        assert (await r.json())["players"] == []

    with_client(store, check)


@pytest.mark.parametrize(
    ("query", "needle"),
    [
        ({"q": "x" * 101}, "at most 100"),
        ({"q": "a\x01b"}, "none of them a control one"),
        ({"limit": "ten"}, "limit must be a whole number from 1 to 100"),
        ({"limit": "0"}, "limit must be a whole number from 1 to 100"),
        ({"limit": "101"}, "limit must be a whole number from 1 to 100"),
    ],
)
def test_a_bad_search_gets_a_clear_error(store: Path, query: dict[str, str], needle: str) -> None:
    async def check(client: TestClient[Any, Any]) -> None:
        r = await client.get("/api/players", params=query)
        assert r.status == 400
        assert needle in (await r.json())["error"]

    with_client(store, check)


def test_a_player_by_any_spelling_and_an_unknown_one(store: Path) -> None:
    async def check(client: TestClient[Any, Any]) -> None:
        for spelling in ("alireza", "ALI  REZA", "Ali-Reza"):
            r = await client.get("/api/players/" + quote(spelling))
            body = await r.json()
            assert r.status == 200 and body["player"]["name"] == ALI
            assert body["statistics"]["visits"] == 4 and len(body["matches"]) == 1
        r = await client.get("/api/players/nobody")
        assert r.status == 404 and "no player 'nobody'" in (await r.json())["error"]
        r = await client.get("/player/nobody?lang=fa")
        assert r.status == 404 and "بازیکنی با این نام نیست" in await r.text()

    with_client(store, check)


def test_a_server_without_a_store_says_so(tmp_path: Path) -> None:
    # ``baulk board`` serves the boards from MQTT and keeps no store.
    async def check(client: TestClient[Any, Any]) -> None:
        r = await client.get("/api/players?q=a")
        assert r.status == 503 and "keeps no store" in (await r.json())["error"]
        r = await client.get("/player/ali")
        assert r.status == 503 and "keeps no match records" in await r.text()

    with_client(tmp_path / "missing.sqlite", check)
    assert not (tmp_path / "missing.sqlite").exists()


class Texts(HTMLParser):
    """Text of a page with Latin letters or digits outside <bdi>, <title> and the
    link to the other language."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.latin: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a" and ("class", "lang") in attrs:
            tag = "lang"  # the link to the other language, which says "English"
        if tag not in ("br", "meta", "link"):
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and "lang" in self.open and "a" not in self.open:
            tag = "lang"
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag) :]

    def handle_data(self, data: str) -> None:
        if {"bdi", "title", "style", "lang"} & set(self.open) or "head" in self.open:
            return
        if any(c.isascii() and c.isalnum() for c in data):
            self.latin.append(data.strip())


def latin_outside_bdi(page: str) -> list[str]:
    t = Texts()
    t.feed(page)
    return t.latin


def test_persian_pages_show_no_latin_outside_a_name(store: Path) -> None:
    reader = StoreReader(store)
    try:
        match_id = reader.matches()[0]["match_id"]
        report = reports.build(reader, match_id)
        assert report is not None
        fa = reports.html_page(report, "fa")
    finally:
        reader.close()
    assert 'dir="rtl"' in fa and latin_outside_bdi(fa) == []
    assert latin_outside_bdi(reports.html_page(report, "en")) != []  # the check sees Latin

    async def check(client: TestClient[Any, Any]) -> None:
        page = await (await client.get("/player/alireza?lang=fa")).text()
        assert "dir='rtl'" in page and latin_outside_bdi(page) == []

    with_client(store, check)


def test_every_word_in_both_languages() -> None:
    assert set(h.TEXT["en"]) == set(h.TEXT["fa"])
    for table, wanted in (
        (h.FOUL_NAMES, set(names.FOUL_KINDS)),
        (h.BALL_NAMES, set(names.BALLS)),
        (h.POCKET_NAMES, {*names.POCKETS, "none"}),
        (h.SOURCE_WORDS, set(SOURCE_NAMES)),
    ):
        assert set(table["en"]) == set(table["fa"]) == wanted
    # Persian words carry no Latin letter (a page would show one outside <bdi>).
    for table in (h.TEXT, h.FOUL_NAMES, h.BALL_NAMES, h.POCKET_NAMES, h.SOURCE_WORDS):
        for key, text in table["fa"].items():
            if key == "other_lang":
                continue  # the link to English says "English", inside a <bdi>
            shown = text.replace("{", "<").replace("}", ">")  # placeholders are filled in
            assert not any(c.isascii() and c.isalpha() for c in _strip_tags(shown)), key


def _strip_tags(text: str) -> str:
    out, inside = [], False
    for c in text:
        if c == "<":
            inside = True
        elif c == ">":
            inside = False
        elif not inside:
            out.append(c)
    return "".join(out)


def test_numbers_and_times_in_persian() -> None:
    assert h.num(5.5, "fa") == "۵٫۵" and h.num(6.0, "fa") == "۶" and h.num(1234, "fa") == "۱۲۳۴"
    assert h.clock(160_000, "en") == "2:40" and h.clock(3_725_000, "fa") == "۱:۰۲:۰۵"
    assert h.seconds(10_000, "en") == "10 s" and h.seconds(8_500, "fa") == "۸٫۵ ثانیه"
