"""The venue PC's clocks, for what is billed by the minute.

A table session is timed by the PC's *monotonic* clock, which nobody sets:
``CLOCK_BOOTTIME`` counts from the PC's boot, suspend included, and goes on
through a restart of the daemon (a ``kill -9`` included).  The wall clock is
kept beside it only to say *when* (the receipt's date, the day a session
belongs to, which tariff hours it fell in), never *how long*.  Setting the
PC's clock forward or back during a session therefore changes no bill.

Only a reboot of the PC itself breaks the monotonic clock: each stamp carries
the PC's boot id, and a duration between two boots falls back to the wall
clock, marked as such on the bill (:func:`elapsed_ms`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
_MONOTONIC = getattr(time, "CLOCK_BOOTTIME", time.CLOCK_MONOTONIC)


@dataclass(frozen=True)
class Stamp:
    """One moment as the PC saw it: the wall clock (to say when) and the
    monotonic clock of that boot (to say how long)."""

    wall_ms: int
    mono_ms: int
    boot: str


class VenueClock:
    """The clocks the daemon stamps sessions with.  Tests shift ``wall_offset_ms``
    to set the PC's wall clock forward or back, and :meth:`advance` to let
    minutes pass, without touching the machine or waiting."""

    def __init__(self) -> None:
        self.wall_offset_ms = 0
        self.mono_offset_ms = 0
        try:
            self.boot = _BOOT_ID.read_text(encoding="ascii").strip()
        except OSError:  # not Linux: one boot per daemon is the safe guess
            self.boot = f"process-{time.time_ns()}"

    def wall_ms(self) -> int:
        return time.time_ns() // 1_000_000 + self.wall_offset_ms

    def mono_ms(self) -> int:
        return time.clock_gettime_ns(_MONOTONIC) // 1_000_000 + self.mono_offset_ms

    def advance(self, ms: int) -> None:
        """Both clocks on by ``ms``, as if that much time had passed."""
        self.wall_offset_ms += ms
        self.mono_offset_ms += ms

    def now(self) -> Stamp:
        return Stamp(self.wall_ms(), self.mono_ms(), self.boot)


def elapsed_ms(start: Stamp, end: Stamp) -> tuple[int, str]:
    """How long from ``start`` to ``end``, and by which clock: ``"monotonic"``
    within one boot of the PC, ``"wall"`` across a reboot (never negative)."""
    if start.boot == end.boot:
        return max(end.mono_ms - start.mono_ms, 0), "monotonic"
    return max(end.wall_ms - start.wall_ms, 0), "wall"
