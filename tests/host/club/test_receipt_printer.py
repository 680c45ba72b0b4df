"""A receipt through python-escpos to its Dummy printer (host/web/desk_printer.py):
the bytes hold the receipt's picture as an ESC/POS raster (GS v 0) with the
total drawn in it, then the cut; Persian is shaped by raqm, as the handset's
texts are; the printer's config is checked key by key."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageDraw

from baulk.host import config
from baulk.host.club import printing, receipts
from baulk.host.club.tariffs import parse
from baulk.host.web import desk_printer
from tests.host.billing_kit import HandVenue, stamp, timed

MIN = 60_000
GS_V_0 = b"\x1dv0"
CUT = b"\x1dV"


def a_bill(tmp_path: Path) -> dict[str, Any]:
    billing = parse(
        {
            "billing": {"timezone": "Asia/Tehran"},
            "tariff": [
                {
                    "name": "club",
                    "currency": "IRT",
                    "per_hour": 60_000,
                    "per_frame": 10_000,
                    "minimum_min": 30,
                    "loser_pays": True,
                }
            ],
        }
    )
    venue = HandVenue(tmp_path / "store.sqlite")
    opened = int(datetime(2025, 3, 1, 16, 0, tzinfo=UTC).timestamp() * 1000)
    sid = venue.open("t1", billing.tariffs[0], stamp(opened, 0))
    events = [
        {"ev": "match", "players": ["Ali", "رضا"], "best_of": 3},
        {"ev": "strike"},
        {"ev": "rest"},
        {"ev": "concede"},
    ]
    venue.play("t1", timed(events, 0, 10 * MIN))
    venue.close(sid, stamp(opened + 40 * MIN, 40 * MIN))
    bill = venue.bill(sid)
    venue.close_all()
    return bill


def rasters(data: bytes) -> Image.Image:
    """The picture an ESC/POS printer would print from ``data``: every GS v 0
    block, one below the other (1 = a black dot)."""
    parts = []
    at = 0
    while (at := data.find(GS_V_0, at)) >= 0:
        width = data[at + 4] + 256 * data[at + 5]
        height = data[at + 6] + 256 * data[at + 7]
        body = data[at + 8 : at + 8 + width * height]
        dots = Image.frombytes("1", (width * 8, height), body)
        parts.append(ImageChops.invert(dots.convert("L")).convert("1"))
        at += 8 + width * height
    out = Image.new("1", (parts[0].width, sum(p.height for p in parts)), 1)
    y = 0
    for p in parts:
        out.paste(p, (0, y))
        y += p.height
    return out


PRINTER = printing.Printer("network", host="printer.lan", width=576)


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
@pytest.mark.parametrize("lang", ["fa", "en"])
def test_the_bytes_hold_the_picture_the_total_and_the_cut(tmp_path: Path, lang: str) -> None:
    bill = a_bill(tmp_path)
    paper = receipts.receipt(bill, "میز ۱", "Baulk Club")[lang]
    # 40 min at 60,000 an hour and a frame at 10,000
    assert paper["total"] == ("۵۰٬۰۰۰ تومان" if lang == "fa" else "50,000 Toman")
    from escpos.printer import (
        Dummy,
    )  # read here: its capability table costs every worker 1.5 s at collection

    dummy = Dummy()
    desk_printer.send(dummy, paper, PRINTER)
    data = dummy.output
    assert GS_V_0 in data and CUT in data
    assert data.rindex(CUT) > data.rindex(GS_V_0)  # cut after the picture
    printed = rasters(data)
    drawn = desk_printer.raster(paper, PRINTER.width, lang == "fa")
    assert printed.width == 576
    # what the printer gets is the receipt drawn, dot for dot
    assert (
        ImageChops.difference(
            printed.crop((0, 0, *drawn.size)).convert("L"), drawn.convert("L")
        ).getbbox()
        is None
    )
    # and the total is in it: another total changes the dots of its line only
    other = desk_printer.raster({**paper, "total": "۹" if lang == "fa" else "9"}, 576, lang == "fa")
    changed = ImageChops.difference(drawn.convert("L"), other.convert("L")).getbbox()
    assert changed is not None
    lines = desk_printer.lines_of(paper)
    total_line = next(
        i for i, x in enumerate(lines) if x.amount == paper["total"] and x.size == "big"
    )
    assert 0 < total_line < len(lines) - 1
    _, top, _, bottom = changed
    assert bottom - top < 60  # one line of big type (34 px), nothing else moved
    if lang == "fa":  # right to left: the amount on the left, the words on the right
        assert changed[2] < 576 // 2
    (Path(__file__).parents[2] / "e2e" / "artifacts").mkdir(exist_ok=True)
    printed.save(Path(__file__).parents[2] / "e2e" / "artifacts" / f"escpos_receipt_{lang}.png")


def test_persian_is_shaped_not_drawn_letter_by_letter(tmp_path: Path) -> None:
    """raqm joins the letters: "تومان" shaped is narrower than its letters apart."""
    font = desk_printer._font(24, False)
    joined = font.getlength("تومان", direction="rtl", language="fa")
    apart = sum(font.getlength(c, direction="rtl", language="fa") for c in "تومان")
    assert joined < apart
    canvas = Image.new("1", (200, 40), 1)
    ImageDraw.Draw(canvas).text((190, 30), "تومان", font=font, fill=0, anchor="rs", direction="rtl")
    assert canvas.getbbox() is not None


def test_a_printer_that_cannot_be_reached_is_a_sentence(tmp_path: Path) -> None:
    paper = receipts.receipt(a_bill(tmp_path), "Table 1", "")["en"]
    nowhere = dataclasses.replace(PRINTER, host="127.0.0.1", port=9)  # the discard port, closed
    with pytest.raises(desk_printer.PrintError, match="the receipt printer did not print"):
        desk_printer.print_receipt(nowhere, paper)


@pytest.mark.parametrize(
    ("section", "words"),
    [
        ('connection = "fax"', "printer.connection must be one of network, usb, serial, file"),
        ('connection = "network"', "printer.host is missing"),
        (
            'connection = "network"\nhost = "p"\nport = 70000',
            "printer.port must be 1..65535, not 70000",
        ),
        ('connection = "usb"\nvendor = 1208', "printer.product is missing: its USB product id"),
        (
            'connection = "file"\ndevice = "/dev/usb/lp0"\nwidth = 500',
            "printer.width must be one of",
        ),
        ('connection = "file"\ndevice = "/dev/usb/lp0"\nlang = "de"', "printer.lang must be"),
        (
            'connection = "file"\ndevice = "/dev/usb/lp0"\ncolour = 1',
            "printer: unknown key 'colour'",
        ),
    ],
)
def test_a_bad_printer_section_is_refused_naming_its_key(section: str, words: str) -> None:
    import tomllib

    with pytest.raises(config.ConfigError, match=words.replace("(", r"\(")):
        config.parse(tomllib.loads("[printer]\n" + section), env={})


def test_a_whole_printer_section() -> None:
    import tomllib

    cfg = config.parse(
        tomllib.loads(
            '[printer]\nconnection = "usb"\nvendor = 0x0416\nproduct = 0x5011\nlang = "en"'
        ),
        env={},
    )
    assert cfg.billing.printer == printing.Printer("usb", vendor=0x0416, product=0x5011, lang="en")
