"""A small HTTP client for the web tests: a method, JSON bodies, headers
and the session cookie by hand, so a test sees exactly what is sent."""

from __future__ import annotations

import http.client
import json
import ssl
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Answer:
    status: int
    headers: list[tuple[str, str]]
    body: Any

    def header(self, name: str) -> list[str]:
        return [v for k, v in self.headers if k.lower() == name.lower()]


@dataclass
class Browser:
    """Keeps the cookie a server sets, as a browser would."""

    base: str
    context: ssl.SSLContext | None = None
    cookies: dict[str, str] = field(default_factory=dict)

    def send(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> Answer:
        u = urlsplit(self.base)
        assert u.hostname and u.port
        if u.scheme == "https":
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                u.hostname, u.port, timeout=15, context=self.context
            )
        else:
            conn = http.client.HTTPConnection(u.hostname, u.port, timeout=15)
        sent = {"Content-Type": "application/json", **(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = json.dumps(body).encode() if body is not None else None
        conn.request(method, path, body=data, headers=sent)
        r = conn.getresponse()
        raw = r.read()
        headers_got = r.getheaders()
        conn.close()
        for k, v in headers_got:
            if k.lower() == "set-cookie":
                name, _, rest = v.partition("=")
                value = rest.split(";", 1)[0]
                if value in ("", '""'):
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = value
        ctype = r.getheader("Content-Type") or ""
        return Answer(r.status, headers_got, json.loads(raw) if "json" in ctype else raw.decode())

    def sign_in(self, token: str) -> Answer:
        return self.send("POST", "/console/signin", {"token": token})
