"""Firmware updates pushed to the tables over their own links.

One job a table.  The daemon asks the table to leave its match for the
update mode (``update_request`` op stage, which the table refuses during a
match or while events wait for their ack); the table's channel then runs
the job's :class:`~baulk.host.release.transfer.Transfer` beside the session
(host/link/channel.py ``update``).  Once the table has committed the release
it restarts into it on trial; when that trial has shaken hands and sent its
sensors' health, the job asks it to confirm (op confirm).  A trial that
never comes back is rolled back by the board's boot selector, and the
table's answer to the confirm then says so ("rolledback").

Phases, as the desk shows them: requested, waiting (the table said no: a
match on; asked again every few seconds until it ends), sending, checking,
restarting, confirming, then confirmed, refused or rolledback.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from baulk.host.link.channel import UpdateLink
from baulk.host.logsafe import printable
from baulk.host.release import bundle as bundle_mod
from baulk.host.release.transfer import Transfer
from baulk.host.sentences import Message
from baulk.protocol import host_codec as H
from baulk.protocol import messages

log = logging.getLogger("baulk.updates")

ENDED = ("confirmed", "refused", "rolledback")
ASK_AGAIN_MS = 5000  # a table that refused (a match on) is asked again this often
UNDER_WAY = Message("an update of table {table} is under way", table="")
NOT_CONNECTED = Message("table {table} is not connected", table="")
NO_KEY = Message(
    "there is no device key for table {table}: no release can be tagged for it", table=""
)
NO_RELEASE = Message(
    "there is no release for the {board} board: make one with baulk firmware bundle "
    "into the [firmware] releases folder",
    board="",
)
QUEUE_FULL = Message("table {table} has too much waiting to be sent: try again shortly", table="")


class Sender(Protocol):
    """What a job needs of a table's channel (host/link/channel.py)."""

    update: UpdateLink | None

    def send(self, record: H.Record) -> int: ...


@dataclass
class Job:
    table_id: str
    version: str  # the release's, "1.4.0"
    transfer: Transfer
    who: str | None = None
    phase: str = "requested"
    reason: str | None = None  # with refused: the table's word or sentence
    asked_ms: int | None = None  # waiting: since when (the channel's clock)
    asked_boot: int = 0  # confirming: the boot of the table the confirm went to

    @property
    def ended(self) -> bool:
        return self.phase in ENDED

    def view(self) -> dict[str, object]:
        t = self.transfer
        return {
            "version": self.version,
            "phase": self.phase,
            "held": t.held,
            "total": t.total,
            "reason": self.reason,
            "who": self.who,
        }


