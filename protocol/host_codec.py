"""The host's frame decoder: COBS, CRC, header, then the body through cbor2
with its hardening switched on (SPEC.md "Receiving a frame").

Hostile or noisy input never raises out of :func:`decode_frame` or
:meth:`StreamDecoder.feed`: every problem comes back as a :class:`Frame` whose
``error`` names it, with the same words the device uses (``frame.E_*`` plus
``"unknown_type"``).  :func:`parse` is the raising form; the only exception
it raises is :class:`FrameError`.

Hardening, all by configuration of cbor2 and of this module:

* a frame is at most ``frame.MAX_WIRE`` bytes on the wire; the stream buffer
  never holds more, and bytes beyond it are dropped up to the next ``0x00``
  (only :func:`decode_frame`, of a frame held whole, takes ``update_data``'s
  longer frames, up to ``MAX_UPDATE_WIRE``: a host sends them, and
  never receives one);
* cbor2 runs with ``max_depth`` = ``cbor.MAX_DEPTH``, ``allow_indefinite=False``,
  ``allow_duplicate_keys=False``, and every tag refused;
* the body must be exactly one item: trailing bytes are refused;
* values outside the subset (floats, undefined, simple values) are refused
  wherever they appear, and known keys must fit the catalogue.
"""

from __future__ import annotations

import binascii
import dataclasses
import io
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar, Final, NamedTuple, NoReturn, get_args

import cbor2
from cobs.cobs import DecodeError as _CobsError
from cobs.cobs import decode as _cobs_decode

from . import cobs, host_catalogue, messages
from . import frame as _fr
from .session import _RAW_MOST

E_UNKNOWN_TYPE: Final = messages.E_UNKNOWN_TYPE
_MAX_WIRE: Final = _fr.MAX_WIRE
_MAX_FRAME: Final = _fr.MAX_FRAME
# update_data's bounds (SPEC.md 2), the host's own copies: on the device they
# are private (frame.py), so that a match spends no names on them.
MAX_UPDATE_BODY: Final = 1040
MAX_UPDATE_FRAME: Final = 1049  # 5 + MAX_UPDATE_BODY + 4
MAX_UPDATE_WIRE: Final = 1055  # cobs.max_encoded_len(MAX_UPDATE_FRAME)
_MAX_UPDATE_WIRE: Final = MAX_UPDATE_WIRE
_MAX_UPDATE_FRAME: Final = MAX_UPDATE_FRAME
_MIN_FRAME: Final = _fr.MIN_FRAME
_MAJOR: Final = _fr.VERSION_MAJOR


class FrameError(Exception):
    """A frame was refused; ``code`` is one of the E_* words."""

    def __init__(self, code: str, detail: str = "", frame: Frame | None = None) -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail
        self.frame = frame


class Frame(NamedTuple):
    """A decoded frame, good or bad (``error`` is None when good).

    For ``version``, ``body`` and ``unknown_type`` errors the header fields
    are filled in, so the session can still refuse a foreign major version or
    acknowledge a reliable message it cannot use.  A tuple, so that the
    decoder makes one in a single C call (``_frame``).
    """

    error: str | None
    ver: int = 0
    mtype: int = 0
    flags: int = 0
    seq: int = 0
    body: Any = None
    detail: str = ""
    checked: bool = False  # True once check_body passed

    def __repr__(self) -> str:
        return (
            f"Frame({self.error!r}, ver=0x{self.ver:02x}, type={self.mtype}, "
            f"flags={self.flags}, seq={self.seq}, body={self.body!r})"
        )


def _refuse_tag(*_args: object) -> NoReturn:
    raise ValueError("tags are not allowed")


class _EveryTag(Mapping[int, Any]):
    """semantic_decoders that claims every tag, so cbor2 decodes none."""

    def __getitem__(self, tag: int) -> Any:
        return _refuse_tag

    def __contains__(self, tag: object) -> bool:
        return True

    def __iter__(self) -> Iterator[int]:
        return iter(())

    def __len__(self) -> int:
        return 0


_EVERY_TAG: Final = _EveryTag()


