# The journal on flash: every event the device emitted, so that a power cut
# loses nothing, the frame resumes exactly after a reset, and whatever the host
# has not acknowledged is sent again (docs/DESIGN.md, "Principles").
#
# Layout in one directory (littlefs on the board):
#   meta        CBOR {0: boot id, 1: acked seq, 2: delivered host seq, 3: next seq,
#               4: the table light as the host last commanded it}
#   s0000000001 a segment: up to SEG_RECORDS event bodies, each a 2-byte length
#               and the exact CBOR body that went (or goes) on the wire
#   image       CBOR snapshot of the rules engine after event `seq` (see below)
#   asked       sensor events the referee has still to name (a pot whose colour
#               was unclear, a ball off the table), so a power cut while the
#               handset asks loses no pot
#   tmp         the file being written
# A record of a segment is an event body or, with bit 15 of its length set, a
# checkpoint (SPEC.md "Checkpoints"): the device's reliable stream is this
# journal, and a checkpoint is a message of it like an event.
#
# The chain: every event's bytes as journaled go into a SHA-256 hash chain,
# head = SHA-256(previous head + body bytes), and into a CRC-32 mark; a
# checkpoint carries the head after the newest event and the marks since the
# last checkpoint, signed with the device's key (HMAC-SHA256).  The head, the
# marks and the last operator action ids applied are rebuilt at boot from the
# image and the records after it, like the engine, so they survive a power cut.
# Every file is written whole to `tmp` and renamed over its name: littlefs
# renames atomically, so after a power cut each file is either the old or the
# new version, never half of one.  A stale `tmp` is a write the cut interrupted.
#
# Bounded: the segment being filled lives in one preallocated buffer, and
# segments are deleted once the host acknowledged them, an engine image
# covers them and KEEP_ACKED newer records are acknowledged too: a host whose
# store was restored from a backup that far behind gets them again (SPEC.md
# "Handshake").  The image is rewritten every IMAGE_EVERY events, so a reset
# replays at most that many.  If the host stays away so long that more than
# MAX_SEGMENTS segments wait, the oldest are dropped and counted in `lost`
# (the host sees the gap through the handshake, SPEC.md "Reliability").

import os
from hashlib import sha256

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


from ..protocol import cbor, crc

SEG_RECORDS = const(32)
_SEG_BYTES = const(1024)
MAX_SEGMENTS = const(64)  # 2048 events: hours of play with the host away
IMAGE_EVERY = const(128)
_IMAGE_REST_BYTES = const(2048)  # an image but its undo log: state, names, frame history
_IMAGE_LOG = const(12)  # where write_image puts the undo log
_IMAGE_VERSION = const(2)  # 1: without the chain (read, then the chain starts over)
# A record's length carries its kind in its top bits (a record is at most a
# segment, 1 KB: 10 bits), read as `header >> 14`: 0 an event, 1 a pocket
# check's result (pocket_check.py), 2 a checkpoint.  Only events are chained.
_NOTE = const(0x4000)
_CHECKPOINT = const(0x8000)
_LENGTH = const(0x3FFF)
MARKS = const(32)  # events one checkpoint lists at most: the next one is due then
KEEP_ACKED = const(64)  # acknowledged records kept for a host restored from a backup
ACTIONS = const(16)  # operator action ids remembered, 8 bytes each (SPEC.md "Actions")


def _seg_name(first):
    return "s%010d" % first


