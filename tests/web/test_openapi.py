"""The OpenAPI document (host/web/openapi.py) is the API the web side really
serves: every route of the built app, each method, and nothing else; each
route's credentials as the role table says; a valid OpenAPI 3.1 document,
served at /api/openapi.json."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from baulk.host import config as config_mod
from baulk.host.staff import roles
from baulk.host.venue.daemon import Daemon
from baulk.host.web import openapi
from baulk.host.web.app import build_app

DOC = openapi.document()


def served(tmp_path: Path) -> set[tuple[str, str]]:
    """(method, route) of every route the daemon's app serves."""

    async def routes() -> set[tuple[str, str]]:
        cfg = config_mod.Config(store_path=tmp_path / "s.sqlite", autodetect=False, port=0)
        app: web.Application = build_app(Daemon(cfg))
        out = set()
        for r in app.router.routes():
            if r.method in ("HEAD", "*") or r.resource is None:
                continue
            out.add((r.method, r.resource.canonical))
        return out

    return asyncio.run(routes())


def described() -> set[tuple[str, str]]:
    return {(m.upper(), path) for path, ops in DOC["paths"].items() for m in ops}


def test_every_route_is_described_and_nothing_else(tmp_path: Path) -> None:
    app, doc = served(tmp_path), described()
    assert sorted(app - doc) == [], "routes the document leaves out (host/web/openapi.py)"
    assert sorted(doc - app) == [], "the document describes routes the app does not serve"
    assert len(app) >= 60


@pytest.mark.parametrize("route", sorted(described()), ids=lambda r: f"{r[0]} {r[1]}")
def test_each_routes_credentials_are_the_role_tables(route: tuple[str, str]) -> None:
    method, path = route
    op: dict[str, Any] = DOC["paths"][path][method.lower()]
    rule = roles.rule_for(method, path)
    needs = rule is not None and rule != roles.PUBLIC
    assert (op["security"] != []) == needs, f"{method} {path}: {rule}"
    if isinstance(rule, frozenset):
        assert op["description"].startswith("Roles: ")
    assert "default" in op["responses"]  # every error, described once
    for param in op.get("parameters", []):
        if param["in"] == "path":
            assert "{" + param["name"] + "}" in path


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
def test_the_document_is_valid_openapi_3_1() -> None:
    import schemathesis

    schema = schemathesis.openapi.from_dict(json.loads(json.dumps(DOC)))
    operations = [r.ok() for r in schema.get_all_operations()]
    assert len(operations) == len(described())
    assert DOC["openapi"] == "3.1.0"


def test_it_is_served_as_json(tmp_path: Path) -> None:
    async def fetch() -> tuple[int, str, Any]:
        from aiohttp.test_utils import TestClient, TestServer

        cfg = config_mod.Config(store_path=tmp_path / "s.sqlite", autodetect=False, port=0)
        app = build_app(Daemon(cfg))
        async with TestClient(TestServer(app)) as client:
            r = await client.get("/api/openapi.json")
            return r.status, r.content_type, await r.json()

    status, ctype, body = asyncio.run(fetch())
    assert status == 200 and ctype == "application/json"
    assert body == json.loads(json.dumps(DOC))
