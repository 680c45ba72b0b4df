# One frame on the line (SPEC.md "Framing"):
#
#   COBS( ver | type | flags | seq_lo | seq_hi | CBOR body | crc32 LE ) 0x00
#
# FrameWriter builds frames into preallocated buffers for the device's hot
# path; FrameReader cuts the incoming byte stream at each 0x00 into a bounded
# buffer, unstuffs in place and checks the frame.  decode_frame is the same
# check for one frame held in memory.
#
# One type may be longer than MAX_FRAME: update_data (since 1.5), a chunk of
# a release (SPEC.md "Sizes").  Only a reader whose buffer holds
# MAX_UPDATE_WIRE (the device's update mode, and decode_frame) takes one; to
# a match's reader it is oversize like any frame over MAX_FRAME.

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


from . import cbor, cobs
from .crc import crc32

VERSION_MAJOR = const(1)
VERSION_MINOR = const(5)
VERSION_BYTE = const(0x15)  # major << 4 | minor

HEADER_LEN = const(5)
CRC_LEN = const(4)
MIN_FRAME = const(9)  # header and CRC around an empty body
MAX_FRAME = const(512)  # unstuffed: header + body + CRC
MAX_BODY = const(503)
MAX_WIRE = const(516)  # stuffed frame and its delimiter
# update_data's (SPEC.md 2): its longest body, 1024 bytes of the stream with
# a 32-bit offset and the commit flag, is 1037 bytes; on the line one code
# byte for the frame, one more per 254 and the delimiter (cobs.max_encoded_len):
# 1049 + 1 + 4 + 1.
# Private, so that the match spends no names on them (its heap): the host's
# are host_codec.MAX_UPDATE_*, the update mode's firmware/update/mode.py's
# _FRAME and _WIRE, and tests/test_wire_codes.py holds every copy to these.
_MAX_UPDATE_BODY = const(1040)
_MAX_UPDATE_FRAME = const(1049)  # HEADER_LEN + _MAX_UPDATE_BODY + CRC_LEN
_MAX_UPDATE_WIRE = const(1055)
_T_UPDATE_DATA = const(25)  # private in messages.py too

FLAG_REL = const(0x01)  # reliable: seq numbers the sender's stream; acknowledge it
FLAG_RETX = const(0x02)  # a retransmission (statistics only)

# Why a frame was refused.  The host decoder uses the same words.
E_COBS = "cobs"  # stuffing malformed (a truncated frame usually ends up here)
E_SHORT = "short"  # fewer bytes than a header and a CRC
E_OVERSIZE = "oversize"  # longer than MAX_FRAME (an update_data: than its reader takes)
E_CRC = "crc"  # checksum mismatch: noise on the line
E_VERSION = "version"  # another major protocol version
E_BODY = "body"  # not exactly one CBOR item of the allowed subset


class Frame:
    """A received frame: error is None, or one of the E_* words."""

    def __init__(self, error, ver=0, mtype=0, flags=0, seq=0, body=None):
        self.error = error
        self.ver = ver
        self.mtype = mtype
        self.flags = flags
        self.seq = seq
        self.body = body
        self.checked = False  # the host decoder also checks the body

    def __repr__(self):
        return "Frame(%r, ver=0x%02x, type=%d, flags=%d, seq=%d, body=%r)" % (
            self.error,
            self.ver,
            self.mtype,
            self.flags,
            self.seq,
            self.body,
        )


class FrameWriter:
    """Encodes frames into one preallocated buffer, stuffed in place.

    The raw frame is written at offset _SLACK and stuffed towards the front
    of the same buffer: COBS writes output byte ``i + 1 + (full blocks so
    far)`` while it reads input byte ``i``, so for a frame of at most
    MAX_FRAME bytes (at most two full blocks) the output never overtakes the
    input it has still to read.  One buffer instead of a raw and a stuffed
    one is 512 bytes less of the device's heap.
    """

    def __init__(self, max_frame=MAX_FRAME):
        self.slack = cobs.max_encoded_len(max_frame) - max_frame  # >= 3 (see above)
        self.wire = bytearray(max_frame + self.slack)
        self.wiremv = memoryview(self.wire)
        self.rawmv = self.wiremv[self.slack :]
        self.writer = cbor.Writer(
            self.wire, self.slack + HEADER_LEN, self.slack + max_frame - CRC_LEN
        )

    def build(self, mtype, flags, seq, body):
        """Frame for one message; the memoryview is valid until the next build.

        Raises cbor.EncodeError when the body cannot be encoded or is too big.
        """
        raw = self.rawmv
        raw[0] = VERSION_BYTE
        raw[1] = mtype
        raw[2] = flags
        raw[3] = seq & 0xFF
        raw[4] = (seq >> 8) & 0xFF
        w = self.writer
        w.pos = self.slack + HEADER_LEN
        w.value(body)
        n = w.pos - self.slack
        c = crc32(raw[:n])
        raw[n] = c & 0xFF
        raw[n + 1] = (c >> 8) & 0xFF
        raw[n + 2] = (c >> 16) & 0xFF
        raw[n + 3] = c >> 24
        end = cobs.encode_into(raw, n + CRC_LEN, self.wire)
        return self.wiremv[:end]