class Journal:
    def __init__(self, root):
        self.root = root
        self.seg = bytearray(_SEG_BYTES)
        self.writer = cbor.Writer(self.seg)
        self.seg_len = 0
        self.seg_count = 0
        self.seg_first = 1
        self.segs = []  # first seq of every segment on flash, ascending
        self.boot = 1
        self.acked = 0  # the host has every seq up to here
        self.delivered = 0  # the newest host command already applied
        self.next = 1  # seq of the next event
        self.image_seq = 0  # the image reflects every event up to here
        self.last_t = 0  # device time of the newest event
        self.lost = 0  # events dropped unacknowledged because the journal was full
        self.saved_acked = 0
        self.asked = []  # [what, pocket, device time, next seq when asked]
        self.light = False  # the table light as the host last commanded it (app.py)
        self.head = bytes(32)  # the chain's head after event last_event
        self.last_event = 0
        self.marks = bytearray(4 * MARKS)  # CRC-32 of each event since the last checkpoint
        self.nmarks = 0
        self.acts = bytearray(8 * ACTIONS)  # action ids applied last, oldest first

    # -- files ---------------------------------------------------------------
    def _path(self, name):
        return self.root + "/" + name

    def _write(self, name, data, n):
        tmp = self._path("tmp")
        with open(tmp, "wb") as f:
            f.write(memoryview(data)[:n])
        self._replace(tmp, name)

    def _replace(self, tmp, name):
        dst = self._path(name)
        try:
            os.rename(tmp, dst)
        except OSError:  # FAT cannot rename over a file: not atomic, but works
            os.remove(dst)
            os.rename(tmp, dst)

    def _read(self, name):
        try:
            with open(self._path(name), "rb") as f:
                return f.read()
        except OSError:
            return None

    def _save_meta(self):
        data = cbor.dumps(
            {0: self.boot, 1: self.acked, 2: self.delivered, 3: self.next, 4: self.light}, 64
        )
        self._write("meta", data, len(data))
        self.saved_acked = self.acked

    # -- boot ----------------------------------------------------------------
    def open(self):
        """Read what survived, start a new boot.  Returns the boot id."""
        try:  # noqa: SIM105 (no contextlib on MicroPython)
            os.mkdir(self.root)
        except OSError:
            pass  # already there
        names = os.listdir(self.root)
        if "tmp" in names:
            os.remove(self._path("tmp"))  # a write the power cut interrupted
        meta = self._load("meta") or {}
        self.boot = meta.get(0, 0) + 1
        self.acked = meta.get(1, 0)
        self.delivered = meta.get(2, 0)
        self.next = meta.get(3, 1)
        self.light = meta.get(4) is True
        segs = [int(n[1:]) for n in names if n[0] == "s" and len(n) == 11]
        segs.sort()
        self.segs = segs
        asked = self._load("asked")
        self.asked = asked if isinstance(asked, list) else []
        image = self._load("image")
        if image is not None and 0 < image[0] <= _IMAGE_VERSION:
            self.image_seq = image[1]
            self.last_t = image[2]
            if image[3] > self.delivered:
                self.delivered = image[3]
            if image[0] > 1:
                self.head = image[4]
                m = image[5][: 4 * MARKS]  # the buffer keeps its size
                self.marks[: len(m)] = m
                self.nmarks = len(m) // 4
                if len(image[6]) == len(self.acts):
                    self.acts[:] = image[6]
                self.last_event = image[7]
        if segs:
            data = self._read(_seg_name(segs[-1])) or b""
            n, count = _scan(data)
            self.seg[:n] = data[:n]
            self.seg_len = n
            self.seg_count = count
            self.seg_first = segs[-1]
            self.next = segs[-1] + count
            if count:
                last = self._record(self.seg, count - 1)
                self.last_t = last.get(13, self.last_t)
        else:
            self.seg_first = self.next
        self._save_meta()
        return self.boot

    # -- questions to the referee --------------------------------------------
    def save_asked(self, items):
        """Keep the sensor events waiting for the referee's answer on flash:
        items is [[what, pocket, device time]].  Each is stored with the seq
        the next event will get when it is first saved, so that one already
        recorded (a power cut between recording it and this write) is
        recognised after a reset.  Writes only when the list changed."""
        old = self.asked
        rows = []
        changed = len(items) != len(old)
        for i in range(len(items)):
            it = items[i]
            o = old[i] if i < len(old) else None
            if o is not None and o[0] == it[0] and o[1] == it[1] and o[2] == it[2]:
                rows.append(o)
            else:
                rows.append([it[0], it[1], it[2], self.next])
                changed = True
        if not changed:
            return
        data = cbor.dumps(rows, 256)
        self._write("asked", data, len(data))
        self.asked = rows

    def unanswered(self):
        """The questions that were still open at the power cut, without those
        whose event the journal already holds."""
        out = []
        for what, pocket, t, first in self.asked:
            recorded = False
            for _seq, kind, body in self.records(first, 0x3FFFFFFF):
                if not kind and body.get(13) == t and body.get(0) in (2, 3):  # a pot or an off
                    recorded = True
                    break
            if not recorded:
                out.append((what, pocket, t))
        return out

    def _load(self, name):
        data = self._read(name)
        if not data:
            return None
        try:
            return cbor.loads(data)
        except cbor.DecodeError:
            return None

    def _record(self, data, index):
        p = 0
        for _ in range(index):
            p += 2 + ((data[p] | (data[p + 1] << 8)) & _LENGTH)
        n = (data[p] | (data[p + 1] << 8)) & _LENGTH
        return cbor.loads(data, p + 2, p + 2 + n)

    def restore(self, engine, apply, feed=None):
        """Bring a fresh engine to where the device was: the image, then every
        later event through apply(engine, body).  Returns the events replayed."""
        image = self._load("image")
        start = 1
        if image is not None and 0 < image[0] <= _IMAGE_VERSION:
            load_image(engine, image)
            start = image[1] + 1
        done = 0
        for seq, kind, data, a, b in self._walk(start, 0x3FFFFFFF):
            if kind:
                if kind == 2:
                    self.nmarks = 0  # that checkpoint listed the marks so far
                continue
            body = cbor.loads(data, a, b)
            self._chain(data, a, b, body.get(-6, 0), seq)
            apply(engine, body)
            d = body.get(-5, 0)
            if body.get(-4, 0) == 2 and d > self.delivered:
                self.delivered = d
            done += 1
            if feed is not None:
                feed()
        return done

    def records(self, first, most):
        """(seq, kind, body) of up to `most` records from seq `first` on, from
        flash; kind is 0 for an event, 1 for a pocket check, 2 for a checkpoint."""
        for seq, kind, data, a, b in self._walk(first, most):
            yield seq, kind, cbor.loads(data, a, b)

    def _walk(self, first, most):
        # (seq, kind, bytes, start, end) of each record, its body undecoded
        segs = self.segs
        if not segs:
            return
        i = len(segs) - 1
        while i > 0 and segs[i] > first:
            i -= 1
        while i < len(segs) and most > 0:
            s = segs[i]
            data = self.seg if s == self.seg_first else self._read(_seg_name(s))
            i += 1
            if not data:
                continue
            end = self.seg_len if s == self.seg_first else len(data)
            p = 0
            seq = s
            while p + 2 <= end and most > 0:
                h = data[p] | (data[p + 1] << 8)
                n = h & _LENGTH
                if seq >= first:
                    yield seq, h >> 14, data, p + 2, p + 2 + n
                    most -= 1
                p += 2 + n
                seq += 1

    # -- running -------------------------------------------------------------
    def append(self, body, t, kind=0):
        """Journal one event body (a dict); returns its seq once it is on flash.
        kind 1: a record of the stream that is no event (a pocket check's
        result), sent like one, outside the chain."""
        if kind:
            return self._put(body, _NOTE)
        seq = self._put(body, 0)
        self.last_t = t
        if body.get(-4, 0) == 2:
            self.delivered = body.get(-5, self.delivered)
        return seq

    def checkpoint(self, key, anchor=None):
        """Journal a checkpoint: the chain's head after the newest event and
        the marks since the last checkpoint, signed with the device key; with
        the host's `anchor` body ({0: rows, 1: head}), that head too, under a
        MAC of its own so that a host older than anchors still checks the
        first (SPEC.md 7.8).  Returns (seq, body)."""
        at = self.last_event
        marks = bytes(self.marks[: 4 * self.nmarks])
        pos = at.to_bytes(4, "big") + self.boot.to_bytes(4, "big") + self.head
        body = {0: at, 1: self.boot, 2: self.head, 3: marks, 4: hmac_sha256(key, pos + marks)}
        if anchor is not None:
            body[5] = anchor[0]
            body[6] = anchor[1]
            body[7] = hmac_sha256(key, pos + anchor[0].to_bytes(4, "big") + anchor[1])
        self.nmarks = 0
        return self._put(body, _CHECKPOINT), body

    def _put(self, body, kind):
        if self.seg_count >= SEG_RECORDS:
            self._new_segment()
        w = self.writer
        for attempt in (0, 1):
            w.pos = self.seg_len + 2
            try:
                w.value(body)
                break
            except cbor.EncodeError:
                if attempt or not self.seg_count:
                    raise
                self._new_segment()
        a = self.seg_len + 2
        n = (w.pos - a) | kind
        self.seg[a - 2] = n & 0xFF
        self.seg[a - 1] = n >> 8
        self.seg_len = w.pos
        self.seg_count += 1
        seq = self.next
        self.next = seq + 1
        if not kind:
            self._chain(self.seg, a, w.pos, body.get(-6, 0), seq)
        self._write(_seg_name(self.seg_first), self.seg, self.seg_len)
        if self.seg_count == 1:
            self.segs.append(self.seg_first)
            self._prune()
        return seq

    def _chain(self, data, a, b, act, seq):
        # One event into the chain, its mark, and the action it answered.
        mv = memoryview(data)[a:b]
        h = sha256(self.head)
        h.update(mv)
        self.head = h.digest()
        i = self.nmarks
        if i < MARKS:
            self.marks[4 * i : 4 * i + 4] = crc.crc32(mv).to_bytes(4, "big")
            self.nmarks = i + 1
        self.last_event = seq
        if act:
            r = self.acts
            n = len(r)
            r[: n - 8] = r[8:]
            r[n - 8 :] = act.to_bytes(8, "big")

    def applied(self, act):
        """Is operator action `act` one of the last ACTIONS applied?"""
        b = act.to_bytes(8, "big")
        r = self.acts
        i = r.find(b)
        while i >= 0:
            if not i & 7:
                return True
            i = r.find(b, i + 1)
        return False

    def _new_segment(self):
        self.seg_first = self.next
        self.seg_len = 0
        self.seg_count = 0

    def ack(self, acked):
        """The host has everything up to `acked`; persisted before it counts."""
        if acked > self.acked:
            self.acked = acked
            self._save_meta()
            self._prune()

    def oldest(self):
        """The oldest seq still on flash: a host that lost what it had
        acknowledged (a store restored from a backup) gets it again from here."""
        return self.segs[0] if self.segs else self.next

    def image_due(self):
        return self.next - 1 - self.image_seq >= IMAGE_EVERY

    def write_image(self, engine):
        # Streamed in three writes so that the undo log goes to flash from
        # the engine's own buffer: the only new buffer is the small one for
        # the rest (a whole image in RAM would add ~10 KB of garbage every
        # IMAGE_EVERY events to a 64 KB heap budget).
        seq = self.next - 1
        img = [
            _IMAGE_VERSION,
            seq,
            self.last_t,
            self.delivered,
            self.head,
            self.marks[: 4 * self.nmarks],
            self.acts,
            self.last_event,
        ] + engine.image(True)
        log = img[_IMAGE_LOG]
        w = cbor.Writer(bytearray(_IMAGE_REST_BYTES))
        w.head(4, len(img))
        for i in range(_IMAGE_LOG):
            w.value(img[i])
        w.head(2, len(log))
        tmp = self._path("tmp")
        with open(tmp, "wb") as f:
            f.write(w.mv[: w.pos])
            f.write(log)
            w.pos = 0
            for i in range(_IMAGE_LOG + 1, len(img)):
                w.value(img[i])
            f.write(w.mv[: w.pos])
        self._replace(tmp, "image")
        self.image_seq = seq
        self._save_meta()
        self._prune()

    def _prune(self):
        segs = self.segs
        while len(segs) > 1:
            last = segs[1] - 1  # last seq of the oldest segment
            if last <= self.acked - KEEP_ACKED and last <= self.image_seq:
                pass
            elif len(segs) > MAX_SEGMENTS and last <= self.image_seq:
                self.lost += last - self.acked  # the host never got these
                self.acked = last
                self._save_meta()
            else:
                return
            try:  # noqa: SIM105 (no contextlib on MicroPython)
                os.remove(self._path(_seg_name(segs[0])))
            except OSError:
                pass
            segs.pop(0)


