"""The desk's receipt printer in the config: ``[printer]`` (docs/BILLING.md,
"Printing"; its keys, declared once below, in docs/CONFIG.md).  A thermal
receipt printer that speaks ESC/POS, on USB, on the club's network or on a
serial line; host/web/desk_printer.py draws the receipt and sends it through
python-escpos.

Every mistake raises :class:`PrinterError` naming the key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import ValidationError, model_validator

from baulk.host.settings_schema import Section, default_of, key, one_of, sentence

CONNECTIONS = ("network", "usb", "serial", "file")
WIDTHS = (384, 512, 576, 640)  # 58 mm and 80 mm rolls at 203 dpi, and the wider heads
LANGS = ("en", "fa")
# What each connection must name, and how the refusal says it.
_NEEDS = {
    "network": (("host", "the printer's address on the club network"),),
    "usb": (("vendor", "the printer's USB vendor id"), ("product", "its USB product id")),
    "serial": (("device", "the serial port"),),
    "file": (("device", "the device file, such as /dev/usb/lp0"),),
}


class PrinterError(ValueError):
    """The ``[printer]`` section cannot be used; the message names the key."""


class PrinterSection(Section):
    """The desk's receipt printer (ESC/POS): one tap prints a receipt (docs/BILLING.md)."""

    TITLE = "[printer]"
    connection: Annotated[str, one_of(CONNECTIONS)] = key(
        ...,
        "how the printer is reached",
        rule=f"one of {', '.join(CONNECTIONS)}",
        missing=f"must be one of {', '.join(CONNECTIONS)}",
    )
    host: str | None = key(None, "network: the printer's address", min_length=1, max_length=255)
    port: int = key(9100, "network: its port (raw printing)", ge=1, le=65535)
    vendor: int | None = key(None, "usb: the printer's vendor id (`0x0416`)", ge=1, le=0xFFFF)
    product: int | None = key(None, "usb: its product id (`0x5011`)", ge=1, le=0xFFFF)
    device: str | None = key(
        None, "serial or file: the device (`/dev/usb/lp0`)", min_length=1, max_length=255
    )
    baud: int = key(19200, "serial: the line's rate", ge=1200, le=921600)
    width: Annotated[int, one_of(WIDTHS)] = key(
        576,
        "dots a line: 576 on 80 mm paper at 203 dpi, 384 on 58 mm",
        rule=f"one of {', '.join(map(str, WIDTHS))} dots",
    )
    lang: Annotated[str, one_of(LANGS)] = key(
        "fa", "the language its receipts are printed in", rule=f"one of {', '.join(LANGS)}"
    )

    @model_validator(mode="after")
    def _what_the_connection_needs(self) -> PrinterSection:
        given = self.model_dump()
        for name, what in _NEEDS[self.connection]:
            value = given[name]
            if value is None or (isinstance(value, str) and not value.strip()):
                raise ValueError(f".{name} is missing: {what}")
            if isinstance(value, str) and not value.isprintable():
                raise ValueError(f".{name} must be printable text")
        return self


@dataclass(frozen=True)
class Printer:
    connection: str
    host: str = ""
    port: int = default_of(PrinterSection, "port")
    vendor: int = 0
    product: int = 0
    device: str = ""
    baud: int = default_of(PrinterSection, "baud")
    width: int = default_of(PrinterSection, "width")
    lang: str = default_of(PrinterSection, "lang")


def parse(raw: object) -> Printer | None:
    """The ``[printer]`` section (None: the desk prints through the browser only)."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise PrinterError("[printer] must be a table")
    try:
        found = PrinterSection.model_validate(raw)
    except ValidationError as e:
        raise PrinterError(sentence(e, PrinterSection, "printer")) from None
    return printer_of(found)


def printer_of(found: PrinterSection) -> Printer:
    """What the desk reads of a checked ``[printer]``."""
    return Printer(
        found.connection,
        host=(found.host or "").strip(),
        port=found.port,
        vendor=found.vendor or 0,
        product=found.product or 0,
        device=(found.device or "").strip(),
        baud=found.baud,
        width=found.width,
        lang=found.lang,
    )
