"""A bill written out, in English and Persian: the receipt the desk shows and
prints (the page, desk.js; the thermal printer, host/web/desk_printer.py),
and the bill's CSV.

Every amount on a receipt follows from the numbers printed beside it
(docs/BILLING.md, "What a receipt prints"): a time line prints its minutes
and its rate an hour, a frames line its count and price, an item its
quantity and price, and in the loser-pays part each frame prints its time in
play, the time in play it was shared over, its share and its price.  The
lines add up to the total, and the payers' amounts too.

A sentence is a list of parts: text, or ``{"name": ...}`` for what a person
typed (a player, an item, a reason), which the page isolates for bidi.
"""

from __future__ import annotations

from typing import Any

from baulk.host.club import money
from baulk.host.club.views import LANGS, TEXT, Part, csv_when, duration, num, say, to_csv, when
from baulk.host.name_rules import OPERATOR


def _name(text: str | None) -> dict[str, str]:
    return {"name": text or ""}


def _line(line: dict[str, Any], cur: str, tz: str, lang: str) -> dict[str, Any]:
    """One line of the bill: what it is, the numbers it follows from, its amount."""
    kind = line["kind"]
    amount = money.fmt(line["amount"], cur, lang)
    note: list[Part] = []
    if kind == "time":
        a, b = when(line["from_ms"], tz, lang, False), when(line["to_ms"], tz, lang, False)
        parts: list[Part] = [say(lang, "time_line", a=a, b=b)]
        if line["peak"]:
            parts.append(f" ({say(lang, 'peak')})")
        rate = money.fmt(line["per_hour"], cur, lang)
        note = [say(lang, "time_note", n=line["minutes"], rate=rate)]
    elif kind == "frames":
        parts = [say(lang, "frames_line")]
        price = money.fmt(line["per_frame"], cur, lang)
        note = [say(lang, "times", n=line["count"], price=price)]
    elif kind == "item":
        parts = [_name(line["item_fa"] if lang == "fa" else line["item"])]
        price = money.fmt(line["price"], cur, lang)
        note = [say(lang, "times", n=line["quantity"], price=price)]
    else:  # correction, refund, void: the reason given
        parts = [say(lang, kind) + ": ", _name(line["reason"])]
        if line.get("payer"):
            note = [say(lang, "paid_by") + ": ", _name(line["payer"])]
    return {"kind": kind, "id": line.get("id"), "parts": parts, "note": note, "amount": amount}


def _who_pays(bill: dict[str, Any], lang: str) -> dict[str, Any] | None:
    """The loser-pays part: each frame's share of the table time and its price."""
    cur = bill["currency"]
    frames = bill["frames"]
    if not frames:
        return None
    finished = [f for f in frames if f["finished"]]
    shared = sum(f["play_s"] for f in finished)
    # A void bill has nothing to pay: its frames print their time in play
    # and no share, or the shares would add up to a total it no longer has.
    loser_pays = bill["loser_pays"] and bool(finished) and bill["state"] != "void"
    rows = []
    for f in frames:
        play = duration(f["play_s"], lang)
        if not f["finished"]:
            parts: list[Part] = [say(lang, "frame", n=f["frame"])]
            comma = "، " if lang == "fa" else ", "
            note = say(lang, "in_play_note", play=play) + comma + say(lang, "unfinished")
            rows.append({"parts": parts, "note": [note], "amount": ""})
            continue
        parts = [say(lang, "lost_by", n=f["frame"]) + " ", _name(f["loser"])]
        share = money.fmt(f["share"], cur, lang)
        price = money.fmt(f["frame_price"], cur, lang)
        if not loser_pays:
            text = say(lang, "in_play_note", play=play)
        elif not bill["time_total"]:
            text = say(lang, "frame_only", play=play, price=price)
        elif not f["frame_price"]:
            text = say(lang, "share_only", play=play, all=duration(shared, lang), share=share)
        else:
            text = say(
                lang, "share_note", play=play, all=duration(shared, lang), share=share, price=price
            )
        rows.append(
            {
                "parts": parts,
                "note": [text],
                "amount": money.fmt(f["amount"], cur, lang) if loser_pays else "",
            }
        )
    intro = ""
    if loser_pays and bill["time_total"]:
        intro = say(lang, "shared", time=money.fmt(bill["time_total"], cur, lang))
    return {"intro": intro, "frames": rows}


def _history(bill: dict[str, Any], lang: str) -> list[dict[str, Any]]:
    """Everything done to the session, in order, with who did it (the desk's
    page shows it; the paper does not)."""
    cur, tz = bill["currency"], bill["timezone"]
    done: list[tuple[int, list[Part], str | None]] = [
        (bill["opened_ms"], [say(lang, "h_open")], bill["opened_by"])
    ]
    for m in bill["marks"]:
        parts: list[Part] = [say(lang, "h_" + m["kind"])]
        if m["reason"] and m["reason"] not in ("desk", "idle"):
            parts += [": ", _name(m["reason"])]
        done.append((m["wall_ms"], parts, m["who"]))
    for c in bill["corrections"]:
        parts = [say(lang, "h_" + c["kind"]), " ", money.fmt(c["amount"], cur, lang), ": "]
        done.append((c["at_ms"], [*parts, _name(c["reason"])], c["who"]))
    for i in bill["items"]:
        what = "h_item_back" if i["reverses"] is not None else "h_item"
        parts = [say(lang, what) + ": ", _name(i["item_fa"] if lang == "fa" else i["item"])]
        price = money.fmt(i["price"], cur, lang)
        parts.append(" " + say(lang, "times", n=abs(i["quantity"]), price=price))
        done.append((i["created_wall_ms"], parts, i["who"]))
    done.sort(key=lambda d: d[0])
    out = []
    for at, parts, who in done:
        if who == OPERATOR:  # the operator token's built-in name, in the page's words
            parts = [*parts, f" {say(lang, 'by')} {say(lang, 'the_operator')}"]
        elif who:
            parts = [*parts, f" {say(lang, 'by')} ", _name(who)]
        out.append({"at": when(at, tz, lang), "parts": parts})
    return out


