# The device side of a firmware update (firmware/update/, firmware/boot.py),
# run the same under MicroPython and CPython by tests/firmware/test_fw_update*.py
# and, in full, by bench/firmware_update_power.py:
#   mp_update.py SCENARIO [FLASH] [CUTS] [SEED]
# Prints one JSON object.  Scenarios: happy, bad, rollback, power, link (the
# update mode over a simulated port, firmware/update/mode.py).
#
# Releases are small test bundles built here with the format module: a few
# files of a package `fwt` (a stand-in for baulk, so that the test process's
# own baulk is never swapped), real SHA-256, tagged under KEY.
import json
import os
import sys

from baulk.firmware import boot, manifest
from baulk.firmware.sim.devices import SimUart
from baulk.firmware.sim.flash import PowerCut, TearingFlash
from baulk.firmware.update import format as fm
from baulk.firmware.update import mode, record, stage
from baulk.protocol import cbor, frame

try:
    from hashlib import sha256
except ImportError:  # pragma: no cover
    raise

KEY = bytes(range(1, 33))
OTHER_KEY = bytes(range(2, 34))
BOARD = "pico"
ARCH = "armv6m"
MPY = (sys.implementation._mpy & 0x3FF) if hasattr(sys.implementation, "_mpy") else 0x306
ROOT = "/flash_upd"
LEGACY_V = "0.9.0"


class Rng:  # xorshift32: the same numbers under both interpreters
    def __init__(self, seed):
        self.s = (seed * 2654435761 + 1) & 0xFFFFFFFF or 1

    def next(self):
        s = self.s
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        self.s = s
        return s

    def below(self, n):
        return self.next() % n


def vt(s):
    return [int(x) for x in s.split(".")]


def files_of(v, broken=False):
    r = Rng(sum(vt(v)) * 7919 + 13)
    blob = bytes(r.below(256) for _ in range(300 + r.below(600)))
    main = "V = '%s'\n" % v
    if broken:
        main += "raise ValueError('this release cannot start')\n"
    main += "\n\ndef main():\n    global STARTED\n    STARTED = V\n"
    more = ("# release %s\n" % v) * (5 + r.below(20))
    return [
        ("lib/fwt/__init__.py", b""),
        ("lib/fwt/main.py", main.encode()),
        ("lib/fwt/blob.bin", blob),
        ("lib/fwt/sub/more.py", more.encode()),
    ]


def bundle(v, board=BOARD, arch=ARCH, mpy=MPY, key=KEY, files=None, broken=False, lie=None):
    # (manifest bytes, tag, stream): lie = a path whose hash is stated wrong
    files = files if files is not None else files_of(v, broken)
    rows = []
    stream = b""
    for p, data in files:
        h = sha256(data).digest()
        if p == lie:
            h = sha256(data + b"x").digest()
        rows.append([p, len(data), h])
        stream += data
    m = {
        fm.M_FORMAT: fm.FORMAT,
        fm.M_VERSION: vt(v),
        fm.M_ENGINE: 1,
        fm.M_MPY: mpy,
        fm.M_ARCH: arch,
        fm.M_BOARD: board,
        fm.M_FILES: rows,
        fm.M_SIZE: len(stream),
    }
    mb = cbor.dumps(m, 4096)
    return mb, stage.hmac_sha256(key, fm.TAG_DOMAIN + mb), stream


def rm_tree(d):
    try:
        names = os.listdir(d)
    except OSError:
        return
    for n in names:
        p = d + "/" + n
        if os.stat(p)[0] & 0x4000:
            rm_tree(p)
            os.rmdir(p)
        else:
            os.remove(p)


def fresh(root):
    # An empty flash with the legacy install: /lib/fwt, no boot record.
    try:
        os.mkdir(root)
    except OSError:
        pass
    rm_tree(root)
    for p, data in files_of(LEGACY_V):
        parts = p.split("/")
        for i in range(1, len(parts)):
            try:
                os.mkdir(root + "/" + "/".join(parts[:i]))
            except OSError:
                pass
        with open(root + "/" + p, "wb") as f:
            f.write(data)
    if root + "/lib" not in sys.path:
        sys.path.append(root + "/lib")  # the board's /lib


def snapshot(root, d=""):
    # Every file under root with its SHA-256: what "nothing changed" compares.
    out = {}
    for n in sorted(os.listdir(root + d)):
        p = d + "/" + n
        if os.stat(root + p)[0] & 0x4000:
            out.update(snapshot(root, p))
        else:
            with open(root + p, "rb") as f:
                out[p] = sha256(f.read()).digest()
    return out


