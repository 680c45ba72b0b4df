"""Match reports: the frame scores, the breaks of 50 and over, each
frame's score as it progressed, the players' statistics and each frame's ball
accounting, as a page (HTML with SVG charts), as CSV and as JSON.  Everything
is read from the store; nothing is kept here.
"""

from __future__ import annotations

import csv
import html
import io
from typing import Any, Protocol

from baulk.host import sides
from baulk.host.referee.stats_html import accounting_section, statistics_section
from baulk.host.referee.stats_html import name as name_html
from baulk.host.referee.stats_html import num as _num
from baulk.host.sentences import OTHER_LANGUAGE, keyed_words

BIG_BREAK = 50


class ReportSource(Protocol):
    def match(self, match_id: str) -> dict[str, Any] | None: ...

    def frames(self, match_id: str) -> list[dict[str, Any]]: ...

    def breaks(self, match_id: str, minimum: int = 50) -> list[dict[str, Any]]: ...

    def progression(self, match_id: str) -> dict[int, list[list[int]]]: ...

    def match_statistics(self, match_id: str) -> list[dict[str, Any]]: ...

    def frame_accounts(self, match_id: str) -> dict[int, dict[str, Any]]: ...
    def ledger(self, match_id: str) -> dict[str, Any] | None: ...


def names_of(players: Any) -> list[str]:
    return sides.names_of(players, "?")


def build(source: ReportSource, match_id: str, ledger: bool = False) -> dict[str, Any] | None:
    """The report of one match as plain data (the JSON export).  With
    ``ledger`` it carries what ``baulk verify`` needs to check it against the
    device's signed checkpoints (docs/LEDGER.md)."""
    if len(match_id) > 100:
        return None
    match = source.match(match_id)
    if match is None:
        return None
    frames = source.frames(match_id)
    progression = source.progression(match_id)
    accounts = source.frame_accounts(match_id)
    for f in frames:
        f["accounting"] = accounts.get(f["frame"])
        points = progression.get(f["frame"], [[0, 0]])
        # The event that ends a frame already carries the next frame's [0, 0]:
        # close the chart on the frame's final score instead.
        while len(points) > 1 and points[-1] == [0, 0]:
            points.pop()
        if points[-1] != f["scores"]:
            points.append(f["scores"])
        f["progression"] = points
    finished = {f["frame"] for f in frames}
    current = [
        {
            "frame": n,
            "scores": pts[-1],
            "winner": None,
            "ended_ms": None,
            "progression": pts,
            "accounting": None,
        }
        for n, pts in sorted(progression.items())
        if n not in finished
    ]
    report: dict[str, Any] = {
        "match": {**match, "names": names_of(match["players"])},
        "frames": frames + current,
        "breaks": source.breaks(match_id, BIG_BREAK),
        "statistics": source.match_statistics(match_id),
    }
    if ledger:
        report["ledger"] = export_ledger(source.ledger(match_id))
    return report


def export_ledger(stored: dict[str, Any] | None) -> dict[str, Any] | None:
    """The device's record of a match as the JSON report carries it: every
    event's body as the device sent it, and the checkpoints, bytes in hex."""
    if stored is None:
        return None
    return {
        "table": stored["table"],
        "events": [
            {"seq": e["seq"], "boot": e["boot_id"], "body": e["body"].hex() if e["body"] else None}
            for e in stored["events"]
            if e["body"] is not None or e["invalid"] is None  # not a device event: not chained
        ],
        "checkpoints": [
            {
                "seq": c["seq"],
                "boot": c["boot_id"],
                "at": c["at_seq"],
                "head": c["head"].hex(),
                "marks": c["marks"].hex(),
                "mac": c["mac"].hex(),
            }
            for c in stored["checkpoints"]
        ],
    }


# A spreadsheet takes a cell that begins with one of these as a formula (and
# a name such as "=HYPERLINK(...)" would run as one): such text is written
# with a leading apostrophe, which spreadsheets show as plain text.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A value as a CSV cell: numbers as they are, text never as a formula."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


