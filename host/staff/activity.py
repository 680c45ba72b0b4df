"""The activity log: one appended row for every state-changing request, who
made it (account and role), when (the PC's wall clock and its monotonic
clock), from where (address and browser), what (the action and the request
in short) and how it ended (done, queued or refused, and why).

The web gate (host/web/auth.py) writes the rows; nothing edits or deletes
one (triggers in host/store/staff_schema.py refuse it).  A row never waits
for the disk and never stops an event: it rides in the store writer's next
commit, in a savepoint of its own.  Requests refused without any sign-in
are logged one by one up to ``QUIET_MOST`` a minute; past that they are
counted and summed up in one row, so a stranger's flood cannot fill the
disk.  Secrets in a body (a password, a PIN, a token) never reach the log.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any

from baulk.host.club import views
from baulk.host.club.clock import Stamp
from baulk.host.staff.roles import Actor
from baulk.host.store import StaffWrite

WHAT_CHARS = 300
DEVICE_CHARS = 200
WHO_CHARS = 64  # a name tried at sign-in, as the log keeps it
ACTION_CHARS = 64
WHY_CHARS = 300
QUIET_MOST = 30  # refusals without a sign-in logged one by one each minute
SECRET_KEYS = ("token", "password", "pin", "new_password", "code")

# What each route does, in a word or two; a route not named here is logged
# by its method and pattern.
ACTIONS: dict[str, str] = {
    "/console/signin": "sign-in",
    "/console/signout": "sign-out",
    "/api/tables/{table}/match": "match set-up",
    "/api/tables/{table}/command": "command",
    "/api/tables/{table}/names": "name correction",
    "/api/tables/{table}/handset": "handset language",
    "/api/tables/{table}/pocket-check": "pocket check",
    "/api/tables/{table}/sensor-capture": "sensor capture",
    "/api/tables/{table}/session": "session open",
    "/api/sessions/{session}/close": "session close",
    "/api/sessions/{session}/confirm": "session confirm",
    "/api/sessions/{session}/corrections": "correction",
    "/api/staff/users": "user add",
    "/api/staff/users/{name}": "user change",
    "/api/staff/users/{name}/code": "sign-in code",
    "/api/staff/tokens": "token add",
    "/api/staff/tokens/{token}/revoke": "token revoke",
}


def action_of(method: str, pattern: str | None, body: dict[str, Any] | None) -> str:
    name = ACTIONS.get(pattern or "")
    if name is None:
        return f"{method} {pattern or '?'}"[:80]
    if name == "command" and body is not None and isinstance(body.get("ev"), str):
        return str(body["ev"])[:40]  # undo, award, concede, rerack, toss, pot ...
    return name


def summary(method: str, path: str, body: dict[str, Any] | None) -> str:
    """The request in short: method, path and body, secrets left out."""
    text = f"{method} {path}"
    if body:
        shown = {k: ("***" if k in SECRET_KEYS else v) for k, v in body.items()}
        try:
            text += " " + json.dumps(shown, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError, RecursionError):
            text += " (a body that cannot be shown)"
    return text[:WHAT_CHARS].encode("utf-8", "replace").decode("utf-8")


def result_of(status: int) -> str:
    if status == 202:
        return "queued"
    return "done" if status < 300 else "refused"


@dataclass
class Entry:
    """One row as the gate makes it, before it is written."""

    at: Stamp
    actor: Actor | None
    tried: str | None  # the name a sign-in was tried with (no actor yet)
    address: str | None
    device: str | None
    action: str
    what: str
    table_id: str | None
    session_id: int | None
    result: str
    why: str | None

    def write(self) -> StaffWrite:
        a = self.actor
        return StaffWrite(
            "activity",
            {
                "wall_ms": self.at.wall_ms,
                "mono_ms": self.at.mono_ms,
                "boot": self.at.boot,
                # Every text as the store can keep it, whatever was typed (a
                # lone surrogate, a name beyond bounds): the log never refuses.
                "who": _clean(a.name if a is not None else self.tried, WHO_CHARS),
                "role": a.role if a is not None else None,
                "address": _clean(self.address, 64),
                "device": _clean(self.device, DEVICE_CHARS),
                "action": _clean(self.action, ACTION_CHARS) or "?",
                "what": _clean(self.what, WHAT_CHARS) or "",
                "table_id": _clean(self.table_id, 64),
                "session_id": self.session_id,
                "result": self.result,
                "why": _clean(self.why, WHY_CHARS),
            },
        )


def _clean(text: str | None, most: int) -> str | None:
    if not text:
        return None
    return text[:most].encode("utf-8", "replace").decode("utf-8")


class QuietRefusals:
    """Counts refusals without a sign-in, minute by minute: the first
    QUIET_MOST of a minute are logged, the rest summed up."""

    def __init__(self, most: int = QUIET_MOST) -> None:
        self.most = most
        self.minute = -1
        self.logged = 0
        self.skipped = 0

    def admit(self, mono_ms: int) -> tuple[bool, int]:
        """(log this one?, how many the minute before left unlogged: a
        summary row is due when that is not 0)."""
        minute = mono_ms // 60_000
        left = 0
        if minute != self.minute:
            left, self.minute, self.logged, self.skipped = self.skipped, minute, 0, 0
        if self.logged < self.most:
            self.logged += 1
            return True, left
        self.skipped += 1
        return False, left


# ---------------------------------------------------------------------- the page's CSV
CSV_HEADERS = {
    "en": [
        "time", "who", "role", "address", "device", "action", "table", "session",
        "result", "why", "request",
    ],
    "fa": [
        "زمان", "چه کسی", "نقش", "نشانی", "دستگاه", "کار", "میز", "جلسه",
        "نتیجه", "چرا", "درخواست",
    ],
}  # fmt: skip
RESULTS = {"fa": {"done": "انجام شد", "queued": "در صف", "refused": "رد شد"}}
ROLE_WORDS = {"fa": {"owner": "مالک", "desk": "پیشخوان", "referee": "داور"}}


def to_csv(rows: list[dict[str, Any]], tz: str, lang: str) -> str:
    """The log as CSV in one language; every cell safe from formulas."""
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow([views.csv_cell(h) for h in CSV_HEADERS[lang]])
    results = RESULTS.get(lang, {})
    roles = ROLE_WORDS.get(lang, {})
    for r in rows:
        w.writerow(
            [
                views.csv_cell(v)
                for v in (
                    views.when(r["wall_ms"], tz, lang),
                    r["who"],
                    roles.get(r["role"] or "", r["role"]),
                    r["address"],
                    r["device"],
                    r["action"],
                    r["table_id"],
                    r["session_id"],
                    results.get(r["result"], r["result"]),
                    r["why"],
                    r["what"],
                )
            ]
        )
    return out.getvalue()
