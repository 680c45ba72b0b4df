# One end of a link (SPEC.md "Handshake", "Reliability", "Heartbeats"): the
# hello/welcome handshake, one reliable stream each way, cumulative acks,
# heartbeats and the dead-link timer.  Pure: frames in, messages out, the
# caller owns the port, the codec and the clock.  The device and the host use
# the same class with a different role.
#
# Messages going out are tuples (type, flags, seq16, body); the caller frames
# them (frame.FrameWriter on the device).  What the peer sent comes back through
# drain() as tuples:
#   ("deliver", type, seq, body)    reliable, exactly once, in order
#   ("message", type, 0, body)      unreliable (state, log, time, ...)
#   ("invalid", type, seq, reason)  reliable but failed its check: acked, dropped
#   ("ignored", type, seq, None)    reliable of a type unknown here: acked, dropped
#   ("open", 0, 0, body)            handshake done; body is the peer's hello/welcome
#   ("down", 0, 0, None)            no valid frame for DEAD_MS
#   ("refused", 0, 0, text)         the peer speaks another major version
#   ("behind", 0, ack, None)        device: the host's welcome acknowledges less
#                                   than it did before (its store was restored):
#                                   the caller rewinds and sends again from ack

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


from . import frame, messages
from .reliability import Liveness, Receiver, Sender

E_UNKNOWN_TYPE = messages.E_UNKNOWN_TYPE

HELLO_MS = const(1000)  # the device repeats hello this often until welcomed
_OUTBOX = const(8)  # unreliable messages waiting; the oldest goes first when full
# The most unstuffed bytes of a command or setup_match: the event the device
# journals from it adds its result keys (scores 8, reason 163, boot, cmd,
# action and t 6 + 6 + 6 + 10, src 2, a longer map head 1: 202 bytes) and
# must still fit MAX_FRAME (SPEC.md 7.3).
_RAW_MOST = const(310)

DEVICE = messages.DEVICE
HOST = messages.HOST


def refusal_text(ours, theirs):
    return "protocol %d.%d on the %s, %d.%d here: major versions differ; update the older side" % (
        theirs >> 4,
        theirs & 15,
        "device" if ours == HOST else "host",
        frame.VERSION_MAJOR,
        frame.VERSION_MINOR,
    )


