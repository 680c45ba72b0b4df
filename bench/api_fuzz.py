"""The whole HTTP API fuzzed against its OpenAPI document, long form
(tests/chaos/api_fuzz.py says what is tried; tests/chaos/test_api_fuzz.py
is the short form in make test): every route and method of
/api/openapi.json, valid and invalid examples, each sent without credentials
and under each role's token, against a live daemon with a table playing.

.venv/bin/python bench/api_fuzz.py [--examples 200] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.chaos.api_fuzz import fuzz, fuzzed_venue


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", type=int, default=200, help="per route and kind")
    ap.add_argument("--seed", type=int, default=1, help="0: the same examples each run")
    a = ap.parse_args()
    logging.basicConfig(level=logging.ERROR)
    began = time.monotonic()
    with (
        tempfile.TemporaryDirectory(prefix="baulk-api-fuzz-") as tmp,
        fuzzed_venue(Path(tmp)) as venue,
    ):
        found = fuzz(venue, a.examples, a.seed)
        out = found.as_dict()
        out["tracebacks"] = len(venue.tracebacks.found)
        out["tokens_renewed"] = venue.renewed  # the fuzz revoked its own, and they were remade
    out["seconds"] = round(time.monotonic() - began, 1)
    print(json.dumps(out))
    return 0 if not found.failures and not out["tracebacks"] else 1


if __name__ == "__main__":
    sys.exit(main())
