"""The HTTP API described for other software: an OpenAPI 3.1 document of
every route the web side serves, at ``GET /api/openapi.json``.

A league's or a club's own software integrates against it, and the fuzzer
(schemathesis, tests/chaos/test_api_fuzz.py) holds the running daemon to it:
every route and method, with and without credentials.  Each route's entry is
written here beside its area's module; tests/web/test_openapi.py fails when
a route of the built app is missing from the document or the document names
one the app does not serve, and when a route's security disagrees with the
role table (host/staff/roles.py).

Errors are described once: every route may answer an error as JSON
``{"error": "sentence", "message"?: "the sentence in ?lang=", "id"?: "its
message id"}`` (the pages: as plain text), with the status that says what went wrong (docs/API.md).
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web
from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue, models_json_schema
from pydantic_core import core_schema

from baulk.host import config
from baulk.host.name_rules import NAME_BYTES
from baulk.host.staff import roles
from baulk.host.staff.registry import TOKEN_ENDED
from baulk.host.venue.live import SCHEMA_VERSION, SERVER
from baulk.host.web import request_models as requests
from baulk.host.web.http import MAX_BODY
from baulk.host.web.request_models import BEST_OF_MAX

Schema = dict[str, Any]

# ---------------------------------------------------------------------- pieces
STR: Schema = {"type": "string"}
INT: Schema = {"type": "integer"}
BOOL: Schema = {"type": "boolean"}
OBJ: Schema = {"type": "object"}
NULLABLE_INT: Schema = {"type": ["integer", "null"]}
NULLABLE_STR: Schema = {"type": ["string", "null"]}
MS: Schema = {"type": "integer", "description": "Unix milliseconds"}
SIDES: Schema = {"type": "array", "items": INT, "minItems": 2, "maxItems": 2}
PLAYERS: Schema = {
    "type": "array",
    "items": {"oneOf": [STR, {"type": "array", "items": STR}]},
    "description": "two names, or two teams of two names (doubles)",
}


def obj(props: dict[str, Schema], required: tuple[str, ...] = (), closed: bool = False) -> Schema:
    out: Schema = {"type": "object", "properties": props}
    if required:
        out["required"] = list(required)
    if closed:
        out["additionalProperties"] = False
    return out


def listed(item: Schema) -> Schema:
    return {"type": "array", "items": item}


ERROR: Schema = obj({"error": STR, "message": STR, "id": STR}, ("error",))
SCHEMA_V: Schema = {"type": "integer", "const": SCHEMA_VERSION}

STATUS: Schema = obj(
    {
        "link": {"enum": ["online", "offline"]},
        "state": STR,
        "reason": NULLABLE_STR,
        "port": NULLABLE_STR,
        "last_seen_ms": NULLABLE_INT,
        "online_since_ms": NULLABLE_INT,
        "connects": INT,
        "device": {"type": ["object", "null"]},
        "stream": OBJ,
    },
    ("link",),
)
BOARD: Schema = obj(
    {
        "table": STR,
        "name": STR,
        "version": INT,
        "status": STATUS,
        "match": {"type": ["object", "null"]},
        "state": {"type": ["object", "null"]},
        "break_balls": listed(STR),
        "notice": {"type": ["object", "null"]},
        "verified": BOOL,
        "not_judged": {"type": ["object", "null"]},
        "alerts": listed(OBJ),
        "events": INT,
        "sensors": OBJ,
        "session_open": BOOL,
    },
    ("table", "name", "version", "status"),
)
MATCH: Schema = obj(
    {
        "match_id": STR,
        "table_id": STR,
        "started_ms": MS,
        "players": PLAYERS,
        "best_of": INT,
        "reds": INT,
        "frames_won": SIDES,
        "ended_ms": NULLABLE_INT,
        "winner": NULLABLE_INT,
        "status": {"enum": ["in_play", "finished", "abandoned", "empty"]},
    },
    ("match_id", "table_id", "players", "best_of"),
)
REPORT: Schema = obj(
    {
        "match": obj({"match_id": STR, "names": listed(STR)}, ("match_id", "names")),
        "frames": listed(obj({"frame": INT, "scores": SIDES, "winner": NULLABLE_INT})),
        "breaks": listed(obj({"frame": INT, "side": INT, "points": INT})),
        "statistics": listed(OBJ),
        "annotations": obj(
            {
                "names": obj(
                    {"signed": PLAYERS, "players": PLAYERS, "who": NULLABLE_STR, "at_ms": MS}
                )
            }
        ),
        "ledger": {"type": ["object", "null"]},
    },
    ("match", "frames", "breaks"),
)
ACTION_DONE: Schema = obj(
    {
        "status": {"enum": ["done", "queued"]},
        "action": NULLABLE_INT,
        "seq": NULLABLE_INT,
        "scores": {"type": ["array", "null"]},
        "message": STR,
        "names": listed(STR),
    },
    ("status",),
)
BILL: Schema = obj(
    {
        "session_id": INT,
        "table_id": STR,
        "tariff": STR,
        "currency": STR,
        "open": BOOL,
        "state": {"enum": ["open", "closed", "void"]},
        "version": STR,
        "opened_by": NULLABLE_STR,
        "closed_by": NULLABLE_STR,
        "voided_by": NULLABLE_STR,
        "opened_ms": MS,
        "closed_ms": NULLABLE_INT,
        "billed_minutes": INT,
        "minutes_in_play": INT,
        "frames_played": INT,
        "frames": listed(OBJ),
        "lines": listed(OBJ),
        "charged": INT,
        "items": listed(OBJ),
        "corrections": listed(OBJ),
        "total": {"type": "integer", "minimum": 0},
        "payers": listed(obj({"payer": NULLABLE_STR, "amount": INT})),
    },
    ("session_id", "table_id", "currency", "open", "total"),
)
BILL_REPLY: Schema = obj(
    {"schema": SCHEMA_V, "bill": BILL, "receipt": OBJ, "printer": BOOL}, ("bill", "receipt")
)
ACCOUNT: Schema = obj(
    {
        "id": INT,
        "name": STR,
        "role": {"enum": list(roles.ROLES)},
        "tables": {"type": ["array", "null"], "items": STR},
        "disabled": BOOL,
    },
    ("name", "role"),
)
# A token as the owner's page lists it; ``ended`` is why it holds no more
# (host/staff/registry.py TOKEN_ENDED), ``ended_why`` that in the asked language.
TOKEN_ENDED_KINDS: Schema = {"enum": [*sorted(TOKEN_ENDED), None]}
TOKEN_ROW: Schema = obj(
    {
        "id": INT,
        "name": STR,
        "role": STR,
        "revoked": BOOL,
        "ended": TOKEN_ENDED_KINDS,
        "ended_why": NULLABLE_STR,
    },
    ("id", "name", "role", "revoked", "ended", "ended_why"),
)

# ---------------------------------------------------------------------- parameters
# Each query and each body is its model's (host/web/request_models.py): the
# document's schemas are generated from them, and the path's parameters are here.
TABLE_ID: Schema = {"type": "string", "pattern": config.TABLE_ID}
TABLE = {"name": "table", "in": "path", "required": True, "schema": TABLE_ID}
ID_PATTERN = {"type": "string", "pattern": requests.ID_PATTERN}


def path_param(name: str, schema: Schema | None = None) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": schema or ID_PATTERN}


MATCH_ID = path_param("match", {"type": "string", "minLength": 1, "maxLength": 100})
FMT = path_param("fmt", {"enum": ["json", "csv"]})


class DocumentSchema(GenerateJsonSchema):
    """pydantic's JSON Schema as this document gives it: no titles (the
    keys name themselves), and no ``default: null`` (a key left out is
    what it says; null itself is allowed only where the schema says so)."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        del schema
        return False

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        out = super().default_schema(schema)
        if out.get("default", 0) is None:
            del out["default"]
        return out


