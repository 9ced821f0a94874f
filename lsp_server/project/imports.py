"""Which module a Python import names, for the project's own modules: the dotted names a
file may be imported by (src layouts, plain folders on ``sys.path``), where a relative
import starts, and every ``from <module> import <name>`` of a name across the project.
Plain ``ast``; paths are root-relative POSIX strings."""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator, Mapping

from lsp_server.project.text import parse_python


def module_parts(path: str) -> list[str]:
    """The module at ``path`` as parts (``pkg/m.py`` -> ``["pkg", "m"]``; a package
    ``__init__.py`` is its folder)."""
    parts = path[: -len(".py")].split("/") if path.endswith(".py") else path.split("/")
    if parts and parts[-1] == "__init__":
        parts.pop()
    return parts


def module_names(path: str, files: Collection[str]) -> set[str]:
    """The dotted names the module at root-relative ``path`` may be imported by: its whole
    path, and the part below any folder that is not a package (``src/``, a ``tests/``
    folder pytest puts on ``sys.path``)."""
    parts = module_parts(path)
    return {
        ".".join(parts[i:])
        for i in range(len(parts))
        if i == 0 or "/".join(parts[:i]) + "/__init__.py" not in files
    }


def relative_base(importer: str, level: int) -> list[str]:
    """The package folder (as parts) a ``level``-dot relative import in ``importer`` starts
    from."""
    folder = importer.split("/")[:-1]
    return folder[: len(folder) - (level - 1)] if level - 1 <= len(folder) else []


def imported_module(node: ast.ImportFrom, importer: str) -> tuple[list[str], bool]:
    """The module a ``from ... import`` in ``importer`` imports from, as parts, and whether
    the import is relative (the parts are then a path from the root)."""
    if node.level:
        base = relative_base(importer, node.level)
        return base + (node.module.split(".") if node.module else []), True
    return (node.module or "").split("."), False


def names_module(module: list[str], relative: bool, parts: list[str], dotted: set[str]) -> bool:
    """Is ``module`` (from ``imported_module``) the module whose path is ``parts`` and
    whose dotted names are ``dotted``?"""
    return module == parts if relative else ".".join(module) in dotted


def mentioning_trees(
    files: Mapping[str, str], path: str, name: str
) -> Iterator[tuple[str, ast.Module]]:
    """(path, tree) of the other Python ``files`` that may refer to ``name`` of the module
    at ``path``, in path order: only those whose text mentions both are parsed."""
    stem = module_parts(path)[-1]
    for other in sorted(files):
        text = files[other]
        if other == path or not other.endswith(".py") or stem not in text or name not in text:
            continue
        try:
            yield other, parse_python(text)
        except (SyntaxError, ValueError):
            continue


def from_imports(
    files: Mapping[str, str], path: str, name: str, known: Collection[str] | None = None
) -> Iterator[tuple[str, ast.ImportFrom]]:
    """(importer, statement) of every ``from <module at path> import name`` (aliased or
    relative too, at any depth) in the other ``files``, in path order. ``known`` lists the
    project's Python files (default: ``files``), to tell packages from plain folders."""
    parts = module_parts(path)
    if not parts or not name:
        return
    dotted = module_names(path, files if known is None else known)
    for other, tree in mentioning_trees(files, path, name):
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.ImportFrom)
                and names_module(*imported_module(node, other), parts, dotted)
                and any(alias.name == name for alias in node.names)
            ):
                yield other, node


def client_imports(files: Mapping[str, str], path: str, name: str) -> Iterator[tuple[str, int]]:
    """(path, line) of every ``from <module at path> import name`` (aliased or relative
    too) in the other ``files``, in path order."""
    for other, node in from_imports(files, path, name):
        yield other, node.lineno
