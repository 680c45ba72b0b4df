# The reliable stream (SPEC.md "Reliability"), as pure state machines with no
# I/O and no clock of their own: the caller passes `now` in milliseconds.  The
# device and the host run the very same code, each with one Sender for what
# it originates and one Receiver for what its peer originates.
#
# Sequence numbers are 32-bit and never reused within a stream; seq 0 means
# "nothing yet".  Frames carry only the low 16 bits; extend() recovers the full
# number, which is unambiguous while the window is far below 2**15.

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


RTO_MS = const(250)  # first retransmission timeout
RTO_MAX_MS = const(2000)  # backoff doubles up to this
HEARTBEAT_MS = const(1000)  # send a heartbeat after this long without sending
DEAD_MS = const(2500)  # the link is dead after this long without a valid frame
_DUP_ACKS = const(2)  # duplicate acks that trigger a fast retransmission
_SEQ_MASK = const(0xFFFF)


def extend(seq16, ref):
    """Full sequence number whose low 16 bits are seq16, nearest to ref."""
    d = (seq16 - ref) & _SEQ_MASK
    if d >= 0x8000:
        d -= 0x10000
    return ref + d


class Sender:
    """A bounded journal of unacknowledged messages and the window in flight.

    offer() refuses (returns 0) when the journal holds `capacity` messages:
    the caller keeps the message and offers it again later; the journal never
    grows past its bound.  At most `window` messages are in flight; on a
    timeout the whole window is sent again (go-back-N) and the timeout doubles.
    """

    def __init__(self, capacity=64, window=8, rto_ms=RTO_MS, rto_max_ms=RTO_MAX_MS, last=0):
        if window > capacity:
            window = capacity
        self.capacity = capacity
        self.window = window
        self.rto_first = rto_ms
        self.rto_max = rto_max_ms
        self.slots = [None] * capacity  # payload of seq s lives at s % capacity
        self.base = last + 1  # oldest unacknowledged
        self.next = last + 1  # the number offer() gives next
        self.send_next = last + 1  # next one to put on the line
        self.high = last  # highest ever sent (for the RETX flag)
        self.rto = rto_ms
        self.deadline = -1
        self.dups = 0
        self.retransmits = 0
        self.peak = 0  # most messages ever held (never above capacity)

    def __len__(self):
        return self.next - self.base

    @property
    def last(self):
        return self.next - 1

    def free(self):
        return self.capacity - (self.next - self.base)

    def offer(self, payload):
        """Journal a message; returns its seq, or 0 when the journal is full."""
        if self.next - self.base >= self.capacity:
            return 0
        s = self.next
        self.slots[s % self.capacity] = payload
        self.next = s + 1
        held = self.next - self.base
        if held > self.peak:
            self.peak = held
        return s

    def payload(self, seq):
        return self.slots[seq % self.capacity]

    def on_ack(self, ack, now):
        """Cumulative ack: every seq <= ack arrived.  Stale or impossible acks
        are ignored.  Returns the number of messages newly acknowledged."""
        if ack >= self.next or ack < self.base - 1:
            return 0
        if ack == self.base - 1:
            if self.send_next > self.base:
                self.dups += 1
                if self.dups == _DUP_ACKS:  # the receiver keeps asking for base
                    self.send_next = self.base
            return 0
        n = ack + 1 - self.base
        cap = self.capacity
        for s in range(self.base, ack + 1):
            self.slots[s % cap] = None
        self.base = ack + 1
        if self.send_next < self.base:
            self.send_next = self.base
        self.dups = 0
        self.rto = self.rto_first
        self.deadline = now + self.rto if self.send_next > self.base else -1
        return n

    def poll(self, now):
        """Messages to put on the line now: a list of (seq, payload, retransmit)."""
        if self.deadline >= 0 and now >= self.deadline:
            self.send_next = self.base  # go back N
            self.rto = min(self.rto * 2, self.rto_max)
            self.deadline = -1
        out = None
        limit = min(self.next, self.base + self.window)
        while self.send_next < limit:
            s = self.send_next
            retx = s <= self.high
            if retx:
                self.retransmits += 1
            else:
                self.high = s
            if out is None:
                out = []
            out.append((s, self.slots[s % self.capacity], retx))
            self.send_next = s + 1
        if out is not None and self.deadline < 0:
            self.deadline = now + self.rto
        return out or ()

    def resume(self, ack, now):
        """After a handshake: the peer has everything up to ack; send the rest
        again from the oldest, with a fresh timeout."""
        if self.base - 1 <= ack < self.next:
            self.on_ack(ack, now)
        self.send_next = self.base
        self.rto = self.rto_first
        self.deadline = -1
        self.dups = 0

    def rewind(self, ack):
        """The peer holds only up to ack, less than it acknowledged before (a
        host whose store was restored from a backup): forget what is held and
        number the stream again from ack + 1; the caller offers it again from
        its journal (SPEC.md "Handshake")."""
        for i in range(self.capacity):
            self.slots[i] = None
        self.base = self.next = self.send_next = ack + 1
        self.rto = self.rto_first
        self.deadline = -1
        self.dups = 0

    def next_deadline(self):
        """When poll() next has work without new input (-1: not by itself)."""
        if self.send_next < min(self.next, self.base + self.window):
            return 0
        return self.deadline