class _SafeWriter:
    """csv.writer whose text cells cannot become formulas."""

    def __init__(self, out: io.StringIO) -> None:
        self._w = csv.writer(out)

    def writerow(self, row: list[Any]) -> None:
        self._w.writerow([csv_cell(v) for v in row])


def to_csv(report: dict[str, Any]) -> str:
    """Two sections: frames (one row each), then breaks of 50 and over."""
    out = io.StringIO()
    w = _SafeWriter(out)
    names = report["match"]["names"]
    w.writerow(["match", report["match"]["match_id"], "best_of", report["match"]["best_of"]])
    w.writerow(["frame", names[0], names[1], "winner"])
    for f in report["frames"]:
        winner = names[f["winner"]] if f["winner"] in (0, 1) else ""
        w.writerow([f["frame"], f["scores"][0], f["scores"][1], winner])
    w.writerow([])
    w.writerow(["break_frame", "player", "points"])
    for b in report["breaks"]:
        w.writerow([b["frame"], b["player"] or names[b["side"]], b["points"]])
    return out.getvalue()


# The words of the server-rendered pages (report and result sheet): the one
# catalogue's entries report:KEY (host/sentences.py keyed_words).
TEXT: dict[str, dict[str, str]] = {
    lang: {"lang_switch": OTHER_LANGUAGE[lang], **words}
    for lang, words in keyed_words("report").items()
}


def texts(lang: str) -> dict[str, str]:
    return TEXT.get(lang, TEXT["en"])


def time_html(ms: int | None) -> str:
    """A time for static/js/dates.js to write in the page's language and
    calendar (Solar Hijri in Persian); empty without a time."""
    return f'<time data-ms="{int(ms)}"></time>' if ms else ""


def head_html(title: str, lang: str, *css: str) -> str:
    """A server-rendered page's head: its language and direction, the fonts,
    its stylesheets (report.css when none is named) and the dates' script."""
    direction = "rtl" if lang == "fa" else "ltr"
    sheets = "".join(
        f'<link rel="stylesheet" href="/static/{c}">\n' for c in (css or ("report.css",))
    )
    return (
        f'<!doctype html>\n<html lang="{lang}" dir="{direction}"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<link rel="icon" href="data:,">\n'
        f"<title>{title}</title>\n"
        '<link rel="stylesheet" href="/static/fonts.css">\n'
        f"{sheets}"
        '<script type="module" src="/static/js/dates.js"></script></head>\n'
    )


def lang_link(lang: str) -> str:
    other = "en" if lang == "fa" else "fa"
    return (
        f'<a class="lang" href="?lang={other}" hreflang="{other}">{texts(lang)["lang_switch"]}</a>'
    )


def chart_svg(
    points: list[list[int]], names: list[str], lang: str = "en", width: int = 480, height: int = 160
) -> str:
    """A step chart of both players' scores through one frame.  The chart is
    drawn left to right in both languages (time runs that way on a chart),
    so the SVG says ``direction: ltr``: in a right-to-left page its axis
    label would otherwise be anchored at its right end and cut off."""
    top = max([max(p) for p in points] + [10])
    n = max(len(points) - 1, 1)
    colours = ("#e8b400", "#3fa7ff")
    left = 40
    lines = []
    for side in (0, 1):
        coords = []
        for i, p in enumerate(points):
            x = left + (width - left - 10) * i / n
            y = height - 20 - (height - 30) * p[side] / top
            coords.append(f"{x:.1f},{y:.1f}")
        lines.append(
            f'<polyline fill="none" stroke="{colours[side]}" stroke-width="3" '
            f'points="{" ".join(coords)}"><title>{html.escape(names[side])}</title></polyline>'
        )
    axis = (
        f'<line x1="{left}" y1="{height - 20}" x2="{width - 10}" y2="{height - 20}" stroke="#888"/>'
        f'<line x1="{left}" y1="10" x2="{left}" y2="{height - 20}" stroke="#888"/>'
        f'<text x="{left - 6}" y="20" fill="#ccc" font-size="14" text-anchor="end">'
        f"{_num(top, lang)}</text>"
        f'<text x="{left - 6}" y="{height - 20}" fill="#ccc" font-size="14" text-anchor="end">'
        f"{_num(0, lang)}</text>"
    )
    return (
        f'<svg class="chart" viewBox="0 0 {width} {height}" direction="ltr" '
        f'style="direction: ltr" role="img">{axis}{"".join(lines)}</svg>'
    )


