"""The pockets' sensors on the host: the log of every disagreement between a
pocket's sensors and the referee, and how the console names what the device
reports (protocol/SPEC.md ``health``, ``pocket_check``).

The log is found by the very rules the device counts its corrections with
(firmware/app.py, class Health), run here over the events the shadow
referee replays, so the console's log and the device's counts cannot tell
two stories.  A daemon that restarts in the middle of a stroke has lost the
sensor pots that stroke's undo could take back: a pot the referee then keys
again is logged as ``keyed`` (the sensor saw nothing) rather than
``changed``; it is a disagreement either way.
"""

from __future__ import annotations

from typing import Any

from baulk.firmware import names
from baulk.firmware.app import Health
from baulk.firmware.engine import Engine
from baulk.host.store import Disagreement
from baulk.host.store.sensor_queries import name_of

# The kinds of disagreement by their codes in firmware/app.py (_D_*:
# tests/test_wire_codes.py holds the two together).
KINDS = ("none", "changed", "taken_back", "keyed")


class SensorLog(Health):
    """Health's bookkeeping of sensor pots and undo, with each disagreement
    kept for the store instead of counted."""

    def __init__(self) -> None:
        Health.__init__(self, None)  # called by name: device code is typed by inference
        self.found: list[Disagreement] = []

    def disagree(self, kind: int, pocket: int, ball: int, k: int) -> None:
        self.found.append(
            Disagreement(
                KINDS[kind],
                name_of(names.POCKETS, pocket),
                name_of(names.BALLS, ball),  # the sensor's
                name_of(names.BALLS, k),  # the referee's
            )
        )

    def after(self, e: Engine, ev: dict[str, Any], src: int, log_len: int) -> list[Disagreement]:
        """The engine took ``ev`` from ``src`` (its log was ``log_len`` long
        before): the disagreements it settled."""
        Health.feed(self, e, ev, src, log_len)
        found, self.found = self.found, []
        return found
