"""What the host does with an operator's action the table cannot take
(SPEC.md 7.3): one too long for the event the device would journal is
refused before it is stored, and a device's error 2 for an action ends the
operator's wait with that refusal."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from baulk.host.errors import ActionError, Refusal
from baulk.host.venue.actions import IN_FLIGHT
from baulk.protocol import host_codec
from baulk.protocol import messages as M
from baulk.protocol.host_codec import Command, SetupMatch
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http


def _stored_actions(daemon: DaemonThread) -> int:
    daemon.flush()
    db = sqlite3.connect(f"file:{daemon.cfg.store_path}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT count(*) FROM commands").fetchone()[0])
    finally:
        db.close()


def _forward(daemon: DaemonThread, action: SetupMatch | Command) -> dict[str, Any]:
    assert daemon.daemon is not None
    return daemon.call(daemon.daemon.actions.forward("t1", action))


def test_an_action_over_310_bytes_framed_is_refused_before_it_is_stored(
    daemon: DaemonThread, peer: DevicePeer
) -> None:
    # 311 bytes with the largest action id it could carry: one byte too many
    note = "q" * 277
    big = Command(input={"ev": "undo", "note": note}, who="op")
    body = host_codec.body_of(Command(input=big.input, who="op", action=M.U63))
    assert host_codec.unstuffed_size(body) == host_codec.RAW_MOST + 1
    with pytest.raises(ActionError) as e:
        _forward(daemon, big)
    assert e.value.kind is Refusal.BAD_INPUT
    assert e.value.text == (
        "the table cannot take this: it takes 311 bytes framed, and a table takes at most 310"
    )
    assert _stored_actions(daemon) == 0 and peer.commands == []
    # one byte less goes to the table, which judges it (the engine refuses the key)
    with pytest.raises(ActionError) as e:
        _forward(daemon, Command(input={"ev": "undo", "note": note[1:]}, who="op"))
    assert e.value.kind is Refusal.CONFLICT and "unknown key 'note'" in e.value.text
    assert _stored_actions(daemon) == 1 and [t for t, _, _ in peer.commands] == [M.COMMAND]


def test_a_device_error_2_for_an_action_ends_the_operators_wait(
    daemon: DaemonThread, peer: DevicePeer
) -> None:
    def refuse(mtype: int, seq: int, body: dict[Any, Any]) -> None:
        # a device that cannot take the body (a check of a newer minor, say)
        peer.session.send(
            M.ERROR, {0: M.ERR_BODY, 1: "command: not for this table", 2: mtype, 3: seq}
        )

    peer._from_host = refuse  # type: ignore[method-assign]
    status, reply = http(daemon.url + "/api/tables/t1/command", {"ev": "undo"}, token=TOKEN)
    assert status == 409, reply
    assert "the table refused: command: not for this table" in str(reply)


def test_refused_actions_free_their_places_in_flight(
    daemon: DaemonThread, peer: DevicePeer
) -> None:
    # More refusals than the actions a table may have in flight: each one
    # gives its place back, so the next action still goes out and is answered.
    def refuse(mtype: int, seq: int, body: dict[Any, Any]) -> None:
        peer.session.send(M.ERROR, {0: M.ERR_BODY, 1: "not for this table", 2: mtype, 3: seq})

    original = peer._from_host
    peer._from_host = refuse  # type: ignore[method-assign]
    for _ in range(IN_FLIGHT + 2):
        status, _reply = http(daemon.url + "/api/tables/t1/command", {"ev": "undo"}, token=TOKEN)
        assert status == 409
    assert daemon.daemon is not None
    assert daemon.daemon.tables["t1"].actions.sent == {}
    peer._from_host = original  # type: ignore[method-assign]
    status, reply = http(
        daemon.url + "/api/tables/t1/match", {"players": ["Ali", "Reza"], "best_of": 3}, token=TOKEN
    )
    assert status == 200, reply
