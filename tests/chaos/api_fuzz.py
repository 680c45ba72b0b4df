"""The whole HTTP API fuzzed against its own OpenAPI document, shared by
tests/chaos/test_api_fuzz.py (short, in make test) and bench/api_fuzz.py
(long).

A live daemon (the real web app, store and sessions) serves two simulated
tables (the real firmware on the simulated board), with a tariff, a price
list and a staff of three.  schemathesis, made for exactly this, reads
``/api/openapi.json`` and sends every route and method examples its schemas
allow and examples they do not, each once without credentials and once
under each of the owner's, a desk clerk's and a referee's API tokens.
The configured operator token is left out: schemathesis sends strangers'
requests with Authorization headers of its own making, every one a wrong
token, so the operator token's guessing cap soon holds and refuses it too,
as it is meant to (docs/API.md); the owner's role is fuzzed by a named token.  Every
answer must be no 5xx, within 2 s, with a status, a content type, headers and
a body the document declares; and the daemon must log no traceback.  The
document and the handlers must agree on the data: every request the document
allows is taken (or refused for the state, a missing thing or the
credentials: 404, 409, 401, 403, 429), and every request it does not allow is
refused (schemathesis's ``positive_data_acceptance`` and
``negative_data_rejection``).  The document's own string formats
(host/web/request_models.py ``FORMATS``) are drawn by the rules that define
them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

from baulk.host.club import tariffs
from baulk.host.config import Config
from baulk.host.name_rules import NAME_BYTES
from baulk.host.web import auth
from tests.e2e.sim_driver import TableDriver, simulated_tables
from tests.host.harness import TOKEN, DaemonThread, http

# A hang guard, not a speed figure (speed lives in bench/): an argon2 check
# of a password on a busy 2-core machine took 2.07 s on a fresh clone.
MAX_RESPONSE_S = 8.0
CLUB = {
    "billing": {"venue": "Fuzz Club"},
    "tariff": [{"name": "std", "currency": "IRT", "per_hour": 60_000, "per_frame": 10_000}],
    "item": [{"name": "Tea", "price": 20_000}],
}
STAFF = {"Dina": "desk", "Rana": "referee", "Omid": "owner"}
TABLES = ("t1", "t2")
KEEPER_PASSWORD = "the keeper's long password"


class Tracebacks(logging.Handler):
    """Every log record that carries a traceback, or says 'Traceback'."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info or "Traceback" in text:
            self.found.append(f"{record.name}: {text[:200]}")


