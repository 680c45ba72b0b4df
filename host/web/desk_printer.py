"""A receipt on the desk's thermal printer, with one tap (docs/BILLING.md,
"Printing").

The receipt (host/club/receipts.py) is drawn as one picture, the width of
the printer's head, and sent as an ESC/POS raster image (``GS v 0``)
followed by a cut, through python-escpos: a maintained library that speaks
to USB, network, serial and device-file printers alike.  A picture, not the
printer's own text, because a thermal printer's code pages cannot shape
Persian: the text is shaped and laid out by Pillow with raqm (FriBiDi and
HarfBuzz), in the Vazirmatn font, exactly as the referee's handset draws its
Persian (host/handset/render.py); a Latin name inside Persian runs in its
own direction (Unicode isolates).
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw, ImageFont

from baulk.host.club.printing import Printer
from baulk.host.club.receipts import text_of
from baulk.host.handset import render
from baulk.host.sentences import Message

if TYPE_CHECKING:  # python-escpos is read on the first print: its capability
    # table costs half a second to load, at every start of the daemon
    from escpos.escpos import Escpos

log = logging.getLogger("baulk.desk")

MARGIN = 8  # dots either side
GAP = 16  # between a line's words and its amount
SIZES = {"big": 34, "normal": 24, "small": 20}  # pixels at 203 dpi: 4.3, 3.0, 2.5 mm
TIMEOUT_S = 10


class PrintError(RuntimeError):
    """The receipt could not be printed (the message says why)."""

    def __init__(self, message: Message) -> None:
        super().__init__(str(message))
        self.message = message


@dataclass(frozen=True)
class PaperLine:
    """One line of the paper: words (at the line's start), an amount (at its
    end), a size, bold or not, centred or not."""

    text: str
    amount: str = ""
    size: str = "normal"
    bold: bool = False
    centre: bool = False
    rule: bool = False  # a line across before it


@cache
def _font(size: int, bold: bool) -> ImageFont.FreeTypeFont:
    render.font()  # refuses to work without raqm, as the handset does
    path = render.font_path()
    if bold:
        path = path.with_name("Vazirmatn-Bold.ttf")
    return ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.RAQM)


def lines_of(paper: dict[str, Any]) -> list[PaperLine]:
    """The receipt (one language of host/club/receipts.py receipt) line by line."""
    out: list[PaperLine] = []
    if paper["venue"]:
        venue = text_of([{"name": paper["venue"]}])
        out.append(PaperLine(venue, size="big", bold=True, centre=True))
    out.append(PaperLine(f"{paper['title']} {paper['session']}", bold=True, centre=True))
    for row in paper["info"]:
        out.append(PaperLine(row["label"], text_of(row["value"]), size="small"))
    first = True
    for row in paper["rows"]:
        out.append(PaperLine(text_of(row["parts"]), row["amount"], rule=first))
        first = False
        if row["note"]:
            out.append(PaperLine("  " + text_of(row["note"]), size="small"))
    out.append(PaperLine(paper["labels"]["total"], paper["total"], "big", bold=True, rule=True))
    who = paper["who_pays"]
    if who is not None and any(f["amount"] for f in who["frames"]):
        out.append(PaperLine(paper["labels"]["who_pays"], bold=True, rule=True))
        if who["intro"]:
            out.append(PaperLine(who["intro"], size="small"))
        for f in who["frames"]:
            out.append(PaperLine(text_of(f["parts"]), f["amount"]))
            out.append(PaperLine("  " + text_of(f["note"]), size="small"))
    for p in paper["payers"]:
        out.append(PaperLine(text_of(p["parts"]), p["amount"], bold=True))
    for note in paper["notes"]:
        out.append(PaperLine(note, size="small"))
    out.append(PaperLine(paper["labels"]["thanks"], centre=True, rule=True))
    return out


def _wrap(text: str, font: ImageFont.FreeTypeFont, width: int, rtl: bool) -> list[str]:
    """Words of ``text`` in lines no wider than ``width`` (a word wider than
    the line is left whole: the printer cuts it)."""
    direction = "rtl" if rtl else "ltr"
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        trial = f"{current} {word}" if current else word
        if current and font.getlength(trial, direction=direction, language="fa") > width:
            lines.append(current)
            current = word
        else:
            current = trial
    lines.append(current)
    return lines


def raster(paper: dict[str, Any], width: int, rtl: bool) -> Image.Image:
    """The receipt as a 1-bit picture ``width`` dots wide, drawn with raqm:
    Persian shaped and laid out right to left, amounts at the line's end."""
    direction = "rtl" if rtl else "ltr"
    rows: list[tuple[int, str, str, PaperLine]] = []  # (top, words, amount, line)
    y = MARGIN
    inner = width - 2 * MARGIN
    for line in lines_of(paper):
        font = _font(SIZES[line.size], line.bold)
        if line.rule:
            y += 10
        amount_w = int(font.getlength(line.amount)) + GAP if line.amount else 0
        height = int(SIZES[line.size] * 1.45)
        for i, words in enumerate(_wrap(line.text, font, inner - amount_w, rtl)):
            rows.append((y, words, line.amount if i == 0 else "", line))
            y += height
    image = Image.new("1", (width, y + MARGIN + 40), 1)
    draw = ImageDraw.Draw(image)
    draw.fontmode = "1"  # one bit a pixel, hinted for it: no grey to dither
    ruled = set()
    for top, words, amount, line in rows:
        font = _font(SIZES[line.size], line.bold)
        if line.rule and id(line) not in ruled:
            ruled.add(id(line))
            draw.line([(MARGIN, top - 6), (width - MARGIN, top - 6)], fill=0, width=2)
        base = top + SIZES[line.size]
        if line.centre:
            draw.text(
                (width // 2, base),
                words,
                font=font,
                fill=0,
                anchor="ms",
                direction=direction,
                language="fa",
            )
            continue
        start = (width - MARGIN, base) if rtl else (MARGIN, base)
        draw.text(
            start,
            words,
            font=font,
            fill=0,
            anchor="rs" if rtl else "ls",
            direction=direction,
            language="fa",
        )
        if amount:
            end = (MARGIN, base) if rtl else (width - MARGIN, base)
            draw.text(end, amount, font=font, fill=0, anchor="ls" if rtl else "rs")
    return image


def connect(printer: Printer) -> Escpos:
    """The printer as python-escpos reaches it (opened on first use)."""
    from escpos import printer as escpos_printer

    if printer.connection == "network":
        return escpos_printer.Network(printer.host, printer.port, timeout=TIMEOUT_S)
    if printer.connection == "usb":
        return escpos_printer.Usb(printer.vendor, printer.product, timeout=TIMEOUT_S * 1000)
    if printer.connection == "serial":
        return escpos_printer.Serial(printer.device, baudrate=printer.baud, timeout=TIMEOUT_S)
    return escpos_printer.File(printer.device)


def send(device: Escpos, paper: dict[str, Any], printer: Printer) -> None:
    """The receipt's picture, then feed and cut."""
    device.image(raster(paper, printer.width, paper["lang"] == "fa"))
    device.cut()


def print_receipt(printer: Printer, paper: dict[str, Any]) -> None:
    """Print one receipt on the configured printer (blocking: the desk runs
    it in a worker thread).  Raises PrintError with a sentence."""
    from escpos.exceptions import Error as EscposError

    device = connect(printer)
    try:
        send(device, paper, printer)
    except (EscposError, OSError, ValueError) as e:
        log.warning("receipt printer: %s", e)
        raise PrintError(
            Message("the receipt printer did not print: {text}", text=str(e)[:120])
        ) from None
    finally:
        with contextlib.suppress(EscposError, OSError, AttributeError):
            device.close()
