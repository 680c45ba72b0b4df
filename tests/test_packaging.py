"""The install that editors and type checkers read: every package listed in
pyproject.toml, and every module importable by its one name from any folder.

The editable install is setuptools' strict mode (Makefile, "setup"): it links
the listed packages' files into build/__editable__.*/baulk/, where Python,
mypy and pyright all find ``baulk.*``.  A folder left out of the list would
import at run time through nothing and be missing for all three."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"baulk.firmware": "firmware", "baulk.protocol": "protocol", "baulk.host": "host"}


def pyproject() -> dict:  # type: ignore[type-arg]
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def packages_on_disk() -> list[str]:
    found = []
    for name, folder in FOLDERS.items():
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            if "__pycache__" in init.parts:
                continue
            rel = init.parent.relative_to(ROOT / folder).parts
            found.append(".".join([name, *rel]))
    return sorted(found)


def test_every_package_folder_is_listed() -> None:
    setuptools = pyproject()["tool"]["setuptools"]
    assert sorted(setuptools["packages"]) == packages_on_disk()
    assert setuptools["package-dir"] == FOLDERS


def test_the_type_checkers_read_the_packages_by_name() -> None:
    mypy = pyproject()["tool"]["mypy"]
    assert mypy["packages"] == list(FOLDERS)
    assert "files" not in mypy  # a file path would give a module its folder's name


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
@pytest.mark.parametrize("module", ["baulk.host.venue.daemon", "baulk.host.cli.main"])
def test_a_module_imports_by_its_name_from_any_folder(module: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", f"import {module}, sys; print(sys.modules['{module}'].__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # Reached through the link tree, and the link is to the checkout's file.
    path = Path(done.stdout.strip())
    assert "__editable__" in str(path), path
    assert path.resolve().is_relative_to(ROOT / "host")


def test_every_module_of_the_checkout_is_in_the_install() -> None:
    # What a new file needs: `make setup` (make check runs it) links it.
    import baulk.host

    tree = Path(baulk.host.__file__).parents[1]  # build/__editable__.*/baulk
    missing = [
        str(path.relative_to(ROOT))
        for folder in FOLDERS.values()
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "__pycache__" not in path.parts
        and not (tree / folder / path.relative_to(ROOT / folder)).exists()
    ]
    assert missing == [], f"not linked into the install (run make setup): {missing}"