def info(root):
    rec = record.load(root)
    run = record.running(rec)
    v = rec[record.TRIAL_V] if run == rec[record.TRIAL] else rec[record.ACTIVE_V]
    if run == record.LEGACY:
        v = LEGACY_V
    return vt(v), vt(rec[record.FLOOR])


def begin(root, b, downgrade=False, board=BOARD, arch=ARCH, mpy=MPY, key=KEY):
    running, floor = info(root)
    st = stage.Stage(root)
    why = st.begin(b[0], b[1], key, running, floor, board, arch, mpy, downgrade)
    return st, why


def send(st, stream, off, rng, most=300):
    while off < len(stream):
        n = 1 + rng.below(most)
        why = st.chunk(off, stream[off : off + n])
        if why is not None:
            return why
        off = min(off + n, len(stream))
    return None


class Reset(Exception):
    pass


class _Machine:  # machine.reset(), as /main.py calls it
    def reset(self):
        raise Reset()


class _Boot:  # /boot.py imported as a module, on this flash
    def __init__(self, root):
        self.root = root

    def failed(self):
        return boot.failed(self.root)


MAIN = manifest.MAIN.replace("baulk.firmware.main", "fwt.main")


def start(root):
    # A reset, then what the board runs: /boot.py (the selector's pick()),
    # then /main.py, the very text of manifest.MAIN, with fwt.main standing in
    # for baulk.firmware.main; machine.reset() is another turn of the loop.
    sys.modules["boot"] = _Boot(root)
    sys.modules["machine"] = _Machine()
    while True:
        for name in list(sys.modules):
            if name == "fwt" or name.startswith("fwt."):
                del sys.modules[name]
        slot = boot.pick(root)
        try:
            exec(MAIN, {"__name__": "__main__"})
        except Reset:
            continue
        return [slot, sys.modules["fwt.main"].STARTED]


def update(root, v, rng, **kw):
    st, why = begin(root, bundle(v, **kw))
    if why is None:
        why = send(st, bundle(v, **kw)[2], 0, rng)
    if why is None:
        why = st.commit(KEY)
    return why


def happy(root):
    fresh(root)
    rng = Rng(1)
    out = {"legacy_boot": start(root)}
    out["update1"] = update(root, "1.0.0", rng)
    out["record_after_commit"] = record.load(root)
    out["trial_boot"] = start(root)
    out["confirmed"] = record.confirm(root)
    out["record_after_confirm"] = record.load(root)
    out["boots_after"] = [start(root) for _ in range(4)]
    out["update2"] = update(root, "1.1.0", rng)
    out["trial2_boot"] = start(root)
    out["confirmed2"] = record.confirm(root)
    out["boots_after2"] = [start(root) for _ in range(2)]
    out["record"] = record.load(root)
    out["checks"] = [stage.check_slot(root + "/fw/" + s, KEY) for s in ("a", "b")]
    # the selector's reader and the stager's record are one format
    out["same_reader"] = boot.load(root) == record.load(root)
    return out


