"""The whole HTTP API fuzzed against its OpenAPI document by schemathesis,
short form (tests/chaos/api_fuzz.py says what is tried; bench/api_fuzz.py
runs it long): every route and method, without credentials and under each
role's token; no 5xx, no answer slower than 2 s, every answer as the
document declares it, and no traceback in the daemon's log."""

from __future__ import annotations

import pytest

from tests.chaos.api_fuzz import fuzz, fuzzed_venue
from tests.host.harness import wait_for

pytestmark = pytest.mark.slow

EXAMPLES = 25  # per operation and kind (valid, invalid): bench/api_fuzz.py runs hundreds


def test_every_route_answers_as_its_document_says(tmp_path_factory: pytest.TempPathFactory) -> None:
    with fuzzed_venue(tmp_path_factory.mktemp("api-fuzz")) as venue:
        found = fuzz(venue, EXAMPLES)
        assert found.failures == [], "\n".join(found.failures)
        assert found.operations >= 60  # every route of the document, each method
        assert found.requests >= found.examples * len(venue.tokens) >= 60 * 2 * len(venue.tokens)
        assert venue.tracebacks.found == []
        # After the whole fuzz, each table still plays and its events are stored.
        for table_id, table in venue.tables.items():
            if venue.daemon.board(table_id)["match"] is None:  # the fuzz may have ended it
                match = {"players": ["Sara", "Mina"], "best_of": 1}
                made = venue.keep("POST", f"/api/tables/{table_id}/match", match)
                assert made.status_code == 200, made.text
            before = venue.daemon.board(table_id)["events"]
            table.stroke()
            wait_for(
                lambda t=table_id, n=before: venue.daemon.board(t)["events"] >= n + 2,
                what=f"{table_id}'s stroke stored",
            )
