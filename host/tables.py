"""What the daemon holds for one table while it runs."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from baulk.host.link import TableChannel
from baulk.host.live import TableView
from baulk.host.shadow import ShadowReferee


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
    # Operator actions sent and not yet answered, by their host seq.
    waiting: dict[int, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
