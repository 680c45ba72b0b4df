# Wire protocol package: the device-side parts must run under MicroPython.
#
# Its one import name is baulk.protocol, on the board too (/lib/baulk/protocol).
# Imported by its folder's name from the repository root, every module would be
# loaded a second time, with classes that are not the same objects.
if __name__ != "baulk.protocol":
    raise ImportError("import baulk.protocol, not " + __name__)
