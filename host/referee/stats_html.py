"""The statistics and the ball accounting as HTML, in English and Persian:
the sections the match report adds (host/referee/reports.py) and the player page
(host/web/players.py) draw with the same functions and the same words.

Persian pages are right to left with Persian digits; a name (or any other
text a person typed, or an identifier) is wrapped in ``<bdi>`` so that a
Latin name keeps its own direction inside Persian text.  Everything here is
escaped; nothing a user typed is ever markup.
"""

from __future__ import annotations

import html
import time
from typing import Any
from urllib.parse import quote

from baulk.firmware import names
from baulk.host.sentences import LANGS, OTHER_LANGUAGE, digits, keyed_words

# The digits' one table (host/sentences.py), and the Persian decimal sign.
_FA_DIGITS = str.maketrans("0123456789.", digits("0123456789", "fa") + "٫")

# The pages' words: the one catalogue's entries stats:KEY.
TEXT: dict[str, dict[str, str]] = {
    lang: {"other_lang": OTHER_LANGUAGE[lang], **words}
    for lang, words in keyed_words("stats").items()
}

# A foul's and a ball's name are the boards' words (the catalogue's entries
# page:foul_KIND and page:BALL), one wording for every page, the refusals
# and the activity log.
_PAGE = keyed_words("page")
FOUL_NAMES: dict[str, dict[str, str]] = {
    lang: {kind: _PAGE[lang][f"foul_{kind}"] for kind in names.FOUL_KINDS} for lang in LANGS
}
BALL_NAMES: dict[str, dict[str, str]] = {
    lang: {ball: _PAGE[lang][ball] for ball in names.BALLS} for lang in LANGS
}

# Pockets as docs/ENGINE.md names them: top is the black's end; left and
# right as seen from the baulk end.
# A pocket's name is the boards' word (page:pocket_P); the statistics' own
# words are a pocket not given and where a pot was scored from (stats:KEY).
POCKET_NAMES: dict[str, dict[str, str]] = {
    lang: {
        **{p: _PAGE[lang][f"pocket_{p}"] for p in names.POCKETS},
        "none": TEXT[lang]["pocket_none"],
    }
    for lang in LANGS
}
SOURCES = ("sensor", "keypad", "host", "device")
SOURCE_WORDS: dict[str, dict[str, str]] = {
    lang: {k: TEXT[lang][f"source_{k}"] for k in SOURCES} for lang in LANGS
}

esc = html.escape


def lang_of(value: str | None) -> str:
    return value if value in LANGS else "en"


def num(v: Any, lang: str) -> str:
    """A number as the page's language writes it (Persian digits and
    decimal separator in Persian)."""
    s = f"{v:.2f}".rstrip("0").rstrip(".") if isinstance(v, float) else str(v)
    return s.translate(_FA_DIGITS) if lang == "fa" else s


def say(lang: str, key: str, **values: Any) -> str:
    """A sentence of TEXT with its values filled in: numbers in the page's
    digits, anything else as given (HTML: a typed text goes through name())."""
    text = TEXT[lang][key]
    for k, v in values.items():
        shown = num(v, lang) if isinstance(v, int | float) and not isinstance(v, bool) else str(v)
        text = text.replace("{" + k + "}", shown)
    return text


def name(text: str) -> str:
    """A name (or anything a person typed) inside any page: escaped, and
    isolated so that a Latin name on a Persian page (or the reverse) keeps its
    own direction."""
    return f'<bdi dir="auto">{esc(text)}</bdi>'


def seconds(ms: int | None, lang: str) -> str:
    if ms is None:
        return "–"
    return say(lang, "seconds", n=round(ms / 1000, 1))


def clock(ms: int | None, lang: str) -> str:
    """A duration as m:ss (h:mm:ss from an hour)."""
    if ms is None:
        return "–"
    s = round(ms / 1000)
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    text = f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"
    return num(text, lang)


def date(ms: int | None, lang: str) -> str:
    """The day, on the host's clock: 2026-11-30, in Persian ۲۰۲۶/۱۱/۳۰."""
    if ms is None:
        return "–"
    pattern = "%Y/%m/%d" if lang == "fa" else "%Y-%m-%d"
    return num(time.strftime(pattern, time.localtime(ms / 1000)), lang)


