"""A restore over a store that is newer than the copy: ``baulk restore`` says
what that store holds beyond the copy, refuses when the tables' journals
cannot send it all again unless told ``--accept-loss`` beside ``--force``,
and never brings back a credential the owner had ended (host/backup/losses.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from baulk.firmware.journal import KEEP_ACKED
from baulk.host.backup import losses, snapshots
from baulk.host.cli.main import main
from baulk.host.store import Batch, EventRow, StaffWrite, Store
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, make_config, wait_for


def config_for(tmp: Path, store: Path) -> Path:
    config = tmp / "baulk.toml"
    config.write_text(f'[store]\npath = "{store}"\n[backup]\nreplica = "{tmp / "nas"}"\n')
    return config


def restore(config: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str, str]:
    code = main(["restore", "--config", str(config), *flags])
    out, err = capsys.readouterr()
    return code, out, err


def add_events(store: Store, first: int, n: int, table: str = "t1") -> None:
    rows = [
        EventRow(table, 7, s, 1_700_000_000_000 + s, {"ev": "strike"}, [0, 0])
        for s in range(first, first + n)
    ]
    store.write(Batch(events=rows))


def seqs(path: Path) -> list[int]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [s for (s,) in db.execute("SELECT seq FROM events ORDER BY seq")]
    finally:
        db.close()


def test_the_window_the_tables_resend_is_the_journals_own() -> None:
    assert losses.JOURNAL_KEEPS == KEEP_ACKED


def test_events_the_tables_send_again_need_force_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "store.sqlite"
    store = Store(path)
    add_events(store, 1, 100)
    snapshots.take(path, tmp_path / "nas" / snapshots.FOLDER)
    add_events(store, 101, KEEP_ACKED)  # just what the journal keeps
    add_events(store, 1, 3, table="t2")  # a table the copy never saw
    store.close()
    config = config_for(tmp_path, path)

    code, out, err = restore(config, capsys)
    assert code == 1 and "there is a store at" in err and "--force" in err
    assert f"table t1: {KEEP_ACKED} events; its journal sends them again" in err
    assert "table t2: 3 events; its journal sends them again" in err
    assert len(seqs(path)) == 100 + KEEP_ACKED + 3  # untouched

    code, out, err = restore(config, capsys, "--force")
    assert code == 0, err
    assert f"table t1: {KEEP_ACKED} events; its journal sends them again" in out
    assert seqs(path) == list(range(1, 101))


def test_events_beyond_the_journal_need_accept_loss(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "store.sqlite"
    store = Store(path)
    add_events(store, 1, 10)
    snapshots.take(path, tmp_path / "nas" / snapshots.FOLDER)
    add_events(store, 11, KEEP_ACKED + 5)  # five more than the table keeps
    store.close()
    config = config_for(tmp_path, path)

    code, _, err = restore(config, capsys, "--force")
    assert code == 1
    assert f"table t1: {KEEP_ACKED + 5} events" in err and "so 5 never come back" in err
    assert "refused" in err and "--accept-loss" in err
    assert len(seqs(path)) == KEEP_ACKED + 15
    assert not list(tmp_path.glob("store.sqlite.replaced-*"))
    assert not list(tmp_path.glob("store.sqlite.restoring*"))

    code, _, err = restore(config, capsys, "--accept-loss")
    assert code == 2 and "--accept-loss goes with --force" in err

    code, out, err = restore(config, capsys, "--force", "--accept-loss")
    assert code == 0, err
    assert "so 5 never come back" in out
    assert seqs(path) == list(range(1, 11))
    (aside,) = [p for p in tmp_path.glob("store.sqlite.replaced-*") if p.name.endswith("Z")]
    assert len(seqs(aside)) == KEEP_ACKED + 15  # moved aside, never deleted


def test_a_store_that_does_not_open_is_replaced_with_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "store.sqlite"
    store = Store(path)
    add_events(store, 1, 4)
    store.close()
    snapshots.take(path, tmp_path / "nas" / snapshots.FOLDER)
    path.write_bytes(b"not a database, a disk that died" * 100)
    code, out, err = restore(config_for(tmp_path, path), capsys, "--force")
    assert code == 0, err
    assert "what it holds beyond the copy cannot be told" in out
    assert seqs(path) == [1, 2, 3, 4]


def test_staff_rows_are_compared_and_restrictions_made_again(tmp_path: Path) -> None:
    """The pieces on their own: every kind of staff change a copy would
    undo is named, and reapply() makes each again in the copy."""
    path = tmp_path / "store.sqlite"
    store = Store(path)
    account = {"name": "Sara", "name_key": "sara", "role": "owner", "tables": None}
    store.write(
        Batch(
            writes=[
                StaffWrite("account", {**account, "password": "h1", "pin": "p1", "disabled": 0,
                                       "created_ms": 1, "changed_ms": 1}),
                StaffWrite("account", {**account, "name": "Ali", "name_key": "ali",
                                       "password": "h2", "disabled": 0, "created_ms": 1,
                                       "changed_ms": 1}),
                StaffWrite("token", {"name": "tv script", "role": "referee", "hash": "t1",
                                     "created_ms": 1}),
                StaffWrite("session", {"hash": "s1", "account_id": 1, "name": "Sara",
                                       "role": "owner", "csrf": "c", "created_ms": 1,
                                       "expires_ms": 10**15}),
            ]
        )
    )  # fmt: skip
    copy = snapshots.take(path, tmp_path / "nas")
    store.write(
        Batch(
            writes=[
                StaffWrite("account", {"id": 1, "role": "desk", "pin": "p2", "changed_ms": 5,
                                       "changed_by": "Omid"}),
                StaffWrite("account", {"id": 2, "disabled": 1, "changed_ms": 6}),
                StaffWrite("token", {"id": 1, "revoked_ms": 7, "revoked_by": "Omid"}),
                StaffWrite("session", {"hash": "s1", "ended_ms": 8, "ended_why": "signed out"}),
                StaffWrite("token", {"name": "new", "role": "desk", "hash": "t2",
                                     "created_ms": 9}),
            ]
        )
    )  # fmt: skip
    store.close()

    loss = losses.compare(path, copy)
    text = "\n".join(loss.lines())
    assert "account 'Sara': its PIN reset" in text and "by Omid" in text
    assert "account 'Sara' made desk (the copy: owner)" in text
    assert "account 'Ali' disabled" in text
    assert "token 'tv script' (referee) revoked" in text
    assert "token 'new' (desk) made" in text
    assert loss.signed_out == 1 and loss.beyond_journals  # the new token cannot come back

    done = losses.reapply(copy, path)
    assert len(done) == 4, done  # the token, two accounts, the sign-in
    db = sqlite3.connect(copy)
    try:
        assert db.execute("SELECT revoked_ms FROM staff_tokens WHERE id = 1").fetchone() == (7,)
        assert db.execute("SELECT role, pin FROM staff_accounts WHERE id = 1").fetchone() == (
            "desk",
            "p2",
        )
        assert db.execute("SELECT disabled FROM staff_accounts WHERE id = 2").fetchone() == (1,)
        assert db.execute("SELECT ended_ms FROM staff_sessions").fetchone() == (8,)
        assert db.execute("SELECT count(*) FROM staff_tokens").fetchone() == (1,)
    finally:
        db.close()
    assert losses.compare(path, copy).undone == []  # nothing left to undo


def test_sign_everyone_out_after_the_copy_is_named_as_what_it_was(tmp_path: Path) -> None:
    """Sign everyone out moves every account's generation on without
    changing the account: a copy from before it names that, not a change of
    the account nobody made, and reapply() ends its codes and sign-ins again."""
    path = tmp_path / "store.sqlite"
    store = Store(path)
    store.write(
        Batch(
            writes=[
                StaffWrite("account", {"name": "Sara", "name_key": "sara", "role": "owner",
                                       "password": "h1", "disabled": 0, "created_ms": 1,
                                       "changed_ms": 1, "changed_by": "Omid"}),
                StaffWrite("code", {"hash": "k1", "account_id": 1, "created_ms": 1,
                                    "expires_ms": 10**15, "generation": 0}),
            ]
        )
    )  # fmt: skip
    copy = snapshots.take(path, tmp_path / "nas")
    store.write(
        Batch(writes=[StaffWrite("session", {"everyone": True, "ended_ms": 8, "ended_why": "x"})])
    )
    store.close()
    loss = losses.compare(path, copy)
    assert loss.undone == ["account 'Sara': its sign-ins ended when everyone was signed out"]
    assert loss.codes_used == 1
    losses.reapply(copy, path)
    db = sqlite3.connect(copy)
    try:
        assert db.execute("SELECT generation FROM staff_accounts").fetchone() == (1,)
        assert db.execute("SELECT used_ms FROM staff_codes").fetchone() == (8,)
    finally:
        db.close()


# ---------------------------------------------------------------------- the case
@pytest.mark.slow
def test_an_older_copy_over_a_newer_store_keeps_a_revoked_token_revoked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The daemon's own store, a token revoked and a table played on after
    the snapshot: refused with --force alone, naming the token; with
    --accept-loss, the token stays revoked in the restored store."""
    peer = DevicePeer("t1", link_path=tmp_path / "tty-t1").start()
    cfg = make_config(tmp_path, {"t1": tmp_path / "tty-t1"})
    d = DaemonThread(cfg).start()
    match = {"players": ["Ali", "Reza"], "best_of": 3}
    try:
        wait_for(lambda: d.board("t1")["status"]["link"] == "online", what="t1 online")
        status, made = http(d.url + "/api/staff/tokens", {"name": "tv script", "role": "referee"},
                            TOKEN)  # fmt: skip
        assert status == 200, made
        assert http(d.url + "/api/tables/t1/match", match, made["token"])[0] == 200
        wait_for(lambda: peer.acked() >= 1, what="the match acked")
        d.flush()
        snapshot = snapshots.take(cfg.store_path, tmp_path / "nas" / snapshots.FOLDER)
        status, _ = http(d.url + f"/api/staff/tokens/{made['id']}/revoke", {}, TOKEN)
        assert status == 200
        assert http(d.url + "/api/tables/t1/match", match, made["token"])[0] == 401
        peer.play([{"ev": "strike"}, {"ev": "rest"}] * KEEP_ACKED)  # more than it keeps
        wait_for(lambda: peer.acked() >= 1 + 2 * KEEP_ACKED, what="the events acked")
    finally:
        d.stop()
        peer.stop()
    config = config_for(tmp_path, cfg.store_path)

    code, _, err = restore(config, capsys, "--from", str(snapshot), "--force")
    assert code == 1, err
    assert "token 'tv script' (referee) revoked" in err
    assert "never come back" in err and "activity log:" in err
    assert "refused" in err and "--accept-loss" in err

    code, out, err = restore(config, capsys, "--from", str(snapshot), "--force", "--accept-loss")
    assert code == 0, err
    assert "token 'tv script' (referee) revoked" in out
    assert "made again in the restored store: token 'tv script' (referee) revoked again" in out

    d = DaemonThread(make_config(tmp_path, {"t1": tmp_path / "tty-t1"})).start()
    try:
        status, _ = http(d.url + "/api/tables/t1/match", match, made["token"])
        assert status == 401  # the copy had it live: the restore ended it again
    finally:
        d.stop()