class Receiver:
    """Delivers a stream exactly once and in order; buffers up to `window`
    frames that arrive ahead of a gap.

    `delivered` is the last seq handed up in order.  The ack sent back is
    `committed`: with auto_commit (the device) that is `delivered`; the host
    sets auto_commit=False and calls commit() once its store is durable.
    """

    def __init__(self, window=8, delivered=0, auto_commit=True):
        self.window = window
        self.slots = [None] * window
        self.seqs = [0] * window
        self.delivered = delivered
        self.committed = delivered
        self.auto_commit = auto_commit
        self.ack_due = False
        self.duplicates = 0
        self.gaps = 0  # messages the peer abandoned (reported by resync)

    def expect(self):
        return self.delivered + 1

    def on_frame(self, seq16, payload):
        """A reliable frame arrived.  Returns a list of (seq, payload) now
        deliverable in order (often empty)."""
        seq = extend(seq16, self.delivered + 1)
        if seq <= self.delivered:
            self.duplicates += 1
            self.ack_due = True
            return ()
        if seq > self.delivered + self.window:
            self.ack_due = True
            return ()  # beyond the window: the sender will send it again
        i = seq % self.window
        if self.seqs[i] == seq:
            self.duplicates += 1
        else:
            self.seqs[i] = seq
            self.slots[i] = payload
        out = None
        while True:
            s = self.delivered + 1
            i = s % self.window
            if self.seqs[i] != s:
                break
            if out is None:
                out = []
            out.append((s, self.slots[i]))
            self.slots[i] = None
            self.seqs[i] = 0
            self.delivered = s
        if out is None:
            self.ack_due = True  # ahead of a gap: show the sender where we are
        elif self.auto_commit:
            self.committed = self.delivered
            self.ack_due = True
        # Otherwise the ack waits for commit(): acking the old point now would
        # read as a duplicate ack and make the sender resend its window.
        return out or ()

    def commit(self, seq):
        """The host's store has made everything up to seq durable."""
        if self.committed < seq <= self.delivered:
            self.committed = seq
            self.ack_due = True

    def take_ack(self):
        """The cumulative ack to send now, or -1 when none is due."""
        if not self.ack_due:
            return -1
        self.ack_due = False
        return self.committed

    def resync(self, peer_base, peer_last):
        """Handshake: the peer still holds peer_base..peer_last.

        A peer whose last seq is below what we delivered has restarted its
        numbering (its journal was wiped): we follow it.  A peer whose oldest
        held message is beyond the next we expect abandoned some: we skip them
        and count them in `gaps` so the loss is visible.
        """
        if peer_last < self.delivered:
            self.delivered = peer_base - 1
            self.committed = self.delivered
        elif peer_base - 1 > self.delivered:
            self.gaps += peer_base - 1 - self.delivered
            self.delivered = peer_base - 1
            if self.committed < self.delivered:
                self.committed = self.delivered
        for i in range(self.window):
            self.seqs[i] = 0
            self.slots[i] = None
        self.ack_due = True


class Liveness:
    """Heartbeat and dead-link timers (SPEC.md "Heartbeats")."""

    def __init__(self, now, heartbeat_ms=HEARTBEAT_MS, dead_ms=DEAD_MS):
        self.heartbeat_ms = heartbeat_ms
        self.dead_ms = dead_ms
        self.last_rx = now
        self.last_tx = now

    def received(self, now):
        self.last_rx = now

    def sent(self, now):
        self.last_tx = now

    def heartbeat_due(self, now):
        return now - self.last_tx >= self.heartbeat_ms

    def dead(self, now):
        return now - self.last_rx >= self.dead_ms
