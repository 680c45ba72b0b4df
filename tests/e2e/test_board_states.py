"""Boards drawn from chosen states, each reached by the real rules engine
(tests/e2e/states.py): a 147, a 155 on a free ball, a foul with a miss and a
free ball, a re-spotted black, a match over, a foul that ended a frame, and
16 tables on the venue board.  In real headless Chromium with the CSP
enforced, English and Persian, at 1920x1080; screenshots in
tests/e2e/artifacts/."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.chromium import VIEWPORTS, expect, page_errors, shot
from tests.e2e.layout import problems
from tests.e2e.states import (
    LATIN,
    PERSIAN,
    Venue,
    breaker_wins_frame,
    foul_miss_free_ball,
    free_ball_155,
    in_play,
    maximum_147,
    respotted_black,
    scenario,
    venue,
)

pytestmark = pytest.mark.browser
TV = VIEWPORTS["1080p"]


@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Venue]:
    tables = {
        "max147": maximum_147(LATIN),
        "fb155": free_ball_155(PERSIAN),
        "foul": foul_miss_free_ball(LATIN),
        "respot": respotted_black(PERSIAN),
        # a foul on the last black ends frame 1 of 3: frame 2 starts at 0-0
        "lastfoul": scenario("foul_cue_on_last_black_ends_frame", players=LATIN, best_of=3),
        "snookers": scenario("snookers_required_reds_phase", players=LATIN),
        "long": [
            {"ev": "match", "players": LATIN, "best_of": 35},
            *[ev for _ in range(12) for ev in breaker_wins_frame()],
        ],
    }
    with venue(tmp_path_factory.mktemp("states"), tables) as v:
        yield v


@pytest.fixture
def tv(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=TV)
    yield context
    context.close()


def open_board(context: Any, v: Venue, table: str, lang: str) -> Any:
    page = context.new_page()
    errors = page_errors(page)
    page.goto(v.url + f"/table/{table}" + ("?lang=fa" if lang == "fa" else ""))
    expect(page.locator("#name0")).not_to_be_empty()
    page.evaluate("document.fonts.ready.then(() => true)")
    page.errors = errors
    return page


def box(page: Any, selector: str) -> dict[str, float]:
    b = page.locator(selector).bounding_box()
    assert b is not None, selector
    return dict(b)


def inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["y"] >= outer["y"] - 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5
    )


def assert_break_fits(page: Any, points: str, balls: int) -> None:
    """The whole break on one line, every ball in the break line and on the
    screen, nothing on top of the line below."""
    expect(page.locator("#break")).to_have_text(points)
    assert page.locator("#break-balls .ball").count() == balls
    line = box(page, ".breakline")
    for i in range(balls):
        ball = box(page, f"#break-balls .ball >> nth={i}")
        assert inside(ball, line), (i, ball, line)
        assert ball["width"] >= 20, ball  # still a ball a room can see (1080p)
    below = box(page, "#notice")
    assert line["y"] + line["height"] <= below["y"], (line, below)
    tops = {round(box(page, f"#break-balls .ball >> nth={i}")["y"]) for i in (0, balls - 1)}
    assert len(tops) == 1  # one line, no wrap


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_147_fits_and_the_match_won_is_announced(tv: Any, states: Venue, lang: str) -> None:
    page = open_board(tv, states, "max147", lang)
    fa = lang == "fa"
    assert_break_fits(page, "۱۴۷" if fa else "147", 36)
    notice = page.locator("#notice")
    expect(notice).to_have_attribute("data-kind", "match_won")
    expect(notice).to_contain_text("Ali Zand برنده‌ی مسابقه شد" if fa else "Ali Zand wins the match")
    # The match is over: no "Ball on" with nothing after it, no striker.
    expect(page.locator("#ball-on")).to_be_hidden()
    expect(page.locator("#remaining")).to_be_hidden()
    assert page.locator(".player.striker").count() == 0
    assert problems(page, fit=True) == []
    shot(page, f"state_147_{lang}_1080p")
    assert page.errors == []


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_155_on_a_free_ball_fits(tv: Any, states: Venue, lang: str) -> None:
    assert states.peers["fb155"].engine.state()["break"] == 155
    page = open_board(tv, states, "fb155", lang)
    # The free ball (green, as a red), its black, 15 reds and 15 blacks, 6 colours.
    assert_break_fits(page, "۱۵۵" if lang == "fa" else "155", 38)
    assert page.locator("#break-balls .ball").first.get_attribute("class") == "ball green"
    assert problems(page, fit=True) == []
    shot(page, f"state_155_{lang}_1080p")


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_foul_with_a_miss_and_a_free_ball(tv: Any, states: Venue, lang: str) -> None:
    page = open_board(tv, states, "foul", lang)
    fa = lang == "fa"
    notice = page.locator("#notice")
    expect(notice).to_have_attribute("data-kind", "foul")
    parts = notice.locator(".part")
    expect(parts.nth(0)).to_have_text(("خطا ۶ ← " if fa else "FOUL 6 → ") + "Reza Abbasi")
    expect(parts.nth(1)).to_have_text("برخورد اول به توپ نادرست" if fa else "wrong ball hit first")
    expect(parts.nth(2)).to_have_text("میس" if fa else "MISS")
    expect(parts.nth(3)).to_have_text("توپ آزاد" if fa else "FREE BALL")
    # The arrow points at the player who receives the points, in either direction.
    arrow = box(page, "#notice .arrow")
    name = box(page, "#notice .part >> nth=0 >> bdi")
    if fa:
        assert name["x"] + name["width"] <= arrow["x"]
    else:
        assert arrow["x"] + arrow["width"] <= name["x"]
    # Frames played: labelled, and each chip shows its winner.
    chips = page.locator("#history .chip")
    assert chips.count() == 3
    assert [chips.nth(i).get_attribute("data-winner") for i in range(3)] == ["0", "1", "0"]
    expect(chips.nth(1).locator(".won")).to_have_text("۸" if fa else "8")
    expect(page.locator("footer .label")).to_have_text("فریم‌ها" if fa else "Frames")
    expect(page.locator("#frames0")).to_have_text("۲" if fa else "2")
    expect(page.locator("#player0 .flabel")).to_have_text("فریم‌ها" if fa else "Frames")
    expect(page.locator("#ball-on")).to_contain_text("توپ آزاد" if fa else "Free ball")
    assert problems(page, fit=True) == []
    shot(page, f"state_foul_miss_free_ball_{lang}_1080p")


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_respotted_black(tv: Any, states: Venue, lang: str) -> None:
    page = open_board(tv, states, "respot", lang)
    notice = page.locator("#notice")
    expect(notice).to_have_attribute("data-kind", "respotted_black")
    expect(notice).to_have_text("سیاه دوباره روی خال" if lang == "fa" else "RE-SPOTTED BLACK")
    expect(page.locator("#ball-on .ball.black")).to_be_visible()
    expect(page.locator("#score0")).to_have_text("۳۷" if lang == "fa" else "37")
    expect(page.locator("#score1")).to_have_text("۳۷" if lang == "fa" else "37")
    assert problems(page, fit=True) == []
    shot(page, f"state_respotted_black_{lang}_1080p")


@pytest.mark.parametrize("size", ["1080p", "720p"])
def test_a_long_match_keeps_the_newest_frames_in_view(
    browser: Any, states: Venue, size: str
) -> None:
    context = browser.new_context(viewport=VIEWPORTS[size])
    try:
        page = open_board(context, states, "long", "en")
        chips = page.locator("#history .chip")
        expect(page.locator("#history .chip.more")).to_have_text("+5")
        assert chips.count() == 8  # "+5", then frames 6 to 12
        expect(chips.last).to_contain_text("12")
        assert problems(page, fit=True) == []
        shot(page, f"state_long_match_en_{size}")
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_snookers_needed_are_shown_big_beside_the_player(tv: Any, states: Venue, lang: str) -> None:
    page = open_board(tv, states, "snookers", lang)
    needs = page.locator("#needs1")
    expect(needs).to_have_text("به ۲ اسنوکر نیاز دارد" if lang == "fa" else "needs 2 snookers")
    expect(page.locator("#needs0")).to_be_hidden()
    size = float(needs.evaluate("(e) => parseFloat(getComputedStyle(e).fontSize)"))
    assert size >= 0.04 * TV["height"]  # 4.4 % of the screen's height: read across a room
    assert problems(page, fit=True) == []
    shot(page, f"state_snookers_{lang}_1080p")


def test_a_foul_that_ended_a_frame_does_not_stand_over_the_next(tv: Any, states: Venue) -> None:
    board = states.daemon.board("lastfoul")
    assert board["state"]["frame"] == 2 and board["state"]["scores"] == [0, 0]
    assert board["notice"]["kind"] == "foul"  # the last stroke's foul, in the board's data
    page = open_board(tv, states, "lastfoul", "en")
    notice = page.locator("#notice")
    expect(notice).to_have_attribute("data-kind", "frame_won")
    expect(notice).to_contain_text("Ali Zand wins frame 1")
    expect(notice.locator(".pair .won")).to_have_text("33")
    # The new frame's first stroke takes the announcement down.
    states.play("lastfoul", [{"ev": "strike"}])
    expect(notice).to_have_attribute("data-kind", "none")
    shot(page, "state_after_frame_end_en_1080p")


@pytest.fixture(scope="module")
def sixteen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Venue]:
    tables: dict[str, Any] = {
        f"t{i:02d}": in_play([f"Player {2 * i - 1}", f"Player {2 * i}"], i % 7)
        for i in range(1, 17)
    }
    with venue(tmp_path_factory.mktemp("sixteen"), tables) as v:
        yield v


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_sixteen_tables_on_one_1080p_screen(tv: Any, sixteen: Venue, lang: str) -> None:
    page = tv.new_page()
    errors = page_errors(page)
    page.goto(sixteen.url + "/venue" + ("?lang=fa" if lang == "fa" else ""))
    cards = page.locator(".card")
    expect(cards).to_have_count(16)
    expect(page.locator(".card .pscore")).to_have_count(32)
    page.evaluate("document.fonts.ready.then(() => true)")
    screen = {"x": 0, "y": 0, "width": TV["width"], "height": TV["height"]}
    for i in range(16):
        card = box(page, f".card >> nth={i}")
        assert inside(card, screen), (i, card)
        assert card["height"] >= 200, card  # read from across the room
    expect(page.locator("#page-no")).to_be_empty()  # no paging needed
    assert problems(page, fit=True) == []
    shot(page, f"venue_16_tables_{lang}_1080p")
    assert errors == []


def test_more_tables_than_a_page_holds_page_through(tv: Any, sixteen: Venue) -> None:
    page = tv.new_page()
    page.goto(sixteen.url + "/venue?per_page=6&page_s=3")
    expect(page.locator(".card")).to_have_count(6)
    expect(page.locator("#page-no")).to_have_text("Page 1 of 3")
    first = page.locator(".card .tname").first.inner_text()
    expect(page.locator("#page-no")).to_have_text("Page 2 of 3", timeout=10_000)
    assert page.locator(".card .tname").first.inner_text() != first
    assert problems(page, fit=True) == []
    shot(page, "venue_paging_en_1080p")
