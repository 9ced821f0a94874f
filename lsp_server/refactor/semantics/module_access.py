"""``alias.name`` where ``alias`` can only be the module that defines ``name``.

rope cannot resolve a module alias bound in one function through ``global`` and used in
another (python-dateutil's ``tzstr``: ``global parser; from dateutil.parser import _parser
as parser`` in ``__init__``, ``parser._parsetz(...)`` elsewhere), and calls such a use
"unsure". When every binding of the alias in the file imports the defining module, the
use is certain.
"""

from __future__ import annotations

import ast
import re
from collections import OrderedDict
from typing import Any

from rope.base import libutils

_ALIAS_BEFORE_DOT = re.compile(r"([A-Za-z_]\w*)\s*\.\s*$")


def module_of_import(node: ast.Import | ast.ImportFrom, alias: ast.alias, here: str) -> str:
    if isinstance(node, ast.Import):
        return alias.name if alias.asname else ""  # `import a.b` binds `a`, not `a.b`
    base = node.module or ""
    if node.level:
        parts = here.split(".")
        parts = parts[: len(parts) - node.level] if len(parts) >= node.level else []
        base = ".".join([*parts, base] if base else parts)
    return f"{base}.{alias.name}" if base else alias.name


def _every_binding(tree: ast.Module, here: str) -> dict[str, list[str]]:
    """Name -> what each of its bindings in the file binds: a module's dotted name for an
    import of a module, ``""`` for anything else (an assignment, a parameter, ...)."""
    found: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                found.setdefault(bound, []).append(module_of_import(node, alias, here))
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.setdefault(node.id, []).append("")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.setdefault(node.name, []).append("")
        elif isinstance(node, ast.arg):
            found.setdefault(node.arg, []).append("")
    return found


_BINDINGS: OrderedDict[tuple[int, str], tuple[ast.Module, dict[str, list[str]]]] = OrderedDict()
"""The bindings of the last trees asked about (a rename asks once per unsure occurrence,
and the renames after it ask about the same, unchanged, trees)."""
_BINDINGS_KEPT = 64


def _bindings(tree: ast.Module, name: str, here: str) -> list[str]:
    key = (id(tree), here)
    kept = _BINDINGS.get(key)
    if kept is None or kept[0] is not tree:  # the tree itself is kept: its id is not reused
        kept = _BINDINGS[key] = (tree, _every_binding(tree, here))
        if len(_BINDINGS) > _BINDINGS_KEPT:
            _BINDINGS.popitem(last=False)
    else:
        _BINDINGS.move_to_end(key)
    return kept[1].get(name, [])


def is_module_attribute(
    project: Any, pyname: Any, resource: Any, text: str, tree: ast.Module, start: int
) -> bool:
    """Whether the occurrence at ``start`` is ``alias.name`` with every binding of
    ``alias`` in the file an import of the module defining ``pyname``."""
    found = _ALIAS_BEFORE_DOT.search(text[max(0, start - 200) : start])
    if found is None:
        return False
    module, _ = pyname.get_definition_location()
    defining = module.get_resource() if module is not None else None
    if defining is None:
        return False
    here = libutils.modname(resource)
    if resource.name == "__init__.py":
        here += ".__init__"  # relative imports count from the package itself
    bound = _bindings(tree, found.group(1), here)
    return bool(bound) and all(b == libutils.modname(defining) for b in bound)
