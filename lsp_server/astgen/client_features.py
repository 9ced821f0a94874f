"""How the other modules of a project refer to a global a move takes away: the static
features of a move's clients (``from m import f``, aliased, relative, through a package
``__init__``, ``__all__``), and the imports themselves for the trust-but-verify check."""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping

from lsp_server.project.imports import (
    client_imports,
    imported_module,
    mentioning_trees,
    module_names,
    module_parts,
    names_module,
)

__all__ = [
    "client_features",
    "client_imports",
    "layout_features",
    "lists_in_all",
    "module_client_features",
    "module_names",
]


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
    if not name or not module_parts(path):
        return frozenset()
    parts, dotted = module_parts(path), module_names(path, files)
    found: set[str] = set()
    for other, tree in mentioning_trees(files, path, name):
        found |= _client(tree, other, parts, dotted, name)
    return frozenset(found or {"client:none"}) | layout_features(path, files)


def layout_features(path: str, files: Collection[str]) -> frozenset[str]:
    """``layout:src`` when the module sits below a folder that is not a package (``src/``,
    a tests folder): it is imported by a shorter name than its path."""
    return frozenset({"layout:src"}) if len(module_names(path, files)) > 1 else frozenset()


def module_client_features(files: Mapping[str, str], path: str) -> frozenset[str]:
    """How the other modules of a project import the module at ``path``, the features of
    renaming or moving it: ``module:import`` (``import pkg.m``), ``module:import-as``,
    ``module:from-package`` (``from pkg import m``), ``module:from-import`` (``from pkg.m
    import f``), ``module:relative`` (any of these relative), ``module:reexport`` (a package
    ``__init__`` imports from it); ``module:none`` when no other module does; plus
    ``layout_features``."""
    parts, dotted = module_parts(path), module_names(path, files)
    if not parts:
        return frozenset()
    found: set[str] = set()
    for other, tree in mentioning_trees(files, path, parts[-1]):
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in dotted:
                        found.add("module:import-as" if alias.asname else "module:import")
            elif isinstance(node, ast.ImportFrom):
                module, relative = imported_module(node, other)
                if names_module(module, relative, parts, dotted):
                    found.add("module:relative" if relative else "module:from-import")
                    if other.endswith("__init__.py"):
                        found.add("module:reexport")
                elif any(
                    names_module([*module, a.name], relative, parts, dotted) for a in node.names
                ):
                    found.add("module:relative" if relative else "module:from-package")
    return frozenset(found or {"module:none"}) | layout_features(path, files)


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
            module, relative = imported_module(node, other)
            is_module = names_module(module, relative, parts, dotted)
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
                elif names_module([*module, alias.name], relative, parts, dotted):
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
                    found.add("client:relative-module")
    if imports_name:
        if other.endswith("__init__.py"):
            found.add("client:reexport")
        if lists_in_all(tree, name):
            found.add("client:all")
    return found
