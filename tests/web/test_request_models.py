"""Each request body and query has one declaration (host/web/request_models.py):
the handler validates with it and the OpenAPI document's schemas are made
from it, so the two take the same requests.  The disagreements the API fuzz
once found are held here one by one: a document allowing what the handler
refuses (``best_of: 34``), or the handler taking what the document refuses
(a sign-in of ``{}``, an item with keys of its own, ``lang=null``,
``?table=``); and every refusal is one sentence, in English and Persian."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from pydantic import BaseModel, ValidationError

from baulk.firmware import engine
from baulk.host import config as config_mod
from baulk.host.sentences import Message, catalogue, say
from baulk.host.venue.daemon import Daemon
from baulk.host.web import openapi
from baulk.host.web import request_models as r
from baulk.host.web.app import build_app

DOC = json.loads(json.dumps(openapi.document()))


def doc_takes(route: tuple[str, str], body: Any) -> bool:
    """Whether the document's schema of the route's body allows ``body``."""
    method, path = route
    ref = DOC["paths"][path][method.lower()]["requestBody"]["content"]["application/json"]
    root = {**ref["schema"], "components": DOC["components"]}
    return bool(jsonschema_rs.validator_for(root).is_valid(body))


def model_takes(route: tuple[str, str], body: Any) -> tuple[bool, Message | None]:
    model = r.BODIES[route]
    try:
        model.model_validate(body)
    except ValidationError as e:
        return False, r.sentence(model, e)
    return True, None


MATCH = ("POST", "/api/tables/{table}/match")
SIGN_IN = ("POST", "/console/signin")
ITEMS = ("POST", "/api/sessions/{session}/items")
COMMAND = ("POST", "/api/tables/{table}/command")
CORRECTION = ("POST", "/api/sessions/{session}/corrections")
NEW_USER = ("POST", "/api/staff/users")
CASES: list[tuple[tuple[str, str], Any, bool]] = [
    (MATCH, {"players": ["Ali", "Reza"], "best_of": 35}, True),
    (MATCH, {"players": ["Ali", "Reza"], "best_of": 34}, False),
    (MATCH, {"players": ["Ali", "Reza"], "best_of": True}, False),
    (MATCH, {"players": [["A", "B"], ["C", "D"]], "best_of": 1, "reds": 6}, True),
    (MATCH, {"players": [["A", "B"], "C"], "best_of": 1}, False),
    (MATCH, {"players": ["Ali"], "best_of": 1}, False),
    (MATCH, {"players": ["Ali", "x" * 49], "best_of": 1}, False),
    (MATCH, {"players": ["Ali", "Reza"], "best_of": 1, "colour": "red"}, False),
    (SIGN_IN, {}, False),
    (SIGN_IN, {"name": "Dina", "password": "secret"}, True),
    (SIGN_IN, {"name": "Dina", "pin": "1234"}, True),
    (SIGN_IN, {"name": "Dina", "pin": "1234", "password": "x"}, False),
    (SIGN_IN, {"token": "x", "name": "Dina"}, False),
    (SIGN_IN, {"code": "K7QM-2XHD-9RTA"}, True),
    (ITEMS, {"item": "Tea"}, True),
    (ITEMS, {"item": "Tea", "quantity": 21}, False),
    (ITEMS, {"item": "Tea", "colour": "green"}, False),
    (COMMAND, {"ev": "pot", "ball": "red", "pocket": "tl"}, True),
    (COMMAND, {"ev": "pot", "ball": "purple"}, False),
    (COMMAND, {"ev": "pot"}, False),
    (COMMAND, {"ev": "match", "players": ["A", "B"], "best_of": 1}, False),
    (COMMAND, {"ev": "foul", "kind": "push", "ball": "pink", "extra": 1}, False),
    (COMMAND, {"ev": "spots", "occupied": ["pink", "pink"]}, False),
    (CORRECTION, {"amount": "-2.50", "reason": "a regular"}, True),
    (CORRECTION, {"amount": 0, "reason": "x"}, False),
    (CORRECTION, {"amount": "0.00", "reason": "x"}, False),
    (CORRECTION, {"amount": 6.5, "reason": "x"}, False),
    (CORRECTION, {"amount": "5"}, False),
    (NEW_USER, {"name": "Dina", "role": "desk", "pin": "1234"}, True),
    (NEW_USER, {"name": "Omid", "role": "owner", "pin": "1234"}, False),
    (NEW_USER, {"name": "Rana", "role": "referee", "password": "p" * 8, "tables": ["t1"]}, True),
    (NEW_USER, {"name": "Dina", "role": "desk", "password": "p" * 8, "tables": ["t1"]}, False),
]


@pytest.mark.parametrize(("route", "body", "taken"), CASES, ids=lambda v: str(v)[:60])
def test_the_document_and_the_handler_take_the_same_bodies(
    route: tuple[str, str], body: Any, taken: bool
) -> None:
    assert doc_takes(route, body) == taken, "the document"
    model, why = model_takes(route, body)
    assert model == taken, why
    if not taken:  # one bounded sentence, and its Persian from the catalogue
        assert why is not None and len(str(why)) <= 300 and "\n" not in str(why)
        assert catalogue().get(why.msgid), why


# One value of each JSON type, an object and a list among them: neither is
# hashable, so a model that looked one up in a dict raised (a 500).
EVERY_JSON: list[Any] = [None, True, 0, -1.5, "", "x", [], [{}], {}, {"a": []}]


def _valid(route: tuple[str, str]) -> dict[str, Any]:
    """A body the route takes, to put each wrong value into."""
    return next((b for at, b, taken in CASES if at == route and taken), {})


def test_any_json_in_any_key_of_any_body_is_a_sentence_never_a_raise() -> None:
    """Every key of every body (each variant's, each event's), given a value
    of each JSON type, into a body otherwise taken: the model takes it or
    refuses it with a sentence of the catalogue; nothing else is raised."""
    tried = 0
    for route, model in r.BODIES.items():
        variants = getattr(model, "VARIANTS", {}).values() or [model]
        keys = {k for v in variants for k in v.model_fields} | {"ev", "role"}
        for key in sorted(keys):
            for value in EVERY_JSON:
                body = {**_valid(route), key: value}
                taken, why = model_takes(route, body)  # raises anything but ValidationError
                tried += 1
                if not taken:
                    assert why is not None and catalogue().get(why.msgid), (route, body, why)
    assert tried > 1000


def test_every_body_is_closed_to_keys_of_its_own() -> None:
    models: list[type[BaseModel]] = []
    for model in r.BODIES.values():
        models.extend(getattr(model, "VARIANTS", {}).values() or [model])
    for model in [*models, *r.EVENTS.values()]:
        assert model.model_config.get("extra") == "forbid", model.__name__
        schema = DOC["components"]["schemas"][model.__name__]
        assert schema.get("additionalProperties") is False, model.__name__


def test_every_declared_route_is_served_and_described() -> None:
    described = {(m.upper(), p) for p, ops in DOC["paths"].items() for m in ops}
    assert set(r.BODIES) <= described
    assert set(r.QUERIES) <= described
    for method, path in r.BODIES:
        assert "requestBody" in DOC["paths"][path][method.lower()]
    for method, path in r.QUERIES:
        params = DOC["paths"][path][method.lower()]["parameters"]
        assert {p["name"] for p in params if p["in"] == "query"} == set(
            r.QUERIES[(method, path)].model_fields
        )


def test_a_routes_body_and_its_409_are_described_apart() -> None:
    for method, path in r.BODIES:
        responses = DOC["paths"][path][method.lower()]["responses"]
        assert responses["400"]["description"] == openapi.BAD_BODY
        if path.startswith(("/api/sessions/", "/api/tables/")):
            assert responses["409"]["description"].startswith("a rule of the state")


def test_the_corrections_are_the_engines_events_with_their_keys() -> None:
    """Each correction's model has the engine's keys of its event (firmware/
    engine.py _KEYS) and those it requires; the engine takes what it takes."""
    for name, model in r.EVENTS.items():
        keys, required = engine._keys_of(name)
        own = set(model.model_fields) - {"ev", "t", "who", "version"}
        assert own == set(keys), name
        assert {k for k, f in model.model_fields.items() if f.is_required()} == {"ev", *required}
        example = {"ev": name}
        for key in required:
            schema = DOC["components"]["schemas"][model.__name__]["properties"][key]
            example[key] = schema["enum"][0] if "enum" in schema else []
        held = r.Command.model_validate(example).root
        engine.parse_event(held.model_dump(exclude_unset=True, exclude_none=True))


def served(tmp_path: Path, *paths: str) -> list[tuple[int, dict[str, Any]]]:
    """(status, JSON body) of each GET, from the daemon's app."""

    async def fetch() -> list[tuple[int, dict[str, Any]]]:
        from aiohttp.test_utils import TestClient, TestServer

        cfg = config_mod.Config(store_path=tmp_path / "s.sqlite", autodetect=False, port=0)
        out = []
        async with TestClient(TestServer(build_app(Daemon(cfg)))) as client:
            for path in paths:
                answer = await client.get(path)
                kind = answer.content_type
                out.append((answer.status, await answer.json() if "json" in kind else {}))
        return out

    return asyncio.run(fetch())


