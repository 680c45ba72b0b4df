# Firmware package: everything here must run unchanged under MicroPython.
#
# Its one import name is baulk.firmware, on the board too (/lib/baulk/firmware).
# Imported by its folder's name from the repository root, every module would be
# loaded a second time, with classes that are not the same objects.
if __name__ != "baulk.firmware":
    raise ImportError("import baulk.firmware, not " + __name__)