def _plain(v: Any, depth: int = 2) -> bool:
    # True when v, at nesting level `depth` (the body is 1, its values 2),
    # lies inside the allowed subset (no float, undefined, simple; map keys
    # integers or text; no container deeper than _DEPTH), as the device's
    # decoder requires.  cbor2's max_depth counts a container only when it
    # decodes an item inside it, so an empty one a level too deep ({0: 1, 9:
    # [[[[]]]]}) gets past it and is refused here.  Every value that may hold
    # a container goes through this walk in check_body (the other kinds'
    # checks take no container), so no body is walked twice for its depth.
    t = type(v)
    if t is int or t is str or t is bytes or t is bool or v is None:
        return True
    if depth > _DEPTH:
        return False
    if t is list:
        return all(_plain(x, depth + 1) for x in v)
    if t is dict:
        return all(
            (type(k) is int or type(k) is str) and _plain(x, depth + 1) for k, x in v.items()
        )
    return False


# cbor2 counts the outermost container as depth 1, as cbor.MAX_DEPTH does.
_DEPTH: Final = 4


class _Decoders(threading.local):
    """One hardened cbor2 decoder per thread, reused for every body, reading
    from one BytesIO that each body refills.

    Reading from a file (not cbor2.loads) is what lets us tell where the item
    ended, so trailing bytes are refused.  Reuse is safe: cbor2 starts each
    decode() afresh (depth, shared values) and, having read ahead, seeks back
    to the end of the item, so nothing of one body is left for the next;
    after a failure, which may leave bytes read ahead, assigning ``fp`` again
    drops them.  test_wire_host_decoder decodes long random sequences of good
    and bad bodies through it against the device's decoder.
    """

    def __init__(self) -> None:
        fp = io.BytesIO()
        dec = cbor2.CBORDecoder(
            fp,
            max_depth=_DEPTH,
            allow_indefinite=False,
            allow_duplicate_keys=False,
            semantic_decoders=_EVERY_TAG,
            tag_hook=_refuse_tag,
        )
        self.pair = (fp, dec)


_DECODERS: Final = _Decoders()
_REFILL: Final = io.BytesIO.__init__  # a BytesIO takes new contents, position 0


def _predicate(kind: int, a: Any, b: Any) -> Callable[[Any], bool]:
    # A fast yes/no for one catalogue entry; messages.check says why on a no.
    if kind == messages.UINT or kind == messages.INT:
        return lambda v: type(v) is int and a <= v <= b
    if kind == messages.TEXT:
        return lambda v: type(v) is str and (len(v) * 4 <= a or len(v.encode()) <= a)
    if kind == messages.BOOL:
        return lambda v: v is True or v is False
    if kind == messages.NAME or kind == messages.WARNING:
        limit = messages.CODE_LIMIT
        most = messages._NAME_TEXT_BYTES
        return lambda v: (
            (type(v) is int and 0 <= v <= limit)
            or (type(v) is str and (len(v) * 4 <= most or len(v.encode()) <= most))
        )
    if kind == messages.UINTS and a[0] == 2:
        lo, hi = a[1], a[2]
        return lambda v: (
            type(v) is list
            and len(v) == 2
            and type(v[0]) is int
            and type(v[1]) is int
            and lo <= v[0] <= hi
            and lo <= v[1] <= hi
        )
    # Containers (a map under last_foul, lists of names): the catalogue
    # looks at the items it knows, the subset walk at every other one.
    return lambda v: _plain(v) and messages._check_value(kind, a, b, v) is None


_Entry = tuple[Callable[[Any], bool], bool]


def _compile(schema: dict[int, tuple[Any, ...]]) -> dict[int, _Entry]:
    return {k: (_predicate(e[1], e[2], e[3]), bool(e[4] & messages.NUL)) for k, e in schema.items()}


# type: (its keys' checks, its required keys)
_SPECS: Final = {
    t: (_compile(sch), host_catalogue.REQUIRED[t]) for t, sch in host_catalogue.SCHEMA.items()
}
_RAW_INPUT: Final = frozenset(messages.TEXT_KEYS_ALLOWED)
_BAD_KEY: Final = "map keys are integers or text"


