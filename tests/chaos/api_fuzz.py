"""The whole HTTP API fuzzed against its own OpenAPI document, shared by
tests/chaos/test_api_fuzz.py (short, in make test) and bench/api_fuzz.py
(long).

A live daemon (the real web app, store and sessions) serves a table whose
device is a protocol peer running the rules engine, with a tariff, a price
list and a staff of three.  schemathesis, made for exactly this, reads
``/api/openapi.json`` and sends every route and method examples its schemas
allow and examples they do not, each once without credentials and once
under each of the owner's, a desk clerk's and a referee's API tokens.
The configured operator token is left out: schemathesis sends strangers'
requests with Authorization headers of its own making, every one a wrong
token, so the operator token's guessing cap soon holds and refuses it too,
as it is meant to (docs/API.md); the owner's role is fuzzed by a named token.  Every
answer must be no 5xx, within 2 s, with a status, a content type, headers and
a body the document declares; and the daemon must log no traceback.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from baulk.host.club import tariffs
from baulk.host.web import auth
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, make_config, wait_for

MAX_RESPONSE_S = 2.0
CLUB = {
    "billing": {"venue": "Fuzz Club"},
    "tariff": [{"name": "std", "currency": "IRT", "per_hour": 60_000, "per_frame": 10_000}],
    "item": [{"name": "Tea", "price": 20_000}],
}
STAFF = {"Dina": "desk", "Rana": "referee", "Omid": "owner"}


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
    peer: DevicePeer
    tokens: dict[str, str]  # who -> Authorization header value ("" for none)
    tracebacks: Tracebacks

    @property
    def url(self) -> str:
        return self.daemon.url


@contextmanager
def fuzzed_venue(tmp: Path) -> Iterator[Venue]:
    peer = DevicePeer("t1", link_path=tmp / "ttyT1").start()
    cfg = make_config(tmp, {"t1": tmp / "ttyT1"})
    cfg = replace(cfg, billing=tariffs.parse(CLUB, {"t1"}))
    catcher = Tracebacks()
    # The guessing cap's 429 waits half a second before it is sent, to slow
    # a guesser; the fuzz sends hundreds of wrong tokens, and what it checks
    # is the answer, not the wait (tests/web/test_auth*.py check the wait).
    pause, auth.PAUSE_S = auth.PAUSE_S, 0.0
    root = logging.getLogger()
    root.addHandler(catcher)
    d = DaemonThread(cfg).start()
    try:
        wait_for(lambda: d.board("t1")["status"]["link"] == "online", what="online")
        tokens = {"nobody": ""}
        for name, role in STAFF.items():
            status, made = http(d.url + "/api/staff/tokens", {"name": name, "role": role}, TOKEN)
            assert status == 200, made
            tokens[name] = f"Bearer {made['token']}"
        # Something for the reads to find: a match, and an open session.
        status, _ = http(
            d.url + "/api/tables/t1/match", {"players": ["Ali", "Reza"], "best_of": 3}, TOKEN
        )
        assert status == 200
        status, _ = http(d.url + "/api/tables/t1/session", {}, TOKEN)
        assert status == 200
        yield Venue(d, peer, tokens, catcher)
    finally:
        d.stop()
        peer.stop()
        root.removeHandler(catcher)
        auth.PAUSE_S = pause


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
            case.validate_response(response, checks=checks())
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


def checks() -> list[Any]:
    from schemathesis import checks as c

    return [
        c.not_a_server_error,
        c.status_code_conformance,
        c.content_type_conformance,
        c.response_headers_conformance,
        c.response_schema_conformance,
    ]


def headers_for(who: str, venue: Venue) -> dict[str, str]:
    value = venue.tokens[who]
    return {"Authorization": value} if value else {}
