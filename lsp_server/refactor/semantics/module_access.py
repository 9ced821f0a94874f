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


def _bindings(tree: ast.Module, name: str, here: str) -> list[str]:
    """What each binding of ``name`` in the file binds: a module's dotted name for an
    import of a module, ``""`` for anything else (an assignment, a parameter, ...)."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                if bound == name:
                    found.append(module_of_import(node, alias, here))
        elif isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            found.append("")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name:
                found.append("")
        elif isinstance(node, ast.arg) and node.arg == name:
            found.append("")
    return found


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