def player_href(key: str, lang: str) -> str:
    return f"/player/{quote(key, safe='')}" + ("?lang=fa" if lang == "fa" else "")


def foul_name(kind: str, lang: str) -> str:
    return FOUL_NAMES[lang].get(kind) or name(kind)


# ---------------------------------------------------------------------- figures
def _figure_rows(lang: str) -> list[tuple[str, Any]]:
    """(label, how to show it from one Figures dict)."""

    def breaks(n: int) -> tuple[str, Any]:
        return say(lang, "breaks_over", n=n), lambda f: num(f["breaks"][str(n)], lang)

    return [
        (
            TEXT[lang]["frames_won"],
            lambda f: f"{num(f['frames_won'], lang)} / {num(f['frames'], lang)}",
        ),
        (TEXT[lang]["frame_time"], lambda f: clock(f["frame_ms"]["mean"], lang)),
        (TEXT[lang]["shot_time"], lambda f: seconds(f["shot_ms"]["median"], lang)),
        (TEXT[lang]["shots"], lambda f: num(f["shot_ms"]["count"], lang)),
        (TEXT[lang]["strokes"], lambda f: num(f["strokes"], lang)),
        (TEXT[lang]["visits"], lambda f: num(f["visits"], lang)),
        (TEXT[lang]["points"], lambda f: num(f["points"], lang)),
        (
            TEXT[lang]["points_per_visit"],
            lambda f: "–" if f["points_per_visit"] is None else num(f["points_per_visit"], lang),
        ),
        breaks(10),
        breaks(20),
        breaks(50),
        breaks(100),
        (TEXT[lang]["highest"], lambda f: num(f["breaks"]["highest"], lang)),
        (TEXT[lang]["fouls"], lambda f: num(f["fouls"]["count"], lang)),
        (TEXT[lang]["foul_points"], lambda f: num(f["fouls"]["points"], lang)),
        (TEXT[lang]["fouls_by_kind"], lambda f: _fouls_inline(f, lang)),
    ]


def _fouls_inline(f: dict[str, Any], lang: str) -> str:
    kinds = f["fouls"]["kinds"]
    if not kinds:
        return TEXT[lang]["none"]
    return "<br>".join(
        f"{foul_name(k['kind'], lang)} × {num(k['count'], lang)} ({num(k['points'], lang)})"
        for k in kinds
    )