def _scan(data):
    """Bytes and records of the whole records at the start of a segment."""
    p = 0
    count = 0
    end = len(data)
    while p + 2 <= end:
        n = (data[p] | (data[p + 1] << 8)) & _LENGTH
        if p + 2 + n > end:
            break
        p += 2 + n
        count += 1
    return p, count


# -- the engine image -----------------------------------------------------------
# The engine's whole mutable state: its snapshot (every scalar field), the
# players, the frame history, the undo log with its checkpoint, and the stroke
# being played, after the journal's own state (seq, time, the host's delivered
# seq, the chain's head and marks, the action ids, the newest event).  Restoring
# it and replaying the later events gives the very state, undo depth included,
# that the device had (tests/firmware check this against a replay from the
# start of the match).


def load_image(engine, image):
    engine.load_image(image[8:] if image[0] > 1 else image[4:])


def hmac_sha256(key, msg):
    """HMAC-SHA256 (RFC 2104) from hashlib's SHA-256: MicroPython has no hmac."""
    if len(key) > 64:
        key = sha256(key).digest()
    pad = bytearray(64)
    pad[: len(key)] = key
    for i in range(64):
        pad[i] ^= 0x36
    inner = sha256(pad)
    inner.update(msg)
    digest = inner.digest()
    for i in range(64):
        pad[i] ^= 0x6A  # 0x36 ^ 0x5C: the inner pad becomes the outer one
    outer = sha256(pad)
    outer.update(digest)
    return outer.digest()
