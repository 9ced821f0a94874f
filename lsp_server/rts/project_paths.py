"""Which files belong to the project: root-relative paths of the files code and tests
name, without the tool, cache and virtualenv folders below the root."""

from __future__ import annotations

import os
from pathlib import Path

from lsp_server.rts.snapshots import is_python

EXCLUDED_DIRS = frozenset(
    {
        ".reks",
        ".git",
        ".hg",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".hypothesis",  # Hypothesis' example cache changes on every run
        ".tox",
        ".nox",
        ".venv",
        "venv",
        "site-packages",
        "dist-packages",
        "node_modules",
    }
)


class ProjectPaths:
    """Root-relative ``/``-separated paths of files under ``root``, memoized by the name
    Python or pytest gave them (a code object's ``co_filename``, an opened path)."""

    def __init__(self, root: Path) -> None:
        self._prefix = str(root) + os.sep
        self._cache: dict[str, str | None] = {}

    def rel(self, filename: str) -> str | None:
        """The project path of ``filename``, or None outside the project (or in an excluded
        folder)."""
        cached = self._cache.get(filename, "")
        if cached != "":
            return cached
        rel: str | None = None
        absolute = os.path.abspath(filename)
        if not absolute.startswith(self._prefix):
            real = os.path.realpath(absolute)
            absolute = real if real.startswith(self._prefix) else ""
        if absolute:
            parts = absolute[len(self._prefix) :].split(os.sep)
            if not EXCLUDED_DIRS.intersection(parts):
                rel = "/".join(parts)
        self._cache[filename] = rel
        return rel

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
