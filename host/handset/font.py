"""The handset's Persian text file, fa.bin: every text of
host/handset/texts.py shaped and drawn (host/handset/render.py) and packed the
way firmware/painter.py's BitmapText reads it in place from flash.

``baulk firmware build`` writes it beside the firmware modules, so it goes
into the ROMFS image and, for a plain deployment, into /lib/baulk/firmware/.

Every text is checked here, so that a mistake stops the build with the text
named rather than reaching a referee: a line that would not fit the display,
ink cut off at the top or bottom of its row, a list option too wide for its
half row, a text that needs more lines than its place on the screen has, and
two English texts with the same key.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from baulk.firmware import painter
from baulk.host.handset import render as text_render
from baulk.host.handset import texts as handset_texts

FILE_NAME = "fa.bin"
MAGIC = b"BKT1"
WIDTH = 128
# The columns a row keeps clear at its start, the right end of a Persian row
# (firmware/painter.py declares it, for both languages): a line takes at most
# ROOM pixels.
EDGE: int = painter._EDGE
ROOM = WIDTH - EDGE
# A list shows two options a row (firmware/screens.py), each in half the row:
# its number (a digit, 7 pixels), a gap of 4, the label, and 2 pixels of room
# on the side that faces the other option (the right half's edge takes one of
# them: the two options stay 3 pixels apart at least).
LIST_LABEL_WIDTH = 64 - 7 - 4 - 2
MOST_LINES = 3  # a refusal may take rows 1 to 3 of the score screen


class TextError(ValueError):
    """A Persian text that cannot be shown as it is."""


@dataclass(frozen=True)
class Packed:
    data: bytes
    entries: int
    lines: int
    pixels: int  # bytes of pixels in all


def render_entries() -> dict[str, list[text_render.Line]]:
    """Each English text's Persian, drawn and checked."""
    labels = set(handset_texts.list_labels())
    out: dict[str, list[text_render.Line]] = {}
    for english, persian in handset_texts.entries().items():
        lines = text_render.wrap(persian, ROOM)
        for line in lines:
            if line.width > ROOM:
                raise TextError(f"{english!r}: a word of {persian!r} is wider than the display")
            if line.clipped:
                raise TextError(f"{english!r}: {persian!r} does not fit a 16-pixel row")
        if len(lines) > MOST_LINES:
            raise TextError(f"{english!r}: {persian!r} takes {len(lines)} lines, at most 3")
        if english in labels and (len(lines) > 1 or lines[0].width > LIST_LABEL_WIDTH):
            raise TextError(
                f"{english!r} is a list option: {persian!r} must fit {LIST_LABEL_WIDTH} pixels"
            )
        out[english] = lines
    return out


def pack() -> Packed:
    rendered = render_entries()
    keys: dict[int, str] = {}
    for english in rendered:
        k = painter.key(english)
        other = keys.get(k)
        if other is not None and other.strip() != english.strip():
            raise TextError(f"{english!r} and {other!r} have the same key: reword one")
        keys[k] = english
    digit_w, digits = text_render.digits()
    order = sorted(keys)
    header = MAGIC + struct.pack("<HBB", len(order), digit_w, 2)
    index_size = 8 * len(order)
    body = bytearray(b"".join(digits))
    at = len(header) + index_size
    index = bytearray()
    lines = 0
    pixels = 0
    for k in order:
        entry = bytearray((len(rendered[keys[k]]),))
        for line in rendered[keys[k]]:
            entry.append(line.width)
            entry += line.columns()
            lines += 1
            pixels += 2 * line.width
        index += struct.pack("<II", k, at + len(body))
        body += entry
    data = header + bytes(index) + bytes(body)
    return Packed(data, len(order), lines, pixels)


def write(folder: Path) -> Path:
    """Write fa.bin into `folder`; returns its path."""
    path = folder / FILE_NAME
    path.write_bytes(pack().data)
    return path