def check_body(mtype: int, body: Any) -> str | None:
    """None when a decoded body fits its type, else the reason."""
    spec = _SPECS.get(mtype)
    if spec is None or type(body) is not dict:
        if spec is not None:
            return str(messages.check(mtype, body))  # not a map
        return None if _plain(body, 1) else "values outside the subset"
    checks, required = spec
    for k in required:
        if k not in body:
            return str(messages.check(mtype, body))
    for k, v in body.items():
        entry = checks.get(k)
        if entry is None:
            # not in the catalogue: ignored (a newer minor's), but in the subset
            if type(k) is not int and type(k) is not str:
                return _BAD_KEY
            if type(k) is str and mtype in _RAW_INPUT and k in host_catalogue.RAW:
                reason = messages.check(mtype, body)  # an engine key by name (SPEC.md 7.3)
                if reason is not None:
                    return str(reason)
            if not _plain(v):
                return f"key {k!r}: values outside the subset"
        elif type(k) is not int:  # False == 0 and 1.0 == 1 found an entry
            return _BAD_KEY
        elif not (entry[0](v) or (v is None and entry[1])):
            # the catalogue's sentence, or else it was the subset walk's no
            return messages.check(mtype, body) or f"key {k}: values outside the subset"
    return None


# CRC-32 of a message followed by its own CRC (little-endian) is this
# constant, so a frame is checked in one call, without slicing the CRC off.
_CRC_RESIDUE: Final = 0x2144DF1C


_KNOWN_TYPES: Final = frozenset(host_catalogue.TYPES)


def _decode(
    b: bytes,
    check: bool,
    wire: int = _MAX_WIRE,
    most: int = _MAX_FRAME,
    # Bound once, as locals: this runs for every frame, and a global or an
    # attribute lookup per step is a tenth of what cbor2 itself takes.
    _unstuff: Callable[[bytes], bytes] = _cobs_decode,
    _crc32: Callable[[bytes], int] = binascii.crc32,
    _decoders: _Decoders = _DECODERS,
    _refill: Callable[[io.BytesIO, bytes], None] = _REFILL,
    _known: frozenset[int] = _KNOWN_TYPES,
    _new: Callable[..., Frame] = tuple.__new__,
) -> Frame:
    """One frame as it came off the line, without its 0x00 delimiter.

    With check=False the body is decoded by hardened cbor2 and its own keys
    held to integers and text, but neither held against the catalogue nor
    walked for floats, simple values and empty containers deeper down (Frame.checked stays
    False; Session runs messages.check itself).

    ``wire`` bounds the frame on the line and ``most`` an update_data's
    unstuffed length: StreamDecoder keeps a match's bounds (MAX_WIRE, and
    MAX_FRAME as for every other type), decode_frame the update mode's
    (SPEC.md 2)."""
    if len(b) > wire - 1:
        return Frame(_fr.E_OVERSIZE)
    try:
        raw = _unstuff(b)  # C; a 0x00 inside, or a block past the end, raise
    except _CobsError:
        return Frame(_fr.E_COBS)
    n = len(raw)
    if n < _MIN_FRAME:
        return Frame(_fr.E_SHORT)
    if n > _MAX_FRAME and (n > most or raw[1] != UPDATE_DATA):
        return Frame(_fr.E_OVERSIZE)
    if _crc32(raw) != _CRC_RESIDUE:
        return Frame(_fr.E_CRC)
    ver = raw[0]
    mtype = raw[1]
    flags = raw[2]
    seq = raw[3] | raw[4] << 8  # little-endian (SPEC.md 3)
    if ver >> 4 != _MAJOR:
        return Frame(_fr.E_VERSION, ver, mtype, flags, seq)
    fp, dec = _decoders.pair
    _refill(fp, raw[5 : n - 4])
    try:
        body = dec.decode()
    except Exception as e:  # cbor2 raises CBORDecodeError and, via hooks, ValueError
        dec.fp = fp  # forget what it read ahead of the failure
        return Frame(_fr.E_BODY, ver, mtype, flags, seq, None, str(e)[:200])
    if fp.tell() != n - 9:  # bytes after the item
        return Frame(_fr.E_BODY, ver, mtype, flags, seq, body, "trailing bytes after the body")
    reason = None
    if check:
        reason = check_body(mtype, body)
    elif type(body) is dict:
        for k in body:  # a plain loop: faster than any set operation on 3-6 keys
            if type(k) is not int and type(k) is not str:
                reason = _BAD_KEY
                break
    if reason is not None:
        return Frame(_fr.E_BODY, ver, mtype, flags, seq, body, reason)
    if mtype not in _known:
        return Frame(E_UNKNOWN_TYPE, ver, mtype, flags, seq, body)
    return _new(Frame, (None, ver, mtype, flags, seq, body, "", check))


