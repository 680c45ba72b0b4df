"""A firmware bundle as a file: written from a built firmware tree, read back
with every bound the table checks, and tagged for one table.

The layout is firmware/update/format.py's (the table's reader is
firmware/update/stage.py): a header, the manifest (one CBOR map, encoded by
the wire's own codec, so the bytes the host tags are the bytes the table
decodes), then every file's bytes in the manifest's order.  The bundle is
the same for every board of a kind and holds no secret; a table accepts it
only with the tag made under its own device key (:func:`tag`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from baulk.firmware import manifest as board_manifest
from baulk.firmware.update import format as fm
from baulk.protocol import cbor

SUFFIX = ".bkfw"
MPY_MAGIC = ord("M")


class BundleError(ValueError):
    """A tree that makes no bundle, or a file that is not one: says which bound."""


@dataclass(frozen=True)
class Bundle:
    """A release for one board kind, as the table will check it."""

    board: str
    arch: str
    version: tuple[int, int, int]
    engine: int
    mpy: int  # the .mpy ABI: version | sub-version << 8, as the table's sys.implementation._mpy
    files: tuple[tuple[str, bytes], ...]  # (path in the slot, bytes), in order
    manifest: bytes  # the CBOR bytes the tag covers

    @property
    def size(self) -> int:
        return sum(len(data) for _, data in self.files)

    def stream(self) -> bytes:
        """What follows the manifest: the files' bytes, one after another."""
        return b"".join(data for _, data in self.files)

    def to_bytes(self) -> bytes:
        return fm.MAGIC + len(self.manifest).to_bytes(4, "big") + self.manifest + self.stream()

    @property
    def name(self) -> str:
        """The file's name: baulk-1.2.3-pico.bkfw."""
        return f"baulk-{'.'.join(map(str, self.version))}-{self.board}{SUFFIX}"


def release_version() -> tuple[int, int, int]:
    """The firmware's version: the package's own (pyproject.toml), as three
    integers; a table refuses a bundle of the version it runs."""
    text = metadata.version("baulk")
    parts = text.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise BundleError(f"the package version {text!r} is not MAJOR.MINOR.PATCH")
    return int(parts[0]), int(parts[1]), int(parts[2])


def mpy_abi(mpy: bytes) -> int:
    """A compiled module's .mpy ABI, from its header: byte 1 the version,
    the low two bits of byte 2 the sub-version (py/persistentcode.h)."""
    if len(mpy) < 4 or mpy[0] != MPY_MAGIC:
        raise BundleError("not a .mpy file")
    return mpy[1] | (mpy[2] & 3) << 8


def tree_files(out: Path) -> list[tuple[str, bytes]]:
    """Every file of a built tree's lib/ (what `baulk firmware build` wrote),
    as paths in the slot, sorted so that two builds of one tree agree."""
    lib = out / "lib"
    if not lib.is_dir():
        raise BundleError(f"{lib} is not a built firmware tree (run `baulk firmware build`)")
    return [
        (p.relative_to(out).as_posix(), p.read_bytes())
        for p in sorted(lib.rglob("*"))
        if p.is_file()
    ]


def make(
    out: Path,
    board: str,
    arch: str,
    version: tuple[int, int, int] | None = None,
    engine: int | None = None,
) -> Bundle:
    """The bundle of the tree `baulk firmware build` wrote into `out`."""
    files = tree_files(out)
    abis = {mpy_abi(data) for path, data in files if path.endswith(".mpy")}
    if len(abis) != 1:
        raise BundleError(f"the tree's .mpy files have {len(abis)} ABIs, not one")
    return assemble(
        board,
        arch,
        version or release_version(),
        board_manifest.ENGINE if engine is None else engine,
        abis.pop(),
        files,
    )


def assemble(
    board: str,
    arch: str,
    version: tuple[int, int, int],
    engine: int,
    mpy: int,
    files: list[tuple[str, bytes]],
) -> Bundle:
    """The manifest of `files`, checked against the bounds the table reads
    it with, so that no bundle is made that a table would refuse."""
    if not 0 < len(files) <= fm.MAX_FILES:
        raise BundleError(f"{len(files)} files: a bundle holds 1 to {fm.MAX_FILES}")
    for path, _ in files:
        parts = path.split("/")
        if len(path.encode()) > fm.MAX_PATH or parts[0] != "lib" or {"", ".", ".."} & set(parts):
            raise BundleError(f"{path!r}: a path is under lib/, at most {fm.MAX_PATH} bytes")
    rows = [[path, len(data), hashlib.sha256(data).digest()] for path, data in files]
    body = {
        fm.M_FORMAT: fm.FORMAT,
        fm.M_VERSION: list(version),
        fm.M_ENGINE: engine,
        fm.M_MPY: mpy,
        fm.M_ARCH: arch,
        fm.M_BOARD: board,
        fm.M_FILES: rows,
        fm.M_SIZE: sum(len(data) for _, data in files),
    }
    try:
        encoded = bytes(cbor.dumps(body, fm.MAX_MANIFEST))
    except (IndexError, ValueError) as e:  # the codec's buffer is the bound
        raise BundleError(f"the manifest is over {fm.MAX_MANIFEST} bytes") from e
    return Bundle(board, arch, version, engine, mpy, tuple(files), encoded)