def figures_table(columns: list[tuple[str, dict[str, Any]]], lang: str) -> str:
    """A table of figures, one column per (heading HTML, Figures)."""
    head = "".join(f"<th scope='col'>{h}</th>" for h, _ in columns)
    rows = []
    for label, show in _figure_rows(lang):
        cells = "".join(f"<td>{show(f)}</td>" for _, f in columns)
        rows.append(f"<tr><th scope='row'>{label}</th>{cells}</tr>")
    return (
        f"<table class='figures'><thead><tr><th></th>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def shot_histogram(f: dict[str, Any], lang: str) -> str:
    """The shot times' distribution as bars (a list, readable without CSS)."""
    bins = f["shot_ms"]["histogram"]
    top = max([b["count"] for b in bins] + [1])
    items = []
    for b in bins:
        low = round(b["from_ms"] / 1000)
        if b["to_ms"] is None:
            label = say(lang, "bin_open", a=low)
        else:
            label = say(lang, "bin", a=low, b=round(b["to_ms"] / 1000))
        width = round(100 * b["count"] / top)
        items.append(
            f"<li><span class='bin'>{label}</span>"
            f"<span class='bar' style='width:{width}%'></span>"
            f"<span class='n'>{num(b['count'], lang)}</span></li>"
        )
    return f"<ul class='histogram'>{''.join(items)}</ul>"


def statistics_section(stats: list[dict[str, Any]], lang: str) -> str:
    """The match report's statistics: a column per player, then each
    player's shot times."""
    t = TEXT[lang]
    if not stats or not any(p["frames"] for p in stats):
        return (
            f"<section id='statistics'><h2>{t['statistics']}</h2><p>{t['no_figures']}</p></section>"
        )
    columns = [(f"<a href='{player_href(p['key'], lang)}'>{name(p['name'])}</a>", p) for p in stats]
    spreads = "".join(
        f"<figure class='spread'><figcaption>{t['shot_spread']}: {name(p['name'])}</figcaption>"
        f"{shot_histogram(p, lang)}</figure>"
        for p in stats
    )
    return (
        f"<section id='statistics'><h2>{t['statistics']}</h2><p class='note'>"
        f"{t['statistics_note']}</p>{figures_table(columns, lang)}"
        f"<div class='spreads'>{spreads}</div></section>"
    )


# ---------------------------------------------------------------------- ball accounting
def accounting_section(accounts: dict[int, dict[str, Any]], lang: str) -> str:
    t = TEXT[lang]
    if not accounts:
        return (
            f"<section id='accounting'><h2>{t['accounting']}</h2><p>{t['no_figures']}</p></section>"
        )
    heads = [
        "frame",
        "must_reds",
        "must_colours",
        "must_respots",
        "must_returned",
        "must_total",
        "by_sensor",
        "by_hand",
        "recorded_total",
        "balance",
    ]
    rows = []
    pockets: dict[str, dict[str, int]] = {}
    keyed: list[str] = []
    for frame, a in sorted(accounts.items()):
        must, rec = a["must_leave"], a["recorded"]
        gap = must["total"] - rec["total"]
        if gap == 0:
            balance = f"<span class='ok'>✓ {t['balanced']}</span>"
        elif gap > 0:
            balance = f"<span class='bad'>✗ {say(lang, 'unbalanced', n=gap)}</span>"
        else:
            balance = f"<span class='bad'>✗ {say(lang, 'over_recorded', n=-gap)}</span>"
        cells = [
            must["reds"],
            must["colours"],
            must["respots"],
            must["returned"],
            must["total"],
            rec["sensor"],
            rec["keyed"],
            rec["total"],
        ]
        rows.append(
            f"<tr data-frame='{frame}' data-balanced='{str(a['balanced']).lower()}'>"
            f"<td>{num(frame, lang)}</td>"
            + "".join(f"<td>{num(c, lang)}</td>" for c in cells)
            + f"<td>{balance}</td></tr>"
        )
        for pocket, counts in a["pockets"].items():
            total = pockets.setdefault(pocket, dict.fromkeys(counts, 0))
            for k, v in counts.items():
                total[k] = total.get(k, 0) + v
        for k in a["keyed_pots"]:
            keyed.append(
                say(
                    lang,
                    "keyed_pot",
                    f=frame,
                    ball=BALL_NAMES[lang].get(k["ball"]) or name(str(k["ball"])),
                    pocket=POCKET_NAMES[lang].get(k["pocket"] or "none") or name(str(k["pocket"])),
                    src=SOURCE_WORDS[lang].get(k["src"]) or name(str(k["src"])),
                    seq=k["seq"],
                )
            )
    head = "".join(f"<th scope='col'>{t[h]}</th>" for h in heads)
    order = [*names.POCKETS, "none"]
    pocket_rows = "".join(
        f"<tr data-pocket='{p}'><th scope='row'>{POCKET_NAMES[lang][p]}</th>"
        + "".join(
            f"<td>{num(pockets[p].get(k, 0), lang)}</td>"
            for k in ("sensor", "keyed", "undone", "refused")
        )
        + "</tr>"
        for p in order
        if p in pockets
    )
    pocket_head = "".join(
        f"<th scope='col'>{t[h]}</th>" for h in ("sensor_saw", "keyed_for", "undone", "refused")
    )
    keyed_list = "".join(f"<li>{k}</li>" for k in keyed) or f"<li>{t['none']}</li>"
    return (
        f"<section id='accounting'><h2>{t['accounting']}</h2>"
        f"<p class='note'>{t['accounting_note']}</p>"
        f"<table class='accounting'><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
        f"<h3>{t['pockets']}</h3><table class='pockets'><thead><tr><th scope='col'>"
        f"{t['pocket']}</th>{pocket_head}</tr></thead><tbody>{pocket_rows}</tbody></table>"
        f"<h3>{t['keyed_pots']}</h3><ul class='keyed'>{keyed_list}</ul></section>"
    )
