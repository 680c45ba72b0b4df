"""``baulk users``: add, list, disable, enable and reset accounts in the
store file, with the secret from stdin; a running daemon sees each change
within a second, and a disabled or reset account's sign-ins end."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest

from baulk.host.cli import main as cli
from tests.host.device_peer import DevicePeer
from tests.host.harness import DaemonThread, make_config, wait_for
from tests.web.client import Browser

# Each test starts a daemon and hashes passwords with argon2 (about 0.2 s a
# password): make test runs them, make check (the quick loop) leaves them out.
pytestmark = pytest.mark.slow

PASSWORD = "the desk's own password"


def users(monkeypatch: pytest.MonkeyPatch, store: Path, *args: str, secret: str = "") -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO(secret + "\n"))
    return cli.main(["users", *args[:1], "--store", str(store), *args[1:]])


def test_users_from_the_shell_reach_a_running_daemon(
    tmp_path: Path,
    peer: DevicePeer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    d = DaemonThread(make_config(tmp_path, {"t1": tmp_path / "ttyT1"})).start()
    try:
        store = d.cfg.store_path
        add = ("add", "Dina", "--role", "desk", "--password-stdin")
        assert users(monkeypatch, store, *add, secret=PASSWORD) == 0
        assert users(monkeypatch, store, *add, secret=PASSWORD) == 2  # a second Dina
        assert "already an account" in capsys.readouterr().err
        short = ("add", "Sam", "--role", "desk", "--password-stdin")
        assert users(monkeypatch, store, *short, secret="short") == 2
        assert users(monkeypatch, store, "list") == 0
        assert capsys.readouterr().out == "Dina\tdesk\n"
        b = Browser(d.url)
        wait_for(
            lambda: (
                b.send("POST", "/console/signin", {"name": "Dina", "password": PASSWORD}).status
                == 200
            ),
            what="the daemon to see the new account",
        )
        assert users(monkeypatch, store, "disable", "Dina") == 0
        wait_for(lambda: not b.send("GET", "/console/session").body["signed_in"], what="ended")
        assert users(monkeypatch, store, "enable", "Dina") == 0
        reset = ("reset", "Dina", "--password-stdin")
        assert users(monkeypatch, store, *reset, secret="a brand new password") == 0
        wait_for(
            lambda: b.send(
                "POST", "/console/signin", {"name": "Dina", "password": "a brand new password"}
            ).status == 200,
            what="the new password",
        )  # fmt: skip
    finally:
        d.stop()
    db = sqlite3.connect(store)
    try:
        logged = db.execute(
            "SELECT who, action, result FROM staff_activity WHERE who = 'shell' ORDER BY id"
        ).fetchall()
    finally:
        db.close()
    assert logged[:3] == [
        ("shell", "user add", "done"),
        ("shell", "user add", "refused"),
        ("shell", "user add", "refused"),
    ]
    assert ("shell", "user change", "done") in logged