def read(raw: bytes) -> Bundle:
    """A bundle file's bytes, checked as the table checks them: the header,
    the manifest's bounds, and every file against its size and SHA-256."""
    if raw[:4] != fm.MAGIC or len(raw) < fm.HEAD_BYTES:
        raise BundleError("not a baulk firmware bundle")
    n = int.from_bytes(raw[4 : fm.HEAD_BYTES], "big")
    if n > fm.MAX_MANIFEST or fm.HEAD_BYTES + n > len(raw):
        raise BundleError("the manifest's length is beyond its bound or the file")
    encoded = raw[fm.HEAD_BYTES : fm.HEAD_BYTES + n]
    try:
        m = cbor.loads(encoded)
    except (IndexError, ValueError, TypeError) as e:
        raise BundleError("the manifest is not CBOR") from e
    if not isinstance(m, dict) or m.get(fm.M_FORMAT) != fm.FORMAT:
        raise BundleError("not a manifest of this format")
    try:
        rows = [(str(p), int(size), bytes(digest)) for p, size, digest in m[fm.M_FILES]]
        version = tuple(int(x) for x in m[fm.M_VERSION])
        fields = str(m[fm.M_BOARD]), str(m[fm.M_ARCH]), int(m[fm.M_ENGINE]), int(m[fm.M_MPY])
    except (KeyError, TypeError, ValueError) as e:
        raise BundleError("the manifest lacks a field or has one of the wrong kind") from e
    if len(version) != 3:
        raise BundleError("the version is not three numbers")
    at = fm.HEAD_BYTES + n
    files: list[tuple[str, bytes]] = []
    for path, size, digest in rows:
        data = raw[at : at + size]
        if len(data) != size or hashlib.sha256(data).digest() != digest:
            raise BundleError(f"{path}: its bytes are not those the manifest names")
        files.append((path, data))
        at += size
    if at != len(raw):
        raise BundleError("bytes after the last file")
    board, arch, engine, mpy = fields
    again = assemble(board, arch, (version[0], version[1], version[2]), engine, mpy, files)
    if again.manifest != encoded:  # bounds, order and encoding, as this host writes them
        raise BundleError("the manifest is not the one its files make")
    return again


def tag(key: bytes, manifest: bytes) -> bytes:
    """What makes one table accept the bundle: HMAC-SHA256 under its device
    key, over the format's domain and the manifest (never a checkpoint's MAC)."""
    return hmac.new(key, fm.TAG_DOMAIN + manifest, hashlib.sha256).digest()


def newest(folder: Path, board: str) -> Bundle | None:
    """The newest release for `board` among the bundle files in `folder`
    (as `baulk firmware bundle` names them), each read and checked whole;
    a file that is not a good bundle of that board is passed over."""
    best: Bundle | None = None
    try:
        paths = sorted(folder.glob(f"baulk-*-{board}{SUFFIX}"))
    except OSError:
        return None
    for path in paths:
        try:
            b = read(path.read_bytes())
        except (OSError, BundleError):
            continue
        if b.board == board and (best is None or b.version > best.version):
            best = b
    return best


# What a table says it runs, in its hello's `fw`: the build stamps it into
# firmware/app.py's FIRMWARE (host/cli/firmware.py), so the release's version
# and its rules engine's are declared once (the package's version,
# firmware/manifest.py ENGINE).  A firmware from before says "baulk-fw 0.1":
# no engine, which a host cannot check.  Kept within FIRMWARE_MOST bytes: as
# "baulk-fw 0.1.0 engine 1" (23) it cost the match 464 B more at its peak
# (bench/firmware_bench.py, English; 14 bytes cost nothing), of 48 to spare.
FIRMWARE_TEXT = "baulk {version} e{engine}"
FIRMWARE_MOST = 16
_ENGINE_SAID = re.compile(r"^baulk (\S+) e([0-9]{1,6})$")


def firmware_text(version: tuple[int, int, int], engine: int) -> str:
    text = FIRMWARE_TEXT.format(version=".".join(map(str, version)), engine=engine)
    if len(text.encode()) > FIRMWARE_MOST:
        raise BundleError(f"{text!r}: a firmware's name is at most {FIRMWARE_MOST} bytes")
    return text


def engine_of(fw: str | None) -> int | None:
    """The rules engine's version a hello's `fw` names, or None (not said)."""
    m = _ENGINE_SAID.match(fw or "")
    return int(m.group(2)) if m else None
