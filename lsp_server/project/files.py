"""Which files are project code: one exclusion list for every feature and editor client."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

STORE_DIR = ".reks"
"""The folder of everything reks keeps about a project (the dependency store, caches).
Defined here, below every feature, so that a pytest worker can name it without importing
the store (its imports cost every worker start about 30 ms)."""

EXCLUDED_DIRS = frozenset(
    {
        STORE_DIR,
        ".git",
        ".hg",
        ".svn",
        "_svn",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".hypothesis",  # Hypothesis' example cache changes on every run
        ".ropeproject",
        ".tox",
        ".nox",
        ".venv",
        "venv",
        "site-packages",
        "dist-packages",
        "node_modules",
    }
)
"""Folder names that are never project code, at any depth."""

ROOT_ONLY_EXCLUDED_DIRS = frozenset({"build", "dist", "env"})
"""Folder names that are tool output only directly below the root: a package may well be
called ``build`` or ``env`` deeper down (``src/build/``)."""

EXCLUDED_DIR_SUFFIXES = (".egg-info",)
"""Folder name endings that are never project code (build metadata), at any depth."""

PYTHON_SUFFIXES = (".py", ".pyw")

MAX_ANALYSED_CHARS = 2_000_000
"""A document larger than this (about 2 MB of source, 50,000 lines) is not analysed in the
editor: parsing it on every request would hold up every other request and take gigabytes."""


def is_python(path: str) -> bool:
    return path.endswith(PYTHON_SUFFIXES)


TEST_DIRS = frozenset({"tests", "test", "testing"})


def is_test_path(rel: str) -> bool:
    """Is the root-relative ``/``-separated path a test module, a conftest or a file under a
    test folder (pytest's default names)? Such files are the tests, never the code under test."""
    *folders, name = rel.split("/")
    if name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py"):
        return True
    return any(folder in TEST_DIRS for folder in folders)


def is_excluded_dir(name: str, at_root: bool = False) -> bool:
    """Is a folder called ``name`` left out (``at_root``: directly below the root)?"""
    if name in EXCLUDED_DIRS or name.endswith(EXCLUDED_DIR_SUFFIXES):
        return True
    return at_root and name in ROOT_ONLY_EXCLUDED_DIRS


def is_excluded_path(parts: list[str] | tuple[str, ...]) -> bool:
    """Is a root-relative path (its folder parts and file name) outside project code?"""
    folders = parts[:-1]
    return any(is_excluded_dir(name, at_root=index == 0) for index, name in enumerate(folders))


def exclusion_globs() -> list[str]:
    """The exclusion list as workspace globs, for editor clients (file watchers, searches)."""
    anywhere = [f"**/{name}/**" for name in sorted(EXCLUDED_DIRS)]
    anywhere += [f"**/*{suffix}/**" for suffix in EXCLUDED_DIR_SUFFIXES]
    return anywhere + [f"{name}/**" for name in sorted(ROOT_ONLY_EXCLUDED_DIRS)]


def source_dirs(dirpath: str, dirnames: list[str], at_root: bool) -> list[str]:
    """The folders of ``dirnames`` (below ``dirpath``) that may hold project source: not
    excluded, not hidden, not a virtual environment under any name."""
    return sorted(
        d
        for d in dirnames
        if not is_excluded_dir(d, at_root)
        and not d.startswith(".")
        and not os.path.exists(os.path.join(dirpath, d, "pyvenv.cfg"))
    )


def walk_files(top: Path, root: Path | None = None) -> Iterator[Path]:
    """Every file below ``top`` in project source folders, in a stable order (``root``: the
    project root, where the root-only exclusions apply; ``top`` by default)."""
    base = str(root if root is not None else top)
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = source_dirs(dirpath, dirnames, dirpath == base)
        for name in sorted(filenames):
            yield Path(dirpath, name)


def python_files(root: Path) -> Iterator[Path]:
    """Every Python file of the project below ``root``, in a stable order."""
    return (path for path in walk_files(Path(root)) if is_python(path.name))


def copy_ignore(root: Path) -> Callable[[str, list[str]], set[str]]:
    """A ``shutil.copytree`` ``ignore`` that leaves out what is not project code."""
    base = os.path.abspath(root)

    def ignore(dirpath: str, names: list[str]) -> set[str]:
        at_root = os.path.abspath(dirpath) == base
        return {n for n in names if is_excluded_dir(n, at_root) or n.endswith(".pyc")}

    return ignore


class ProjectPaths:
    """Root-relative ``/``-separated paths of files under ``root``, memoized by the name
    Python or pytest gave them (a code object's ``co_filename``, an opened path)."""

    def __init__(self, root: Path) -> None:
        self._prefix = str(root) + os.sep
        self._cache: dict[str, str | None] = {}
        self._real_folders: dict[str, str] = {}

    def rel(self, filename: str) -> str | None:
        """The project path of ``filename``, or None outside the project (or in an excluded
        folder)."""
        cached = self._cache.get(filename, "")
        if cached != "":
            return cached
        rel: str | None = None
        absolute = os.path.abspath(filename)
        if not absolute.startswith(self._prefix):
            real = self._realpath(absolute)
            absolute = real if real.startswith(self._prefix) else ""
        if absolute:
            parts = absolute[len(self._prefix) :].split(os.sep)
            if not is_excluded_path(parts):
                rel = "/".join(parts)
        self._cache[filename] = rel
        return rel

    def _realpath(self, absolute: str) -> str:
        # Thousands of library files outside the project are asked about once each when
        # tracing starts; resolving each directory once and each file by one lstat is
        # what ``os.path.realpath`` gives, at a fraction of its cost per file.
        folder, name = os.path.split(absolute)
        real_folder = self._real_folders.get(folder)
        if real_folder is None:
            real_folder = self._real_folders[folder] = os.path.realpath(folder)
        if os.path.islink(absolute):
            return os.path.realpath(absolute)
        return os.path.join(real_folder, name)

    def python_rel(self, filename: str) -> str | None:
        """The project path of ``filename`` (a code object's) if it is one of the project's
        Python files, else None (``<string>`` and the like included)."""
        if filename[:1] == "<":
            return None
        rel = self.rel(filename)
        return rel if rel is not None and is_python(rel) else None

    def is_python_file(self, filename: str) -> bool:
        """Is ``filename`` (a code object's) one of the project's Python files?"""
        return self.python_rel(filename) is not None

    def is_test_file(self, filename: str) -> bool:
        """Is ``filename`` one of the project's test modules, conftests or files under a
        test folder (``is_test_path``)?"""
        rel = self.rel(filename)
        return rel is not None and is_test_path(rel)


def imported_project_files(
    root: str, resolve: Callable[[str], str] = os.path.realpath
) -> list[str]:
    """The files under ``root`` (relative to it) this process has imported as modules;
    ``resolve``: their real paths (a worker's, cached: ``extreme.real_paths``)."""
    prefix = root + os.sep
    found = set()
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if isinstance(name, str) and (real := resolve(name)).startswith(prefix):
            found.add(real[len(prefix) :].replace(os.sep, "/"))
    return sorted(found)