def receipt(bill: dict[str, Any], table_name: str, venue: str) -> dict[str, Any]:
    """The receipt of a bill in both languages."""
    cur = bill["currency"]
    tz = bill["timezone"]
    out: dict[str, Any] = {}
    for lang in LANGS:
        notes = []
        if bill["state"] == "void":
            notes.append(say(lang, "voided"))
        if bill["how"] == "auto":
            notes.append(say(lang, "opened_by_itself"))
            if not bill["confirmed"]:
                notes.append(say(lang, "not_confirmed"))
        if bill["close_reason"] == "idle":
            notes.append(say(lang, "closed_idle"))
        if bill["clock"] == "wall":
            notes.append(say(lang, "clock_wall"))
        closed = say(lang, "still_open") if bill["open"] else when(bill["closed_ms"], tz, lang)
        info: list[dict[str, Any]] = [
            {"key": "table", "value": [_name(table_name)]},
            {"key": "tariff", "value": [_name(bill["tariff"])]},
            {"key": "opened", "value": [when(bill["opened_ms"], tz, lang)]},
            {"key": "closed", "value": [closed]},
            {"key": "minutes_open", "value": [duration(bill["open_ms"] // 1000, lang)]},
            {"key": "minutes_billed", "value": [say(lang, "minutes", n=bill["billed_minutes"])]},
            {"key": "minutes_in_play", "value": [duration(bill["play_s"], lang)]},
            {"key": "frames_played", "value": [num(bill["frames_played"], lang)]},
        ]
        for row in info:
            row["label"] = TEXT[lang][row["key"]]
        payers = [
            {
                "parts": [say(lang, "paid_by") + ": "]
                + ([_name(p["payer"])] if p["payer"] is not None else [say(lang, "the_table")]),
                "amount": money.fmt(p["amount"], cur, lang),
            }
            for p in bill["payers"]
            if p["amount"] or len(bill["payers"]) == 1
        ]
        out[lang] = {
            "lang": lang,
            "title": say(lang, "receipt"),
            "session": say(lang, "session", n=bill["session_id"]),
            "venue": venue,
            "table": table_name,
            "tariff": bill["tariff"],
            "state": bill["state"],
            "labels": {k: v for k, v in TEXT[lang].items() if "{" not in v},
            "info": info,
            "rows": [_line(x, cur, tz, lang) for x in bill["lines"]],
            "total": money.fmt(bill["total"], cur, lang),
            "items_total": money.fmt(bill["items_total"], cur, lang),
            "who_pays": _who_pays(bill, lang),
            "payers": payers,
            "notes": notes,
            "history": _history(bill, lang),
        }
    return out


def text_of(parts: list[Part]) -> str:
    """A sentence's parts as one string (a printer's line): each name in
    Unicode isolates, so a Latin name keeps its direction in Persian."""
    return "".join(p if isinstance(p, str) else f"\u2068{p['name']}\u2069" for p in parts)


def bill_csv(bill: dict[str, Any], lang: str) -> str:
    cur = bill["currency"]
    tz = bill["timezone"]
    words = TEXT[lang]
    rows: list[list[Any]] = [
        [words["session"].format(n=bill["session_id"]), bill["table_id"], bill["tariff"], cur],
        [words["opened"], csv_when(bill["opened_ms"], tz, lang)],
        [words["closed"], csv_when(bill["closed_ms"], tz, lang)],
        [words["minutes_open"], bill["minutes_open"]],
        [words["minutes_billed"], bill["billed_minutes"]],
        [words["minutes_in_play"], bill["minutes_in_play"]],
        [words["frames_played"], bill["frames_played"]],
        [],
    ]
    for line in bill["lines"]:
        kind, amount = line["kind"], money.plain(line["amount"], cur)
        if kind == "time":
            rows.append(
                [
                    words["peak" if line["peak"] else "off_peak"],
                    csv_when(line["from_ms"], tz, lang),
                    csv_when(line["to_ms"], tz, lang),
                    line["minutes"],
                    money.plain(line["per_hour"], cur),
                    amount,
                ]
            )
        elif kind == "frames":
            rows.append(
                [words["frames_line"], line["count"], money.plain(line["per_frame"], cur), amount]
            )
        elif kind == "item":
            name = line["item_fa"] if lang == "fa" else line["item"]
            rows.append([name, line["quantity"], money.plain(line["price"], cur), amount])
        else:
            rows.append([words[kind], amount, line.get("payer") or "", line["reason"]])
    for f in bill["frames"]:
        rows.append(
            [
                words["frame"].format(n=f["frame"]),
                f["match_id"],
                f["play_s"],
                f["loser"] or "",
                money.plain(f["amount"], cur) if f["finished"] else "",
            ]
        )
    for c in bill["corrections"]:
        rows.append(
            [
                words["h_" + c["kind"]],
                money.plain(c["amount"], cur),
                c["payer"] or "",
                c["who"] or "",
                c["reason"],
                c["id"],
                c["reverses"] or "",
            ]
        )
    rows.append([words["total"], money.plain(bill["total"], cur)])
    for p in bill["payers"]:
        rows.append(
            [words["paid_by"], p["payer"] or words["the_table"], money.plain(p["amount"], cur)]
        )
    return to_csv(rows)
