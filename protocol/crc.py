# CRC-32 (IEEE 802.3, reflected, polynomial 0x04C11DB7, init and xor-out
# 0xFFFFFFFF): the checksum of every baulk frame.  SPEC.md "Integrity" says why
# this one and not CRC-16: on the rp2 and esp32 ports binascii.crc32 runs in C,
# and it keeps Hamming distance 4 over our largest frame.

try:
    from binascii import crc32 as _c_crc32

    _HAVE_C = True
except ImportError:  # a port built without MICROPY_PY_BINASCII_CRC32
    _HAVE_C = False

_TABLE = None


def _table():
    global _TABLE
    if _TABLE is None:
        t = []
        for n in range(256):
            c = n
            for _ in range(8):
                c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
            t.append(c)
        _TABLE = t
    return _TABLE


def crc32_slow(data, crc=0):
    """Table-driven CRC-32 for ports without binascii.crc32 (same result)."""
    t = _table()
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def crc32(data, crc=0):
    """CRC-32 of data, continuing from crc (0 to start)."""
    if _HAVE_C:
        return _c_crc32(data, crc) & 0xFFFFFFFF
    return crc32_slow(data, crc)
