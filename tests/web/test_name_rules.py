"""What a name may hold, and a line of free text (host/name_rules.py, as
the bodies' models hold them, host/web/request_models.py): nothing
invisible (the whole class:
controls, format characters, fillers that draw nothing, other spaces), no
emoji or pictures the boards and the handset cannot draw, a letter or a
digit; and how a table's own name that breaks them is shown."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from baulk.host.name_rules import shown_name, shown_players
from baulk.host.sentences import catalogue, say
from baulk.host.web.request_models import NewMatch, PocketCheck, ReopenSession, sentence


def _held(model: type[BaseModel], body: dict[str, Any]) -> BaseModel:
    """The body as its model holds it; ValueError with the handler's sentence."""
    try:
        return model.model_validate(body)
    except ValidationError as e:
        raise ValueError(sentence(model, e)) from None


def persian(e: BaseException) -> str:
    """The refusal's Persian, from its entry in the catalogue."""
    message = e.args[0]
    assert catalogue().get(message.msgid), message
    return say(message, "fa")


def check_name(value: object, what: str) -> str:
    """A name where a body has one: a player's (``player 2``) or ``who``."""
    if what == "who":
        return str(_held(PocketCheck, {"who": value}).who)
    side = int(what.split()[1]) - 1
    players: list[object] = ["Ali", "Reza"]
    players[side] = value
    held = _held(NewMatch, {"players": players, "best_of": 1})
    return str(held.players[side])


def check_text(value: object, what: str) -> str:
    """A line of text where a body has one: a reopening's reason."""
    assert what == "reason"
    return str(_held(ReopenSession, {"reason": value}).reason)


INVISIBLE = {
    "hangul filler": "\u3164",
    "hangul choseong filler": "\u115f",
    "hangul jungseong filler": "\u1160",
    "halfwidth hangul filler": "\uffa0",
    "braille blank": "\u2800",
    "combining grapheme joiner": "\u034f",
    "variation selector": "\ufe0f",
    "variation selector supplement": "\U000e0100",
    "mongolian vowel separator": "\u180e",
    "khmer inherent vowel": "\u17b4",
    "zero-width joiner": "\u200d",
    "zero-width space": "\u200b",
    "word joiner": "\u2060",
    "soft hyphen": "\u00ad",
    "arabic letter mark": "\u061c",
    "right-to-left override": "\u202e",
    "first strong isolate": "\u2068",
    "byte order mark": "\ufeff",
    "tag character": "\U000e0041",
    "ideographic space": "\u3000",
    "em space": "\u2003",
    "no-break space": "\u00a0",
    "narrow no-break space": "\u202f",
    "line separator": "\u2028",
    "escape": "\x1b",
    "a C1 control": "\x85",
    "private use": "\ue000",
    "unassigned": "\U0002fffe",
}
PICTURES = {
    "emoji": "\U0001f600",
    "heart": "\u2764",
    "skin tone": "\U0001f3fd",
    "flag": "\U0001f1ee\U0001f1f7",
    "keycap": "1\u20e3",
    "dingbat": "\u2702",
    "copyright": "\u00a9",
    "infinity": "\u221e",
    "euro": "\u20ac",
}


@pytest.mark.parametrize("c", list(INVISIBLE.values()), ids=list(INVISIBLE))
def test_every_invisible_character_is_refused_in_a_name(c: str) -> None:
    for name in (f"Ali{c}Reza", c, f"{c}{c}"):
        with pytest.raises(ValueError, match=r"player 1 must (not hold control|be a non-empty)"):
            check_name(name, "player 1")


@pytest.mark.parametrize("c", list(PICTURES.values()), ids=list(PICTURES))
def test_emoji_and_symbols_are_refused_with_a_clear_sentence(c: str) -> None:
    with pytest.raises(ValueError) as e:
        check_name(f"Ali {c}", "player 2")
    text = str(e.value)
    assert text.startswith("player 2 must not hold emoji or symbols (U+")
    assert text.endswith("the boards and the handset cannot draw them")
    assert persian(e.value).startswith("بازیکن ۲: شکلک و نماد نمی‌پذیرد")


@pytest.mark.parametrize(
    "name",
    [
        "Reza\u200cزاده",  # the zero-width non-joiner Persian writes names with
        "مُحَمَّد",  # Arabic marks
        "Zoë O'Neil-Smith",
        "=HYPERLINK(1)",  # a fine name: only the CSV must not run it
        "R2",
        "Ali & Reza",
    ],
)
def test_real_names_pass(name: str) -> None:
    assert check_name(f"  {name} ", "player 1") == name


@pytest.mark.parametrize("name", ["...", "-", "\u0301", "'()'"])
def test_a_name_holds_a_letter_or_a_digit(name: str) -> None:
    with pytest.raises(ValueError, match="must hold a letter or a digit"):
        check_name(name, "who")


def test_free_text_follows_the_same_rules_with_signs_besides() -> None:
    assert check_text(" refund 5 € for 2 × 45 min ", "reason") == "refund 5 € for 2 × 45 min"
    assert check_text("...", "reason") == "..."
    for bad, why in [
        ("late\nfee", "invisible"),
        ("ok \U0001f44d", "emoji"),
        ("x\u202ey", "invisible"),
        ("\u3164", "invisible"),
        ("", "non-empty"),
        ("  ", "non-empty"),
        (7, "non-empty"),
        ("x" * 201, "longer than 200 bytes"),
    ]:
        with pytest.raises(ValueError) as e:
            check_text(bad, "reason")
        assert (why in str(e.value)) or (why == "invisible" and "invisible" in str(e.value))
        assert persian(e.value).startswith("دلیل"), str(e.value)


def test_a_tables_own_names_are_shown_by_the_rules() -> None:
    assert shown_name("\u202eAli\x1b[31m") == "Ali[31m"
    assert shown_name("Re\u200bza\u3164") == "Reza"
    assert shown_name("\u3164\u2800\u034f") == "?"
    assert shown_name("Ali\u3000 \u2003Reza") == "Ali Reza"
    assert shown_name("Reza\u200cزاده") == "Reza\u200cزاده"
    assert len(shown_name("é" * 40).encode()) <= 48
    assert shown_players([["A\x00", "B"], "\U0001f600C"]) == [["A", "B"], "C"]