class Updates:
    """Every table's update job; the daemon tells it what the tables say."""

    def __init__(
        self,
        channel_of: Callable[[str], Sender | None],
        key_of: Callable[[str], bytes | None],
        changed: Callable[[str], None],
        ended: Callable[[Job], None] = lambda job: None,
    ) -> None:
        self.channel_of = channel_of
        self.key_of = key_of
        self.changed = changed
        self.ended = ended  # a job's end, for the activity log
        self.jobs: dict[str, Job] = {}

    def start(
        self, table_id: str, release: bundle_mod.Bundle, who: str | None = None
    ) -> Message | None:
        """Begin updating a table: None, or why not (and nothing is sent)."""
        job = self.jobs.get(table_id)
        if job is not None and not job.ended:
            return UNDER_WAY.but(table=table_id)
        channel = self.channel_of(table_id)
        if channel is None:
            return NOT_CONNECTED.but(table=table_id)
        key = self.key_of(table_id)
        if key is None:
            return NO_KEY.but(table=table_id)
        tr = Transfer(bundle_mod.tag(key, release.manifest), release.to_bytes())
        job = Job(table_id, ".".join(map(str, release.version)), tr, who)
        if not channel.send(H.UpdateRequest(H.OP_STAGE, tr.total, who)):
            return QUEUE_FULL.but(table=table_id)
        self.jobs[table_id] = job
        channel.update = self._link(job)
        log.info("table %s: update to %s asked by %s", table_id, job.version, printable(who or "?"))
        self.changed(table_id)
        return None

    def _link(self, job: Job) -> _JobLink:
        return _JobLink(self, job)

    def status(self, table_id: str, st: H.UpdateStatus, now_ms: int) -> None:
        """An update_status from the table (its channel routes it here)."""
        job = self.jobs.get(table_id)
        if job is None or job.ended:
            return
        if job.phase == "confirming":
            # "no trial runs" with the record's last outcome for this very
            # version is the answer: a confirm asked again after the first
            # answer was lost (confirmed), or a trial the selector put back
            # (rolledback).
            said = st.last if st.last_v == job.version else None
            if st.state == H.UPDATE_CONFIRMED or (
                st.state == H.UPDATE_REFUSED and said == "confirmed"
            ):
                self._end(job, "confirmed")
            elif st.state == H.UPDATE_REFUSED:
                self._end(job, "rolledback" if said == "rolledback" else "refused", st.reason)
            return
        if job.phase in ("restarting", "waiting"):
            return  # an answer to a commit asked again, or an old one: the table has it
        job.transfer.on_status(st, now_ms)
        phase = job.transfer.phase
        if phase == "refused":
            self._end(job, "refused", job.transfer.reason)
        elif phase == "committed":
            job.phase = "restarting"  # the board restarts into the trial
            self._unlink(table_id)
        elif phase in ("sending", "checking"):
            job.phase = phase
            job.reason = None  # the table's "not now" is over
        self.changed(table_id)

    def on_error(self, table_id: str, error: H.Error) -> None:
        """The table refused the update_request: a match on (or a pot, a
        check, events not yet acknowledged): the job waits and asks again
        (_JobLink.frames); a firmware without the update mode: it ends."""
        job = self.jobs.get(table_id)
        if job is None or error.type != H.UPDATE_REQUEST or job.ended:
            return
        if error.code == messages.ERR_UNSUPPORTED:  # a firmware of wire 1.4
            self._end(job, "refused", error.text)
        elif job.phase == "requested":
            job.phase = "waiting"
            job.asked_ms = None
            job.reason = error.text
            self.changed(table_id)
        elif job.phase == "confirming":
            job.phase = "restarting"  # a match began on the trial: asked again at its next health

    def ask_again(self, job: Job, now_ms: int) -> None:
        """A waiting job's request again, every ASK_AGAIN_MS (the channel's tick)."""
        if job.asked_ms is None:
            job.asked_ms = now_ms
        if now_ms - job.asked_ms < ASK_AGAIN_MS:
            return
        channel = self.channel_of(job.table_id)
        if channel is None:
            return
        job.phase = "requested"  # first: the send below flushes the channel, which asks us
        job.asked_ms = None
        channel.send(H.UpdateRequest(H.OP_STAGE, job.transfer.total, job.who))
        self.changed(job.table_id)

    def on_hello(self, table_id: str, boot: int) -> None:
        job = self.jobs.get(table_id)
        if job is not None and job.phase == "confirming" and boot != job.asked_boot:
            # Restarted since the confirm, its answer unheard: asked again at
            # its next health (a hello of the same boot is its handshake again).
            job.phase = "restarting"
        if job is not None and job.phase == "requested":
            # The table restarted before it took the request: ask again.
            channel = self.channel_of(table_id)
            if channel is not None:
                channel.send(H.UpdateRequest(H.OP_STAGE, job.transfer.total, job.who))

    def on_health(self, table_id: str, boot: int) -> None:
        """The table's sensors answered after its handshake: the trial's
        health check, so it may confirm."""
        job = self.jobs.get(table_id)
        if job is None or job.phase != "restarting":
            return  # (health comes every few seconds: the confirm is asked once a restart)
        channel = self.channel_of(table_id)
        if channel is None:
            return
        job.phase = "confirming"
        job.asked_boot = boot
        channel.update = self._link(job)
        channel.send(H.UpdateRequest(H.OP_CONFIRM, None, job.who))
        self.changed(table_id)

    def _end(self, job: Job, phase: str, reason: str | None = None) -> None:
        job.phase = phase
        job.reason = reason
        self._unlink(job.table_id)
        log.info(
            "table %s: update to %s %s%s",
            job.table_id,
            job.version,
            phase,
            f" ({printable(reason)})" if reason else "",
        )
        self.changed(job.table_id)
        self.ended(job)

    def _unlink(self, table_id: str) -> None:
        channel = self.channel_of(table_id)
        if channel is not None:
            channel.update = None

    def view(self) -> dict[str, dict[str, object]]:
        return {t: j.view() for t, j in self.jobs.items()}


class _JobLink:
    """What a channel calls while a job runs (host/link/channel.py)."""

    def __init__(self, updates: Updates, job: Job) -> None:
        self.updates = updates
        self.job = job

    def on_status(self, status: H.UpdateStatus, now_ms: int) -> None:
        self.updates.status(self.job.table_id, status, now_ms)

    def frames(self, now_ms: int) -> list[bytes]:
        if self.job.phase in ("sending", "checking"):
            return self.job.transfer.frames(now_ms)
        if self.job.phase == "waiting":
            self.updates.ask_again(self.job, now_ms)
        return []
