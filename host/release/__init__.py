"""Firmware releases for the tables (the table reads them: firmware/update/): one bundle per
board kind, built from the daemon's own firmware tree, and the tag that makes
one table accept it.

Owns: the bundle as a file (``bundle``: its manifest of versions, the .mpy
ABI and arch, and each file's path, size and SHA-256; the file's bytes after
it), read back with every bound checked, and the per-table tag, an HMAC under
the table's own device key.  The layout is the one the table reads,
declared once in ``firmware/update/format.py``.

May import: the wire's codec (``baulk.protocol``), the firmware's bundle
format and the shared modules; never the daemon, the web side or a command.
"""
