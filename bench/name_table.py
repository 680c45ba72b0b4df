"""MicroPython's table of interned names (qstrs) on a board, as a model.

Where the numbers come from (MicroPython's own sources, py/ and tools/):

* py/qstr.c: the names compiled into the firmware sit in ROM pools (the
  static pool, and the frozen code's pool that tools/mpy-tool.py writes).
  Every other name goes into pools on the heap.  When the last pool is full,
  ``qstr_add`` allocates a new one of twice its ``alloc`` entries.  The ROM
  pools carry ``alloc`` = ``MICROPY_ALLOC_QSTR_ENTRIES_INIT`` (10), and the
  frozen pool ``min(len, 10)`` (tools/mpy-tool.py); with at least 10 names
  frozen, as the Pico's and the ESP32's firmware have (asyncio alone brings
  more), the first heap pool holds 20 names and every next one twice as many:
  20, 40, 80, 160, 320, 640, 1280, ...  The steps are the same on the
  WebAssembly port, the Pico (rp2) and the ESP32: the ports' own static and
  frozen name counts do not size them since MicroPython 1.10, only whether
  a name of the firmware is among them.
* A pool is ``sizeof(qstr_pool_t)`` (24 bytes on a 32-bit port) and, per
  name, a pointer (4), a hash (``MICROPY_QSTR_BYTES_IN_HASH``: 2 at the
  EXTRA_FEATURES level of the rp2, esp32 and webassembly ports) and a length
  (1), in blocks of 16 bytes (the collector's block on 32-bit ports).
* With the code in ROMFS a name's characters stay in flash
  (``qstr_from_strn_static``, py/persistentcode.c); only names made at run
  time (a module's ``__file__`` and dotted name) copy theirs into the heap,
  which the objects' figure holds.
* A .mpy file carries the names its code needs: those of the .mpy format's
  own static list (py/makeqstrdata.py ``static_qstr_list``, in every port's
  ROM) as numbers, every other one as text (:func:`text_names`).
"""

from __future__ import annotations

from pathlib import Path

FIRST_POOL = 20  # names in the first pool on the heap
POOL_HEADER = 24  # bytes: prev, total_prev_len, alloc, len, hashes, lengths
PER_NAME = 7  # bytes: the pointer, the hash, the length
BLOCK = 16  # the collector's block


def pools(names: int) -> list[int]:
    """The heap pools (their sizes in names) that hold `names` names."""
    out: list[int] = []
    room = 0
    size = FIRST_POOL
    while room < names:
        out.append(size)
        room += size
        size *= 2
    return out


def pool_bytes(size: int) -> int:
    raw = POOL_HEADER + PER_NAME * size
    return -(-raw // BLOCK) * BLOCK


def table_bytes(names: int) -> int:
    """The heap that `names` interned names take."""
    return sum(pool_bytes(s) for s in pools(names))


def next_step(names: int) -> int:
    """The bytes the table takes at once when one name more than its pools
    hold comes: a pool twice the largest."""
    sizes = pools(names)
    return pool_bytes(2 * sizes[-1] if sizes else FIRST_POOL)


def room(names: int) -> int:
    """Names that still fit in the pools `names` names need."""
    return sum(pools(names)) - names


def _uint(data: bytes, i: int) -> tuple[int, int]:
    n = 0
    while True:
        c = data[i]
        i += 1
        n = (n << 7) | (c & 0x7F)
        if not c & 0x80:
            return n, i


def text_names(mpy: bytes) -> set[str]:
    """The names a .mpy file (format 6) carries as text: its qstr table
    less the names of the format's static list (stored as numbers)."""
    if mpy[:2] != b"M\x06":
        raise ValueError("not a .mpy file of format 6")
    i = 4
    if mpy[2] & 0x40:  # MPY_FEATURE_ARCH_FLAGS: the architecture's flags follow
        _, i = _uint(mpy, i)
    n_qstr, i = _uint(mpy, i)
    _, i = _uint(mpy, i)  # n_obj
    out: set[str] = set()
    for _ in range(n_qstr):
        n, i = _uint(mpy, i)
        if n & 1:  # a static name, by its number
            continue
        n >>= 1
        out.add(mpy[i : i + n].decode())
        i += n + 1  # and its terminating zero
    return out


def file_names(path: Path) -> set[str]:
    return text_names(path.read_bytes())
