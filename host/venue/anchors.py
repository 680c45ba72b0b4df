"""The money chain's anchors (docs/LEDGER.md, "Every money row in the
record the tables sign"): after every commit that wrote money rows, the
newest head of the chain (host/store/money_chain.py) goes to the table of
each session written, which signs it into a checkpoint of its own at once
(protocol/SPEC.md 7.8, "Anchors"); and to a table whenever it comes (back)
online, so a table that was away signs what was written meanwhile.  A table
whose firmware is older than anchors answers ``error`` 3: it is sent none
until its next hello, and its bills' rows stay "not yet anchored"."""

from __future__ import annotations

import logging
from typing import Protocol

from baulk.host.store import SessionWrite, StoreReader, money_chain
from baulk.protocol import host_codec, messages
from baulk.protocol.host_codec import Anchor, Error

log = logging.getLogger("baulk.venue")


class Venue(Protocol):
    """What the anchors need of the daemon: the store, and the tables' links."""

    @property
    def reader(self) -> StoreReader: ...

    def send_to_table(self, table_id: str, record: Anchor) -> int | None: ...


class MoneyAnchors:
    def __init__(self, venue: Venue) -> None:
        self.venue = venue
        self.unsupported: set[str] = set()  # firmware older than anchors, until its next hello
        self.sent: dict[str, int] = {}  # per table, the rows of the newest head it was sent

    def written(self, rows: list[SessionWrite]) -> None:
        """Money rows committed (the store writer's ``on_money``)."""
        db = self.venue.reader.db
        tables = set()
        for w in rows:
            table = w.table_id
            if not table:
                found = db.execute(
                    "SELECT table_id FROM table_sessions WHERE id = ?", (w.session_id,)
                ).fetchone()
                table = found[0] if found else ""
            if table:
                tables.add(table)
        for table in sorted(tables):
            self.send(table)

    def send(self, table_id: str) -> None:
        if table_id in self.unsupported:
            return
        n, head = money_chain.head_of(self.venue.reader.db)
        if n == 0 or self.sent.get(table_id) == n:
            return  # nothing chained yet, or that very head is on its way
        if self.venue.send_to_table(table_id, Anchor(n=n, head=head)):
            self.sent[table_id] = n

    def on_hello(self, table_id: str) -> None:
        self.unsupported.discard(table_id)
        self.sent.pop(table_id, None)  # a new session: what was queued may not have gone
        self.send(table_id)

    def on_error(self, table_id: str, error: Error) -> None:
        if error.code == messages.ERR_UNSUPPORTED and error.type == host_codec.ANCHOR:
            if table_id not in self.unsupported:
                log.warning(
                    "table %s: its firmware signs no money heads (older than protocol 1.4): "
                    "its bills' money rows are chained, not anchored",
                    table_id,
                )
            self.unsupported.add(table_id)