def decode_frame(data: bytes | bytearray | memoryview, check: bool = True) -> Frame:
    """Decode one stuffed frame (trailing 0x00 optional).  Never raises.
    Held whole, it may be an update_data up to MAX_UPDATE_WIRE, as the
    device's update mode reads one (the vectors hold such frames)."""
    try:
        b = data if type(data) is bytes else bytes(data)
        if b and b[-1] == 0:
            b = b[:-1]
        return _decode(b, check, _MAX_UPDATE_WIRE, _MAX_UPDATE_FRAME)
    except Exception as e:  # a bug here must not take the daemon down
        return Frame(_fr.E_BODY, detail=f"decoder fault: {e!r}"[:200])


def encode_frame(mtype: int, flags: int, seq: int, body: Any) -> bytes:
    """One frame with cbor2 as the body encoder (canonical: the same bytes as
    the device encoder), stuffed and delimited.  A body is at most MAX_BODY
    bytes, an update_data's MAX_UPDATE_BODY (SPEC.md 2)."""
    payload = cbor2.dumps(body, canonical=True)
    most = MAX_UPDATE_BODY if mtype == UPDATE_DATA else _fr.MAX_BODY
    if len(payload) > most:
        raise ValueError(f"body of {len(payload)} bytes is over {most}")
    raw = bytes((_fr.VERSION_BYTE, mtype, flags, seq & 0xFF, (seq >> 8) & 0xFF)) + payload
    raw += binascii.crc32(raw).to_bytes(4, "little")
    wire: bytes = cobs.encode(raw)
    return wire


# The most unstuffed bytes of a command or setup_match a device takes: the
# event it journals from one must still fit a frame (SPEC.md 7.3).
RAW_MOST: Final = _RAW_MOST


def unstuffed_size(body: Any) -> int:
    """Bytes of the unstuffed frame that carries ``body``: header, body, CRC."""
    n: int = _MIN_FRAME + len(cbor2.dumps(body, canonical=True))  # MIN_FRAME: header and CRC
    return n


def body_bytes(frame_bytes: bytes) -> bytes | None:
    """The body of one stuffed frame (without its 0x00) exactly as it was
    sent, or None when the frame is malformed: the bytes the device's hash
    chain covers (SPEC.md "Checkpoints")."""
    try:
        raw = _cobs_decode(frame_bytes)
    except _CobsError:
        return None
    if len(raw) < _MIN_FRAME:
        return None
    return bytes(raw[5:-4])


def parse(data: bytes | bytearray | memoryview) -> Frame:
    """Like decode_frame, but raises FrameError for anything but a good frame."""
    f = decode_frame(data)
    if f.error is not None:
        raise FrameError(f.error, f.detail, f)
    return f


