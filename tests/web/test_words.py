"""Every word a page shows has its English and its Persian: the boards' and
the console's words (host/web/static/words.json) and the server-rendered
pages' (host/referee/reports.py).  Every key the pages ask for is there, every
Persian text is Persian, and every ball and foul kind of the rules engine
has its name in both languages."""

from __future__ import annotations

import re
from pathlib import Path

from baulk.firmware import names
from baulk.host.referee import reports
from baulk.host.sentences import say_word
from baulk.host.web.words import words

STATIC = Path(__file__).resolve().parents[2] / "host" / "web" / "static"
PLACEHOLDER = re.compile(r"\{[a-z]+\}")
LATIN = re.compile(r"[A-Za-z]")
# Keys the pages ask for in their code and markup.
KEY_USES = (
    re.compile(r"""\bt\(\s*"([a-z_0-9]+)"\s*[,)]"""),
    re.compile(r"""\btn\(\s*"([a-z_0-9]+)"\s*[,)]"""),
    re.compile(r"""\btnName\(\s*"([a-z_0-9]+)"\s*[,)]"""),
    re.compile(r"""data-t="([a-z_0-9]+)\""""),
    re.compile(r"""data-label="([a-z_0-9]+)\""""),
    # the desk's words (desk.js): dt("key") and label(id, "key") read desk_key
    re.compile(r"""\bdt\(\s*"([a-z_0-9]+)"\s*[,)]"""),
    re.compile(r"""\bsentence\(\s*"([a-z_0-9]+)"\s*[,)]"""),
    re.compile(r"""\blabel\(\s*"[^"]+",\s*"([a-z_0-9]+)"\s*\)"""),
)


def test_both_languages_have_the_same_words() -> None:
    table = words()
    assert set(table) == {"en", "fa"}
    assert table["en"].keys() == table["fa"].keys()
    for key, en in table["en"].items():
        fa = table["fa"][key]
        assert fa and en, key
        assert set(PLACEHOLDER.findall(en)) == set(PLACEHOLDER.findall(fa)), key


def test_every_persian_text_is_persian() -> None:
    for key, fa in words()["fa"].items():
        if key == "lang_switch":  # the link to the other language says "English"
            assert fa == "English"
            continue
        assert not LATIN.search(PLACEHOLDER.sub("", fa)), (key, fa)
        assert not re.search("[0-9]", fa), (key, fa)  # Persian digits only


def test_every_key_a_page_uses_has_its_words() -> None:
    used: set[str] = set()
    for path in [*STATIC.glob("*.html"), *STATIC.glob("*.js"), *STATIC.glob("js/*.js")]:
        text = path.read_text(encoding="utf-8")
        for pattern in KEY_USES:
            desk = ("\\bdt", "\\blabel", "\\bsentence")
            prefix = "desk_" if pattern.pattern.startswith(desk) else ""
            used |= {prefix + key for key in pattern.findall(text)}
    assert len(used) > 100
    missing = sorted(used - set(words()["en"]))
    assert missing == []


def test_every_ball_and_foul_kind_of_the_engine_has_its_names() -> None:
    for lang in ("en", "fa"):
        table = words()[lang]
        for ball in names.BALLS:
            assert ball in table, (lang, ball)
        for kind in names.FOUL_KINDS:
            assert f"foul_{kind}" in table, (lang, kind)


def test_the_report_and_sheet_words_are_in_both_languages() -> None:
    en, fa = reports.TEXT["en"], reports.TEXT["fa"]
    assert en.keys() == fa.keys()
    for key, text in fa.items():
        if key == "lang_switch":
            continue
        assert not LATIN.search(PLACEHOLDER.sub("", text)), (key, text)


def test_the_pages_ball_and_foul_names_are_the_catalogues() -> None:
    """The pages read their words from words.json in the browser; its
    Persian ball and foul names are a copy of the one catalogue's
    (host/locale/fa/LC_MESSAGES/baulk.po, contexts ball and foul)."""
    fa = words()["fa"]
    for ball in names.BALLS:
        assert fa[ball] == say_word(ball, "ball"), ball
    for kind in names.FOUL_KINDS:
        assert fa["foul_" + kind] == say_word(kind, "foul"), kind
