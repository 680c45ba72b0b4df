"""Every state-changing route of the built app (read from its aiohttp
router, so a route added later cannot slip past), and every route the role
table lists, under every role, signed in and by API token, and under no
credentials: each is let through exactly when host/staff/roles.py says so,
and refused with the role table's own sentence otherwise."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from baulk.host.staff import roles
from baulk.host.web.app import build_app
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, make_config, wait_for
from tests.web.client import Browser

PASSWORD = "a long enough password"
PEOPLE = {
    "Omid": {"role": "owner"},
    "Dina": {"role": "desk"},
    "Reza": {"role": "referee", "tables": ["t1"]},
    "Rana": {"role": "referee", "tables": ["t9"]},  # another table's referee
}
PLACES = {
    "table": "t1",
    "session": "1",
    "correction": "1",
    "item": "1",
    "name": "Dina",
    "token": "1",
    "fmt": "json",
}
ROLE_SENTENCES = (
    "sign in first: this needs a staff sign-in or an API token",
    "refused: this needs the ",
    "refused: Rana",  # a referee (or his token) on another table
    str(roles.UNLISTED),
)


@pytest.fixture
def staffed(tmp_path: Path, peer: DevicePeer) -> Iterator[tuple[DaemonThread, dict[str, Any]]]:
    d = DaemonThread(make_config(tmp_path, {"t1": tmp_path / "ttyT1"})).start()
    wait_for(lambda: d.board("t1")["status"]["link"] == "online", what="online")
    creds: dict[str, Any] = {}
    for name, what in PEOPLE.items():
        status, body = http(
            d.url + "/api/staff/users", {"name": name, "password": PASSWORD, **what}, TOKEN
        )
        assert status == 200, body
        status, made = http(
            d.url + "/api/staff/tokens", {"name": f"{name}'s script", **what}, TOKEN
        )
        assert status == 200, made
        creds[name] = made["token"]
    yield d, creds
    d.stop()


def app_of(d: DaemonThread) -> web.Application:
    assert d.web is not None
    app: web.Application = d.web.runner.app
    return app


def walked(app: web.Application) -> list[tuple[str, str]]:
    """Every state-changing route, and every route the table lists."""
    found = set()
    for route in app.router.routes():
        resource = route.resource
        if resource is None or route.method == "*":
            continue
        key = (route.method, resource.canonical)
        if route.method not in roles.SAFE_METHODS or key in roles.ROUTES:
            found.add(key)
    return sorted(found, key=lambda k: (k[1] == "/console/signout", k))


def path_of(pattern: str) -> str:
    return pattern.format(**PLACES)


def allowed(rule: roles.Rule | None, role: str | None, limited_elsewhere: bool, path: str) -> bool:
    if rule is None:
        return False
    if rule == roles.PUBLIC:
        return True
    if role is None:
        return False
    if rule == roles.SIGNED_IN:
        return True
    assert isinstance(rule, frozenset)
    return role in rule and not (limited_elsewhere and "{table}" in path)


def refused_by_roles(status: int, body: Any) -> bool:
    text = body.get("error", "") if isinstance(body, dict) else ""
    return status in (401, 403) and any(text.startswith(s) for s in ROLE_SENTENCES)


@pytest.mark.slow  # 300 requests, seven sign-ins with argon2: make test
def test_every_route_under_every_role(staffed: tuple[DaemonThread, dict[str, Any]]) -> None:
    d, creds = staffed
    routes = walked(app_of(d))
    assert ("POST", "/api/tables/{table}/command") in routes
    assert len(routes) >= 20
    # signed in, with the page's CSRF token ...
    browsers: dict[str | None, tuple[Browser, dict[str, str]]] = {None: (Browser(d.url), {})}
    for name in PEOPLE:
        b = Browser(d.url)
        answer = b.send("POST", "/console/signin", {"name": name, "password": PASSWORD})
        assert answer.status == 200, answer.body
        browsers[name] = (b, {"X-CSRF-Token": answer.body["csrf"]})
    # ... and by API token
    tokens = {
        f"{n} token": (Browser(d.url), {"Authorization": f"Bearer {t}"}) for n, t in creds.items()
    }
    checked = 0
    for method, pattern in routes:
        rule = roles.rule_for(method, pattern)
        for who, (b, headers) in {**browsers, **tokens}.items():
            name = who.split(" ")[0] if who else None
            role = PEOPLE[name]["role"] if name else None
            answer = b.send(method, path_of(pattern), {} if method == "POST" else None, headers)
            expect = allowed(rule, role, name == "Rana", pattern)
            assert answer.status != 500, (method, pattern, who, answer.body)
            assert refused_by_roles(answer.status, answer.body) != expect, (
                method,
                pattern,
                who,
                answer.status,
                answer.body,
            )
            checked += 1
    assert checked == len(routes) * (len(browsers) + len(tokens))


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
def test_every_state_changing_route_is_in_the_role_table(
    staffed: tuple[DaemonThread, dict[str, Any]],
) -> None:
    d, _ = staffed
    unlisted = [(m, p) for m, p in walked(app_of(d)) if roles.rule_for(m, p) is None]
    assert unlisted == [], f"list these in host/staff/roles.py ROUTES: {unlisted}"


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
def test_a_route_added_later_is_refused_until_it_is_listed(
    staffed: tuple[DaemonThread, dict[str, Any]],
) -> None:
    d, _ = staffed
    assert d.daemon is not None
    reached: list[str] = []

    async def new_thing(request: web.Request) -> web.Response:
        reached.append(request.method)
        return web.json_response({"done": True})

    async def try_it() -> list[tuple[int, Any]]:
        assert d.daemon is not None
        app = build_app(d.daemon)
        app.router.add_post("/api/new-thing", new_thing)
        app.router.add_get("/api/new-read", new_thing)
        client = TestClient(TestServer(app))
        await client.start_server()
        try:
            out = []
            for method, path in (("POST", "/api/new-thing"), ("GET", "/api/new-read")):
                r = await client.request(method, path, headers={"Authorization": f"Bearer {TOKEN}"})
                out.append((r.status, await r.json()))
            return out
        finally:
            await client.close()

    (posted, read) = d.call(try_it())
    # even the owner is refused a state-changing route nobody listed ...
    assert posted[0] == 403 and posted[1]["error"] == str(roles.UNLISTED)
    assert reached == ["GET"]  # ... while an unlisted read is public
    assert read[0] == 200


@pytest.mark.parametrize("role", roles.ROLES)
def test_what_a_page_offers_a_role_is_what_the_gate_lets_it_use(role: str) -> None:
    # The pages offer a button only for a route in the sign-in state's
    # "may" (host/web/static/js/desk_common.js): exactly those the gate
    # lets this role through, none it would then refuse.
    actor = roles.Actor("Someone", role)
    offered = set(roles.may(role))
    for (method, pattern), rule in roles.ROUTES.items():
        let_through = roles.refusal(rule, actor, None) is None
        assert (f"{method} {pattern}" in offered) == let_through, (role, method, pattern)
    assert ("POST /api/sessions/{session}/void" in offered) == (role == roles.OWNER)


def test_the_tables_a_page_offers_a_referee_are_those_the_gate_lets_him_use() -> None:
    pattern = ("POST", "/api/tables/{table}/match")
    rule = roles.ROUTES[pattern]
    for role, tables in ((roles.REFEREE, frozenset({"t1"})), (roles.OWNER, frozenset({"t1"}))):
        actor = roles.Actor("Someone", role, tables)
        only = roles.limited_to(role, tables)
        for table in ("t1", "t9"):
            offered = only is None or table in only
            assert offered == (roles.refusal(rule, actor, table) is None), (role, table)
    assert roles.limited_to(roles.REFEREE, None) is None
