"""The printable result sheet of a match: the players, the frame scores, the
breaks of 50 and over, the referee's name and lines to sign.  The rules'
referee notes ask for the result sheet to be completed after every match;
this is that sheet, one A4 page, in English or Persian.
"""

from __future__ import annotations

import html
from typing import Any

from baulk.host.referee.reports import head_html, lang_link, texts, time_html
from baulk.host.referee.stats_html import name as name_html
from baulk.host.web.words import digits as _num


def _side_rows(report: dict[str, Any], lang: str) -> str:
    t = texts(lang)
    m = report["match"]
    won = m.get("frames_won", [0, 0])
    rows = []
    for side in (0, 1):
        players = m["players"][side]
        who = (
            "<br>".join(name_html(str(p)) for p in players)
            if isinstance(players, list)
            else name_html(str(players))
        )
        mark = f' <span class="won">{t["won_match"]}</span>' if m.get("winner") == side else ""
        rows.append(
            f"<tr><td>{_num(side + 1, lang)}</td><td>{who}{mark}</td>"
            f'<td class="num">{_num(won[side], lang)}</td></tr>'
        )
    return "".join(rows)


def _signature(label: str) -> str:
    return f'<div class="sign"><div class="line"></div><div class="label">{label}</div></div>'


def html_page(
    report: dict[str, Any], lang: str, table_name: str | None, referee: str | None
) -> str:
    t = texts(lang)
    m = report["match"]
    names = m["names"]
    frames = [
        f"<tr><td>{_num(f['frame'], lang)}</td><td class='num'>{_num(f['scores'][0], lang)}</td>"
        f"<td class='num'>{_num(f['scores'][1], lang)}</td>"
        f"<td>{name_html(names[f['winner']]) if f['winner'] in (0, 1) else t['in_play']}</td></tr>"
        for f in report["frames"]
    ]
    breaks = [
        f"<tr><td>{_num(b['frame'], lang)}</td>"
        f"<td>{name_html(b['player'] or names[b['side']])}</td>"
        f"<td class='num'>{_num(b['points'], lang)}</td></tr>"
        for b in report["breaks"]
    ]
    referee_html = (
        name_html(referee)
        if referee
        else f'<span class="blank" title="{t["fill_in"]}">&nbsp;</span>'
    )
    facts = [
        f"<dt>{t['table']}</dt><dd>{name_html(table_name or m['table_id'])}</dd>",
        f"<dt>{t['date']}</dt><dd>{time_html(m.get('started_ms'))}</dd>",
        f"<dt>{t['match']}</dt><dd>{t['best_of'].format(n=_num(m['best_of'], lang))}"
        f" <span class='sep'>|</span> {t['reds'].format(n=_num(m.get('reds', 15), lang))}</dd>",
        f"<dt>{t['referee']}</dt><dd>{referee_html}</dd>",
    ]
    players_flat = [
        str(p) for side in m["players"] for p in (side if isinstance(side, list) else [side])
    ]
    signatures = [_signature(t["sign_referee"])] + [_signature(name_html(p)) for p in players_flat]
    q = "?lang=fa" if lang == "fa" else ""
    title = f"{t['sheet_title']}: {html.escape(names[0])} – {html.escape(names[1])}"
    none_row = f'<tr><td colspan="3">{t["none"]}</td></tr>'
    return f"""{head_html(title, lang, "sheet.css")}<body><main class="sheet">
<nav class="no-print">{lang_link(lang)}
 <a href="/report/{html.escape(m["match_id"])}{q}">{t["report_link"]}</a>
 <button type="button" id="print">{t["print"]}</button></nav>
<h1>{t["sheet_title"]}</h1>
<dl class="facts">{"".join(facts)}</dl>
<table class="sides"><thead><tr><th>{t["side"]}</th><th>{t["player"]}</th>
<th>{t["frames_won"]}</th></tr></thead><tbody>{_side_rows(report, lang)}</tbody></table>
<h2>{t["frames"]}</h2>
<table class="frames"><thead><tr><th>{t["frame"]}</th><th>{name_html(names[0])}</th>
<th>{name_html(names[1])}</th><th>{t["winner"]}</th></tr></thead>
<tbody>{"".join(frames)}</tbody></table>
<h2>{t["breaks"]}</h2>
<table class="breaks"><thead><tr><th>{t["frame"]}</th><th>{t["player"]}</th>
<th>{t["points"]}</th></tr></thead><tbody>{"".join(breaks) or none_row}</tbody></table>
<h2>{t["signatures"]}</h2>
<div class="signatures">{"".join(signatures)}</div>
</main><script type="module" src="/static/js/sheet.js"></script></body></html>
"""