@dataclass
class Venue:
    daemon: DaemonThread
    tables: dict[str, TableDriver]
    tokens: dict[str, str]  # who -> Authorization header value ("" for none)
    tracebacks: Tracebacks
    keeper: Any  # an owner's signed-in requests.Session the fuzz never sends
    keeper_csrf: str
    renewed: int = 0  # tokens the fuzz revoked, made again

    def keep(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """A request as the keeper, the owner who remakes what the fuzz undoes
        (signed in again when the fuzz signed everyone out)."""
        for _ in range(2):
            answer = self.keeper.request(
                method, self.url + path, json=body, headers={"X-CSRF-Token": self.keeper_csrf}
            )
            if answer.status_code != 401:
                break
            self.keeper_csrf = keeper_sign_in(self.url, self.keeper)
        return answer

    def renew(self) -> None:
        """The fuzz may revoke its own tokens (POST /api/staff/tokens/1/revoke
        is an example like any other): a revoked one is made again, so every
        role keeps being fuzzed."""
        for name, role in STAFF.items():
            bearer = {"Authorization": self.tokens[name]}
            me = self.keeper.get(self.url + "/api/staff/me", headers=bearer)
            if me.status_code == 401:
                made = self.keep("POST", "/api/staff/tokens", {"name": name, "role": role})
                assert made.status_code == 200, made.text
                self.tokens[name] = f"Bearer {made.json()['token']}"
                self.renewed += 1

    @property
    def url(self) -> str:
        return self.daemon.url


@contextmanager
def fuzzed_venue(tmp: Path) -> Iterator[Venue]:
    catcher = Tracebacks()
    # The guessing cap's 429 waits half a second before it is sent, to slow
    # a guesser; the fuzz sends hundreds of wrong tokens, and what it checks
    # is the answer, not the wait (tests/web/test_signin.py checks the wait).
    pause, auth.PAUSE_S = auth.PAUSE_S, 0.0
    root = logging.getLogger()
    root.addHandler(catcher)

    def club(cfg: Config) -> Config:
        return replace(cfg, billing=tariffs.parse(CLUB, set(TABLES)))

    try:
        with simulated_tables(tmp, TABLES, seed=11, edit=club) as (d, tables):
            tokens = {"nobody": ""}
            for name, role in STAFF.items():
                status, made = http(
                    d.url + "/api/staff/tokens", {"name": name, "role": role}, TOKEN
                )
                assert status == 200, made
                tokens[name] = f"Bearer {made['token']}"
            # Something for the reads to find: a match on t1, an open session on t2.
            status, _ = http(
                d.url + "/api/tables/t1/match", {"players": ["Ali", "Reza"], "best_of": 3}, TOKEN
            )
            assert status == 200
            status, _ = http(d.url + "/api/tables/t2/session", {}, TOKEN)
            assert status == 200
            # The keeper signs in by name: no token of his for the fuzz to revoke.
            status, _ = http(
                d.url + "/api/staff/users",
                {"name": "Keeper", "role": "owner", "password": KEEPER_PASSWORD},
                TOKEN,
            )
            assert status == 200
            keeper = requests_session()
            yield Venue(d, tables, tokens, catcher, keeper, keeper_sign_in(d.url, keeper))
    finally:
        root.removeHandler(catcher)
        auth.PAUSE_S = pause


def keeper_sign_in(url: str, keeper: Any) -> str:
    """The keeper signs in by name (no token of his for the fuzz to revoke);
    his CSRF token."""
    signed = keeper.post(
        url + "/console/signin", json={"name": "Keeper", "password": KEEPER_PASSWORD}
    )
    assert signed.status_code == 200, signed.text
    return str(signed.json()["csrf"])


@dataclass
class Fuzzed:
    """What a run tried and what it found."""

    operations: int = 0
    examples: int = 0  # generated cases
    requests: int = 0  # each case once per credential
    by_status: dict[int, int] = field(default_factory=dict)
    slowest_s: float = 0.0
    failures: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "operations": self.operations,
            "examples": self.examples,
            "requests": self.requests,
            "by_status": dict(sorted(self.by_status.items())),
            "slowest_ms": round(self.slowest_s * 1000, 1),
            "failures": self.failures[:20],
            "failed": len(self.failures),
        }


def fuzz(venue: Venue, examples: int, seed: int = 0) -> Fuzzed:
    """Every operation of the document, its schemas' examples (positive) and
    examples that break them (negative), each sent without credentials and
    under every role's token."""
    import schemathesis
    from hypothesis.errors import Unsatisfiable

    register_formats()
    schema = schemathesis.openapi.from_url(venue.url + "/api/openapi.json")
    out = Fuzzed()
    session = requests_session()
    for result in schema.get_all_operations():
        op = result.ok()
        out.operations += 1
        for mode in schemathesis.GenerationMode:
            try:
                _fuzz_one(venue, op, mode, examples, seed, session, out)
            except Unsatisfiable:  # nothing to make invalid (a route without parameters)
                continue
            # schemathesis groups its findings (a BaseExceptionGroup); each
            # operation's first failure is kept, then the next operation runs.
            except (Exception, BaseExceptionGroup) as e:
                out.failures.append(f"{op.method.upper()} {op.path} ({mode.value}): {_said(e)}")
    return out


def _fuzz_one(
    venue: Venue, op: Any, mode: Any, examples: int, seed: int, session: Any, out: Fuzzed
) -> None:
    """One operation's examples of one kind, each under every credential."""
    from hypothesis import HealthCheck, Phase, given, settings

    @given(case=op.as_strategy(generation_mode=mode))
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=seed == 0,
        phases=[Phase.explicit, Phase.generate],  # a failure is reported as found
        suppress_health_check=list(HealthCheck),
    )
    def one(case: Any) -> None:
        out.examples += 1
        venue.renew()
        for who in venue.tokens:
            seen = len(venue.tracebacks.found)
            began = time.monotonic()
            response = case.call(
                base_url=venue.url,
                session=session,
                headers=headers_for(who, venue),
                timeout=10,
            )
            took = time.monotonic() - began
            out.requests += 1
            out.slowest_s = max(out.slowest_s, took)
            code = response.status_code
            out.by_status[code] = out.by_status.get(code, 0) + 1
            where = f"{case.method} {case.formatted_path} ({who}, {mode.value})"
            if took > MAX_RESPONSE_S:
                raise AssertionError(f"{where}: {took:.2f} s")
            case.validate_response(response, checks=checks(op.path))
            if len(venue.tracebacks.found) > seen:
                raise AssertionError(f"{where}: a traceback: {venue.tracebacks.found[seen:]}")

    one()


