"""The desk's receipt printer in the config: ``[printer]`` (docs/BILLING.md,
"Printing").  A thermal receipt printer that speaks ESC/POS, on USB, on the
club's network or on a serial line; host/web/desk_printer.py draws the
receipt and sends it through python-escpos.

```toml
[printer]
connection = "network"     # "network", "usb", "serial" or "file" (such as /dev/usb/lp0)
host = "192.168.1.50"      # network: the printer's address ...
port = 9100                # ... and port (9100, raw printing)
# vendor = 0x0416          # usb: the printer's USB vendor and product ids
# product = 0x5011
# device = "/dev/ttyUSB0"  # serial or file: the device
# baud = 19200             # serial
width = 576                # dots a line: 576 on 80 mm paper at 203 dpi, 384 on 58 mm
lang = "fa"                # the language its receipts are printed in ("en" or "fa")
```

Every mistake raises :class:`PrinterError` naming the key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CONNECTIONS = ("network", "usb", "serial", "file")
_KEYS = ("connection", "host", "port", "vendor", "product", "device", "baud", "width", "lang")
WIDTHS = (384, 512, 576, 640)  # 58 mm and 80 mm rolls at 203 dpi, and the wider heads
LANGS = ("en", "fa")


class PrinterError(ValueError):
    """The ``[printer]`` section cannot be used; the message names the key."""


@dataclass(frozen=True)
class Printer:
    connection: str
    host: str = ""
    port: int = 9100
    vendor: int = 0
    product: int = 0
    device: str = ""
    baud: int = 19200
    width: int = 576
    lang: str = "fa"


def _int(section: dict[str, Any], key: str, default: int, least: int, most: int) -> int:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise PrinterError(f"printer.{key} must be a whole number from {least} to {most}")
    return value


def _text(section: dict[str, Any], key: str) -> str:
    value = section.get(key)
    if not isinstance(value, str) or not value.strip() or len(value) > 255:
        raise PrinterError(f"printer.{key} is missing: the {key} to print to")
    if not value.isprintable():
        raise PrinterError(f"printer.{key} must be printable text")
    return value.strip()


def parse(raw: object) -> Printer | None:
    """The ``[printer]`` section (None: the desk prints through the browser only)."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise PrinterError("[printer] must be a table")
    extra = sorted(set(raw) - set(_KEYS))
    if extra:
        raise PrinterError(f"printer: unknown key {extra[0]!r} (allowed: {', '.join(_KEYS)})")
    connection = raw.get("connection")
    if connection not in CONNECTIONS:
        raise PrinterError(f"printer.connection must be one of {', '.join(CONNECTIONS)}")
    width = raw.get("width", 576)
    if width not in WIDTHS or isinstance(width, bool):
        raise PrinterError(f"printer.width must be one of {', '.join(map(str, WIDTHS))} dots")
    lang = raw.get("lang", "fa")
    if lang not in LANGS:
        raise PrinterError("printer.lang must be 'en' or 'fa'")
    base = {"width": width, "lang": lang}
    if connection == "network":
        port = _int(raw, "port", 9100, 1, 65535)
        return Printer("network", host=_text(raw, "host"), port=port, **base)
    if connection == "usb":
        return Printer(
            "usb",
            vendor=_int(raw, "vendor", -1, 1, 0xFFFF),
            product=_int(raw, "product", -1, 1, 0xFFFF),
            **base,
        )
    baud = _int(raw, "baud", 19200, 1200, 921600) if connection == "serial" else 19200
    return Printer(connection, device=_text(raw, "device"), baud=baud, **base)
