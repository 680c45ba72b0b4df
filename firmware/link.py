# The serial link to the venue host: bytes in and out of the port, frames
# through the protocol's COBS/CRC codec, and the protocol's Session for the
# handshake, acknowledgements, retransmission and heartbeats (protocol/).
#
# `port` is anything with any(), readinto(buf) and write(buf): machine.UART,
# the USB CDC wrapper (hw/usb_serial.py) or the simulator's UART.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


from ..protocol import frame
from ..protocol.session import DEVICE, Session

_CAPACITY = const(16)  # events held in RAM for retransmission; the rest wait on flash
_WINDOW = const(8)
_RX = const(64)  # read a port this much at a time: a tick brings ~23 B at 115200 baud


class Link:
    def __init__(self, port, now, fw, table, boot, last, delivered, newest=0):
        self.port = port
        self.session = Session(
            DEVICE,
            now,
            {0: fw, 1: table, 2: boot},
            _CAPACITY,
            _WINDOW,
            last,
            delivered,
            newest=newest,
        )
        self.reader = frame.FrameReader()
        self.writer = frame.FrameWriter()
        self.rx = bytearray(_RX)
        self.rxmv = memoryview(self.rx)
        self.bytes_out = 0
        self.write_errors = 0

    @property
    def up(self):
        return self.session.open

    def room(self):
        return self.session.sender.free()

    def next_seq(self):
        return self.session.sender.next

    def acked(self):
        return self.session.sender.base - 1

    def rewind(self, ack, kept):
        """The host holds only up to ack (SPEC.md "Handshake"): the stream is
        numbered again from there, or from what the journal still keeps, and
        the handshake is taken again when that is later than the host's ack."""
        s = self.session
        back = ack if ack + 1 >= kept else kept - 1
        s.sender.rewind(back)
        if back > ack:  # the journal let events go since the hello: say it again
            s.kept = kept
            s.open = False
            s.hello_at = 0
        return back

    def assigned(self, seq):
        """The journal numbered an event; hello must announce it (SPEC.md 7.6)."""
        self.session.assigned(seq)

    def offer(self, mtype, body):
        """Hand a journaled record (an event, a checkpoint, a pocket check's
        result) to the reliable stream; its seq, or 0 when full."""
        return self.session.send(mtype, body)

    def send(self, mtype, body):
        self.session.send(mtype, body)

    def receive(self, now):
        """Read what the port has and pass whole frames to the session.

        Returns the session's inbox itself, not a copy: the caller takes each
        item off it in turn, so that those after one whose handler raised are
        still there on the next pass (app.py App.exception)."""
        port = self.port
        s = self.session
        while port.any():
            n = port.readinto(self.rx)
            if not n:
                break
            for f in self.reader.feed(bytes(self.rxmv[:n])):
                s.on_frame(f, now)
        return s.inbox

    def transmit(self, now):
        """Put on the line whatever the session has to send now."""
        for m in self.session.poll(now):
            data = self.writer.build(m[0], m[1], m[2], m[3])
            try:
                self.port.write(data)
                self.bytes_out += len(data)
            except OSError:
                self.write_errors += 1  # cable out: the session retransmits later