def html_page(report: dict[str, Any], lang: str = "en", table_name: str | None = None) -> str:
    t = texts(lang)
    m = report["match"]
    names = m["names"]
    esc = html.escape
    rows = []
    for f in report["frames"]:
        winner = name_html(names[f["winner"]]) if f["winner"] in (0, 1) else t["in_play"]
        rows.append(
            f"<tr><td>{_num(f['frame'], lang)}</td><td>{_num(f['scores'][0], lang)}</td>"
            f"<td>{_num(f['scores'][1], lang)}</td><td>{winner}</td></tr>"
        )
    breaks = [
        f"<tr><td>{_num(b['frame'], lang)}</td><td>{name_html(b['player'] or names[b['side']])}"
        f"</td><td>{_num(b['points'], lang)}</td></tr>"
        for b in report["breaks"]
    ]
    charts = [
        f"<figure><figcaption>{t['frame']} {_num(f['frame'], lang)}</figcaption>"
        f"{chart_svg(f['progression'], names, lang)}</figure>"
        for f in report["frames"]
    ]
    mid = esc(m["match_id"])
    won = m.get("frames_won", [0, 0])
    accounts = {f["frame"]: f["accounting"] for f in report["frames"] if f.get("accounting")}
    q = "?lang=fa" if lang == "fa" else ""
    facts = [t["best_of"].format(n=_num(m["best_of"], lang))]
    if m.get("reds"):
        facts.append(t["reds"].format(n=_num(m["reds"], lang)))
    if table_name:
        facts.append(name_html(table_name))
    if m.get("started_ms"):
        facts.append(time_html(m["started_ms"]))
    sep = '<span class="sep" aria-hidden="true">|</span>'
    title = f"{t['title']}: {esc(names[0])} – {esc(names[1])}"
    # The venue's correction is its own, not the table's signed record: say so.
    fixed = (report.get("annotations") or {}).get("names")
    note = ""
    if fixed is not None:
        signed = " – ".join(name_html(n) for n in names_of(fixed.get("signed")))
        note = f'<p class="note">{t["names_fixed"].format(names=signed)}</p>\n'

    return f"""{head_html(title, lang, "report.css", "stats.css")}<body><main>
<nav>{lang_link(lang)} <a href="/report/{mid}/sheet{q}">{t["sheet"]}</a></nav>
<h1 class="result"><span class="n0">{name_html(names[0])}</span>
 <span class="fw"><span>{_num(won[0], lang)}</span><span>{_num(won[1], lang)}</span></span>
 <span class="n1">{name_html(names[1])}</span></h1>
<p class="sub">{sep.join(facts)}</p>
{note}<p class="export">{t["export"]}: <a href="/api/matches/{mid}/report.csv">{t["export_csv"]}</a>
 {sep} <a href="/api/matches/{mid}/report.json">{t["export_json"]}</a></p>
<h2>{t["frames"]}</h2>
<div class="scroll"><table><thead><tr><th>{t["frame"]}</th><th>{name_html(names[0])}</th>
<th>{name_html(names[1])}</th><th>{t["winner"]}</th></tr></thead><tbody>{"".join(rows)}</tbody>
</table></div>
<h2>{t["breaks"]}</h2>
<table><thead><tr><th>{t["frame"]}</th><th>{t["player"]}</th><th>{t["points"]}</th></tr></thead>
<tbody>{"".join(breaks) or f'<tr><td colspan="3">{t["none"]}</td></tr>'}</tbody></table>
<h2>{t["progress"]}</h2>
<p class="legend"><span class="p0">■ {name_html(names[0])}</span>
 <span class="p1">■ {name_html(names[1])}</span></p>
<div class="charts">{"".join(charts)}</div>
{statistics_section(report.get("statistics", []), lang)}
{accounting_section(accounts, lang)}
</main></body></html>
"""
