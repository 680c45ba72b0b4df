"""The referee's handset, from the host's side: its language and the players'
names drawn for it (SPEC.md `settings` and `name_bitmap`).

The handset cannot shape Persian, so the host draws each player's name
(host/handset/render.py) and sends it as a 1-bit bitmap; the device keeps the
bitmaps and the language on its flash.  :class:`Handsets` holds each table's
language, from the config's ``handset_lang`` or the web API
(host/web/handset.py), and sends what a table's device needs: the
language and the names at each hello, the names again after each new match.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from baulk.firmware import names, painter
from baulk.host.handset import render as text_render
from baulk.protocol import host_catalogue, messages
from baulk.protocol.host_codec import NameBitmap, Record, Settings

if TYPE_CHECKING:
    from baulk.host.config import Config

log = logging.getLogger("baulk.handset")

LANGS = names.LANGS
# A name's room on a Persian row: the display's 128 pixels less the widest
# row a name shares, a foul's notice ("FOUL 4 >" and the gaps, 41 pixels;
# the score row's mark and three digits take less), and less the column the
# row keeps clear at its start (firmware/painter.py's edge) and as many at its
# other end: 85.
NAME_WIDTH = 128 - 41 - 2 * painter._EDGE
PARTNER_WIDTH = 36  # doubles: two partners and the word between them (12 pixels) share it
_BITMAP = host_catalogue.SCHEMA[messages.NAME_BITMAP]
MAX_WIDTH = int(_BITMAP[2][3])
MAX_HEIGHT = int(_BITMAP[3][3])


class Sender(Protocol):
    """What the handset needs of a table's link (link.TableChannel)."""

    def send(self, record: Record) -> int: ...


def lang_code(lang: str) -> int:
    """The wire code of a language name; ValueError names the choices."""
    if lang not in LANGS:
        raise ValueError(f"lang must be one of: {', '.join(LANGS)} (not {lang!r})")
    return LANGS.index(lang)


def settings(lang: str) -> Settings:
    return Settings(lang=lang_code(lang))


def name_bitmap(name: str, side: int, member: int, most: int = NAME_WIDTH) -> NameBitmap:
    """A player's name drawn for the handset: at most `most` pixels wide
    (cut with an ellipsis), one 16-pixel row high."""
    line = text_render.fit(name, min(most, MAX_WIDTH))
    return NameBitmap(side, member, line.width, text_render.HEIGHT, line.rows())


def name_bitmaps(players: Any) -> list[NameBitmap]:
    """The name_bitmap messages for a match's players: two names, or two
    teams of one or two."""
    out: list[NameBitmap] = []
    if not isinstance(players, (list, tuple)) or len(players) != 2:
        return out
    for side, p in enumerate(players):
        if isinstance(p, str):
            out.append(name_bitmap(p, side, 0))
        elif isinstance(p, (list, tuple)) and len(p) == 1:
            out.append(name_bitmap(str(p[0]), side, 0))
        elif isinstance(p, (list, tuple)):
            for member, partner in enumerate(p[:2]):
                out.append(name_bitmap(str(partner), side, member, PARTNER_WIDTH))
    return out


class Handsets:
    """Each table's handset language, and the messages that carry it and the
    players' names to the device."""

    def __init__(self, config: Config) -> None:
        # The config's language for each table; the web API changes it until
        # the daemon stops (the device keeps the last one it got on flash).
        self.langs: dict[str, str] = {
            t.id: t.handset_lang for t in config.tables if t.handset_lang is not None
        }
        self._font_missing_logged = False

    def lang(self, table_id: str) -> str | None:
        """The language the host holds for the table (None: whatever the device has)."""
        return self.langs.get(table_id)

    def set_lang(self, table_id: str, lang: str, link: Sender | None) -> int:
        """Set a table's language and send it; returns the message's seq (0:
        not sent now: no link, or its journal is full; it goes at the next hello)."""
        message = settings(lang)
        self.langs[table_id] = lang
        if link is None:
            return 0
        return link.send(message)

    def on_hello(self, table_id: str, link: Sender, players: Any) -> None:
        """A device said hello: its language, then the names of the match it plays."""
        lang = self.langs.get(table_id)
        if lang is not None:
            link.send(settings(lang))
        self.on_players(table_id, link, players)

    def on_players(self, table_id: str, link: Sender, players: Any) -> None:
        """A new match (or a device that asks again): the names, drawn."""
        if players is None:
            return
        try:
            bitmaps = name_bitmaps(players)
        except text_render.FontError as e:
            if not self._font_missing_logged:
                log.error("table %s: names not drawn for the handset: %s", table_id, e)
                self._font_missing_logged = True
            return
        for bitmap in bitmaps:
            if not link.send(bitmap):
                log.warning("table %s: the link's journal is full; names go at the next hello",
                            table_id)  # fmt: skip
                return
