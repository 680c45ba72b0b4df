"""mypy, told where the ``baulk`` packages live.

pyproject.toml maps the top-level folders into one package
(``[tool.setuptools.package-dir]``: ``baulk.firmware`` is ``firmware/`` and so
on).  Python finds them through the editable install's import hook, which mypy
does not run, and mypy names a file by the folders above it (``firmware.engine``
instead of ``baulk.firmware.engine``).  This runs mypy with that one mapping
added, read from pyproject.toml, so every module has exactly one name for the
type checker as well:

    .venv/bin/python scripts/typecheck.py                      # host, strict (pyproject)
    .venv/bin/python scripts/typecheck.py --config-file firmware/mypy-device.ini

Arguments are mypy's own.
"""

from __future__ import annotations

import configparser
import sys
import time
import tomllib
from collections.abc import Collection
from pathlib import Path

from mypy import util
from mypy.fscache import FileSystemCache
from mypy.main import process_options, run_build
from mypy.modulefinder import BuildSource

ROOT = Path(__file__).resolve().parents[1]


def package_dirs(root: Path = ROOT) -> dict[str, Path]:
    """``{"baulk.firmware": root/"firmware", ...}`` from pyproject.toml."""
    with open(root / "pyproject.toml", "rb") as f:
        mapping = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    return {name: (root / folder).resolve() for name, folder in mapping.items()}


def module_name(path: Path, dirs: dict[str, Path]) -> str | None:
    """The import name of a source file under one of the mapped folders."""
    path = path.resolve()
    for name, folder in dirs.items():
        if path.is_relative_to(folder):
            parts = [name, *path.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            return ".".join(parts)
    return None


def followed_packages(argv: list[str], dirs: dict[str, Path]) -> dict[str, Path]:
    """The mapped packages whose modules may be followed: all of them, unless
    the config file names some (``[baulk] follow = …``: the device check
    must not walk into host code, which MicroPython's stubs cannot type)."""
    if "--config-file" not in argv:
        return dirs
    config = configparser.ConfigParser()
    config.read(argv[argv.index("--config-file") + 1])
    names = config.get("baulk", "follow", fallback="").split()
    return {n: d for n, d in dirs.items() if n in names} if names else dirs


def skipped_modules(argv: list[str]) -> set[str]:
    """Host-only modules inside a followed package that the device check
    leaves out (``[baulk] skip = …``): nothing on the device imports them,
    and MicroPython's stubs cannot type them."""
    if "--config-file" not in argv:
        return set()
    config = configparser.ConfigParser()
    config.read(argv[argv.index("--config-file") + 1])
    return set(config.get("baulk", "skip", fallback="").split())


def sources_for(
    given: list[BuildSource],
    dirs: dict[str, Path],
    follow: dict[str, Path],
    skip: Collection[str] = (),
) -> list[BuildSource]:
    """The files mypy was given, renamed, and every other module of the
    followed packages as a followed source, so that each import of ``baulk.…``
    resolves to its file.

    mypy is compiled (mypyc), so its module finder cannot be patched; a
    source list is the door it leaves open."""
    out: list[BuildSource] = []
    seen: set[str] = set()
    for source in given:
        name = module_name(Path(source.path), dirs) if source.path else None
        if name is not None:
            source = BuildSource(source.path, name, source.text, None)
        out.append(source)
        seen.add(source.module)
    for folder in follow.values():
        for path in sorted(folder.rglob("*.py")):
            name = module_name(path, dirs)
            if name is not None and name not in seen and name not in skip:
                out.append(BuildSource(str(path), name, None, None, followed=True))
                seen.add(name)
    return out


def main(argv: list[str]) -> int:
    t0 = time.time()
    fscache = FileSystemCache()
    given, options = process_options(argv, fscache=fscache)
    dirs = package_dirs()
    sources = sources_for(given, dirs, followed_packages(argv, dirs), skipped_modules(argv))
    if options.follow_imports == "silent":
        # What mypy does for a module it follows by an import: check it, but
        # report nothing in it.
        for source in sources:
            if source.followed:
                options.per_module_options.setdefault(source.module, {})["ignore_errors"] = True
    _, messages, blockers = run_build(sources, options, fscache, t0, sys.stdout, sys.stderr)
    formatter = util.FancyFormatter(sys.stdout, sys.stderr, options.hide_error_codes)
    n_errors, _notes, n_files = util.count_stats(messages)
    checked = len(given)
    if n_errors:
        print(formatter.format_error(n_errors, n_files, checked, blockers=blockers))
        return 2 if blockers else 1
    print(formatter.format_success(checked))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