REF = "#/components/schemas/{model}"


def _bodies() -> tuple[dict[type[BaseModel], Schema], dict[str, Schema]]:
    """Each body model's reference, and every schema they use."""
    models = sorted(set(requests.BODIES.values()), key=lambda m: m.__name__)
    refs, top = models_json_schema(
        [(m, "validation") for m in models], ref_template=REF, schema_generator=DocumentSchema
    )
    return {m: refs[(m, "validation")] for m in models}, dict(top.get("$defs", {}))


def _not_null(schema: Schema) -> Schema:
    """A query's value is text, never null: an optional key is left out."""
    choices = schema.get("anyOf")
    if choices is not None:
        rest = [c for c in choices if c != {"type": "null"}]
        if len(rest) == 1:
            kept = {k: v for k, v in schema.items() if k != "anyOf"}
            return {**rest[0], **kept}
    return schema


def query_params(model: type[requests.Query]) -> list[dict[str, Any]]:
    """The query's parameters, from its model."""
    props = model.model_json_schema(schema_generator=DocumentSchema)["properties"]
    out = []
    for name, schema in props.items():
        schema = _not_null(schema)
        text = schema.pop("description", None)
        param: dict[str, Any] = {"name": name, "in": "query", "required": False, "schema": schema}
        if name == "lang":
            text = requests.LANG_TEXT
        if text:
            param["description"] = text
        out.append(param)
    return out


