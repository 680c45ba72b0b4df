"""100,000 reliable messages each way over a link that drops, flips bits,
duplicates, reorders, delays, injects noise and disconnects, while the device
resets and the host restarts now and then.  Fixed seed; runs in seconds."""

from __future__ import annotations

import pytest

from .wire_sim import Faults, LossyRun

pytestmark = pytest.mark.slow

N = 100_000


def test_every_message_arrives_exactly_once_in_order_both_ways() -> None:
    run = LossyRun(N, seed=20251129)
    run.run(max_ms=4_000_000)

    assert run.at_host.errors == []
    assert run.at_device.errors == []
    assert run.at_host.got == N  # the host took in every event, each once, in order
    assert run.at_device.got == N  # and the device every command
    assert run.host.receiver.committed == N
    # the device journal never passed its bound, and was really used to it
    assert run.at_device.journal_peak == run.capacity
    # the faults really happened, so the result means something
    c = run.c
    assert min(c.dropped, c.flipped, c.duplicated, c.reordered, c.delayed, c.garbage) > 1000
    assert c.disconnects >= 10
    assert run.device_resets >= 2 and run.host_restarts >= 2


def test_the_checks_catch_a_link_that_loses_messages() -> None:
    # The same harness with acknowledgements lying (everything acked at once):
    # losses then go unrepaired, and the run must notice.
    run = LossyRun(2_000, seed=7, faults=Faults(disconnect_every_ms=10**9), reset_every_ms=0)
    real_on_ack = run.device.sender.on_ack

    def lying_ack(ack: int, now: int) -> int:
        return real_on_ack(run.device.sender.last, now)

    run.device.sender.on_ack = lying_ack  # type: ignore[method-assign]
    run.run(max_ms=200_000)
    assert run.at_host.errors or run.at_host.got < 2_000
