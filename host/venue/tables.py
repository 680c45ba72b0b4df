"""What the daemon holds for one table while it runs."""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from baulk.host.link.channel import TableChannel
from baulk.host.referee.shadow import ShadowReferee
from baulk.host.venue.live import TableView
from baulk.protocol.host_codec import Command, SetupMatch


@dataclass(eq=False)
class Pending:
    """One operator action from its storing to its answer in the store."""

    record: SetupMatch | Command  # with its id once stored
    action: int = 0  # its id (0: not stored yet)
    seq: int = 0  # the host seq it went out with in this run (0: not sent)
    answer_seq: int = 0  # the device event that answered it (0: none yet)
    stored: asyncio.Future[int] | None = None  # the HTTP request waits on these
    result: asyncio.Future[dict[str, Any]] | None = None


@dataclass
class TableActions:
    """A table's actions on their way: stored and waiting to be sent, then
    sent and waiting for their answer to be stored."""

    queue: deque[Pending] = field(default_factory=deque)
    sent: dict[int, Pending] = field(default_factory=dict)  # by action id
    by_seq: dict[int, Pending] = field(default_factory=dict)  # by host seq, this run

    def __len__(self) -> int:
        return len(self.queue) + len(self.sent)


@dataclass
class TableRuntime:
    view: TableView  # what its board shows
    shadow: ShadowReferee
    channel: TableChannel | None = None
    device_state_at: int = -1  # the seq the device's last snapshot reflects
    boot: int = 0
    refused: str | None = None  # why the device on this table's port is not heard
    refused_events: int = 0
    skipped_from: int = 0  # the first seq of the device stream refused, not stored
    actions: TableActions = field(default_factory=TableActions)  # host/venue/actions.py
    # Pocket checks asked for, by host seq: None once started, or the refusal.
    checks: dict[int, asyncio.Future[str | None]] = field(default_factory=dict)
