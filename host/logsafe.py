"""The daemon's log, safe from what it writes down: text that came from
outside (a table's log line, a name, a request) is escaped so that it can
neither forge a line nor drive the terminal that shows it, and an error that
repeats (a stranger's thousand bad requests, a row the store refuses again
and again) is told once, then counted and summed up now and then."""

from __future__ import annotations

import logging
import time
import traceback
import unicodedata
from pathlib import Path

# Shown as escapes: controls (line breaks, ESC), and the invisible format
# characters that would turn the text around them (U+202E) or hide in it.
_ESCAPED = ("Cc", "Cf", "Zl", "Zp", "Co", "Cn", "Cs")
TEXT_MOST = 200


def printable(text: object, most: int = TEXT_MOST) -> str:
    """``text`` as one harmless line of at most ``most`` characters: every
    control or invisible character written as its escape (``\\n``,
    ``\\x1b``, ``\\u202e``), a backslash doubled so an escape cannot be faked."""
    s = text if isinstance(text, str) else repr(text)
    out: list[str] = []
    for c in s[: most + 1]:
        if c == "\\":
            out.append("\\\\")
        elif unicodedata.category(c) in _ESCAPED:
            out.append(c.encode("unicode_escape").decode("ascii"))
        else:
            out.append(c)
    line = "".join(out)
    return line[:most] + "…" if len(s) > most or len(line) > most else line


class Tally:
    """Errors told once per kind, then counted: the count is told with the
    next one of its kind that comes ``every_s`` or more after the last line,
    or by :meth:`report`.  At most ``kinds`` kinds are kept (any more are
    counted together), so what a stranger sends cannot grow it."""

    def __init__(self, logger: logging.Logger, every_s: float = 60.0, kinds: int = 64) -> None:
        self.logger = logger
        self.every_s = every_s
        self.kinds = kinds
        self.counts: dict[str, int] = {}  # by kind: how many since the last line
        self.told_at: dict[str, float] = {}
        self.last: dict[str, tuple[int, str]] = {}  # the latest of each kind: level, text
        self.total = 0

    def tell(self, kind: str, level: int, text: str, now: float | None = None) -> bool:
        """One error of ``kind``; logs ``text`` if it is the first, or the
        first since ``every_s``.  Returns whether a line was written."""
        now = time.monotonic() if now is None else now
        self.total += 1
        if kind not in self.told_at and len(self.told_at) >= self.kinds:
            kind = "(other kinds)"
        self.last[kind] = (level, text)
        told = self.told_at.get(kind)
        if told is None:
            self.told_at[kind] = now
            self.counts[kind] = 0
            self.logger.log(level, "%s", text)
            return True
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if now - told < self.every_s:
            return False
        self._say(kind, now)
        return True

    def report(self, now: float | None = None) -> None:
        """Tell the counts of every kind whose last line is ``every_s`` old."""
        now = time.monotonic() if now is None else now
        for kind, n in list(self.counts.items()):
            if n and now - self.told_at[kind] >= self.every_s:
                self._say(kind, now)

    def _say(self, kind: str, now: float) -> None:
        n = self.counts.get(kind, 0)
        level, text = self.last[kind]
        seconds = now - self.told_at[kind]
        self.logger.log(level, "%s (%d times in the last %.0f s)", text, n, seconds)
        self.counts[kind] = 0
        self.told_at[kind] = now


def failure(e: BaseException) -> str:
    """An exception in one line for the log, in place of its traceback:
    its type, its words (escaped) and where it was raised ("writer.py:210
    in _event"), which is what a developer needs to find it."""
    frames = traceback.extract_tb(e.__traceback__)
    at = (
        f" at {Path(frames[-1].filename).name}:{frames[-1].lineno} in {frames[-1].name}"
        if frames
        else ""
    )
    words = printable(str(e), 160)
    return f"{type(e).__name__}{': ' + words if words else ''}{at}"
