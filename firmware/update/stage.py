# Staging a release into the slot that is not running (firmware/boot.py has
# the layout).  begin() checks the tag and the manifest and refuses with one
# reason word before anything on flash changes:
#   "tag"       the tag is not this table's key's (TAG_DOMAIN + manifest)
#   "manifest"  not a manifest of this format, or beyond its bounds
#   "path"      a file path outside lib/, absolute, with "..", or too long
#   "board" "arch" "abi"   built for another board kind, native arch, .mpy ABI
#   "downgrade" below the version floor (the owner may pass downgrade=True)
#   "same"      the version that runs already (downgrade=True reinstalls it)
#   "trial"     a trial runs unconfirmed: confirm or roll it back first
#   "space"     the flash has not room for it, beside the running release
# Then chunk(offset, bytes) writes the stream of file bytes (what follows the
# manifest in the bundle) straight into the slot's files, in order: the
# bundle is never in RAM.  A chunk already on flash is ignored ("dup"); one
# beyond what is there ("gap") or half over it ("overlap") is refused, so the
# host sends again from resume_offset(), which after a power cut is worked
# out from flash alone: the staged manifest and the files' lengths (each file
# is only ever appended to, so what is there is a prefix of the release).
# check() reads every file back from flash, 256 bytes at a time, against the
# manifest's size and SHA-256, and the staged manifest against its tag;
# commit() checks, then makes the slot the trial in one rename (record.py).

import os
from hashlib import sha256

from ...protocol import cbor
from ..journal import hmac_sha256
from . import format as fm
from . import record

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_TAG = const(32)
_BUF = const(256)


def _same(a, b):
    # Constant time: how much of a tag matched must not show in the timing.
    if len(a) != len(b):
        return False
    d = 0
    for i in range(len(a)):
        d |= a[i] ^ b[i]
    return d == 0


def _version(v):
    if type(v) is not list or len(v) != 3:
        return None
    for x in v:
        if type(x) is not int or x < 0:
            return None
    return (v[0], v[1], v[2])


def parse(mb):
    # The manifest (a dict) or a reason word.
    if len(mb) > fm.MAX_MANIFEST:
        return "manifest"
    try:
        m = cbor.loads(mb)
    except (IndexError, ValueError, TypeError):  # cbor.DecodeError is a ValueError
        return "manifest"
    if (
        type(m) is not dict
        or m.get(fm.M_FORMAT) != fm.FORMAT
        or _version(m.get(fm.M_VERSION)) is None
    ):
        return "manifest"
    files = m.get(fm.M_FILES)
    if type(files) is not list or not 0 < len(files) <= fm.MAX_FILES:
        return "manifest"
    total = 0
    seen = []
    for e in files:
        if type(e) is not list or len(e) != 3 or type(e[0]) is not str:
            return "manifest"
        p, n, h = e
        if type(n) is not int or n < 0 or type(h) is not bytes or len(h) != 32:
            return "manifest"
        if len(p) > fm.MAX_PATH or not p.startswith("lib/") or p in seen:
            return "path"
        for part in p.split("/"):
            if part in ("", ".", ".."):
                return "path"
        seen.append(p)
        total += n
    if m.get(fm.M_SIZE) != total:
        return "manifest"
    return m


def check_slot(d, key):
    # None when the slot folder d holds exactly its release, else a reason.
    try:
        with open(d + "/manifest", "rb") as f:
            raw = f.read()
    except OSError:
        return "missing"
    mb = raw[_TAG:]
    if not _same(hmac_sha256(key, fm.TAG_DOMAIN + mb), raw[:_TAG]):
        return "tag"
    m = parse(mb)
    if type(m) is str:
        return m
    buf = bytearray(_BUF)
    mv = memoryview(buf)
    for p, size, digest in m[fm.M_FILES]:
        h = sha256()
        n = 0
        try:
            with open(d + "/" + p, "rb") as f:
                while True:
                    k = f.readinto(buf)
                    if not k:
                        break
                    h.update(mv[:k])
                    n += k
        except OSError:
            return "missing"
        if n != size:
            return "size"
        if h.digest() != digest:
            return "hash"
    return None


def _size(path):
    try:
        return os.stat(path)[6]
    except OSError:
        return -1


def _free(root):
    # (bytes free, block size) of the flash, or None where it cannot be told
    try:
        st = os.statvfs(root or "/")
    except (AttributeError, OSError):
        return None
    return st[0] * st[4], st[0]


def _blocks(n, bs):
    return (n + bs - 1) // bs * bs  # a file takes whole blocks


def _held(d, bs):
    # What the folder d takes of the flash, in whole blocks: freed by a wipe.
    try:
        names = os.listdir(d)
    except OSError:
        return 0
    n = 0
    for x in names:
        p = d + "/" + x
        st = os.stat(p)
        n += _held(p, bs) + bs if st[0] & 0x4000 else _blocks(st[6], bs)
    return n


def _wipe(d):
    try:
        names = os.listdir(d)
    except OSError:
        return
    for n in names:
        p = d + "/" + n
        if os.stat(p)[0] & 0x4000:
            _wipe(p)
            os.rmdir(p)
        else:
            os.remove(p)


