"""A void tapped by mistake is not final (docs/BILLING.md, issue 31): the
owner takes it back with a reason, appended with who; the bill stands again
as it stood, and its history keeps both.  A store made before a void could
be undone keeps its marks, and takes the new one."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from baulk.host.store import connect
from baulk.host.store.club_schema import APPEND_ONLY, CLUB_SCHEMA
from tests.host.club.test_desk_api import open_one, post_as, venue
from tests.host.club.test_sessions import get
from tests.host.device_peer import DevicePeer
from tests.host.harness import DaemonThread

__all__ = ["venue"]  # the fixture, as test_desk_api makes it


def flat(history: list[dict[str, object]]) -> list[str]:
    return [
        "".join(p if isinstance(p, str) else str(p["name"]) for p in h["parts"])  # type: ignore[attr-defined]
        for h in history
    ]


@pytest.mark.slow
def test_an_owner_undoes_a_void_with_a_reason(venue: tuple[DaemonThread, DevicePeer]) -> None:
    d, _ = venue
    sid = open_one(d, "Sara")["session_id"]
    assert post_as("Sara", d, f"/api/sessions/{sid}/items", {"item": "Tea"})[0] == 200
    status, r = post_as("Sara", d, f"/api/sessions/{sid}/close", {})
    assert status == 200 and r["bill"]["total"] == 30_000 + 20_000
    path = f"/api/sessions/{sid}/void"
    status, r = post_as("Owner", d, path, {"reason": "wrong table"})
    assert status == 200 and r["bill"]["state"] == "void" and r["bill"]["total"] == 0
    void_version = r["bill"]["version"]
    # the owner's, like the void: a desk clerk is refused
    assert post_as("Sara", d, path, {"undo": True, "reason": "x"})[0] == 403
    status, r = post_as("Owner", d, path, {"undo": True})
    assert status == 400 and "needs a reason" in r["error"]
    status, r = post_as("Owner", d, path + "?lang=fa", {"undo": True})
    assert status == 400 and "دلیل می‌خواهد" in r["message"]
    assert post_as("Owner", d, path, {"undo": "yes", "reason": "x"})[0] == 400
    status, r = post_as(
        "Owner", d, path, {"undo": True, "reason": "it was the right table", "version": "0.0.0.0"}
    )
    assert status == 409 and r["error"] == "the table changed: look again"
    status, r = post_as(
        "Owner",
        d,
        path,
        {"undo": True, "reason": "it was the right table", "version": void_version},
    )
    bill = r["bill"]
    assert status == 200 and bill["state"] == "closed" and bill["total"] == 50_000
    assert bill["void"] is None and bill["voided_by"] is None
    assert [(m["kind"], m["who"]) for m in bill["marks"]] == [
        ("close", "Sara"),
        ("void", "Owner"),
        ("unvoid", "Owner"),
    ]
    assert bill["marks"][-1]["reason"] == "it was the right table"
    # once: it is not void any more
    status, r = post_as("Owner", d, path, {"undo": True, "reason": "again"})
    assert status == 409 and r["error"] == f"session {sid} is not void"
    # the receipt says both, in both languages, with who
    status, r = get(d, f"/api/sessions/{sid}")
    en = flat(r["receipt"]["en"]["history"])
    assert any(line.startswith("void undone") and "it was the right table" in line for line in en)
    fa = flat(r["receipt"]["fa"]["history"])
    assert any(line.startswith("ابطال پس گرفته شد") for line in fa), fa
    # money changes on it again, and it may be voided again
    status, r = post_as(
        "Owner", d, f"/api/sessions/{sid}/refunds", {"amount": 5_000, "reason": "x"}
    )
    assert status == 200 and r["bill"]["total"] == 45_000
    status, r = post_as("Owner", d, path, {"reason": "wrong table after all"})
    assert status == 200 and r["bill"]["state"] == "void" and r["bill"]["total"] == 0


def test_a_store_made_before_a_void_could_be_undone_keeps_its_marks(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    old = sqlite3.connect(path)
    old.executescript(CLUB_SCHEMA.replace("'void', 'unvoid'", "'void'") + APPEND_ONLY)
    old.execute(
        "INSERT INTO table_sessions (id, table_id, how, opened_wall_ms, opened_mono_ms, "
        "opened_boot, open_event_id, tariff) VALUES (1, 't1', 'desk', 0, 0, 'b', 0, '{}')"
    )
    for i, kind in ((4, "close"), (9, "void")):
        old.execute(
            "INSERT INTO session_marks (id, session_id, kind, wall_ms, who, reason) "
            "VALUES (?, 1, ?, 5, 'Sara', 'x')",
            (i, kind),
        )
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        old.execute("INSERT INTO session_marks (session_id, kind, wall_ms) VALUES (1, 'unvoid', 6)")
    old.commit()
    old.close()
    for _ in range(2):  # opened twice: made anew once
        db = connect(path)
        rows = db.execute("SELECT id, kind, who FROM session_marks ORDER BY id").fetchall()
        assert rows == [(4, "close", "Sara"), (9, "void", "Sara")]
        db.execute("SAVEPOINT s")
        db.execute("INSERT INTO session_marks (session_id, kind, wall_ms) VALUES (1, 'unvoid', 6)")
        db.execute("ROLLBACK TO s")
        db.execute("RELEASE s")
        for sql in ("UPDATE session_marks SET who = 'x'", "DELETE FROM session_marks"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                db.execute(sql)
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
        assert "session_marks_session" in names and "session_marks_before_unvoid" not in names
        db.close()
