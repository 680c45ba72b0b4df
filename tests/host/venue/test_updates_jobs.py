"""The daemon's update jobs (host/venue/updates.py) through the answers a
table can give and lose: a table that says no during its match is asked
again every ASK_AGAIN_MS and no sooner; a confirm whose answer was lost is
asked again after the table's restart, and its 'no trial' answer with the
record's 'confirmed' for this version ends the job confirmed; the same
boot's hello again asks nothing twice; a firmware without the update mode
ends it refused.  A fake channel stands for the table's (only what a job
uses of it)."""

from __future__ import annotations

from typing import Any

import pytest

from baulk.host.link.channel import UpdateLink
from baulk.host.release import bundle
from baulk.host.venue import updates as U
from baulk.protocol import host_codec as H
from baulk.protocol import messages

pytestmark = pytest.mark.slow  # it builds the firmware
KEY = bytes(range(32))


class FakeChannel:
    def __init__(self) -> None:
        self.update: UpdateLink | None = None
        self.sent: list[Any] = []

    def send(self, record: H.Record) -> int:
        self.sent.append(record)
        return len(self.sent)


def make(release: bundle.Bundle) -> tuple[U.Updates, FakeChannel, list[str]]:
    channel = FakeChannel()
    ended: list[str] = []
    ups = U.Updates(
        lambda t: channel, lambda t: KEY, lambda t: None, lambda j: ended.append(j.phase)
    )
    assert ups.start("t1", release, who="owner") is None
    return ups, channel, ended


def ops(channel: FakeChannel) -> list[int]:
    return [r.op for r in channel.sent if isinstance(r, H.UpdateRequest)]


def refusal(code: int) -> H.Error:
    return H.Error(code, "no update during a match", H.UPDATE_REQUEST, 1)


def status(state: int, **kw: Any) -> H.UpdateStatus:
    return H.UpdateStatus(state, kw.pop("offset", 0), **kw)


def test_a_table_in_its_match_is_asked_again_every_few_seconds_and_no_sooner(
    release: bundle.Bundle,
) -> None:
    ups, channel, _ = make(release)
    ups.on_error("t1", refusal(messages.ERR_REFUSED))
    job = ups.jobs["t1"]
    assert job.phase == "waiting" and ops(channel) == [H.OP_STAGE]
    link = channel.update
    assert link is not None
    link.frames(1_000)  # the channel's tick: the clock starts
    link.frames(1_000 + U.ASK_AGAIN_MS - 1)
    assert ops(channel) == [H.OP_STAGE]
    link.frames(1_000 + U.ASK_AGAIN_MS)
    assert ops(channel) == [H.OP_STAGE, H.OP_STAGE] and job.phase == "requested"


def test_a_firmware_without_the_update_mode_ends_it_refused(release: bundle.Bundle) -> None:
    ups, channel, ended = make(release)
    ups.on_error("t1", refusal(messages.ERR_UNSUPPORTED))
    assert ups.jobs["t1"].phase == "refused" and ended == ["refused"] and channel.update is None


def committed(ups: U.Updates, channel: FakeChannel) -> None:
    ups.status("t1", status(H.UPDATE_READY, window=4, version="0.0.0"), 0)
    total = ups.jobs["t1"].transfer.total
    ups.status("t1", status(H.UPDATE_RECEIVING, offset=total), 10)
    ups.status("t1", status(H.UPDATE_COMMITTED, offset=total), 20)
    assert ups.jobs["t1"].phase == "restarting" and channel.update is None


def test_a_lost_confirm_answer_is_asked_again_after_the_restart(release: bundle.Bundle) -> None:
    ups, channel, ended = make(release)
    committed(ups, channel)
    ups.on_hello("t1", boot=7)  # the trial's handshake
    ups.on_health("t1", boot=7)
    assert ops(channel) == [H.OP_STAGE, H.OP_CONFIRM]
    ups.on_hello("t1", boot=7)  # the same boot's hello again: nothing asked twice
    ups.on_health("t1", boot=7)
    assert ops(channel) == [H.OP_STAGE, H.OP_CONFIRM]
    # the table confirmed and restarted, but its answer was lost on the line
    ups.on_hello("t1", boot=8)
    assert ups.jobs["t1"].phase == "restarting"
    ups.on_health("t1", boot=8)
    assert ops(channel) == [H.OP_STAGE, H.OP_CONFIRM, H.OP_CONFIRM]
    version = ups.jobs["t1"].version
    ups.status(
        "t1", status(H.UPDATE_REFUSED, reason="confirm", last="confirmed", last_v=version), 30
    )
    assert ups.jobs["t1"].phase == "confirmed" and ended == ["confirmed"]


def test_a_trial_put_back_is_rolled_back_and_a_confirm_refused_mid_match_waits(
    release: bundle.Bundle,
) -> None:
    ups, channel, ended = make(release)
    committed(ups, channel)
    ups.on_health("t1", boot=9)
    ups.on_error("t1", refusal(messages.ERR_REFUSED))  # a match began on the trial
    assert ups.jobs["t1"].phase == "restarting"
    ups.on_health("t1", boot=9)
    assert ops(channel) == [H.OP_STAGE, H.OP_CONFIRM, H.OP_CONFIRM]
    version = ups.jobs["t1"].version
    ups.status(
        "t1", status(H.UPDATE_REFUSED, reason="confirm", last="rolledback", last_v=version), 40
    )
    assert ended == ["rolledback"]
