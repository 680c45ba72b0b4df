"""Who may use which route: the one table of it.

Three roles (docs/VENUE.md, "Staff"):

* **owner**: everything: users and tokens, corrections, the reports, the
  activity log and ``verify``; the configured ``operator_token`` signs in
  as the owner ``operator``;
* **desk**: table sessions, receipts and the day's report;
* **referee**: the console's match actions, optionally only on the tables
  his account lists.

``ROUTES`` names every route that is not a public read, by method and the
route's pattern as aiohttp writes it (``/api/tables/{table}/match``).  The
web side's gate (host/web/auth.py) holds every request to it: a
state-changing route (any method but GET and HEAD) that is missing here is
refused to everyone, so a route added later is closed until someone lists
it; a GET that is missing is a public read.  tests/web/test_roles.py walks
every state-changing route of the built app under every role.
"""

from __future__ import annotations

from dataclasses import dataclass

from baulk.host.sentences import Message

OWNER = "owner"
DESK = "desk"
REFEREE = "referee"
ROLES = (OWNER, DESK, REFEREE)
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")

PUBLIC = "public"  # anyone, signed in or not (the sign-in itself)
SIGNED_IN = "signed in"  # any role

Rule = frozenset[str] | str


def _only(*roles: str) -> frozenset[str]:
    return frozenset(roles)


_MATCH = _only(OWNER, REFEREE)
_DESK = _only(OWNER, DESK)

ROUTES: dict[tuple[str, str], Rule] = {
    # the sign-in (host/web/auth.py)
    ("POST", "/console/signin"): PUBLIC,
    ("POST", "/console/signout"): PUBLIC,
    # the console's match actions (host/web/console.py, handset.py, sensors.py)
    ("POST", "/api/tables/{table}/match"): _MATCH,
    ("POST", "/api/tables/{table}/command"): _MATCH,
    ("POST", "/api/tables/{table}/names"): _only(OWNER, REFEREE, DESK),
    ("POST", "/api/tables/{table}/handset"): _MATCH,
    ("POST", "/api/tables/{table}/pocket-check"): _MATCH,
    ("POST", "/api/tables/{table}/sensor-capture"): _MATCH,
    # the desk (host/web/desk.py): sessions, receipts, the day's report
    ("POST", "/api/tables/{table}/session"): _DESK,
    ("POST", "/api/sessions/{session}/close"): _DESK,
    ("POST", "/api/sessions/{session}/confirm"): _DESK,
    ("POST", "/api/sessions/{session}/reopen"): _DESK,
    ("POST", "/api/sessions/{session}/items"): _DESK,
    ("POST", "/api/sessions/{session}/items/{item}/take-back"): _DESK,
    ("POST", "/api/sessions/{session}/print"): _DESK,
    # money taken off a bill, or a session that was never owed: the owner's
    ("POST", "/api/sessions/{session}/corrections"): _only(OWNER),
    ("POST", "/api/sessions/{session}/corrections/{correction}/reverse"): _only(OWNER),
    ("POST", "/api/sessions/{session}/refunds"): _only(OWNER),
    ("POST", "/api/sessions/{session}/void"): _only(OWNER),
    ("GET", "/api/desk"): _DESK,
    ("GET", "/api/sessions/{session}"): _DESK,
    ("GET", "/api/sessions/{session}/bill.{fmt}"): _DESK,
    ("GET", "/api/reports/day"): _DESK,
    ("GET", "/api/reports/day.{fmt}"): _DESK,
    # the owner's pages (host/web/staff_pages.py)
    ("GET", "/api/staff/me"): SIGNED_IN,
    ("GET", "/api/staff/users"): _only(OWNER),
    ("POST", "/api/staff/users"): _only(OWNER),
    ("POST", "/api/staff/users/{name}"): _only(OWNER),
    ("POST", "/api/staff/users/{name}/code"): _only(OWNER),
    ("POST", "/api/staff/sign-out-all"): _only(OWNER),
    ("GET", "/api/staff/tokens"): _only(OWNER),
    ("POST", "/api/staff/tokens"): _only(OWNER),
    ("POST", "/api/staff/tokens/{token}/revoke"): _only(OWNER),
    ("GET", "/api/staff/activity"): _only(OWNER),
    ("GET", "/api/staff/activity.{fmt}"): _only(OWNER),
    ("GET", "/api/staff/verify"): _only(OWNER),
    # the tables' firmware, updated over their links (host/web/firmware.py)
    ("GET", "/api/firmware"): _only(OWNER),
    ("POST", "/api/firmware/update"): _only(OWNER),
}

# Routes whose ``{table}`` a referee's list of tables limits.
TABLE_KEY = "table"


@dataclass(frozen=True)
class Actor:
    """Who a request comes from, once the gate has checked it."""

    name: str
    role: str
    tables: frozenset[str] | None = None  # a referee limited to these tables
    via: str = "session"  # session, token, operator (the configured token)
    account_id: int | None = None
    # The account's generation when its secret was checked: a sign-in made
    # from it ends when the account changes after (host/staff/registry.py).
    generation: int | None = None
    token_id: int | None = None  # a named API token's (via "token")


def rule_for(method: str, pattern: str | None) -> Rule | None:
    """The rule of a route; None for a route the table does not list."""
    if pattern is None:
        return None
    return ROUTES.get(("GET" if method == "HEAD" else method, pattern))


def may(role: str) -> list[str]:
    """The routes a role may use ("POST /api/sessions/{session}/void"), from
    this table: a page offers what the signed-in role may do, and nothing
    the gate would then refuse it (the sign-in state, host/web/auth.py)."""
    return sorted(
        f"{method} {pattern}"
        for (method, pattern), rule in ROUTES.items()
        if rule in (PUBLIC, SIGNED_IN) or (isinstance(rule, frozenset) and role in rule)
    )


def limited_to(role: str, tables: frozenset[str] | None) -> list[str] | None:
    """The only tables a role's routes with ``{table}`` may name (a
    referee's account that lists tables), or None: every table."""
    return sorted(tables) if role == REFEREE and tables is not None else None


def refusal(rule: Rule, actor: Actor | None, table: str | None) -> tuple[int, Message] | None:
    """Why ``actor`` may not use a route with this rule (status, sentence),
    or None when he may."""
    if rule == PUBLIC:
        return None
    if actor is None:
        return 401, Message("sign in first: this needs a staff sign-in or an API token")
    if rule == SIGNED_IN:
        return None
    assert isinstance(rule, frozenset)
    if actor.role not in rule:
        allowed = tuple(r for r in ROLES if r in rule)  # said "owner or desk"
        return 403, Message(
            "refused: this needs the {roles} role, and {id} is {role}",
            roles=allowed,
            id=actor.name,
            role=actor.role,
        )
    only = limited_to(actor.role, actor.tables)
    if only is not None and table is not None and table not in only:
        return 403, Message(
            "refused: {id} referees other tables, not '{text}'", id=actor.name, text=table
        )
    return None


UNLISTED = Message(
    "refused: this route is not in the role table (host/staff/roles.py), so nobody may use it yet"
)