def bad(root):
    fresh(root)
    rng = Rng(2)
    out = {}
    update(root, "1.1.0", rng)
    start(root)
    record.confirm(root)  # 1.1.0 runs in slot a, the floor is 1.1.0
    before = snapshot(root)

    def refused(name, b, **kw):
        why = begin(root, b, **kw)[1]
        out[name] = [why, snapshot(root) == before]

    refused("tag", bundle("1.2.0", key=OTHER_KEY))
    refused("board", bundle("1.2.0", board="esp32"))
    refused("arch", bundle("1.2.0", arch="xtensawin"))
    refused("abi", bundle("1.2.0", mpy=MPY + 1))
    refused("downgrade", bundle("1.0.5"))
    refused("same", bundle("1.1.0"))
    refused("dotdot", bundle("1.2.0", files=[("lib/fwt/../../boot", b"x")]))
    refused("absolute", bundle("1.2.0", files=[("/lib/fwt/x.py", b"x")]))
    refused("outside", bundle("1.2.0", files=[("manifest", b"x")]))
    refused("long", bundle("1.2.0", files=[("lib/" + "x" * fm.MAX_PATH, b"x")]))
    mb, _tag, stream = bundle("1.2.0")
    refused("garbage", (mb[:-3], stage.hmac_sha256(KEY, fm.TAG_DOMAIN + mb[:-3]), stream))

    def staged_but_refused(name, b, cut=0):
        st, why = begin(root, b)
        why = why or send(st, b[2][: len(b[2]) - cut], 0, rng)
        why = why or st.commit(KEY)
        rec = record.load(root)
        out[name] = [why, rec[record.TRIAL], start(root)]

    staged_but_refused("hash", bundle("1.2.0", lie="lib/fwt/blob.bin"))
    staged_but_refused("truncated", bundle("1.2.0"), cut=10)
    # chunks out of order: a gap is refused, a repeat ignored, an overlap refused
    b = bundle("1.2.0")
    st, why = begin(root, b)
    s = b[2]
    out["reorder"] = [
        st.chunk(100, s[100:200]),
        st.chunk(0, s[0:100]),
        st.chunk(0, s[0:100]),
        st.chunk(50, s[50:150]),
        st.chunk(100, s[100:]),
        st.resume_offset(b[0]) == len(s),
        st.commit(KEY),
    ]
    out["reorder_boot"] = start(root)
    out["reorder_confirm"] = record.confirm(root)
    b = bundle("1.1.5")
    st, out["down_refused"] = begin(root, b)
    st, why = begin(root, b, downgrade=True)
    out["down_owner"] = [why, send(st, b[2], 0, rng), st.commit(KEY), start(root)]
    # a flash without room for a release beside the running one (blocks of
    # 4 KB: the files, their folders, the slot and the manifest need 8; what
    # the other slot holds now is freed first, and counts as room)
    record.confirm(root)  # 1.1.5 runs in slot a; an update goes to b
    free = stage._free
    before = snapshot(root)
    held = stage._held(stage.Stage(root).dir, 4096)
    out["held"] = held > 0
    stage._free = lambda root: (8 * 4096 - held - 4096, 4096)
    out["space"] = [begin(root, bundle("1.3.0"))[1], snapshot(root) == before]
    stage._free = lambda root: (8 * 4096 - held, 4096)
    out["room"] = begin(root, bundle("1.3.0"))[1]
    stage._free = free
    return out


def rollback(root):
    fresh(root)
    rng = Rng(3)
    out = {}
    update(root, "1.0.0", rng)
    start(root)
    record.confirm(root)
    update(root, "2.0.0", rng)
    out["unconfirmed_boots"] = [start(root) for _ in range(manifest.TRIAL_BOOTS + 2)]
    rec = record.load(root)
    out["after"] = [
        rec[record.ACTIVE],
        rec[record.ACTIVE_V],
        rec[record.TRIAL],
        rec[record.LAST],
        rec[record.LAST_V],
    ]
    out["confirm_refused"] = record.confirm(root)
    out["broken"] = update(root, "2.0.1", rng, broken=True)
    out["broken_boot"] = start(root)
    rec = record.load(root)
    out["after_broken"] = [
        rec[record.ACTIVE],
        rec[record.TRIAL],
        rec[record.LAST],
        rec[record.LAST_V],
    ]
    out["then"] = start(root)
    return out


# -- power cuts -----------------------------------------------------------------