class StreamDecoder:
    """Turns the bytes read from a port into Frames.  Never raises.

    Memory is bounded: at most MAX_WIRE bytes of an unfinished frame are kept;
    a longer run is dropped up to the next 0x00 and reported once as
    ``oversize``, an update_data's too (a host never receives one).  Garbage
    therefore costs the garbage and nothing more: the first good frame after
    it decodes.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False
        self.garbage = 0  # bytes that did not make a good frame
        self.frames = 0  # good frames

    def pending(self) -> int:
        return len(self._buf)

    def feed(self, data: bytes | bytearray | memoryview) -> list[Frame]:
        return [f for _, f in self.feed_raw(data)]

    def feed_raw(self, data: bytes | bytearray | memoryview) -> list[tuple[bytes, Frame]]:
        """Like feed, with each frame's own bytes (stuffed, without the 0x00
        delimiter; empty for an oversize run): the host's append-only store
        keeps exactly what came off the wire."""
        out: list[tuple[bytes, Frame]] = []
        try:
            chunks = bytes(data).split(b"\x00")
        except Exception:
            return out
        last = len(chunks) - 1
        for i, chunk in enumerate(chunks):
            if i < last and not self._buf and not self._overflow:
                # the common case: a whole frame inside this read
                if chunk:
                    self._take(chunk, out)
                continue
            if not self._overflow:
                if len(self._buf) + len(chunk) > _MAX_WIRE - 1:
                    self._overflow = True
                    self.garbage += len(self._buf)
                    self._buf = bytearray()
                else:
                    self._buf += chunk
            if self._overflow:
                self.garbage += len(chunk)
            if i == last:
                break
            if self._overflow:
                self._overflow = False
                self.garbage += 1
                out.append((b"", Frame(_fr.E_OVERSIZE)))
                continue
            if self._buf:
                frame_bytes = bytes(self._buf)
                self._buf = bytearray()
                self._take(frame_bytes, out)
        return out

    def _take(self, frame_bytes: bytes, out: list[tuple[bytes, Frame]]) -> None:
        if len(frame_bytes) > _MAX_WIRE - 1:
            self.garbage += len(frame_bytes) + 1
            out.append((b"", Frame(_fr.E_OVERSIZE)))
            return
        try:
            f = _decode(frame_bytes, True)
        except Exception as e:  # a bug here must not take the daemon down
            f = Frame(_fr.E_BODY, detail=f"decoder fault: {e!r}"[:200])
        if f.error is None:
            self.frames += 1
        elif f.error in _GARBAGE:
            self.garbage += len(frame_bytes) + 1
        out.append((frame_bytes, f))


_GARBAGE: Final = (_fr.E_COBS, _fr.E_SHORT, _fr.E_CRC, _fr.E_OVERSIZE)


# ---------------------------------------------------------------------------
# Named records: a body of each message type with its fields by the names of
# the catalogue (host_catalogue.SCHEMA, from messages.py and DEVICE_SENT).  Host code
# reads and writes bodies only through these; tests/protocol/test_wire_records.py
# holds each record's fields to its schema.  Optional fields are None when
# the body leaves them out.


@dataclasses.dataclass(frozen=True)
class Hello:
    TYPE: ClassVar[int] = messages.HELLO
    fw: str
    table: str
    boot: int
    last: int
    base: int
    ack: int
    window: int | None = None
    capacity: int | None = None


@dataclasses.dataclass(frozen=True)
class Welcome:
    TYPE: ClassVar[int] = messages.WELCOME
    host: str
    ack: int
    base: int
    last: int
    refuse: str | None = None
    window: int | None = None


@dataclasses.dataclass(frozen=True)
class Event:
    """A device event: the raw input the engine took (or refused) and its
    settled result."""

    TYPE: ClassVar[int] = messages.EVENT
    input: dict[str, Any]
    scores: list[int]
    rejected: str | None = None
    boot: int | None = None
    src: int | None = None  # None: SRC_SENSOR
    cmd: int | None = None  # the host seq of the action it answers
    action: int | None = None  # the id of the operator action it answers

    @property
    def source(self) -> int:
        return messages.SRC_SENSOR if self.src is None else self.src


@dataclasses.dataclass(frozen=True)
class State:
    TYPE: ClassVar[int] = messages.STATE
    at: int  # the seq of the newest event the state reflects
    state: dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Ack:
    TYPE: ClassVar[int] = messages.ACK
    ack: int


@dataclasses.dataclass(frozen=True)
class Heartbeat:
    TYPE: ClassVar[int] = messages.HEARTBEAT
    ack: int
    t: int | None = None


@dataclasses.dataclass(frozen=True)
class SetupMatch:
    TYPE: ClassVar[int] = messages.SETUP_MATCH
    players: list[Any]
    best_of: int
    breaker: int | None = None
    reds: int | None = None
    t: int | None = None
    who: str | None = None
    action: int | None = None  # the action's id: the device applies it once


@dataclasses.dataclass(frozen=True)
class Command:
    """An operator's correction: engine input, through the device."""

    TYPE: ClassVar[int] = messages.COMMAND
    input: dict[str, Any]
    who: str | None = None
    action: int | None = None  # the action's id: the device applies it once


@dataclasses.dataclass(frozen=True)
class Time:
    TYPE: ClassVar[int] = messages.TIME
    unix_ms: int
    tz_min: int | None = None


@dataclasses.dataclass(frozen=True)
class SnapshotRequest:
    TYPE: ClassVar[int] = messages.SNAPSHOT_REQUEST
    reason: str | None = None


@dataclasses.dataclass(frozen=True)
class Log:
    TYPE: ClassVar[int] = messages.LOG
    level: int
    text: str
    t: int | None = None


