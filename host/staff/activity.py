"""The activity log: one appended row for every state-changing request, who
made it (account and role), when (the PC's wall clock and its monotonic
clock), from where (address and browser), what (the action and the request
in short) and how it ended (done, queued or refused, and why).

The web gate (host/web/auth.py) writes the rows; nothing edits or deletes
one (triggers in host/store/staff_schema.py refuse it).  A row never waits
for the disk and never stops an event: it rides in the store writer's next
commit, in a savepoint of its own.  Secrets in a body (a password, a PIN, a
token) never reach the log.

What strangers do (every request that ends without a credential: a wrong
or held-back sign-in, an unknown name, an action without a sign-in, a wrong
token) is under one cap, whatever the route or the name tried: the first
``QUIET_MOST`` of a minute are logged one by one, the rest counted by the
account or name they tried and summed up when the minute is over, in one
row a name for the ``SUMMED_MOST`` names tried most and one row for all the
others.  However many addresses flood it, the log takes at most
``QUIET_MOST + SUMMED_MOST + 1`` rows a minute of strangers.  A name a
stranger tried is kept as ``tried``, never as ``who``: the log names as who
acted only a person who signed in (or ``shell``, for ``baulk users``).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from baulk.host.club import bills, money, views
from baulk.host.club.clock import Stamp
from baulk.host.sentences import LANGS, Message, kept, keyed_words, read_back, say, say_word, unkept
from baulk.host.staff.accounts import key_of
from baulk.host.staff.roles import Actor
from baulk.host.store import StaffWrite, StoreReader

WHAT_CHARS = 300
DEVICE_CHARS = 200
WHO_CHARS = 64  # a name tried at sign-in, as the log keeps it
ACTION_CHARS = 64
WHY_CHARS = 300
# a sentence kept by id and values: longer than this, its English alone is kept
SAID_CHARS = 1000
QUIET_MOST = 30  # strangers' requests logged one by one each minute
SUMMED_MOST = 10  # names tried with a summing-up row each; the rest share one
NAMES_MOST = 1000  # names counted apart in a minute; beyond them, with the rest
# Addresses counted apart in a summing-up: past them, the count it gives is
# a floor (a flood from more addresses than this in one minute is absurd).
ADDRESSES_MOST = 4096
ROWS_A_MINUTE_MOST = QUIET_MOST + SUMMED_MOST + 1  # strangers' rows a minute, at most
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
    "/api/sessions/{session}/reopen": "session reopen",
    "/api/sessions/{session}/items": "item add",
    "/api/sessions/{session}/items/{item}/take-back": "item take-back",
    "/api/sessions/{session}/print": "receipt print",
    "/api/sessions/{session}/corrections": "correction",
    "/api/sessions/{session}/corrections/{correction}/reverse": "correction take-back",
    "/api/sessions/{session}/refunds": "refund",
    "/api/sessions/{session}/void": "session void",
    "/api/staff/users": "user add",
    "/api/staff/users/{name}": "user change",
    "/api/staff/users/{name}/code": "sign-in code",
    "/api/staff/tokens": "token add",
    "/api/staff/tokens/{token}/revoke": "token revoke",
    "/api/staff/sign-out-all": "sign everyone out",
    "/api/firmware/update": "firmware update",
}


def action_of(method: str, pattern: str | None, body: dict[str, Any] | None) -> str:
    name = ACTIONS.get(pattern or "")
    if name is None:
        return f"{method} {pattern or '?'}"[:80]
    if name == "command" and body is not None and isinstance(body.get("ev"), str):
        return str(body["ev"])[:40]  # undo, award, concede, rerack, toss, pot ...
    return name


# ---------------------------------------------------------------------- the sentences
# Each action reads as a sentence in the reader's language: its words are
# ``did_`` + the action's name (spaces and hyphens as ``_``) in
# host/web/static/words.json, with these parameters: a ``str`` is a name
# (drawn isolated), an ``int`` a number (in the reader's digits), a
# :class:`Word` a word of the same table, a :class:`Money` an amount (said
# as every amount is said, host/club/money.py ``fmt``).  A console command
# reads as ``did_command`` with the event's name.  An action that moves money
# says how much when its session's money rows tell it (:class:`SessionMoney`):
# its words are then ``did_...`` + ``_amount``, with ``{amount}``.
REFUSALS = "refusals"
VOID_UNDONE = "session unvoid"  # a void undone (its body's ``undo``)
# How a table's firmware update ended (host/venue/updates.py): rows the
# daemon writes, no request's, by the update's end phase.
FIRMWARE_ENDS = {
    "confirmed": "firmware confirmed",
    "rolledback": "firmware rolled back",
    "refused": "firmware refused",
}
SENTENCE_NAMES = frozenset({*ACTIONS.values(), REFUSALS, VOID_UNDONE, *FIRMWARE_ENDS.values()})
MONEY_NAMES = frozenset(
    {"item add", "item take-back", "correction", "correction take-back", "refund"}
)
_PARAM = re.compile(r"\\\{([a-z]+)\\\}")  # a {param} of a pattern, once escaped
_PATTERNS = [
    (pattern, re.compile("^" + _PARAM.sub(r"(?P<\1>[^/]+)", re.escape(pattern)) + "$"))
    for pattern in ACTIONS
]


@dataclass(frozen=True)
class Word:
    """A word of host/web/static/words.json, in the reader's language."""

    key: str


