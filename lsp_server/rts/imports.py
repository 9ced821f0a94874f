"""The static import closure of a Python file, restricted to files under the project root.

A test depends on the module part of everything its file imports (module-level code runs
at collection, before the tracer sees the test). Resolution is syntactic: every
``import`` statement anywhere in the file counts (also inside functions and ``try``), and
a name is looked up as ``base/a/b.py`` or ``base/a/b/__init__.py`` under a few bases
(the root, ``src/``, the test's rootdir-less package base, ``sys.path`` entries under the
root). Over-approximation only costs extra runs; a missed import would cost safety.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from lsp_server.rts.spans import ImportStatement
from lsp_server.rts.units import SourceError, path_units


def _imports_on_disk(root: Path, rel: str) -> list[ImportStatement] | None:
    try:
        return path_units(root, Path(rel)).imports
    except (OSError, SourceError, ValueError):
        return None


class ImportResolver:
    """``imports_of(rel)``: the import statements of a file, None if it cannot be read or
    parsed (default: read and parse it; the recorder passes the units it parsed anyway)."""

    def __init__(
        self,
        root: Path,
        imports_of: Callable[[str], list[ImportStatement] | None] | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        self._imports_of = imports_of or (lambda rel: _imports_on_disk(self.root, rel))
        self._direct: dict[str, set[str]] = {}
        self._closure: dict[str, frozenset[str]] = {}
        bases = ["", "src"]
        for entry in sys.path:
            try:
                rel = Path(entry).resolve().relative_to(self.root).as_posix()
            except (ValueError, OSError):
                continue
            bases.append("" if rel == "." else rel)
        self._bases = list(dict.fromkeys(bases))

    def _exists(self, rel: str) -> bool:
        return os.path.isfile(os.path.join(self.root, rel))

    def _module_files(self, base: str, dotted: str) -> list[str]:
        """Files importing ``dotted`` from ``base`` runs: each package ``__init__`` and the
        module itself; empty when the top package is not under ``base``."""
        parts = dotted.split(".")
        found: list[str] = []
        for i in range(1, len(parts) + 1):
            stem = PurePosixPath(base, *parts[:i]).as_posix() if base else "/".join(parts[:i])
            init = f"{stem}/__init__.py"
            if self._exists(init):
                found.append(init)
            elif self._exists(f"{stem}.py"):
                found.append(f"{stem}.py")
                break
            elif i == 1 and not os.path.isdir(os.path.join(self.root, stem)):
                return []
        return found

    def _package_base(self, rel: str) -> str:
        """The first ancestor directory that is not a package (pytest's rootdir insertion)."""
        parent = PurePosixPath(rel).parent
        while parent.as_posix() not in ("", ".") and self._exists(f"{parent}/__init__.py"):
            parent = parent.parent
        return "" if parent.as_posix() == "." else parent.as_posix()

    def direct_imports(self, rel: str) -> set[str]:
        if rel in self._direct:
            return self._direct[rel]
        result: set[str] = set()
        self._direct[rel] = result
        statements = self._imports_of(rel)
        if statements is None:
            return result
        bases = self._search_bases(rel, 0)
        for node in statements:
            names: list[tuple[str, str]] = []  # (base, dotted)
            if not node.is_from:
                names = [(b, name) for name in node.names for b in bases]
            elif node.level:
                [base] = self._search_bases(rel, node.level)
                module = node.module or ""
                for name in node.names:
                    names.append((base, f"{module}.{name}" if module else name))
                if module:
                    names.append((base, module))
                elif self._exists(_package_init(base)):
                    result.add(_package_init(base))
            elif node.module:
                for b in bases:
                    names.append((b, node.module))
                    names.extend((b, f"{node.module}.{name}") for name in node.names)
            for base, dotted in names:
                result.update(self._module_files(base, dotted))
        result.discard(rel)
        return result

    def module_file(self, rel: str, module: str, level: int) -> str | None:
        """The file of ``module`` as imported in ``rel`` (``level`` leading dots): its
        ``.py`` or package ``__init__.py``; None when no project file is, or when the
        bases find different ones."""
        found: set[str] = set()
        for base in self._search_bases(rel, level):
            stem = PurePosixPath(base, *module.split(".")).as_posix()
            files = self._module_files(base, module)
            if files and files[-1] in (f"{stem}.py", f"{stem}/__init__.py"):
                found.add(files[-1])
        return found.pop() if len(found) == 1 else None

    def has_submodule(self, package_file: str, name: str) -> bool:
        """Whether the package whose ``__init__.py`` is ``package_file`` holds a submodule
        ``name`` (a plain module holds none)."""
        if not package_file.endswith("/__init__.py") and package_file != "__init__.py":
            return False
        folder = PurePosixPath(package_file).parent
        return self._exists(f"{folder / name}.py") or self._exists(f"{folder / name}/__init__.py")

    def from_origin(self, rel: str, node: ImportStatement) -> str | None:
        """The project file of the module ``from <module> import ...`` in ``rel`` takes
        names from; None for another module, or one not found."""
        if not node.is_from:
            return None
        bases = self._search_bases(rel, node.level)
        if node.level and not node.module:
            init = _package_init(bases[0])
            return init if self._exists(init) else None
        dotted = node.module or ""
        for base in bases:
            files = self._module_files(base, dotted)
            if len(files) == len(dotted.split(".")):  # the module itself, not a parent
                return files[-1]
        return None

    def is_project_module(self, rel: str, dotted: str) -> bool:
        """Whether an absolute import of ``dotted`` in ``rel`` finds a project file."""
        top = dotted.split(".")[0]
        return any(self._module_files(base, top) for base in self._search_bases(rel, 0))

    def _search_bases(self, rel: str, level: int) -> list[str]:
        """Where an import in ``rel`` with ``level`` leading dots looks for modules: the
        package ``level`` folders up, or for an absolute one (0) the import roots and
        ``rel``'s own package base."""
        if not level:
            return [*self._bases, self._package_base(rel)]
        anchor = PurePosixPath(rel).parent
        for _ in range(level - 1):
            anchor = anchor.parent
        return ["" if anchor.as_posix() == "." else anchor.as_posix()]

    def closure(self, rel: str) -> frozenset[str]:
        """Every project file ``rel`` imports, directly or not (``rel`` included)."""
        cached = self._closure.get(rel)
        if cached is not None:
            return cached
        seen = {rel}
        todo = [rel]
        while todo:
            for dep in self.direct_imports(todo.pop()):
                if dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
        result = frozenset(seen)
        self._closure[rel] = result
        return result

    def run_closure(self, rel: str) -> frozenset[str]:
        """The project files whose code may run while ``rel`` runs at import (``rel``
        included): its closure less its own packages and what only they import. Importing
        ``rel`` imports each package above it first, so they are in ``sys.modules`` (run,
        or running further down the stack) and importing one of them again runs nothing;
        a submodule named through one (``import pkg.sub``) is followed still."""
        packages = self.packages_above(rel)
        seen = {rel}
        todo = [rel]
        while todo:
            for dep in self.direct_imports(todo.pop()):
                if dep not in seen and dep not in packages:
                    seen.add(dep)
                    todo.append(dep)
        return frozenset(seen)

    def packages_above(self, rel: str) -> set[str]:
        """The ``__init__.py`` files of the packages holding ``rel``."""
        out: set[str] = set()
        parent = PurePosixPath(rel).parent
        if rel.endswith("/__init__.py"):
            parent = parent.parent
        while parent.as_posix() not in ("", ".") and self._exists(f"{parent}/__init__.py"):
            out.add(f"{parent}/__init__.py")
            parent = parent.parent
        return out

    def conftests(self, rel: str) -> list[str]:
        """conftest.py files from the root down to ``rel``'s directory."""
        out = []
        parent = PurePosixPath(rel).parent
        while True:
            candidate = "conftest.py" if parent.as_posix() == "." else f"{parent}/conftest.py"
            if self._exists(candidate):
                out.append(candidate)
            if parent.as_posix() == ".":
                break
            parent = parent.parent
        return out


def _package_init(base: str) -> str:
    """The ``__init__.py`` of the package folder ``base`` ("": the root)."""
    return f"{base}/__init__.py" if base else "__init__.py"