class Power:
    def __init__(self, root, seed, fat=False):
        self.root = root
        self.rng = Rng(seed)
        self.flash = TearingFlash(fat=fat)
        for m in (stage, record, boot):
            self.flash.install(m)
        self.phase = ""
        self.phases = {}
        self.cuts = 0
        self.torn = 0
        self.resumed = 0  # staging continued from a resume offset > 0
        self.restaged = 0  # staging begun again (nothing to resume)
        self.boots = 0
        self.broken = []  # a boot that found anything but a whole release
        self.rolled_back = 0
        self.updates = 0
        self.hung = 0  # updates whose trial never confirms
        self.old = LEGACY_V  # the release confirmed before the one under way

    def boot_and_verify(self, new):
        self.phase = "boot"
        slot = boot.choose(self.root)[0]
        self.boots += 1
        if slot == record.LEGACY:
            ok = snapshot(self.root, "/lib") == LEGACY
            v = LEGACY_V
        else:
            d = self.root + "/fw/" + slot
            ok = stage.check_slot(d, KEY) is None
            with open(d + "/manifest", "rb") as f:
                v = record.vstr(cbor.loads(f.read()[32:])[fm.M_VERSION])
        # and what booted is what the record says runs
        want = info(self.root)[0]
        if not ok or v not in (self.old, new) or vt(v) != want:
            self.broken.append([slot, v, self.old, new, ok])
        return slot

    def drive(self, v, hang):
        # Everything an update takes, resumed from whatever the flash holds;
        # True once confirmed.  hang: a trial that never confirms (it hangs,
        # or its health check fails) and must be rolled back by the selector.
        root = self.root
        b = bundle(v)
        while True:
            rec = record.load(root)
            if rec[record.TRIAL] == record.NONE and rec[record.ACTIVE_V] == v:
                self.boot_and_verify(v)
                return True
            last = rec[record.LAST : record.LAST_V + 1]
            if rec[record.TRIAL] == record.NONE and last == ["rolledback", v]:
                self.rolled_back += 1
                if hang:
                    return False  # the old release runs on; the next update
            if rec[record.TRIAL] != record.NONE and rec[record.TRIAL_V] == v:
                if rec[record.TRIES] == "0" or hang:
                    self.boot_and_verify(v)  # the reset into the trial, or a hung trial's
                else:
                    self.phase = "confirm"
                    record.confirm(root)
                continue
            st = stage.Stage(root)
            off = st.resume_offset(b[0])
            if off is None:
                self.phase = "begin"
                running, floor = info(root)
                why = st.begin(b[0], b[1], KEY, running, floor, BOARD, ARCH, MPY)
                if why is not None:
                    raise AssertionError("begin refused: " + why)
                off = 0
                self.restaged += 1
            elif off:
                self.resumed += 1
            self.phase = "chunk"
            why = send(st, b[2], off, self.rng)
            if why is not None:
                raise AssertionError("chunk refused: " + why)
            self.phase = "commit"
            why = st.commit(KEY)
            if why is not None:
                raise AssertionError("commit refused: " + why)

    def run(self, cuts, span):
        self.flash.disarm()
        version = 1
        v = "1.0.%d" % version
        hang = False
        while self.cuts < cuts:
            if self.rng.below(4):
                self.flash.arm(1 + self.rng.below(span))
            else:
                self.flash.arm_ops(1 + self.rng.below(24))
            try:
                if self.drive(v, hang):
                    self.updates += 1
                    self.old = v
                self.flash.disarm()
                version += 1
                hang = not self.rng.below(8)
                self.hung += hang
                v = "1.0.%d" % version
            except PowerCut:
                self.flash.disarm()
                self.cuts += 1
                self.phases[self.phase] = self.phases.get(self.phase, 0) + 1
                self.boot_and_verify(v)  # the reset after the cut
        self.torn = self.flash.torn
        for m in (stage, record, boot):
            self.flash.uninstall(m)
        return {
            "cuts": self.cuts,
            "torn_writes": self.torn,
            "phases": self.phases,
            "boots": self.boots,
            "broken": self.broken,
            "resumed": self.resumed,
            "restaged": self.restaged,
            "rolled_back": self.rolled_back,
            "hung": self.hung,
            "updates": self.updates,
        }


# -- over the link: the update mode (firmware/update/mode.py) -------------------


def stream_of(b):
    # What the host sends: the tag, then the bundle file (format.py)
    mb, tag, files = b
    return tag + fm.MAGIC + len(mb).to_bytes(4, "big") + mb + files


class Line:
    # The host's end of the port of a board in its update mode.
    def __init__(self, root, op=0, key=KEY):
        self.port = SimUart()
        self.reader = frame.FrameReader()
        self.writer = frame.FrameWriter(1049)  # update_data's longest frame (SPEC.md 2)
        self.now = 0
        self.mode = mode.Mode(self.port, key, root, BOARD, ARCH, MPY, op, 0)
        self.said = []  # every update_status: [state, offset, reason]
        self.take()

    def take(self):
        for f in self.reader.feed(self.port.take()):
            b = f.body
            self.said.append([b[0], b[1], b.get(2)])

    def send(self, off, data=None, commit=False, raw=None):
        body = {0: off}
        if data:
            body[1] = data
        if commit:
            body[2] = True
        self.port.inject(raw if raw is not None else self.writer.build(25, 0, 0, body))
        self.now += 5
        self.mode.poll(self.now)
        self.take()
        return self.said[-1]


def push(root, b, rng, cut_at=None, noise=True, key=KEY):
    # A careless host on a noisy line: each chunk of 1 to 1024 bytes from
    # where the board says its stream ends, but now and then one from ahead
    # (a chunk before it was lost), one from behind (a repeat) or a lost one.
    # cut_at: the power goes once the board holds that many bytes.
    s = stream_of(b)
    ln = Line(root, key=key)
    off = ln.said[-1][1]
    sent = 0
    while off < len(s):
        n = 1 + rng.below(1024)
        k = rng.below(8) if noise else 7
        at = off
        if k == 0:
            at = min(off + n, len(s) - 1)
        elif k == 1:
            at = off - min(off, n)
        if k == 2:
            ln.now += 5  # lost on the line: the board said nothing
            continue
        st = ln.send(at, s[at : at + n])
        sent += len(s[at : at + n])
        if st[0] == 4:
            return ln, st, sent
        off = st[1]
        if cut_at is not None and off >= cut_at:
            return ln, None, sent
    return ln, ln.send(len(s), commit=True), sent


