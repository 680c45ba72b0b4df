# The boot record, /fw/boot: which slot runs, which one is on trial and how
# often it has been tried, the version floor, and what happened last (so the
# app can tell the host "confirmed 1.4.0" or "rolled back 1.4.0").
#
# One text line, so that the boot selector (firmware/boot.py, the board's
# /main.py, outside every slot) reads and writes it without importing
# anything from a slot, and without cbor:
#
#   baulk-boot 1 ACTIVE ACTIVE_V PREV PREV_V TRIAL TRIAL_V TRIES FLOOR LAST LAST_V SUM
#
# slots are "a", "b", "legacy" (code in /lib/baulk, as deployed before
# updates) or "-"; versions "1.4.0"; LAST "-", "confirmed" or "rolledback";
# SUM the Adler-32 of everything before it, in hex.  The whole line goes to
# /fw/boot.tmp and is renamed over /fw/boot: littlefs renames atomically, so
# a power cut leaves the old record or the new one, and a record that fails
# its sum (another filesystem, a bad block) reads as no record: the legacy
# install.  firmware/boot.py carries its own copy of load/save;
# tests/firmware/test_fw_update.py holds the two to the same format.

import os

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


ACTIVE = const(0)
ACTIVE_V = const(1)
PREV = const(2)
PREV_V = const(3)
TRIAL = const(4)
TRIAL_V = const(5)
TRIES = const(6)
FLOOR = const(7)
LAST = const(8)
LAST_V = const(9)
NONE = "-"
LEGACY = "legacy"
ZERO = "0.0.0"
_HEAD = "baulk-boot 1 "


def fresh():
    return [LEGACY, ZERO, NONE, ZERO, NONE, ZERO, "0", ZERO, NONE, ZERO]


def adler(s):
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
            return fresh()
    body, _, s = line.strip().rpartition(" ")
    parts = body.split(" ")
    if not body.startswith(_HEAD) or len(parts) != 12 or adler(body) != s:
        return fresh()
    return parts[2:]


def save(root, rec):
    body = _HEAD + " ".join(rec)
    tmp = root + "/fw/boot.tmp"
    with open(tmp, "wb") as f:
        f.write((body + " " + adler(body) + "\n").encode())
    try:
        os.rename(tmp, root + "/fw/boot")
    except OSError:  # FAT cannot rename over a file: not atomic, but works
        os.remove(root + "/fw/boot")
        os.rename(tmp, root + "/fw/boot")


def vtuple(s):
    return tuple(int(x) for x in s.split("."))


def vstr(v):
    return "%d.%d.%d" % (v[0], v[1], v[2])


def running(rec):
    # The selector counts a try before it boots a trial, so a trial with
    # tries is what runs; one just committed (no try yet) does not.
    if rec[TRIAL] != NONE and rec[TRIES] != "0":
        return rec[TRIAL]
    return rec[ACTIVE]


def version(rec):
    # The version of the slot that runs ("0.0.0": the legacy install's, unknown).
    return rec[TRIAL_V] if running(rec) == rec[TRIAL] else rec[ACTIVE_V]


def target(rec):
    # The slot an update writes: never the one running.
    return "b" if running(rec) == "a" else "a"


def commit(root, slot, version):
    # The switch: one rename makes the staged, checked slot the trial.
    rec = load(root)
    rec[TRIAL] = slot
    rec[TRIAL_V] = version
    rec[TRIES] = "0"
    save(root, rec)


def confirm(root):
    # The app's health check passed in the trial: it becomes the active slot
    # and the floor rises to its version.  False when no trial runs.
    rec = load(root)
    if rec[TRIAL] == NONE or rec[TRIES] == "0":
        return False
    rec[PREV] = rec[ACTIVE]
    rec[PREV_V] = rec[ACTIVE_V]
    rec[ACTIVE] = rec[TRIAL]
    rec[ACTIVE_V] = rec[TRIAL_V]
    if vtuple(rec[TRIAL_V]) > vtuple(rec[FLOOR]):
        rec[FLOOR] = rec[TRIAL_V]
    rec[LAST] = "confirmed"
    rec[LAST_V] = rec[TRIAL_V]
    rec[TRIAL] = NONE
    rec[TRIAL_V] = ZERO
    rec[TRIES] = "0"
    save(root, rec)
    return True