# ---------------------------------------------------------------------- answers
JSON = "application/json"


def answer(schema: Schema | None, what: str = "done", media: str = JSON) -> dict[str, Any]:
    if schema is None:
        return {"description": what}
    return {"description": what, "content": {media: {"schema": schema}}}


def errors(page: bool = False) -> dict[str, Any]:
    """Any error status: JSON on the API, plain text (or JSON) on a page."""
    content: dict[str, Any] = {JSON: {"schema": ERROR}}
    if page:
        content["text/plain"] = {"schema": STR}
        content["text/html"] = {"schema": STR}
    return {"description": "refused: the sentence says why (docs/API.md)", "content": content}


HTML = {"text/html": {"schema": STR}}
CSV_OR_JSON = {"text/csv": {"schema": STR}, JSON: {"schema": OBJ}}


def op(
    summary: str,
    tag: str,
    ok: dict[str, Any],
    params: list[dict[str, Any]] | None = None,
    page: bool = False,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A route's entry; its query's parameters and its body are added from
    their models (:func:`document`)."""
    out: dict[str, Any] = {"summary": summary, "tags": [tag]}
    if params:
        out["parameters"] = params
    out["responses"] = {**ok, **(extra or {}), "default": errors(page)}
    return out


def ok(schema: Schema | None, what: str = "done") -> dict[str, Any]:
    return {"200": answer(schema, what)}


def ok_page(what: str) -> dict[str, Any]:
    return {"200": {"description": what, "content": HTML}}


def page_op(summary: str, params: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A page of the app: HTML, and errors as HTML too."""
    return op(summary, PAGES, ok_page("the page"), params, page=True)


QUEUED = {"202": answer(ACTION_DONE, "stored, and sent when the table is online")}

# ---------------------------------------------------------------------- the routes
PAGES = "pages"
READ = "reading"
LIVE = "live feed"
SIGN_IN = "sign-in"
ACTIONS = "operator actions"
DESK = "the desk"
STAFF = "staff"
PLAYERS_TAG = "players"

# What a body's 400 and 409 say: the body against its model, and the rules
# that depend on the state, the club's and the table's (docs/API.md).
BAD_BODY = "the body or the query breaks its schema: the sentence names the key and why"
STATE_RULES = {
    ACTIONS: "a rule of the state: the table refused the action "
    "(the engine's rules), it is not online, there is no match to correct, the names do not "
    "keep the match's form, or the table changed since the console showed it",
    DESK: "a rule of the state: the session is closed (or open, or voided), "
    "the bill's version is older than the table's, the amount does not suit the bill's "
    "currency (its decimals, its range) or would take the bill or a share below zero, the item "
    "is not on the price list or is priced in another currency, no printer is set up",
    STAFF: "a rule of the state: the account exists already, or the change "
    "does not suit the account as it is (a PIN is a desk clerk's, tables a referee's), "
    "or changes nothing",
}


def _routes() -> dict[tuple[str, str], dict[str, Any]]:
    t, mid = [TABLE], [MATCH_ID]
    sid = [path_param("session")]
    routes: dict[tuple[str, str], dict[str, Any]] = {
        # the boards (host/web/boards.py)
        ("GET", "/"): page_op("the index: tables, boards, recent reports"),
        ("GET", "/table/{table}"): page_op("a table's board", t),
        ("GET", "/overlay/{table}"): page_op("a table's streaming overlay", t),
        ("GET", "/venue"): page_op("the venue board"),
        ("GET", "/static/{path}"): op(
            "the pages' files (scripts, styles, fonts)",
            PAGES,
            {"200": {"description": "the file", "content": {"*/*": {"schema": STR}}}},
            [path_param("path", {"type": "string", "maxLength": 200})],
            page=True,
        ),
        ("GET", "/api/live"): op(
            "the live feed: a WebSocket (docs/API.md, 'Live feed')",
            LIVE,
            {
                "101": {"description": "switching to the WebSocket"},
                "400": answer(ERROR, "not a WebSocket handshake, or a table id that is not one"),
            },
        ),
        # the API's reads and the report pages (host/web/api.py)
        ("GET", "/report/{match}"): page_op("a match report", mid),
        ("GET", "/report/{match}/sheet"): page_op("a match's printable result sheet", mid),
        ("GET", "/api"): op(
            "the server, its tables, its store's health",
            READ,
            ok(
                obj(
                    {
                        "schema": SCHEMA_V,
                        "server": STR,
                        "tables": listed(STR),
                        "live": STR,
                        "actions_enabled": BOOL,
                        "store": OBJ,
                    },
                    ("schema", "server", "tables"),
                )
            ),
        ),
        ("GET", "/api/openapi.json"): op("this document", READ, ok(OBJ, "OpenAPI 3.1")),
        ("GET", "/api/vocabulary"): op(
            "the names the console offers: balls, foul kinds, limits",
            READ,
            ok(
                obj(
                    {
                        "balls": listed(STR),
                        "colours": listed(STR),
                        "foul_kinds": OBJ,
                        "best_of_max": {"const": BEST_OF_MAX},
                        "name_bytes": {"const": NAME_BYTES},
                    },
                    ("balls", "foul_kinds"),
                )
            ),
        ),
        ("GET", "/api/tables"): op(
            "every table's board",
            READ,
            ok(obj({"schema": SCHEMA_V, "tables": listed(BOARD)}, ("tables",))),
        ),
        ("GET", "/api/tables/{table}"): op(
            "one table's board", READ, ok(obj({"schema": SCHEMA_V, "board": BOARD}, ("board",))), t
        ),
        ("GET", "/api/matches"): op(
            "the matches, newest first",
            READ,
            ok(obj({"schema": SCHEMA_V, "matches": listed(MATCH)}, ("matches",))),
        ),
        ("GET", "/api/matches/{match}"): op(
            "a match's report",
            READ,
            ok(obj({"schema": SCHEMA_V, "report": REPORT}, ("report",))),
            mid,
        ),
        ("GET", "/api/matches/{match}/report.{fmt}"): op(
            "a match's report as JSON (with its ledger, for baulk verify) or CSV",
            READ,
            {"200": {"description": "the report", "content": CSV_OR_JSON}},
            [*mid, FMT],
        ),
        # the sign-in (host/web/auth.py)
        ("GET", "/console/session"): op(
            "whether this browser is signed in, as whom, and its CSRF token",
            SIGN_IN,
            ok(
                obj(
                    {
                        "signed_in": BOOL,
                        "csrf": NULLABLE_STR,
                        "actions_enabled": BOOL,
                        "name": NULLABLE_STR,
                        "role": NULLABLE_STR,
                        # what the pages offer: the routes its role may use
                        # ("POST /api/sessions/{session}/void"), and a
                        # referee's only tables (null: every table)
                        "may": listed(STR),
                        "limited_to": {"type": ["array", "null"], "items": STR},
                    },
                    ("signed_in",),
                )
            ),
        ),
        ("POST", "/console/signin"): op(
            "sign in: a name and password, a desk clerk's name and PIN, a one-time code "
            "from the owner (a new phone), or the operator token",
            SIGN_IN,
            ok(obj({"signed_in": BOOL, "csrf": STR}, ("signed_in",))),
        ),
        ("POST", "/console/signout"): op(
            "sign out: the sign-in ends on the server too",
            SIGN_IN,
            ok(obj({"signed_in": {"const": False}}, ("signed_in",))),
        ),
        # the console (host/web/console.py, handset.py, sensors.py)
        ("GET", "/console"): page_op("the operator console"),
        ("POST", "/api/tables/{table}/match"): op(
            "a new match on the table: the table's engine decides",
            ACTIONS,
            ok(ACTION_DONE),
            t,
            extra=QUEUED,
        ),
        ("POST", "/api/tables/{table}/command"): op(
            "a correction: any engine input event but `match` (docs/ENGINE.md)",
            ACTIONS,
            ok(ACTION_DONE),
            t,
            extra=QUEUED,
        ),
        ("POST", "/api/tables/{table}/names"): op(
            "correct the names of the table's current match (the venue's annotation)",
            ACTIONS,
            ok(ACTION_DONE),
            t,
        ),
        ("GET", "/api/tables/{table}/handset"): op(
            "the referee's handset language the host holds for the table",
            READ,
            ok(obj({"table": STR, "lang": NULLABLE_STR, "langs": listed(STR)}, ("table",))),
            t,
        ),
        ("POST", "/api/tables/{table}/handset"): op(
            "set the handset's language",
            ACTIONS,
            ok(obj({"status": STR, "table": STR, "lang": STR, "seq": NULLABLE_INT}, ("status",))),
            t,
            extra={"202": answer(OBJ, "kept, and sent when the table is online")},
        ),
        ("GET", "/api/tables/{table}/sensors"): op(
            "the table's pockets: counts, the latest check, disagreements",
            READ,
            ok(obj({"schema": SCHEMA_V, "table": STR, "checking": BOOL}, ("table",))),
            t,
        ),
        ("POST", "/api/tables/{table}/pocket-check"): op(
            "start a pocket check on the table (it must be online, between frames)",
            ACTIONS,
            ok(obj({"status": STR, "seq": NULLABLE_INT, "message": STR}, ("status",))),
            t,
        ),
        ("POST", "/api/tables/{table}/sensor-capture"): op(
            "start (or stop) a capture of the table's raw sensor readings (docs/CAPTURES.md)",
            ACTIONS,
            ok(obj({"status": STR, "seq": NULLABLE_INT, "message": STR}, ("status",))),
            t,
        ),
        # the players (host/web/players.py)
        ("GET", "/player/{key}"): op(
            "a player's page",
            PAGES,
            ok_page("the page"),
            [path_param("key", {"type": "string", "minLength": 1, "maxLength": 200})],
            page=True,
        ),
        ("GET", "/api/players"): op(
            "the player registry's search",
            PLAYERS_TAG,
            ok(obj({"schema": SCHEMA_V, "players": listed(OBJ)}, ("players",))),
        ),
        ("GET", "/api/players/{key}"): op(
            "a player's statistics over every match",
            PLAYERS_TAG,
            ok(
                obj(
                    {"schema": SCHEMA_V, "player": OBJ, "statistics": OBJ, "matches": listed(OBJ)},
                    ("player",),
                )
            ),
            [path_param("key", {"type": "string", "minLength": 1, "maxLength": 200})],
        ),
        # the desk (host/web/desk.py)
        ("GET", "/desk"): page_op("the desk"),
        ("GET", "/desk/receipt/{session}"): page_op("a session's receipt", sid),
        ("GET", "/desk/day"): page_op("the daily report"),
        ("GET", "/api/desk"): op(
            "every table's session, running bill and light; the alerts",
            DESK,
            ok(
                obj(
                    {
                        "schema": SCHEMA_V,
                        "venue": STR,
                        "tables": listed(OBJ),
                        "alerts": listed(OBJ),
                    },
                    ("tables", "alerts"),
                )
            ),
        ),
        ("POST", "/api/tables/{table}/session"): op(
            "open a session on the table",
            DESK,
            ok(BILL_REPLY),
            t,
        ),
        ("GET", "/api/sessions/{session}"): op(
            "a session's bill and receipt", DESK, ok(BILL_REPLY), sid
        ),
        ("GET", "/api/sessions/{session}/bill.{fmt}"): op(
            "a session's bill as JSON or CSV",
            DESK,
            {"200": {"description": "the bill", "content": CSV_OR_JSON}},
            [*sid, FMT],
        ),
        ("GET", "/api/reports/day"): op(
            "the daily report: each table's totals and the venue's, every bill",
            DESK,
            ok(obj({"schema": SCHEMA_V, "report": OBJ}, ("report",))),
        ),
        ("GET", "/api/reports/day.{fmt}"): op(
            "the daily report as JSON or CSV",
            DESK,
            {"200": {"description": "the report", "content": CSV_OR_JSON}},
            [FMT],
        ),
        ("GET", "/staff"): page_op("the owner's staff page"),
        ("GET", "/staff/activity"): page_op("the activity log's page"),
        # the owner's pages (host/web/staff_pages.py)
        ("GET", "/api/staff/me"): op(
            "who is signed in",
            STAFF,
            ok(obj({"name": STR, "role": STR, "tables": {"type": ["array", "null"]}}, ("name",))),
        ),
        ("GET", "/api/staff/users"): op(
            "the staff accounts", STAFF, ok(obj({"users": listed(ACCOUNT)}, ("users",)))
        ),
        ("POST", "/api/staff/users"): op(
            "add an account",
            STAFF,
            ok(obj({"user": ACCOUNT})),
        ),
        ("POST", "/api/staff/users/{name}"): op(
            "change an account: disable or enable it, a new password or PIN, its role or tables",
            STAFF,
            ok(obj({"user": ACCOUNT})),
            [path_param("name", {"type": "string", "minLength": 1, "maxLength": 40})],
        ),
        ("POST", "/api/staff/users/{name}/code"): op(
            "a one-time sign-in code for the account's new phone, live 15 minutes, shown once",
            STAFF,
            ok(obj({"code": STR, "name": STR, "expires_ms": INT}, ("code", "name", "expires_ms"))),
            [path_param("name", {"type": "string", "minLength": 1, "maxLength": 40})],
        ),
        ("GET", "/api/staff/tokens"): op(
            "the named API tokens", STAFF, ok(obj({"tokens": listed(TOKEN_ROW)}, ("tokens",)))
        ),
        ("POST", "/api/staff/tokens"): op(
            "make a named API token with a role: it is shown once",
            STAFF,
            ok(obj({"token": STR}, ("token",))),
        ),
        ("POST", "/api/staff/sign-out-all"): op(
            "sign everyone out (the caller too); named API tokens stay",
            STAFF,
            ok(obj({"signed_out": INT}, ("signed_out",))),
        ),
        # the tables' firmware (host/web/firmware.py)
        ("GET", "/api/firmware"): op(
            "every table's board, the release an update would send it, and its update",
            STAFF,
            ok(obj({"tables": listed(OBJ)}, ("tables",))),
        ),
        ("POST", "/api/firmware/update"): op(
            "update tables over their links, each to the newest release for its board",
            STAFF,
            {
                "202": answer(
                    obj(
                        {
                            "started": listed(STR),
                            "refused": listed(obj({"table": STR, "text": STR})),
                        },
                        ("started", "refused"),
                    ),
                    "started, each table on its own; those that cannot be, with why",
                )
            },
        ),
        ("POST", "/api/staff/tokens/{token}/revoke"): op(
            "revoke a named API token", STAFF, ok(TOKEN_ROW), [path_param("token")]
        ),
        ("GET", "/api/staff/activity"): op(
            "the activity log of a day, by table and person",
            STAFF,
            ok(obj({"schema": SCHEMA_V, "rows": listed(OBJ)}, ("rows",))),
        ),
        ("GET", "/api/staff/activity.{fmt}"): op(
            "the activity log as JSON or CSV",
            STAFF,
            {"200": {"description": "the log", "content": CSV_OR_JSON}},
            [FMT],
        ),
        ("GET", "/api/staff/verify"): op(
            "a day's takings against the tables' signed record (docs/LEDGER.md)",
            STAFF,
            ok(obj({"day": STR, "bills": listed(OBJ), "counts": OBJ}, ("bills",))),
        ),
    }
    said = {
        "close": "close the session: its bill is final (a mistake is reopened)",
        "confirm": "confirm a session that opened by itself at the first stroke",
        "void": "void a session opened by mistake: nothing to pay (the owner's)",
        "reopen": "reopen a session closed by mistake: it runs on, one minimum",
        "corrections": "correct the bill (+ or −) with a reason; it cannot go below zero",
        "refunds": "a refund: money given back (the owner's)",
        "items": "add an item of the price list to the bill",
        "print": "print the receipt on the desk's thermal printer",
    }
    for what in requests.SESSION_ACTIONS:
        routes[("POST", f"/api/sessions/{{session}}/{what}")] = op(
            said[what], DESK, ok(BILL_REPLY), sid
        )
    routes[("POST", "/api/sessions/{session}/corrections/{correction}/reverse")] = op(
        "take a correction or a refund back, with a reason (the owner's)",
        DESK,
        ok(BILL_REPLY),
        [*sid, path_param("correction")],
    )
    routes[("POST", "/api/sessions/{session}/items/{item}/take-back")] = op(
        "take an item back off the bill",
        DESK,
        ok(BILL_REPLY),
        [*sid, path_param("item")],
    )
    return routes


def _security(method: str, path: str) -> list[dict[str, list[str]]] | None:
    """The credentials a route takes, from the role table (None: public)."""
    rule = roles.rule_for(method, path)
    if rule is None or rule == roles.PUBLIC:
        return None
    return [{"bearer": []}, {"signedIn": [], "csrf": []}]


def _requests(method: str, path: str, operation: dict[str, Any], refs: dict[Any, Schema]) -> None:
    """The route's query parameters and body, from their models; a body's
    400 (its schema) and 409 (the rules of the state) said apart."""
    query = requests.QUERIES.get((method, path))
    if query is not None:
        operation["parameters"] = [*operation.get("parameters", []), *query_params(query)]
    body = requests.BODIES.get((method, path))
    if body is None:
        return
    operation["requestBody"] = {"required": True, "content": {JSON: {"schema": refs[body]}}}
    refused = {"400": answer(ERROR, BAD_BODY)}
    state = STATE_RULES.get(operation["tags"][0])
    if state is not None:
        refused["409"] = answer(ERROR, state)
    operation["responses"] = {**refused, **operation["responses"]}


def document() -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    refs, schemas = _bodies()
    for (method, path), operation in sorted(_routes().items()):
        operation = dict(operation)
        _requests(method, path, operation, refs)
        security = _security(method, path)
        operation["security"] = security if security is not None else []
        rule = roles.rule_for(method, path)
        if isinstance(rule, frozenset):
            allowed = ", ".join(r for r in roles.ROLES if r in rule)
            operation["description"] = f"Roles: {allowed}."
        paths.setdefault(path, {})[method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "baulk venue daemon",
            "version": SERVER.split(" ", 1)[-1],
            "description": "The venue's boards, match reports, operator actions and the "
            "club's desk (docs/API.md). Reads are public but the desk's and the staff's; "
            "every action needs a staff sign-in (a cookie and its CSRF token) or an API "
            f"token. Bodies are JSON of at most {MAX_BODY} bytes. A refusal of a body or a "
            "query that breaks its schema is a 400; of one that breaks a rule of the state "
            "(the table's, the bill's, the account's), a 409. Formats of this document's own: "
            + "; ".join(f"`{k}`: {v}" for k, v in requests.FORMATS.items())
            + ".",
        },
        "servers": [{"url": "/"}],
        "tags": [
            {"name": n} for n in (PAGES, READ, LIVE, SIGN_IN, ACTIONS, PLAYERS_TAG, DESK, STAFF)
        ],
        "paths": paths,
        "components": {
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "the configured operator token, or a named API token",
                },
                "signedIn": {"type": "apiKey", "in": "cookie", "name": "baulk_session"},
                "csrf": {"type": "apiKey", "in": "header", "name": "X-CSRF-Token"},
            },
            "schemas": {
                "Error": ERROR,
                "Board": BOARD,
                "Match": MATCH,
                "Bill": BILL,
                **schemas,
            },
        },
    }


# Made once: the routes do not change while the server runs.
_TEXT = json.dumps(document(), ensure_ascii=False)


async def openapi_json(request: web.Request) -> web.Response:
    del request
    response = web.Response(text=_TEXT, content_type="application/json")
    response.headers["Cache-Control"] = "no-cache"
    return response


def add_routes(app: web.Application) -> None:
    app.router.add_get("/api/openapi.json", openapi_json)