def _said(e: BaseException) -> str:
    parts = [str(e)]
    for sub in getattr(e, "exceptions", ()):
        parts.append(str(sub))
    return " | ".join(" ".join(p.split()) for p in parts)[:1200]


def requests_session() -> Any:
    import requests

    s = requests.Session()
    s.headers["Origin"] = ""  # as a script sends it: no page, no origin
    del s.headers["Origin"]
    return s


# The live feed is a WebSocket: a GET without the handshake's headers (which
# OpenAPI has no words for) is refused by aiohttp with a 400, whatever its
# query; the document's data for it, its query, is still held to the
# negative check.
HANDSHAKE_ONLY = frozenset({"/api/live"})


def checks(path: str = "") -> list[Any]:
    from schemathesis import checks as c

    if path in HANDSHAKE_ONLY:
        return [check for check in checks() if check is not c.positive_data_acceptance]
    return [
        c.not_a_server_error,
        c.status_code_conformance,
        c.content_type_conformance,
        c.response_headers_conformance,
        c.response_schema_conformance,
        c.positive_data_acceptance,
        c.negative_data_rejection,
    ]


def format_checks() -> dict[str, Any]:
    """Each string format of the document's own, as a check: does the value
    type that declares it (host/web/request_models.py) take the string?"""
    from pydantic import TypeAdapter, ValidationError

    from baulk.host.web import request_models as r

    def check(kind: Any) -> Any:
        adapter = TypeAdapter(kind)

        def takes(text: object) -> bool:
            try:
                adapter.validate_python(text)
            except ValidationError:
                return False
            return True

        return takes

    kinds = {
        r.NAME_FORMAT: r.Name,
        r.TEXT_FORMAT: r.Text,
        r.PERSON_FORMAT: r.Person,
        r.TOKEN_NAME_FORMAT: r.TokenName,
        r.PASSWORD_FORMAT: r.Password,
        r.PIN_FORMAT: r.Pin,
        r.JDATE_FORMAT: r.JDay,
    }
    assert set(kinds) == set(r.FORMATS)
    return {name: check(kind) for name, kind in kinds.items()}


def register_formats() -> None:
    """Each string format of the document's own, drawn as its definition
    says: candidates kept when the value type that declares the format
    (host/web/request_models.py) takes them."""
    import schemathesis
    from hypothesis import strategies as st

    from baulk.host.web import request_models as r

    checks = format_checks()

    def kept(kind: Any, texts: Any) -> Any:
        return texts.filter(checks[kind])

    words = st.characters(categories=["L", "N", "P", "Mn"], include_characters=" \u200c")
    signs = st.characters(categories=["L", "N", "P", "Sm", "Sc"], include_characters=" ")
    person = st.characters(categories=["L", "N"], include_characters=" .-_'")
    days = st.dates(date(r.FIRST_YEAR + 1, 1, 1), date(r.LAST_YEAR - 1, 12, 31))
    strategies = {
        r.NAME_FORMAT: kept(r.NAME_FORMAT, st.text(words, min_size=1, max_size=NAME_BYTES)),
        r.TEXT_FORMAT: kept(r.TEXT_FORMAT, st.text(signs, min_size=1, max_size=r.TEXT_BYTES)),
        r.PERSON_FORMAT: kept(r.PERSON_FORMAT, st.text(person, min_size=1, max_size=32)),
        r.TOKEN_NAME_FORMAT: kept(r.TOKEN_NAME_FORMAT, st.text(min_size=1, max_size=40)),
        r.PASSWORD_FORMAT: kept(r.PASSWORD_FORMAT, st.text(min_size=8, max_size=64)),
        r.PIN_FORMAT: st.from_regex(r"[0-9]{4,8}", fullmatch=True),
        r.JDATE_FORMAT: days.map(jalali),
    }
    assert set(strategies) == set(r.FORMATS)
    for name, strategy in strategies.items():
        schemathesis.openapi.format(name, strategy)


def jalali(day: Any) -> str:
    """A Gregorian day written as the Solar Hijri one."""
    import jdatetime

    j = jdatetime.date.fromgregorian(date=day)
    return f"{j.year:04d}-{j.month:02d}-{j.day:02d}"


def headers_for(who: str, venue: Venue) -> dict[str, str]:
    value = venue.tokens[who]
    return {"Authorization": value} if value else {}
