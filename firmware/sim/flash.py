# A flash that loses power mid-write: the journal's files in a directory, as
# before, but after `budget` more units of work the power goes.  A unit is one
# byte written or one directory operation (rename, remove, mkdir).  A write cut
# short leaves exactly the bytes written so far in the file (a torn write, at
# any byte); a rename cut off has not happened (littlefs renames atomically,
# which is what firmware/journal.py relies on).  Then PowerCut is raised out of
# whatever the firmware was doing; the owner resets the board, and the next
# boot finds the flash as the cut left it.
#
# install(module) points a firmware module's `open` and `os` at this flash
# (the journal calls both by those names; the updater also stat and rmdir);
# uninstall(module) restores them.
# Without a budget it behaves exactly as the plain directory does.

import builtins
import os as _os


class PowerCut(Exception):
    pass


class _TornFile:
    def __init__(self, flash, f):
        self.flash = flash
        self.f = f

    def write(self, data):
        data = memoryview(data)
        n = self.flash._spend(len(data))
        if n:
            self.f.write(data[:n])
        if n < len(data):
            self.f.close()
            raise PowerCut("power cut after %d of %d bytes" % (n, len(data)))
        return n

    def read(self, *args):
        return self.f.read(*args)

    def close(self):
        self.f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()
        return False


class TearingFlash:
    def __init__(self, budget=None, fat=False):
        # fat: rename refuses to go over a file that is there, as FAT (the
        # ESP32's and some boards' filesystem) does; littlefs renames over it
        self.fat = fat
        self.left = budget  # units of work until the cut; None: never
        self.ops_left = None  # or: directory operations until the cut
        self.cuts = 0
        self.torn = 0  # cuts that left part of a write on the flash
        self.bytes_written = 0
        self.ops = 0
        self._saved = {}

    def arm(self, budget):
        self.left = budget
        self.ops_left = None

    def arm_ops(self, ops):
        """Cut the power just before the ops-th directory operation from now."""
        self.left = None
        self.ops_left = ops

    def disarm(self):
        self.left = None
        self.ops_left = None

    def _spend(self, n):
        """Take up to n units; returns how many were done before the cut."""
        if self.left is None:
            self.bytes_written += n
            return n
        done = n if n <= self.left else self.left
        self.left -= done
        self.bytes_written += done
        if done < n:
            if done:
                self.torn += 1
            self.left = None  # one cut; the owner arms the next
            self.cuts += 1
        return done

    def _op(self, what):
        self.ops += 1
        if self.ops_left is not None:
            self.ops_left -= 1
            if self.ops_left <= 0:
                self.ops_left = None
                self.cuts += 1
                raise PowerCut("power cut before " + what)
        if self._spend(1) < 1:
            raise PowerCut("power cut before " + what)

    # -- what the journal calls ---------------------------------------------------
    def open(self, path, mode="r"):
        f = open(path, mode)  # noqa: SIM115 (returned to the caller)
        if "w" in mode or "a" in mode:
            return _TornFile(self, f)
        return f

    def rename(self, a, b):
        self._op("rename")
        if self.fat:
            try:
                _os.stat(b)
            except OSError:
                pass
            else:
                raise OSError(17, "EEXIST")  # FAT: the name is taken
        _os.rename(a, b)

    def remove(self, path):
        self._op("remove")
        _os.remove(path)

    def mkdir(self, path):
        _os.mkdir(path)  # fails when it is there: no work done

    def rmdir(self, path):
        self._op("rmdir")
        _os.rmdir(path)

    def stat(self, path):
        return _os.stat(path)

    def listdir(self, path):
        return _os.listdir(path)

    # -- wiring ---------------------------------------------------------------------
    def install(self, module):
        self._saved[id(module)] = module.os
        module.os = self
        module.open = self.open

    def uninstall(self, module):
        saved = self._saved.pop(id(module), None)
        if saved is None:
            return
        module.os = saved
        module.open = builtins.open