def link(root):
    fresh(root)
    rng = Rng(7)
    out = {"legacy_boot": start(root)}
    b = bundle("1.0.0")
    ln, st, sent = push(root, b, rng)
    out["first"] = [st, ln.said[0], ln.mode.done, [x[0] for x in ln.said[-3:]]]
    out["first_sent_over"] = sent > len(stream_of(b))  # the noise cost resends
    out["trial_boot"] = start(root)
    ln = Line(root, op=1)  # the host saw the trial shake hands: confirm
    out["confirm"] = [ln.said, ln.mode.done, record.load(root)[record.ACTIVE_V]]
    out["boot_after_confirm"] = start(root)
    ln = Line(root, op=1)
    out["confirm_again"] = [ln.said, ln.mode.done]
    # a power cut at 40 % of 1.1.0, then the same release again: it resumes
    b = bundle("1.1.0")
    s = stream_of(b)
    head = len(s) - len(b[2])
    ln, st, sent = push(root, b, rng, cut_at=head + (len(b[2]) * 2) // 5)
    held = ln.said[-1][1]
    ln2 = Line(root)
    ln2.send(0, s[:head])  # the head again
    out["resumed"] = [ln2.said[-1][1] == held, held > head]
    ln2, st, sent = push(root, b, rng, noise=False)
    out["resumed_commit"] = st
    out["trial2_boot"] = start(root)
    Line(root, op=1)
    before = snapshot(root)

    def refused(name, b, **kw):
        ln, st, _ = push(root, b, rng, **kw)
        out[name] = [st, snapshot(root) == before, ln.mode.done]

    refused("tag", bundle("1.2.0", key=OTHER_KEY))
    refused("board", bundle("1.2.0", board="esp32"))
    refused("same", bundle("1.1.0"))
    refused("downgrade", bundle("1.0.5"))
    ln, st, _ = push(root, bundle("1.2.0", lie="lib/fwt/blob.bin"), rng)
    out["hash"] = [st, record.load(root)[record.TRIAL], start(root)]
    # what is not an update_data changes nothing and ends nothing; a bad
    # update_data is answered with where the stream ends
    before = snapshot(root)
    ln = Line(root)
    odd = [
        b"\x00\x01\x02garbage\x00",
        frame.encode_frame(4, 0, 0, {0: 1}),  # another type: no answer
        frame.encode_frame(25, 0, 0, {0: "x", 1: b"y"}),  # an offset that is not a number
        frame.encode_frame(25, 0, 0, {0: 0, 1: "text"}),  # data that is not bytes
        frame.encode_frame(25, 0, 0, [1, 2]),  # not a map: no answer
        frame.encode_frame(25, 0, 0, {0: 0, 2: True}),  # a commit before anything came
        frame.encode_frame(25, 0, 0, {0: 5, 1: b"ahead"}),  # not where the stream ends
    ]
    out["odd"] = [[len(ln.said)] + ln.send(0, raw=x)[:2] for x in odd]  # noqa: RUF005 (MicroPython)
    out["odd_after"] = [ln.mode.done, snapshot(root) == before]
    # a host that goes quiet: back to the match after 10 s
    ln.now += 9990
    ln.mode.poll(ln.now)
    quiet = ln.mode.done
    ln.now += 20
    ln.mode.poll(ln.now)
    out["quiet"] = [quiet, ln.mode.done]
    return out


LEGACY = {}


def power(root, cuts, seed, fat=False):
    fresh(root)
    LEGACY.clear()
    LEGACY.update(snapshot(root, "/lib"))
    return Power(root, seed, fat).run(cuts, 4000)


def main(argv):
    name = argv[1]
    root = argv[2] if len(argv) > 2 else ROOT
    if name == "power":
        out = power(
            root,
            int(argv[3]) if len(argv) > 3 else 200,
            int(argv[4]) if len(argv) > 4 else 1,
            len(argv) > 5 and argv[5] == "fat",
        )
    else:
        out = {"happy": happy, "bad": bad, "rollback": rollback, "link": link}[name](root)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv)