def _mkdir(p):
    try:  # noqa: SIM105 (no contextlib on MicroPython)
        os.mkdir(p)
    except OSError:
        pass  # there already


class Stage:
    def __init__(self, root=""):
        self.root = root  # the flash's top: "" on the board
        self.rec = record.load(root)
        self.slot = record.target(self.rec)
        self.dir = root + "/fw/" + self.slot
        self.man = None
        self.offset = 0

    def begin(self, mb, tag, key, running_version, floor, board, arch, mpy, downgrade=False):
        if not _same(hmac_sha256(key, fm.TAG_DOMAIN + mb), tag):
            return "tag"
        m = parse(mb)
        if type(m) is str:
            return m
        if m.get(fm.M_BOARD) != board:
            return "board"
        if m.get(fm.M_ARCH) not in ("", arch):  # "": no native code in it
            return "arch"
        if m.get(fm.M_MPY) != mpy:
            return "abi"
        v = tuple(m[fm.M_VERSION])  # three integers: parse() saw to it
        if not downgrade and v < tuple(floor):
            return "downgrade"
        if not downgrade and v == tuple(running_version):
            return "same"
        rec = self.rec
        if record.running(rec) == rec[record.TRIAL]:
            return "trial"
        room = _free(self.root)
        if room is not None:
            # Every file in whole blocks, a block for each folder and the
            # manifest, against what is free once the slot's old release goes.
            free, bs = room
            need = _blocks(len(mb) + _TAG, bs) + 2 * bs  # the manifest, the slot's folder
            dirs = []
            for p, n, _h in m[fm.M_FILES]:
                need += _blocks(n, bs)
                d = p.rpartition("/")[0]
                if d not in dirs:
                    dirs.append(d)
            need += bs * len(dirs)  # folders nested by name count once each here
            if need > free + _held(self.dir, bs):
                return "space"
        # Accepted: from here on the flash changes.  First the record stops
        # naming this slot (a trial committed but never booted, or the
        # release the one before last was), so that no boot picks a half.
        _mkdir(self.root + "/fw")
        if self.slot in (rec[record.TRIAL], rec[record.PREV]):
            if rec[record.TRIAL] == self.slot:
                rec[record.TRIAL] = record.NONE
                rec[record.TRIES] = "0"
            if rec[record.PREV] == self.slot:
                rec[record.PREV] = record.NONE
            record.save(self.root, rec)
        d = self.dir
        _mkdir(d)
        _wipe(d)
        for p, n, _h in m[fm.M_FILES]:
            # Every folder now, and the empty files, which no chunk creates.
            parts = p.split("/")
            for i in range(1, len(parts)):
                _mkdir(d + "/" + "/".join(parts[:i]))
            if not n:
                open(d + "/" + p, "wb").close()
        # The staged manifest last: with it on flash, staging can resume.
        with open(d + "/manifest.tmp", "wb") as f:
            f.write(tag)
            f.write(mb)
        os.rename(d + "/manifest.tmp", d + "/manifest")
        self.man = m
        self.offset = 0
        return None

    def resume_offset(self, mb=None):
        # Where the stream continues, from flash; None: begin() again.  With
        # the manifest the host offers (mb), only if it is the staged one.
        try:
            with open(self.dir + "/manifest", "rb") as f:
                raw = f.read()
        except OSError:
            return None
        if mb is not None and raw[_TAG:] != mb:
            return None
        m = parse(raw[_TAG:])
        if type(m) is str:
            return None
        off = 0
        short = False
        for p, n, _h in m[fm.M_FILES]:
            k = _size(self.dir + "/" + p)
            if short:
                if k > 0:
                    return None  # bytes after a gap: not our writing
                continue
            if k < 0:
                k = 0
            if k > n:
                return None
            off += k
            short = k < n
        self.man = m
        self.offset = off
        return off

    def chunk(self, offset, data):
        # None: written; "dup": already there, ignored; else refused.
        m = self.man
        if m is None:
            return "begin"
        n = len(data)
        if offset != self.offset:
            if offset + n <= self.offset:
                return "dup"
            return "gap" if offset > self.offset else "overlap"
        if offset + n > m[fm.M_SIZE]:
            return "size"
        mv = memoryview(data)
        done = 0
        start = 0  # where the file being looked at starts in the stream
        for p, size, _h in m[fm.M_FILES]:
            if done == n:
                break
            at = self.offset - start
            start += size
            if at >= size:
                continue
            take = size - at
            if take > n - done:
                take = n - done
            with open(self.dir + "/" + p, "ab") as f:
                f.write(mv[done : done + take])
            done += take
            self.offset += take
        return None

    def check(self, key):
        return check_slot(self.dir, key)

    def commit(self, key):
        why = self.check(key)
        if why is not None:
            return why
        with open(self.dir + "/manifest", "rb") as f:
            m = parse(f.read()[_TAG:])
        if type(m) is str:
            return m
        record.commit(self.root, self.slot, record.vstr(m[fm.M_VERSION]))
        return None
