"""A server of the boards alone (``baulk board``: the mirror of a broker, no
store, no daemon) is served through the narrow door every server offers
(host/web/doors.py ``Boards``): its boards and the API's reads answer, the
rooms that act on a daemon are not there (a 404, never a 500 from a member
the mirror does not have), and nobody can sign in."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from baulk.host import config as config_mod
from baulk.host.cli.board import MirroredBoards
from baulk.host.web.app import build_boards_app
from baulk.host.web.doors import BOARDS_KEY
from baulk.host.web.http import DAEMON_KEY

ROOT = Path(__file__).resolve().parents[2]
BOARD = {"table": "t1", "name": "Table 1", "status": {"link": "online"}, "state": {}}


def test_the_boards_alone_answer_their_reads_and_have_no_daemons_rooms(tmp_path: Path) -> None:
    async def run() -> None:
        cfg = config_mod.Config(store_path=tmp_path / "none.sqlite", operator_token="a-token-1")
        boards = MirroredBoards(cfg, asyncio.get_running_loop())
        boards.publish("t1", BOARD)
        app = build_boards_app(boards)
        assert app[BOARDS_KEY] is boards and DAEMON_KEY not in app
        async with TestClient(TestServer(app)) as client:
            root = await client.get("/api")
            assert root.status == 200
            body = await root.json()
            assert body["tables"] == ["t1"] and body["actions_enabled"] is False
            table = await client.get("/api/tables/t1")
            assert table.status == 200 and (await table.json())["board"]["name"] == "Table 1"
            assert (await client.get("/table/t1")).status == 200
            assert (await client.get("/table/t9")).status == 404
            assert (await client.get("/api/matches")).status == 200
            for path in ("/api/tables/t1/handset", "/api/tables/t1/sensors", "/desk", "/staff"):
                assert (await client.get(path)).status == 404, path
            # the mirror keeps no token (actions belong to the table's own host)
            signin = await client.post("/console/signin", json={"token": "a-token-1"})
            assert signin.status in (401, 403), await signin.text()

    asyncio.run(run())


DOORS = ("host/cli/board.py", "host/web/app.py", "host/web/auth.py", "host/web/public_reads.py")


@pytest.mark.parametrize("path", DOORS)
def test_what_is_served_is_reached_through_its_door_not_around_it(path: str) -> None:
    """No getattr() probing for a member the other server lacks, and no cast()
    telling the type checker one server is the other."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    called = {
        node.func.id if isinstance(node.func, ast.Name) else ""
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
    } | {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    }
    assert not called & {"getattr", "cast"}, path
