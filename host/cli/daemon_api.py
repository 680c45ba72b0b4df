"""What the commands that talk to a running daemon share (``baulk sensors
record``, ``baulk firmware push``): its URL, the token from the command line
or ``$BAULK_TOKEN``, and one JSON request to its API, whose refusal is the
daemon's own sentence."""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from typing import Any

from baulk.host import config as config_mod

TOKEN_ENV = "BAULK_TOKEN"


class ApiError(Exception):
    """The daemon refused the request (its sentence), or could not be reached."""


def url_of(given: str | None) -> str:
    return (given or f"http://127.0.0.1:{config_mod.DEFAULT_PORT}").rstrip("/")


def token_of(given: str | None, command: str, whose: str) -> str | None:
    """The token given, or $BAULK_TOKEN; None, and the command says so on
    stderr, when there is neither."""
    token = given or os.environ.get(TOKEN_ENV) or None
    if token is None:
        print(
            f"baulk {command}: {whose} token is needed (--token or ${TOKEN_ENV})", file=sys.stderr
        )
    return token


def call(url: str, token: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """GET ``path`` (POST ``body`` when given) with the token; the reply's JSON."""
    req = urllib.request.Request(
        url + path,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        method="GET" if body is None else "POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        try:
            why = json.loads(e.read()).get("error", e.reason)
        except ValueError:
            why = e.reason
        raise ApiError(str(why)) from None
    except (urllib.error.URLError, OSError) as e:
        raise ApiError(f"cannot reach the daemon at {url}: {e}") from None
