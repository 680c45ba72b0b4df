# The boot selector: the board's /main.py.  It lives outside both slots, so
# an update never rewrites it, and it imports nothing from a slot before it
# has chosen one (only sys and os).  Its source is /main.py itself, not an
# .mpy under /lib/baulk: `baulk firmware deploy` writes it there once, in
# place of the two-line /main.py (host/cli/firmware.py MAIN_PY, to follow).
#
# Flash layout (firmware/update/):
#   /fw/boot        the boot record, one text line (firmware/update/record.py)
#   /fw/a, /fw/b    the slots: each `manifest` (tag + manifest bytes) and
#                   lib/baulk/... (the release's .mpy tree)
#   /lib/baulk      the legacy install, deployed before updates: the running
#                   slot "legacy" while no record names another
#
# At every boot: read the record.  A trial pending with tries left: count
# the try ON FLASH FIRST (so a trial that hangs or resets the board uses its
# tries up), then boot it; out of tries: record "rolled back" and boot the
# active slot.  An exception out of the trial's import or main(): the same
# rollback, at once.  The chosen slot's lib goes to the front of sys.path
# (the legacy install: the path as it is, /lib or /rom/lib), then
# baulk.firmware.main.main() starts.  The package `baulk` is found whole in
# the first folder that has it, so a slot never mixes with the legacy tree.
#
# ROMFS installs (--romfs) would keep the same record with slots "r0"/"r1":
# two ROMFS segments, written with vfs.rom_ioctl(3/4, ...) by the stager and
# mounted by this selector with vfs.mount(vfs.VfsRom(vfs.rom_ioctl(2, n)),
# "/rom") before /rom/lib goes on sys.path.  Not built yet: only the
# filesystem slots are implemented and tested.
#
# Keep it tiny: it runs before anything else and can never be updated.

import os
import sys

TRIES = 3  # boots a trial gets before it is rolled back
_HEAD = "baulk-boot 1 "


def _sum(s):  # Adler-32, as record.py
    a = 1
    b = 0
    for c in s:
        a = (a + ord(c)) % 65521
        b = (b + a) % 65521
    return "%08x" % ((b << 16) | a)


def load(root):
    try:
        with open(root + "/fw/boot") as f:
            line = f.read()
    except OSError:
        return None
    body, _, s = line.strip().rpartition(" ")
    parts = body.split(" ")
    if not body.startswith(_HEAD) or len(parts) != 12 or _sum(body) != s:
        return None  # no record, or one that fails its sum: the legacy install
    return parts[2:]


def save(root, rec):
    body = _HEAD + " ".join(rec)
    tmp = root + "/fw/boot.tmp"
    with open(tmp, "wb") as f:
        f.write((body + " " + _sum(body) + "\n").encode())
    try:
        os.rename(tmp, root + "/fw/boot")
    except OSError:  # FAT: not atomic, but works
        os.remove(root + "/fw/boot")
        os.rename(tmp, root + "/fw/boot")


def rollback(root):
    rec = load(root)
    if rec is not None and rec[4] != "-":
        rec[8] = "rolledback"
        rec[9] = rec[5]
        rec[4] = "-"
        rec[5] = "0.0.0"
        rec[6] = "0"
        save(root, rec)


def choose(root=""):
    # (slot, its lib folder or None for the path as it is, on trial?)
    rec = load(root)
    if rec is None:
        return "legacy", None, False
    if rec[4] != "-":
        n = int(rec[6])
        if n < TRIES:
            rec[6] = str(n + 1)
            save(root, rec)  # before the trial runs a single line
            return rec[4], root + "/fw/" + rec[4] + "/lib", True
        rollback(root)
    if rec[0] == "legacy":
        return "legacy", None, False
    return rec[0], root + "/fw/" + rec[0] + "/lib", False


def start(root="", module="baulk.firmware.main", entry="main"):
    top = module.split(".")[0]
    added = None
    while True:
        slot, lib, trial = choose(root)
        if added is not None and added in sys.path:
            sys.path.remove(added)
        if lib is not None:
            sys.path.insert(0, lib)
        added = lib
        try:
            __import__(module)
            return slot, getattr(sys.modules[module], entry)()
        except Exception:
            if not trial:
                raise
            rollback(root)
            for name in list(sys.modules):  # the trial's modules out
                if name == top or name.startswith(top + "."):
                    del sys.modules[name]


if __name__ == "__main__":
    start()