class Session:
    def __init__(
        self,
        role,
        now,
        info,
        capacity=64,
        window=8,
        last=0,
        delivered=0,
        auto_commit=True,
        newest=0,
    ):
        """info: device {0: fw, 1: table, 2: boot}; host {0: host version}.

        last: the newest seq already in the sender's stream (from the journal
        or the store); delivered: the newest seq of the peer's stream already
        taken in (persisted by the receiver); newest: the newest seq assigned
        so far, which may wait in a flash journal beyond the sender's bound
        (see ``assigned``)."""
        if role == HOST:
            # The schemas of what a device sends; not on the board, where the
            # device never checks its own messages.
            from . import host_catalogue  # noqa: F401
        self.role = role
        self.info = info
        self.newest = newest
        # Device: the oldest seq its journal can still send (0: the sender's
        # base); hello announces it, so a host that lost events takes them again.
        self.kept = 0
        self.sender = Sender(capacity, window, last=last)
        self.receiver = Receiver(window, delivered, auto_commit)
        self.live = Liveness(now)
        self.open = False
        self.refused = None  # the refusal sentence, while refused
        self.peer = None  # the peer's hello or welcome body
        self.inbox = []
        self.outbox = []
        self.control = []  # welcome, refusals, errors: sent even while not open
        self.hello_at = now
        self.dropped_unreliable = 0
        self.bad_frames = 0
        self.downs = 0
        self.ignored = 0

    # -- sending ------------------------------------------------------------

    def send(self, mtype, body):
        """Queue a message.  Reliable types get a seq (0: journal full, try
        again later); unreliable ones return 1, and the oldest waiting one is
        dropped when more than _OUTBOX wait."""
        if messages.is_reliable(mtype):
            return self.sender.offer((mtype, body))
        if len(self.outbox) >= _OUTBOX:
            self.outbox.pop(0)
            self.dropped_unreliable += 1
        self.outbox.append((mtype, body))
        return 1

    def assigned(self, seq):
        """Device: its journal gave ``seq`` to a message not yet offered here.

        ``hello`` announces the newest seq the device has assigned (SPEC.md
        7.6), not just the newest one in RAM: a host that already holds more
        than the RAM window would otherwise take the device for one that
        restarted its numbering."""
        if seq > self.newest:
            self.newest = seq

    def _hello(self):
        s = self.sender
        body = {
            0: self.info[0],
            1: self.info[1],
            2: self.info[2],
            3: s.last if s.last > self.newest else self.newest,
            4: self.kept if 0 < self.kept < s.base else s.base,
            5: self.receiver.committed,
            6: s.window,
            7: s.capacity,
        }
        return (messages.HELLO, 0, 0, body)

    def _welcome(self, refuse=None):
        s = self.sender
        body = {0: self.info[0], 1: self.receiver.committed, 2: s.base, 3: s.last, 5: s.window}
        if refuse is not None:
            body[4] = refuse
        return (messages.WELCOME, 0, 0, body)

    def poll(self, now):
        """Messages to put on the line now (a list, often empty)."""
        out = self.control
        self.control = []
        if self.open and self.live.dead(now):
            self._down()
        if not self.open:
            if self.role == DEVICE and now >= self.hello_at:
                out.append(self._hello())
                self.hello_at = now + HELLO_MS
            if out:
                self.live.sent(now)
            return out
        ack = self.receiver.take_ack()
        if ack >= 0:
            out.append((messages.ACK, 0, 0, {0: ack}))
        for seq, payload, retx in self.sender.poll(now):
            flags = frame.FLAG_REL | (frame.FLAG_RETX if retx else 0)
            out.append((payload[0], flags, seq & 0xFFFF, payload[1]))
        for mtype, body in self.outbox:
            out.append((mtype, 0, 0, body))
        self.outbox = []
        if not out and self.live.heartbeat_due(now):
            out.append((messages.HEARTBEAT, 0, 0, {0: self.receiver.committed}))
        if out:
            self.live.sent(now)
        return out

    def _down(self):
        self.open = False
        self.downs += 1
        self.inbox.append(("down", 0, 0, None))

    # -- receiving ----------------------------------------------------------

    def drain(self):
        """What arrived since the last drain (see the module comment)."""
        got = self.inbox
        self.inbox = []
        return got

    def on_frame(self, f, now):
        """Take one received frame (frame.Frame or host_codec.Frame)."""
        err = f.error
        if (
            err is None
            and getattr(f, "size", 0) > _RAW_MOST
            and self.role == DEVICE
            and (f.mtype == messages.COMMAND or f.mtype == messages.SETUP_MATCH)
        ):
            # Its event could not be framed: refused at the check, as a bad body.
            self.on_message(
                f.mtype, f.flags, f.seq, None, now, "too long for its event to fit a frame"
            )
        elif err is None or err == E_UNKNOWN_TYPE:
            self.on_message(f.mtype, f.flags, f.seq, f.body, now, None, f.checked)
        elif err == frame.E_BODY:
            # The CRC held, so the header is the peer's: a reliable message
            # must still be acknowledged or the stream would stall on it.  (A
            # device frame.Frame has a detail only when its decoder said why.)
            why = getattr(f, "detail", None)
            self.on_message(f.mtype, f.flags, f.seq, None, now, why or "malformed body")
        elif err == frame.E_VERSION:
            self.live.received(now)
            self._other_major(f.ver, f.mtype)
        else:
            self.bad_frames += 1

    def _other_major(self, ver, mtype):
        text = refusal_text(self.role, ver)
        if self.refused != text:
            self.inbox.append(("refused", 0, 0, text))
        self.refused = text
        if self.role == HOST and mtype == messages.HELLO:
            self.control.append(self._welcome(text))
        elif self.role == DEVICE and mtype == messages.WELCOME:
            self.control.append(
                (messages.ERROR, 0, 0, {0: messages.ERR_VERSION, 1: text, 2: mtype})
            )

    def _reason(self, t, mtype, flags, body, checked):
        # Why a message of a known type (t: messages.type_of) cannot be used,
        # or None: it comes the wrong way, in the wrong stream (REL set on an
        # unreliable type, or missing on a reliable one: SPEC.md 3), or its
        # body fails its check.
        if t[1] == self.role:
            return "%s is not sent to the %s" % (t[0], "host" if self.role == HOST else "device")
        if (flags & frame.FLAG_REL) != t[2]:
            return "%s: its REL flag does not match its stream" % t[0]
        return None if checked else messages.check(mtype, body)

    def on_message(self, mtype, flags, seq16, body, now, reason=None, checked=False):
        """Take one decoded message; reason is set when its body was malformed,
        checked when the decoder already ran messages.check on it."""
        self.live.received(now)
        t = messages.type_of(mtype)
        known = t is not None
        if known and reason is None:
            reason = self._reason(t, mtype, flags, body, checked)
        if mtype == messages.HELLO and self.role == HOST:
            if reason is None:
                self._on_hello(body, now)
            else:
                self.bad_frames += 1
            return
        if mtype == messages.WELCOME and self.role == DEVICE:
            if reason is None:
                self._on_welcome(body, now)
            else:
                self.bad_frames += 1
            return
        if not self.open:
            return  # nothing counts before the handshake
        if flags & frame.FLAG_REL:
            self._on_reliable(mtype, seq16, body, known, reason)
            return
        if not known or reason is not None:
            self.ignored += 1  # unknown unreliable types are a newer minor's: ignore
            return
        if mtype == messages.ACK or mtype == messages.HEARTBEAT:
            self.sender.on_ack(body[0], now)
            if mtype == messages.ACK:
                return
        self.inbox.append(("message", mtype, 0, body))

    def _on_reliable(self, mtype, seq16, body, known, reason):
        for seq, payload in self.receiver.on_frame(seq16, (mtype, body, known, reason)):
            mt, b, kn, why = payload
            if why is not None:
                # a body outside the subset is that, whatever its type (SPEC.md
                # 6: the subset is step 6, the type step 7)
                self.inbox.append(("invalid", mt, seq, why))
                self.control.append(
                    (messages.ERROR, 0, 0, {0: messages.ERR_BODY, 1: why[:200], 2: mt, 3: seq})
                )
            elif not kn:
                self.control.append(
                    (
                        messages.ERROR,
                        0,
                        0,
                        {
                            0: messages.ERR_UNSUPPORTED,
                            1: "message type not known here",
                            2: mt,
                            3: seq,
                        },
                    )
                )
                self.inbox.append(("ignored", mt, seq, None))
            else:
                self.inbox.append(("deliver", mt, seq, b))

    def _on_hello(self, body, now):
        self.refused = None
        self.receiver.resync(body[4], body[3])
        s = self.sender
        if not len(s) and body[5] > s.last:
            # Nothing of ours is waiting and the device has taken in more
            # than we numbered (a restarted host): go on after its count, so
            # no number it has seen is used again (SPEC.md "Handshake").
            s = self.sender = Sender(s.capacity, s.window, s.rto_first, s.rto_max, body[5])
        s.resume(body[5], now)
        self.peer = body
        self.control.append(self._welcome())
        if not self.open:
            self.open = True
        self.inbox.append(("open", 0, 0, body))

    def _on_welcome(self, body, now):
        if 4 in body:
            text = body[4]
            if self.refused != text:
                self.inbox.append(("refused", 0, 0, text))
            self.refused = text
            return
        self.refused = None
        if self.open:
            return  # a repeated welcome for a hello already answered
        self.receiver.resync(body[2], body[3])
        self.sender.resume(body[1], now)
        self.peer = body
        self.open = True
        if body[1] < self.sender.base - 1:
            self.inbox.append(("behind", 0, body[1], None))
        self.inbox.append(("open", 0, 0, body))

    # -- persistence hooks ----------------------------------------------------

    def commit(self, seq):
        """Host: the store holds everything of the device stream up to seq."""
        self.receiver.commit(seq)
