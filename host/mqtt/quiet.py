"""Warnings a stranger can cause, logged sparingly: a broker is open to every
host and board of the venue, so a flood of bad messages must cost a count,
not a log line (and never a traceback) each."""

from __future__ import annotations

import logging
import threading
import time
from typing import Final

EVERY: Final = 10.0  # s between lines for one key ...
LINES: Final = 20  # ... and at most this many lines in that time for all keys
MAX_KEYS: Final = 1000


class QuietLog:
    """``warn(key, text)`` logs ``text`` at most once per key every
    :data:`EVERY` seconds, and at most :data:`LINES` lines in that time in
    all; the next line says how many were left out."""

    def __init__(self, log: logging.Logger, every: float = EVERY, lines: int = LINES) -> None:
        self.log = log
        self.every = every
        self.lines = lines
        self._lock = threading.Lock()
        self._last: dict[str, tuple[float, int]] = {}  # key -> (logged at, left out since)
        self._window = 0.0
        self._in_window = 0
        self._left_out = 0

    def warn(self, key: str, text: str) -> bool:
        """Log ``text`` unless the key or the window is spent; True if logged."""
        now = time.monotonic()
        with self._lock:
            if len(self._last) > MAX_KEYS:
                self._last.clear()
            last, skipped = self._last.get(key, (-self.every, 0))
            if now - self._window >= self.every:
                self._window, self._in_window = now, 0
            if now - last < self.every or self._in_window >= self.lines:
                self._last[key] = (last, skipped + 1)
                self._left_out += 1
                return False
            self._last[key] = (now, 0)
            self._in_window += 1
            left_out, self._left_out = self._left_out, 0
        more = f" ({skipped} more like it since the last report)" if skipped else ""
        others = f"; {left_out} such lines were left out" if left_out > skipped else ""
        self.log.warning("%s%s%s", text, more, others)
        return True