def test_queries_are_held_to_their_models(tmp_path: Path) -> None:
    answers = served(
        tmp_path,
        "/api/matches?table=",
        "/api/matches?limit=0",
        "/api/matches?limit=5&limit=6",
        "/api/matches?skip_empty=yes&lang=fa",
        "/report/nope?lang=null",
        "/report/nope?lang=false",
        "/api/players?q=a%00b",
        "/api/matches?table=t1&limit=5&utm_source=x",
        "/report/nope?lang=fa",
    )
    refused = answers[:7]
    for status, body in refused:
        assert status == 400, body
        assert catalogue().get(body["id"]), body
    assert refused[0][1]["error"] == "table must be a table id (letters, digits, '-' or '_')"
    assert refused[2][1]["error"] == "the query gives limit more than once"
    assert refused[4][1]["error"] == "lang must be 'en' or 'fa'"
    assert answers[7][0] == 200  # a key of no field is left alone
    assert answers[8][0] == 404  # a good query: the handler's own answer


def test_a_live_feed_without_a_handshake_is_refused_in_a_sentence(tmp_path: Path) -> None:
    """A plain GET of the live feed, whatever its query (schemathesis sent 13
    table ids), is refused with a sentence of the catalogue, not aiohttp's
    bare "Bad Request"; and the document says so."""
    ids = ",".join(f"t{n}" for n in range(13))
    answers = served(tmp_path, f"/api/live?tables={ids}", "/api/live?lang=fa")
    for status, body in answers:
        assert status == 400, body
        assert body["id"] == "the live feed is a WebSocket: open it with a WebSocket handshake"
        assert catalogue().get(body["id"]), body
    assert answers[1][1]["message"] == say(Message(body["id"]), "fa") != body["id"]
    assert "400" in DOC["paths"]["/api/live"]["get"]["responses"]
