# Firmware package: everything here must run unchanged under MicroPython.
#
# Its one import name is baulk.firmware, on the board too (/lib/baulk/firmware).
# Imported by its folder's name from the repository root, every module would be
# loaded a second time, with classes that are not the same objects.
if __name__ != "baulk.firmware":
    raise ImportError("import baulk.firmware, not " + __name__)


def unload(*names):
    """Modules (by their names below baulk.firmware) out of sys.modules and
    out of their packages, so that the collector frees them once nothing else
    holds them: what runs once (the wiring at boot) or rarely (the pocket
    check) costs the heap only while it runs.  Their names stay interned."""
    import sys

    for name in names:
        full = __name__ + "." + name
        sys.modules.pop(full, None)
        parent, _, child = full.rpartition(".")
        p = sys.modules.get(parent)
        if p is not None and child in p.__dict__:
            delattr(p, child)