def encode_frame(mtype, flags, seq, body):
    """One complete frame as bytes, delimiter included (allocates)."""
    return bytes(FrameWriter().build(mtype, flags, seq, body))


def check(buf, n, max_frame=MAX_FRAME):
    """Check an unstuffed frame in buf[0:n]; returns a Frame (body not decoded).

    Order of checks (SPEC.md "Receiving a frame"): length, CRC, version.
    max_frame is the longest update_data the reader takes: MAX_FRAME in a
    match, like every other type; MAX_UPDATE_FRAME in the update mode.
    """
    if n < MIN_FRAME:
        return Frame(E_SHORT)
    if n > MAX_FRAME and (n > max_frame or buf[1] != _T_UPDATE_DATA):
        return Frame(E_OVERSIZE)
    mv = memoryview(buf)
    m = n - CRC_LEN
    want = buf[m] | (buf[m + 1] << 8) | (buf[m + 2] << 16) | (buf[m + 3] << 24)
    if crc32(mv[:m]) != want:
        return Frame(E_CRC)
    ver = buf[0]
    f = Frame(None, ver, buf[1], buf[2], buf[3] | (buf[4] << 8))
    if ver >> 4 != VERSION_MAJOR:
        f.error = E_VERSION
    return f


def decode_unstuffed(buf, n, max_frame=MAX_FRAME):
    """Check and decode an unstuffed frame in buf[0:n]."""
    f = check(buf, n, max_frame)
    if f.error is None:
        try:
            f.body = cbor.loads(buf, HEADER_LEN, n - CRC_LEN)
        except cbor.DecodeError as e:
            f.error = E_BODY
            f.detail = e.args[0]  # what was wrong, for the error 2 the session answers
        f.size = n  # the session bounds a command by it (session._RAW_MOST)
    return f


def decode_frame(data):
    """Decode one stuffed frame (with or without its trailing 0x00).  Held
    whole, it may be an update_data of up to MAX_UPDATE_WIRE."""
    n = len(data)
    if n and data[n - 1] == 0:
        n -= 1
    if n > _MAX_UPDATE_WIRE - 1:
        return Frame(E_OVERSIZE)
    buf = bytearray(n)
    m = cobs.decode_into(data, n, buf)
    if m < 0:
        return Frame(E_COBS)
    return decode_unstuffed(buf, m, _MAX_UPDATE_FRAME)


class FrameReader:
    """Cuts a byte stream into frames.  Memory is one MAX_WIRE buffer.

    Bytes of a frame that grows past MAX_WIRE are dropped up to the next 0x00
    and reported once as E_OVERSIZE, so garbage costs at most itself.  The
    update mode's reader (max_wire=MAX_UPDATE_WIRE) takes update_data's
    longer frames, and no other type's.
    """

    def __init__(self, max_wire=MAX_WIRE):
        self.buf = bytearray(max_wire)
        self.n = 0
        self.overflow = False
        self.garbage = 0  # bytes thrown away so far (statistics)

    def feed(self, data):
        """Consume bytes; return the list of Frames they completed."""
        out = []
        buf = self.buf
        cap = len(buf)
        most = MAX_FRAME if cap <= MAX_WIRE else _MAX_UPDATE_FRAME  # an update_data's bound
        i = 0
        end = len(data)
        while i < end:
            j = data.find(b"\x00", i)
            last = j < 0
            if last:
                j = end
            k = j - i
            if not self.overflow:
                if self.n + k > cap - 1:
                    self.overflow = True
                    self.garbage += self.n + k
                    self.n = 0
                else:
                    buf[self.n : self.n + k] = data[i:j]
                    self.n += k
            else:
                self.garbage += k
            if last:
                break
            if self.overflow:
                out.append(Frame(E_OVERSIZE))
                self.overflow = False
            elif self.n:
                m = cobs.decode_into(buf, self.n, buf)
                f = Frame(E_COBS) if m < 0 else decode_unstuffed(buf, m, most)
                if f.error is not None:
                    self.garbage += self.n + 1
                out.append(f)
            self.n = 0
            i = j + 1
        return out