@dataclasses.dataclass(frozen=True)
class Error:
    TYPE: ClassVar[int] = messages.ERROR
    code: int
    text: str
    type: int | None = None
    seq: int | None = None


@dataclasses.dataclass(frozen=True)
class Light:
    """The table light's relay: on while the table has a session open."""

    TYPE: ClassVar[int] = messages.LIGHT
    on: bool


@dataclasses.dataclass(frozen=True)
class Settings:
    """The handset's settings (each one absent stays as the device has it)."""

    TYPE: ClassVar[int] = messages.SETTINGS
    lang: int | str | None = None  # a code into names.LANGS


@dataclasses.dataclass(frozen=True)
class NameBitmap:
    """A player's name, drawn by the host for the handset (1 bit a pixel,
    rows from the top, the leftmost pixel in each byte's high bit)."""

    TYPE: ClassVar[int] = messages.NAME_BITMAP
    side: int
    member: int
    width: int
    height: int
    bits: bytes


# The pocket check's types (SPEC.md 7.1), which messages.py keeps private so
# that the device spends no names on them (tests/test_wire_codes.py).
HEALTH: Final = 16
POCKET_CHECK: Final = 17
CHECK_REQUEST: Final = 18
# The sensor capture's (since 1.3), private in messages.py too.
CAPTURE_REQUEST: Final = 20
TRACE: Final = 21
# The money chain's anchor (since 1.4), private in messages.py too.
ANCHOR: Final = 22
# The firmware update's (since 1.5), private in messages.py too; update_status
# is the host's alone, as health is.
UPDATE_REQUEST: Final = 23
UPDATE_STATUS: Final = 24
UPDATE_DATA: Final = 25
# update_request's op, and update_status's state (SPEC.md 7.9).
OP_STAGE: Final = 0  # leave the match for the update mode and take a release
OP_CONFIRM: Final = 1  # the trial passed the host's health check: make it the active version
UPDATE_READY: Final = 0  # in the update mode, waiting for the stream from offset
UPDATE_RECEIVING: Final = 1
UPDATE_CHECKING: Final = 2  # reading every file back from flash
UPDATE_COMMITTED: Final = 3  # the board restarts into the new version, on trial
UPDATE_REFUSED: Final = 4  # see reason; nothing the running version needs changed
UPDATE_CONFIRMED: Final = 5  # the trial is the active version; the board restarts into it


@dataclasses.dataclass(frozen=True)
class Health:
    """The pockets' sensor counts since the device's flash was new (each a
    list in names.POCKETS order), and the pockets' state after the last
    pocket check (bitmasks over names.POCKETS)."""

    TYPE: ClassVar[int] = HEALTH
    balls: list[int]
    glitches: list[int]
    unclear: list[int]
    corrections: list[int]
    unplaced: int | None = None  # corrections whose pocket is not known
    faulty: int | None = None
    weak: int | None = None
    checking: bool | None = None  # a pocket check is running
    cmd: int | None = None  # ... started by this check_request


@dataclasses.dataclass(frozen=True)
class PocketCheck:
    """A pocket check's result, per pocket (names.POCKETS order): verdict and
    reason codes (host_catalogue.CHECK_VERDICTS, CHECK_REASONS), how long the
    ball broke the beam, the colour reading's confidence and the ball it read
    (host_catalogue.NO_BALL: none)."""

    TYPE: ClassVar[int] = POCKET_CHECK
    verdicts: list[int]
    reasons: list[int]
    break_ms: list[int]
    confidence: list[int]
    read: list[int]
    cmd: int | None = None  # the check_request it answers (None: the handset's)
    t: int | None = None


@dataclasses.dataclass(frozen=True)
class CheckRequest:
    """Start a pocket check on the table (refused mid-frame)."""

    TYPE: ClassVar[int] = CHECK_REQUEST
    who: str | None = None


@dataclasses.dataclass(frozen=True)
class CaptureRequest:
    """Start (``on``) or stop a sensor capture on the table
    (firmware/capture.py): refused during a match unless ``during``; it
    stops by itself after ``seconds`` or ``passages``."""

    TYPE: ClassVar[int] = CAPTURE_REQUEST
    on: bool
    during: bool | None = None
    seconds: int | None = None
    passages: int | None = None
    who: str | None = None


