"""Match reports: the frame scores, the breaks of 50 and over, and each
frame's score as it progressed, as a page (HTML with SVG charts), as CSV and
as JSON.  Everything is read from the store; nothing is kept here.
"""

from __future__ import annotations

import csv
import html
import io
from typing import Any, Protocol

BIG_BREAK = 50


class ReportSource(Protocol):
    def match(self, match_id: str) -> dict[str, Any] | None: ...

    def frames(self, match_id: str) -> list[dict[str, Any]]: ...

    def breaks(self, match_id: str, minimum: int = 50) -> list[dict[str, Any]]: ...

    def progression(self, match_id: str) -> dict[int, list[list[int]]]: ...

    def ledger(self, match_id: str) -> dict[str, Any] | None: ...


def names_of(players: Any) -> list[str]:
    if not isinstance(players, list) or len(players) != 2:
        return ["?", "?"]
    return [" & ".join(map(str, p)) if isinstance(p, list) else str(p) for p in players]


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
    for f in frames:
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
        {"frame": n, "scores": pts[-1], "winner": None, "ended_ms": None, "progression": pts}
        for n, pts in sorted(progression.items())
        if n not in finished
    ]
    report: dict[str, Any] = {
        "match": {**match, "names": names_of(match["players"])},
        "frames": frames + current,
        "breaks": source.breaks(match_id, BIG_BREAK),
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


def to_csv(report: dict[str, Any]) -> str:
    """Two sections: frames (one row each), then breaks of 50 and over."""
    out = io.StringIO()
    w = csv.writer(out)
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


TEXT = {
    "en": {
        "title": "Match report",
        "best_of": "Best of {n}",
        "frames": "Frames",
        "frame": "Frame",
        "winner": "Winner",
        "breaks": "Breaks of 50 and over",
        "none": "none",
        "player": "Player",
        "points": "Points",
        "progress": "Score through each frame",
        "in_play": "in play",
        "export": "Export",
    },
    "fa": {
        "title": "گزارش مسابقه",
        "best_of": "بهترین از {n}",
        "frames": "فریم‌ها",
        "frame": "فریم",
        "winner": "برنده",
        "breaks": "بریک‌های ۵۰ و بالاتر",
        "none": "هیچ",
        "player": "بازیکن",
        "points": "امتیاز",
        "progress": "روند امتیاز هر فریم",
        "in_play": "در جریان",
        "export": "خروجی",
    },
}
_FA_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")


def _num(v: Any, lang: str) -> str:
    s = str(v)
    return s.translate(_FA_DIGITS) if lang == "fa" else s


def chart_svg(
    points: list[list[int]], names: list[str], width: int = 480, height: int = 160
) -> str:
    """A step chart of both players' scores through one frame."""
    top = max([max(p) for p in points] + [10])
    n = max(len(points) - 1, 1)
    colours = ("#e8b400", "#3fa7ff")
    lines = []
    for side in (0, 1):
        coords = []
        for i, p in enumerate(points):
            x = 30 + (width - 40) * i / n
            y = height - 20 - (height - 30) * p[side] / top
            coords.append(f"{x:.1f},{y:.1f}")
        lines.append(
            f'<polyline fill="none" stroke="{colours[side]}" stroke-width="3" '
            f'points="{" ".join(coords)}"><title>{html.escape(names[side])}</title></polyline>'
        )
    axis = (
        f'<line x1="30" y1="{height - 20}" x2="{width - 10}" y2="{height - 20}" stroke="#888"/>'
        f'<line x1="30" y1="10" x2="30" y2="{height - 20}" stroke="#888"/>'
        f'<text x="4" y="18" fill="#aaa" font-size="12">{top}</text>'
    )
    return (
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img">{axis}{"".join(lines)}</svg>'
    )


def html_page(report: dict[str, Any], lang: str = "en") -> str:
    t = TEXT.get(lang, TEXT["en"])
    m = report["match"]
    names = m["names"]
    esc = html.escape
    rows = []
    for f in report["frames"]:
        winner = esc(names[f["winner"]]) if f["winner"] in (0, 1) else t["in_play"]
        rows.append(
            f"<tr><td>{_num(f['frame'], lang)}</td><td>{_num(f['scores'][0], lang)}</td>"
            f"<td>{_num(f['scores'][1], lang)}</td><td>{winner}</td></tr>"
        )
    breaks = [
        f"<tr><td>{_num(b['frame'], lang)}</td><td>{esc(b['player'] or names[b['side']])}</td>"
        f"<td>{_num(b['points'], lang)}</td></tr>"
        for b in report["breaks"]
    ]
    charts = [
        f"<figure><figcaption>{t['frame']} {_num(f['frame'], lang)}</figcaption>"
        f"{chart_svg(f['progression'], names)}</figure>"
        for f in report["frames"]
    ]
    mid = esc(m["match_id"])
    won = m.get("frames_won", [0, 0])
    direction = "rtl" if lang == "fa" else "ltr"
    return f"""<!doctype html>
<html lang="{lang}" dir="{direction}"><head><meta charset="utf-8">
<title>{t["title"]}: {esc(names[0])} – {esc(names[1])}</title>
<link rel="stylesheet" href="/static/report.css"></head>
<body><main>
<h1>{esc(names[0])} <span class="fw">{_num(won[0], lang)} – {_num(won[1], lang)}</span>
 {esc(names[1])}</h1>
<p class="sub">{t["best_of"].format(n=_num(m["best_of"], lang))} · {mid}</p>
<p class="export">{t["export"]}: <a href="/api/matches/{mid}/report.csv">CSV</a> ·
 <a href="/api/matches/{mid}/report.json">JSON</a></p>
<h2>{t["frames"]}</h2>
<table><thead><tr><th>{t["frame"]}</th><th>{esc(names[0])}</th><th>{esc(names[1])}</th>
<th>{t["winner"]}</th></tr></thead><tbody>{"".join(rows)}</tbody></table>
<h2>{t["breaks"]}</h2>
<table><thead><tr><th>{t["frame"]}</th><th>{t["player"]}</th><th>{t["points"]}</th></tr></thead>
<tbody>{"".join(breaks) or f'<tr><td colspan="3">{t["none"]}</td></tr>'}</tbody></table>
<h2>{t["progress"]}</h2>
<p class="legend"><span class="p0">■ {esc(names[0])}</span>
 <span class="p1">■ {esc(names[1])}</span></p>
<div class="charts">{"".join(charts)}</div>
</main></body></html>
"""
