"""How the other modules of a project refer to a global a move takes away: the static
features of a move's clients (``from m import f``, aliased, relative, through a package
``__init__``, ``__all__``), and the imports themselves for the trust-but-verify check."""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator, Mapping


def _module_parts(path: str) -> list[str]:
    parts = path[: -len(".py")].split("/") if path.endswith(".py") else path.split("/")
    if parts and parts[-1] == "__init__":
        parts.pop()
    return parts


def module_names(path: str, files: Collection[str]) -> set[str]:
    """The dotted names the module at root-relative ``path`` may be imported by: its whole
    path, and the part below any folder that is not a package (``src/``, a ``tests/``
    folder pytest puts on ``sys.path``)."""
    parts = _module_parts(path)
    return {
        ".".join(parts[i:])
        for i in range(len(parts))
        if i == 0 or "/".join(parts[:i]) + "/__init__.py" not in files
    }


def _relative_base(importer: str, level: int) -> list[str]:
    """The package folder (as parts) a ``level``-dot relative import in ``importer`` starts
    from."""
    folder = importer.split("/")[:-1]
    return folder[: len(folder) - (level - 1)] if level - 1 <= len(folder) else []


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def lists_in_all(tree: ast.Module, name: str) -> bool:
    """Does a module-level ``__all__`` assignment (plain, augmented, annotated) spell
    ``name``? (rope renames code, not the strings of ``__all__``.)"""
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, (ast.AugAssign, ast.AnnAssign))
            else []
        )
        value = getattr(node, "value", None)
        if (
            value is not None
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)
            and any(isinstance(c, ast.Constant) and c.value == name for c in ast.walk(value))
        ):
            return True
    return False


def client_features(files: Mapping[str, str], path: str, name: str) -> frozenset[str]:
    """How the other modules of a project (``files``: root-relative path -> text) refer to
    global ``name`` of the module at ``path``, the features of moving it:

    ``client:from-import`` (``from m import f``), ``client:from-import-as`` (``from m import
    f as g``), ``client:relative-import`` (``from .m import f``, ``from . import m``),
    ``client:module-attribute`` (``import m`` then ``m.f``), ``client:star-import``,
    ``client:reexport`` (a package ``__init__`` imports it), ``client:all`` (a client lists
    it in ``__all__``); ``client:none`` when no other module does. Only files whose text
    mentions the module's own name are parsed."""
    if not name or not _module_parts(path):
        return frozenset()
    parts, dotted = _module_parts(path), module_names(path, files)
    found: set[str] = set()
    for other, tree in _client_trees(files, path, name):
        found |= _client(tree, other, parts, dotted, name)
    return frozenset(found or {"client:none"})


def _client_trees(
    files: Mapping[str, str], path: str, name: str
) -> Iterator[tuple[str, ast.Module]]:
    """(path, tree) of the other Python ``files`` that may refer to ``name`` of the module
    at ``path``, in path order: only those whose text mentions both are parsed."""
    stem = _module_parts(path)[-1]
    for other in sorted(files):
        text = files[other]
        if other == path or not other.endswith(".py") or stem not in text or name not in text:
            continue
        try:
            yield other, ast.parse(text)
        except (SyntaxError, ValueError):
            continue


def _imported_module(node: ast.ImportFrom, importer: str) -> tuple[list[str], bool]:
    """The module a ``from ... import`` in ``importer`` imports from, as parts, and whether
    the import is relative (the parts are then a path from the root)."""
    if node.level:
        base = _relative_base(importer, node.level)
        return base + (node.module.split(".") if node.module else []), True
    return (node.module or "").split("."), False


def client_imports(files: Mapping[str, str], path: str, name: str) -> Iterator[tuple[str, int]]:
    """(path, line) of every ``from <module at path> import name`` (aliased or relative
    too) in the other ``files``, in path order."""
    parts = _module_parts(path)
    if not parts or not name:
        return
    dotted = module_names(path, files)
    for other, tree in _client_trees(files, path, name):
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.ImportFrom)
                and _names_module(*_imported_module(node, other), parts, dotted)
                and any(alias.name == name for alias in node.names)
            ):
                yield other, node.lineno


def _names_module(module: list[str], relative: bool, parts: list[str], dotted: set[str]) -> bool:
    """Is ``module`` (from ``_imported_module``) the module whose path is ``parts`` and
    whose dotted names are ``dotted``?"""
    return module == parts if relative else ".".join(module) in dotted


def _client(
    tree: ast.Module, other: str, parts: list[str], dotted: set[str], name: str
) -> set[str]:
    found: set[str] = set()
    modules: set[str] = set()  # local dotted names bound to the module
    relative_modules: set[str] = set()  # ... by a relative import
    imports_name = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in dotted:
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.ImportFrom):
            module, relative = _imported_module(node, other)
            is_module = _names_module(module, relative, parts, dotted)
            for alias in node.names:
                if is_module and alias.name == name:
                    imports_name = True
                    if relative:
                        found.add("client:relative-import")
                        if alias.asname and alias.asname != name:
                            found.add("client:from-import-as")
                    elif alias.asname and alias.asname != name:
                        found.add("client:from-import-as")
                    else:
                        found.add("client:from-import")
                elif is_module and alias.name == "*":
                    imports_name = True
                    found.add("client:star-import")
                elif _names_module([*module, alias.name], relative, parts, dotted):
                    modules.add(alias.asname or alias.name)
                    if relative:
                        relative_modules.add(alias.asname or alias.name)
    if modules:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == name:
                bound = _dotted(node.value)
                if bound in modules:
                    found.add("client:module-attribute")
                if bound in relative_modules:
                    found.add("client:relative-import")
    if imports_name:
        if other.endswith("__init__.py"):
            found.add("client:reexport")
        if lists_in_all(tree, name):
            found.add("client:all")
    return found