@dataclasses.dataclass(frozen=True)
class Trace:
    """One frame of a sensor capture: the drop and speed beams' edges, the
    colour windows read during passages and the marks (host_catalogue's
    TRACE_* layouts), each at ms after ``t``; ``lost`` records the device had
    no room for, ``end`` why the capture ended (its last frame)."""

    TYPE: ClassVar[int] = TRACE
    capture: int
    frame: int
    t: int
    edges: bytes
    windows: bytes
    marks: bytes | None = None
    lost: int | None = None
    end: int | None = None


@dataclasses.dataclass(frozen=True)
class Checkpoint:
    """The head of the device's hash chain after event ``at``, the CRC-32
    marks of the events since the previous checkpoint, and their HMAC under
    the device key (SPEC.md "Checkpoints")."""

    TYPE: ClassVar[int] = messages.CHECKPOINT
    at: int
    boot: int
    head: bytes
    marks: bytes
    mac: bytes
    # since 1.4, the anchor it signs: the host's money chain of ``money_n``
    # rows had head ``money``, and ``money_mac`` is its HMAC (SPEC.md 7.8)
    money_n: int | None = None
    money: bytes | None = None
    money_mac: bytes | None = None


@dataclasses.dataclass(frozen=True)
class Anchor:
    """The head of the host's money rows' chain after ``n`` rows, for the
    device to sign into a checkpoint (SPEC.md 7.8, "Anchors")."""

    TYPE: ClassVar[int] = ANCHOR
    n: int
    head: bytes


@dataclasses.dataclass(frozen=True)
class UpdateRequest:
    """Leave the match for the update mode and take a release of ``size``
    bytes (``op`` OP_STAGE), or make the trial that runs the active version
    (OP_CONFIRM) once it passed the host's health check; ``who`` asked
    (SPEC.md 7.9).  Refused with error 5 while a frame is in play, a pot
    waits for the referee or events wait for the host's ack."""

    TYPE: ClassVar[int] = UPDATE_REQUEST
    op: int
    size: int | None = None
    who: str | None = None


@dataclasses.dataclass(frozen=True)
class UpdateStatus:
    """Where the device's update mode is: its ``state`` (UPDATE_READY ...
    UPDATE_CONFIRMED), ``offset`` the next byte of the stream it takes,
    ``reason`` one word with UPDATE_REFUSED, ``window`` the chunks it takes in
    flight; the boot record's view: the ``version`` that runs, whether it is
    on ``trial``, the ``last`` outcome and the version ``last_v`` it was of."""

    TYPE: ClassVar[int] = UPDATE_STATUS
    state: int
    offset: int
    reason: str | None = None
    window: int | None = None
    version: str | None = None
    trial: bool | None = None
    last: str | None = None
    last_v: str | None = None


@dataclasses.dataclass(frozen=True)
class UpdateData:
    """The stream's ``data`` from ``offset`` (the tag, then the bundle file),
    or with ``commit`` true: the whole stream is sent, check and commit it.
    Idempotent: the same offset carries the same bytes."""

    TYPE: ClassVar[int] = UPDATE_DATA
    offset: int
    data: bytes | None = None
    commit: bool | None = None


Record = (
    Hello
    | Welcome
    | Event
    | State
    | Ack
    | Heartbeat
    | SetupMatch
    | Command
    | Time
    | SnapshotRequest
    | Log
    | Error
    | Light
    | Settings
    | NameBitmap
    | Health
    | PocketCheck
    | CheckRequest
    | Checkpoint
    | CaptureRequest
    | Trace
    | Anchor
    | UpdateRequest
    | UpdateStatus
    | UpdateData
)
RECORDS: Final[dict[int, type[Record]]] = {cls.TYPE: cls for cls in get_args(Record)}


def record_of(mtype: int, body: Mapping[Any, Any]) -> Record:
    """The named record of a body that passed its check.  Raises KeyError for
    a type the catalogue does not know (its body is not checked either)."""
    fields: dict[str, Any] = host_catalogue.named(mtype, body)
    return RECORDS[mtype](**fields)


def body_of(record: Record) -> dict[Any, Any]:
    """The integer-keyed body of a record, ready for a frame or a check."""
    body: dict[Any, Any] = host_catalogue.body_of(record)
    return body
