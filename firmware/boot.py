# The boot selector: the board's /boot.py, which MicroPython runs at every
# reset before /main.py.  It lives outside both slots, so an update never
# rewrites it, and it imports nothing from a slot before it has chosen one
# (only sys and os).  `baulk firmware deploy` writes it there as source, and
# /main.py beside it (firmware/manifest.py MAIN); while no update has come,
# the boot record is absent and the board runs the legacy install.
#
# Flash layout (firmware/update/):
#   /fw/boot        the boot record, one text line (firmware/update/record.py)
#   /fw/a, /fw/b    the slots: each `manifest` (tag + manifest bytes) and
#                   lib/... (the release's tree, lib/baulk/firmware/...)
#   /lib/baulk      the legacy install, deployed before updates: the running
#                   slot "legacy" while no record names another
#
# At every boot pick() reads the record.  A trial pending with tries left:
# it counts the try ON FLASH FIRST (so a trial that hangs or resets the board
# uses its tries up), then puts the trial's lib at the front of sys.path; out
# of tries: it records "rolled back" and picks the active slot.  The package
# `baulk` is found whole in the first folder that has it, so a slot never
# mixes with the legacy tree; the legacy install leaves sys.path as it is
# (/lib, or /rom/lib with ROMFS).  Then this file deletes its own names: its
# code (4 KB compiled) is garbage before /main.py starts the match, and the
# match's heap budget stays whole.  /main.py imports it again only when the
# firmware raised, to roll a failing trial back at once (failed()).
#
# ROMFS installs (--romfs) would keep the same record with two ROMFS
# segments as the slots: written with vfs.rom_ioctl(3/4, ...) by the stager,
# and mounted here with vfs.mount(vfs.VfsRom(vfs.rom_ioctl(2, n)), "/rom")
# before /rom/lib goes on sys.path.  Not built yet: only the filesystem
# slots are implemented and tested.
#
# Keep it tiny: it runs before anything else and can never be updated.  Its
# every name is interned on the board for good (the lexer interns each
# identifier and string of a source file), and the Pico's name table had 14
# to spare: so the locals reuse names the firmware interns anyway (r, s, p,
# t), the number of tries is a literal (manifest.TRIAL_BOOTS, which
# tests/firmware/test_fw_update.py holds it to), and /main.py's text is the
# host's (manifest.MAIN).

import os
import sys

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
        # FAT only: save() was cut between removing the record and renaming
        # the new one in, and the new one, whole, is the .tmp.  It takes the
        # record's name before anything else, or the next save() would write
        # over the only record there is.
        try:
            os.rename(root + "/fw/boot.tmp", root + "/fw/boot")
            with open(root + "/fw/boot") as f:
                line = f.read()
        except OSError:
            return None
    body, _, s = line.strip().rpartition(" ")
    parts = body.split(" ")
    if not body.startswith(_HEAD) or len(parts) != 12 or _sum(body) != s:
        return None  # no record, or one that fails its sum: the legacy install
    return parts[2:]


def save(root, r):
    body = _HEAD + " ".join(r)
    tmp = root + "/fw/boot.tmp"
    with open(tmp, "wb") as f:
        f.write((body + " " + _sum(body) + "\n").encode())
    try:
        os.rename(tmp, root + "/fw/boot")
    except OSError:  # FAT: not atomic, but works
        os.remove(root + "/fw/boot")
        os.rename(tmp, root + "/fw/boot")


def rollback(root):
    r = load(root)
    if r is not None and r[4] != "-":
        r[8] = "rolledback"
        r[9] = r[5]
        r[4] = "-"
        r[5] = "0.0.0"
        r[6] = "0"
        save(root, r)


def choose(root=""):
    # (slot, its lib folder or None for the path as it is, on trial?)
    r = load(root)
    if r is None:
        return "legacy", None, False
    if r[4] != "-":
        n = int(r[6])
        if n < 3:  # manifest.TRIAL_BOOTS: boots a trial gets before it is rolled back
            r[6] = str(n + 1)
            save(root, r)  # before the trial runs a single line
            return r[4], root + "/fw/" + r[4] + "/lib", True
        rollback(root)
    if r[0] == "legacy":
        return "legacy", None, False
    return r[0], root + "/fw/" + r[0] + "/lib", False


def pick(root=""):
    # The slot this boot runs, its lib first on sys.path.
    s, p, t = choose(root)  # the slot, its lib, on trial
    for t in [t for t in sys.path if t.startswith(root + "/fw/")]:
        sys.path.remove(t)  # a slot an earlier pick (a test's boot) put there
    if p is not None:
        sys.path.insert(0, p)
    return s


def failed(root=""):
    # /main.py's handler: the firmware raised.  A trial (on trial and tried)
    # is rolled back, True: reset the board; otherwise False.
    r = load(root)
    if r is None or r[4] == "-" or r[6] == "0":
        return False
    rollback(root)
    return True


if __name__ == "__main__":  # the board's /boot.py
    pick()
    del _HEAD, _sum, load, save, rollback, choose, pick, failed, os, sys