@dataclass(frozen=True)
class Money:
    """An amount in a sentence: minor units of a currency."""

    minor: int
    currency: str


Var = str | int | Word | Money


@dataclass(frozen=True)
class SessionMoney:
    """A session's money rows as the store holds them, for the amounts its
    rows of the log say: its currency, its items and take-backs, its
    corrections, refunds and reversals (host/store/club_queries.py)."""

    currency: str
    items: list[dict[str, Any]]
    corrections: list[dict[str, Any]]


def session_money(reader: StoreReader, session_ids: set[int]) -> dict[int, SessionMoney]:
    """The money rows of these sessions, read once for a page of the log."""
    ids = sorted(session_ids)
    if not ids:
        return {}
    items, fixes = reader.items(ids), reader.corrections(ids)
    out = {}
    for sid in ids:
        session = reader.session(sid)
        if session is not None:
            currency = bills.tariff_of(session["tariff"]).currency
            out[sid] = SessionMoney(currency, items[sid], fixes[sid])
    return out


def sentence_key(name: str) -> str:
    return "did_" + re.sub(r"[ -]", "_", name)


def _amount(
    name: str, body: dict[str, Any], line: int, wall_ms: object, m: SessionMoney
) -> int | None:
    """How much a money action moved, in minor units, from the request and
    the session's rows; None when they do not tell it (an amount that was
    refused as typed, a row not found)."""
    if name in ("correction", "refund"):  # a refund: what was given back
        try:
            return money.parse(body.get("amount"), m.currency)
        except money.MoneyError:
            return None
    if name == "item add":
        # the price of the moment: the item's newest line of the session then
        when = wall_ms if isinstance(wall_ms, int) else None
        sold = [
            i["price"]
            for i in m.items
            if i["item"] == body.get("item")
            and i["reverses"] is None
            and (when is None or i["created_wall_ms"] <= when)
        ]
        q = body.get("quantity", 1)
        return sold[-1] * q if sold and isinstance(q, int) and not isinstance(q, bool) else None
    if name == "item take-back":
        back = [i["price"] * i["quantity"] for i in m.items if i["id"] == line]
        return -back[0] if back else None
    if name == "correction take-back":
        fixed = [c["amount"] for c in m.corrections if c["id"] == line]
        return -fixed[0] if fixed else None
    return None


def _request(what: str) -> tuple[str, str, dict[str, Any]]:
    """The method, path and body of a row's ``what`` (the body left out
    when cut short at WHAT_CHARS)."""
    method, _, rest = what.partition(" ")
    path, _, text = rest.partition(" ")
    body: Any = {}
    if text:
        try:
            body = json.loads(text)
        except ValueError:
            body = {}
    return method, path.split("?")[0], body if isinstance(body, dict) else {}


def _int(text: object) -> int | None:
    return int(text) if isinstance(text, str) and text.isdigit() and len(text) < 16 else None


