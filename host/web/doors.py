"""What each room of the web side may reach of what it serves.

Every server of the boards offers :class:`Boards`, under ``BOARDS_KEY``: the
daemon does, and so does ``baulk board``'s mirror of a broker
(host/cli/board.py), which has no store and no tables of its own.  The rooms
that act on tables, sessions and staff need the daemon itself, which is
under ``DAEMON_KEY`` (host/web/http.py) only where a daemon is served; a
room that can run on either reads ``BOARDS_KEY``, and one that writes takes
the daemon when it is there (``app.get(DAEMON_KEY)``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from aiohttp import web

if TYPE_CHECKING:
    from baulk.host.config import Config
    from baulk.host.venue.live import LiveHub


class Reports(Protocol):
    """The stored matches the report pages and the API read (the store's
    reader, host/store/queries.py; none on a board without a store)."""

    def matches(
        self, table_id: str | None = None, limit: int = 50, skip_empty: bool = False
    ) -> list[dict[str, Any]]: ...

    def referee_of(self, match_id: str) -> str | None: ...

    def name_fix(self, match_id: str) -> list[Any] | None: ...

    def name_fix_record(self, match_id: str) -> dict[str, Any] | None: ...

    def match(self, match_id: str) -> dict[str, Any] | None: ...

    def frames(self, match_id: str) -> list[dict[str, Any]]: ...

    def breaks(self, match_id: str, minimum: int = 50) -> list[dict[str, Any]]: ...

    def progression(self, match_id: str) -> dict[int, list[list[int]]]: ...


class Boards(Protocol):
    """What every server of the boards reads: the config, the live boards,
    the tables it knows and the stored matches (the last two read-only: a
    server holds its own kind of each)."""

    config: Config
    hub: LiveHub

    @property
    def tables(self) -> Mapping[str, object]: ...

    @property
    def reader(self) -> Reports: ...

    def table_ids(self) -> list[str]: ...

    def board(self, table_id: str) -> dict[str, Any] | None: ...

    def store_status(self) -> dict[str, Any]: ...


BOARDS_KEY: web.AppKey[Boards] = web.AppKey("boards")
