"""The boards' static files, read once at start and served from memory.

Every board, console and asset request used to open a file; when the
process is short of file descriptors (a flood of connections), opening one
fails and the viewer got a 404.  The whole folder is about 300 KB, so it is
kept in memory with an ETag for each file; a path outside the folder, or not
in it, is simply not in the table (no path is ever joined from a request).
"""

from __future__ import annotations

import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

MOST_BYTES = 4 << 20  # a folder beyond this is a mistake, not a board


@dataclass(frozen=True)
class StaticFile:
    body: bytes
    content_type: str
    etag: str


def load(folder: Path) -> dict[str, StaticFile]:
    """Every file under ``folder`` by its path relative to it ("js/live.js")."""
    files: dict[str, StaticFile] = {}
    total = 0
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.name.startswith("."):
            continue
        body = path.read_bytes()
        total += len(body)
        if total > MOST_BYTES:
            raise RuntimeError(f"{folder} holds over {MOST_BYTES} bytes")
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript", "application/json"):
            kind += "; charset=utf-8"
        etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        files[path.relative_to(folder).as_posix()] = StaticFile(body, kind, etag)
    return files


def respond(request: web.Request, f: StaticFile) -> web.Response:
    """The file, or 304 when the browser already has this version."""
    headers = {"ETag": f.etag, "Cache-Control": "no-cache"}
    if request.headers.get("If-None-Match") == f.etag:
        return web.Response(status=304, headers=headers)
    return web.Response(body=f.body, headers={**headers, "Content-Type": f.content_type})