def described(
    row: dict[str, Any], session_money: SessionMoney | None = None
) -> tuple[str, dict[str, Var]]:
    """The words a row of the log reads as (``did_...``) and their
    parameters, from its action, table, session and request, and the amount
    of a money action from ``session_money`` (its session's rows); rows
    written before a route had its name (``POST /api/sessions/{session}/items``)
    read as that route's sentence too."""
    method, path, body = _request(str(row.get("what") or ""))
    found: dict[str, str] = {}
    pattern = None
    for p, rx in _PATTERNS:
        m = rx.match(path)
        if m:
            pattern, found = p, {k: unquote(v) for k, v in m.groupdict().items()}
            break
    action = str(row.get("action") or "")
    name = action
    if action not in SENTENCE_NAMES:
        by_pattern = ACTIONS.get(action.partition(" ")[2]) if action.startswith(method) else None
        if by_pattern is not None:
            name = by_pattern
        elif pattern is not None and ACTIONS[pattern] == "command":
            name = "command"  # an event the console sent: ``action`` is its name
        else:
            return "did_other", {"action": action or "?"}
    if name == "session void" and body.get("undo") is True:
        name = VOID_UNDONE
    table = row.get("table_id") or found.get("table")
    session = row.get("session_id")
    if session is None:
        session = _int(found.get("session"))
    out: dict[str, Var] = {"table": str(table) if table else "?", "session": session or 0}
    if name == "command":
        ev = action if action != "command" else str(body.get("ev") or "command")
        known = re.fullmatch(r"[a-z_ -]+", ev)
        out["ev"] = Word("action_" + re.sub(r"[ -]", "_", ev)) if known else ev
    for key in ("name", "token"):
        if key in found:
            out[key] = found[key]
    if name == "user add":
        out["name"] = str(body.get("name") or "?")
        role = body.get("role")
        out["role"] = Word("role_" + role) if role in ("owner", "desk", "referee") else "?"
    if name == "item add":
        out["item"] = str(body.get("item") or "?")
        q = body.get("quantity", 1)
        out["quantity"] = q if isinstance(q, int) and not isinstance(q, bool) else 1
    if name == "item take-back":
        out["line"] = _int(found.get("item")) or 0
    if name == "correction take-back":
        out["line"] = _int(found.get("correction")) or 0
    if name in MONEY_NAMES and session_money is not None:
        line = out.get("line")
        minor = _amount(
            name, body, line if isinstance(line, int) else 0, row.get("wall_ms"), session_money
        )
        if minor is not None:
            out["amount"] = Money(minor, session_money.currency)
            return sentence_key(name) + "_amount", out
    return sentence_key(name), out


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
    why: Message | str | None  # a sentence is kept by its id and values too
    by: str | None = None  # who acted outside the web (``shell``: baulk users)

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
                # A name only tried is no one's action: never ``who``.
                "who": _clean(a.name if a is not None else self.by, WHO_CHARS),
                "tried": _clean(self.tried, WHO_CHARS) if a is None else None,
                "role": a.role if a is not None else None,
                "address": _clean(self.address, 64),
                "device": _clean(self.device, DEVICE_CHARS),
                "action": _clean(self.action, ACTION_CHARS) or "?",
                "what": _clean(self.what, WHAT_CHARS) or "",
                "table_id": _clean(self.table_id, 64),
                "session_id": self.session_id,
                "result": self.result,
                "why": _clean(str(self.why) if self.why is not None else None, WHY_CHARS),
                "why_said": kept(self.why, SAID_CHARS),
            },
        )


def _clean(text: str | None, most: int) -> str | None:
    if not text:
        return None
    return text[:most].encode("utf-8", "replace").decode("utf-8")


@dataclass
class _Tried:
    """A minute's strangers' requests not logged one by one, for one name."""

    shown: str | None  # the name as first tried (None: no name, or the others)
    last: Stamp  # the last of them: the summing-up row is dated there
    count: int = 0
    held: int = 0  # answered 429: held back by the guessing cap
    names: int = 0  # the others' row: how many names it sums up
    addresses: set[str] = field(default_factory=set)

    def add(self, at: Stamp, address: str | None, held: bool) -> None:
        self.last = at
        self.count += 1
        self.held += held
        if address is not None and len(self.addresses) < ADDRESSES_MOST:
            self.addresses.add(address)

    def why(self) -> Message:
        """What the row says."""
        n, held, m = self.count, self.held, len(self.addresses)
        if self.names:
            return Message(
                "{n} more attempts under other names in this minute, {held} held back, "
                "from {m} addresses: not logged one by one",
                n=n,
                held=held,
                m=m,
            )
        return Message(
            "{n} more attempts in this minute, {held} held back, "
            "from {m} addresses: not logged one by one",
            n=n,
            held=held,
            m=m,
        )


