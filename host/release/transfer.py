"""Sending a release to a table in its update mode (protocol/SPEC.md, "The
update mode"): the host's half, as a state machine with no I/O and no clock
of its own, so the daemon, the command line and the tests drive the same code.

The stream is the tag for the table and the bundle file's bytes after it.
The table answers every ``update_data`` with an ``update_status`` that says
where its stream ends; :class:`Transfer` keeps at most the table's window of
chunks on the line beyond that, goes back to it when the table's offset does
not move for :data:`RESEND_MS` (a chunk lost, or written out of order), and,
once the table holds the whole stream, asks it to check and commit, again
until it answers.  A table that restarted mid-stream reports offset 0: the
head goes again, and the table answers with what it already has on flash.
"""

from __future__ import annotations

from baulk.protocol import host_codec as H

CHUNK = 1024  # bytes of stream in one update_data: SPEC.md's most
RESEND_MS = 500  # the table's offset still for this long: send again from it
COMMIT_EVERY_MS = 1000  # the commit asked again this often until it is answered


class Transfer:
    def __init__(self, tag: bytes, bundle: bytes, chunk: int = CHUNK) -> None:
        if len(tag) != 32:
            raise ValueError("a tag is 32 bytes (HMAC-SHA256)")
        if not 0 < chunk <= CHUNK:
            raise ValueError(f"a chunk is 1 to {CHUNK} bytes")
        self.stream = tag + bundle
        self.chunk = chunk
        self.held = 0  # the table's offset, as it last said
        self.next = 0  # the next byte to send
        self.window = 1  # chunks in flight: the table says how many it takes
        self.moved_ms: int | None = None  # when the table's offset last moved
        self.commit_ms: int | None = None  # when the commit was last asked
        self.phase = "waiting"  # until the table's first update_status
        self.reason: str | None = None
        self.sent_bytes = 0  # stream bytes put on the line, resends included

    @property
    def total(self) -> int:
        return len(self.stream)

    @property
    def done(self) -> bool:
        return self.phase in ("committed", "refused", "confirmed")

    def on_status(self, st: H.UpdateStatus, now_ms: int) -> None:
        """The table's answer: where its stream ends, and its state."""
        if st.window is not None:
            self.window = st.window
        if st.state == H.UPDATE_REFUSED:
            self.phase, self.reason = "refused", st.reason or "refused"
            return
        if st.state == H.UPDATE_COMMITTED:
            self.phase = "committed"
            return
        if st.state == H.UPDATE_CONFIRMED:
            self.phase = "confirmed"
            return
        if st.state == H.UPDATE_CHECKING:
            self.phase = "checking"
            return
        offset = min(st.offset, self.total)
        if offset != self.held or self.moved_ms is None:
            self.moved_ms = now_ms
        if offset < self.held or offset > self.next:
            self.next = offset  # the table restarted, or resumed beyond what was sent
        self.held = offset
        if self.phase == "waiting":
            self.phase = "sending"

    def frames(self, now_ms: int) -> list[bytes]:
        """The frames to put on the line now (none while waiting)."""
        if self.phase == "waiting" or self.done:
            return []
        if self.held >= self.total or self.phase == "checking":
            # Asked again until it is answered: an answer lost on the line
            # costs a second; a table that committed and restarted ignores it.
            if self.commit_ms is None or now_ms - self.commit_ms >= COMMIT_EVERY_MS:
                self.commit_ms = now_ms
                return [H.encode_frame(H.UPDATE_DATA, 0, 0, {0: self.total, 2: True})]
            return []
        if self.moved_ms is not None and now_ms - self.moved_ms >= RESEND_MS:
            self.next = self.held  # nothing moved: go back to where the table is
            self.moved_ms = now_ms
        out = []
        end = min(self.total, self.held + self.window * self.chunk)
        while self.next < end:
            data = self.stream[self.next : self.next + self.chunk]
            out.append(H.encode_frame(H.UPDATE_DATA, 0, 0, {0: self.next, 1: data}))
            self.sent_bytes += len(data)
            self.next += len(data)
        return out