class QuietRefusals:
    """The one cap on what strangers do, minute by minute (the module's
    docstring): :meth:`admit` says whether a request is logged one by one,
    and counts it by its name if not; :meth:`due` gives the summing-up rows
    of the minutes over."""

    def __init__(self, most: int = QUIET_MOST, summed_most: int = SUMMED_MOST) -> None:
        self.most = most
        self.summed_most = summed_most
        self.minute = -1
        self.logged = 0
        self.counted: dict[str, _Tried] = {}
        self._due: list[StaffWrite] = []

    def _turn(self, mono_ms: int) -> None:
        minute = mono_ms // 60_000
        if minute != self.minute:
            self._due += self._summed()
            self.minute, self.logged = minute, 0

    def admit(self, at: Stamp, tried: str | None, address: str | None, held: bool) -> bool:
        """Log this stranger's request one by one?  If not, it is counted."""
        self._turn(at.mono_ms)
        if self.logged < self.most:
            self.logged += 1
            return True
        key = key_of(tried) if tried else ""  # one account however it was typed
        found = self.counted.get(key)
        if found is None:
            if len(self.counted) >= NAMES_MOST:
                key, tried = "\0others", None  # no name's own: with the rest
                found = self.counted.get(key)
            if found is None:
                found = self.counted[key] = _Tried(tried, at)
        found.add(at, address, held)
        return False

    def due(self, mono_ms: int) -> list[StaffWrite]:
        """The summing-up rows of the minutes over (each once)."""
        self._turn(mono_ms)
        out, self._due = self._due, []
        return out

    def drain(self) -> list[StaffWrite]:
        """Every row still owed, the minute not over included (at shutdown)."""
        out = self._due + self._summed()
        self._due = []
        return out

    def _summed(self) -> list[StaffWrite]:
        ranked = sorted(self.counted.values(), key=lambda t: -t.count)
        self.counted = {}
        own, rest = ranked[: self.summed_most], ranked[self.summed_most :]
        if rest:
            others = _Tried(None, max((t.last for t in rest), key=lambda s: s.mono_ms))
            for t in rest:
                others.count += t.count
                others.held += t.held
                others.names += 1 if t.shown is not None else 0
                for address in t.addresses:
                    if len(others.addresses) < ADDRESSES_MOST:
                        others.addresses.add(address)
            own.append(others)
        return [_summing_up(t) for t in own]


def _summing_up(t: _Tried) -> StaffWrite:
    address = next(iter(t.addresses)) if len(t.addresses) == 1 else None
    return Entry(
        t.last,
        None,
        t.shown,
        address,
        None,
        "refusals",
        f"{t.count} requests without a credential, summed up",
        None,
        None,
        "refused",
        t.why(),
    ).write()  # its action: REFUSALS


# ---------------------------------------------------------------------- the page's CSV
# The columns, by their keys in the catalogue (``csv:log_KEY``), and the
# results' words (``csv:result_RESULT``); a role is said as the role's word.
CSV_COLUMNS = (
    "time", "who", "tried", "role", "address", "device", "action", "table", "session",
    "result", "why", "request", "what_was_done",
)  # fmt: skip
_CSV = keyed_words("csv")
CSV_HEADERS = {lang: [_CSV[lang][f"log_{c}"] for c in CSV_COLUMNS] for lang in LANGS}
RESULTS = {
    lang: {r: _CSV[lang][f"result_{r}"] for r in ("done", "queued", "refused")} for lang in LANGS
}


def why_in(row: dict[str, Any], lang: str) -> str | None:
    """Why a row's request was refused, in ``lang``: its sentence as kept by
    id and values, or (a row of an older baulk) its English read back by the
    catalogue's templates."""
    said = unkept(row.get("why_said"))
    if said is None and not row.get("why"):
        return None
    return say(said if said is not None else read_back(str(row["why"])), lang)


def to_csv(
    rows: list[dict[str, Any]],
    tz: str,
    lang: str,
    head: bool = True,
    said: Callable[[dict[str, Any], str], str] | None = None,
) -> str:
    """The log as CSV in one language, with its header line (``head``; a
    later part of a long log goes without); every cell safe from formulas.
    ``said`` gives a row's sentence in ``lang`` (the page's words, which
    host/web holds)."""
    out = io.StringIO()
    w = csv.writer(out)
    if head:
        w.writerow([views.csv_cell(h) for h in CSV_HEADERS[lang]])
    results = RESULTS[lang]
    for r in rows:
        w.writerow(
            [
                views.csv_cell(v)
                for v in (
                    views.when(r["wall_ms"], tz, lang),
                    r["who"],
                    r["tried"],
                    say_word(r["role"], "role") if lang == "fa" and r["role"] else r["role"],
                    r["address"],
                    r["device"],
                    r["action"],
                    r["table_id"],
                    r["session_id"],
                    results.get(r["result"], r["result"]),
                    why_in(r, lang),
                    r["what"],
                    said(r, lang) if said is not None else "",
                )
            ]
        )
    return out.getvalue()
