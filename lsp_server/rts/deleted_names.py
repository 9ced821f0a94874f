"""Names a module deletes at its top level: gone from its namespace once it is imported,
so no lookup by a computed name after the import can find them.

A test that looks names up by string (``vars(module)``, ``getattr(module, name)``...)
depends on every binding of the modules it depends on (``rts.binding_reads``). toolz's
``curried/operator.py`` binds ``IGNORE`` for the statement that fills its namespace and
then runs ``del IGNORE``: 19 tests that list or introspect namespaces depended on it, and a
name added to the set (688a812) ran them. Such a binding is seen only by the code that
runs while it is bound, during the import: the statements reading it (their reads are the
module unit's or their binding's) and what they call.

A name counts when a top-level ``del`` removes it unconditionally and no later top-level
statement may bind it again, and when no top-level statement from its first binding to
that ``del`` may look it up by a computed name (it spells one of ``lookups.DYNAMIC_NAMES``,
``locals`` or ``exec``/``eval``), but for ``locals().update(...)``/``globals().update(...)``
(a write) and ``vars(m)``/``dir(m)`` of a module ``m`` the file imports from the standard
library. A statement between that calls project code which looks the module's namespace up
by string is the import's, seen by every importer (``rts.import_footprints``).
"""

from __future__ import annotations

import ast

from lsp_server.rts.ast_walk import of_types
from lsp_server.rts.bound_names import maybe_bound
from lsp_server.rts.lookups import DYNAMIC_NAMES
from lsp_server.rts.stdlib_imports import STDLIB_MODULES

_LOOKUPS = DYNAMIC_NAMES | {"locals", "exec", "eval"}
_SHADOWABLE = frozenset(["locals", "globals", "vars", "dir"])
"""Builtins whose module-level rebinding makes every later statement suspect."""


def deleted_names(tree: ast.Module) -> frozenset[str]:
    """The names ``tree``'s top level deletes for good, with no lookup by string while they
    were bound (see the module docstring)."""
    first: dict[str, int] = {}
    gone: dict[str, int] = {}
    looked: list[int] = []
    stdlib: dict[str, str] = {}
    every: set[str] = set()
    for at, stmt in enumerate(tree.body):
        if _may_look_up(stmt, stdlib) or every & _SHADOWABLE:
            looked.append(at)
        bound = maybe_bound(stmt)
        every |= bound
        for name in bound:
            gone.pop(name, None)
            first.setdefault(name, at)
            stdlib.pop(name, None)
        if isinstance(stmt, ast.Delete) and all(isinstance(t, ast.Name) for t in stmt.targets):
            gone.update((t.id, at) for t in stmt.targets if isinstance(t, ast.Name))
        if isinstance(stmt, ast.Import):
            stdlib.update(
                (a.name, a.name) for a in stmt.names if not a.asname and a.name in STDLIB_MODULES
            )
    return frozenset(
        name
        for name, at in gone.items()
        if name in first and not any(first[name] <= seen <= at for seen in looked)
    )


def _may_look_up(stmt: ast.stmt, stdlib: dict[str, str]) -> bool:
    """Whether ``stmt`` spells a lookup by a computed name other than the harmless ones."""
    harmless: set[int] = set()
    lookups: list[int] = []  # one walk: the statements of a whole file pass through here
    for node in of_types(stmt, (ast.Call, ast.Name, ast.Attribute)):
        if isinstance(node, ast.Call):
            if _namespace_write(node):
                harmless.add(id(node.func.value.func))  # type: ignore[attr-defined]
            elif _stdlib_listing(node, stdlib):
                harmless.add(id(node.func))
            continue
        name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
        if name in _LOOKUPS:
            lookups.append(id(node))
    return not harmless.issuperset(lookups)


def _namespace_write(call: ast.Call) -> bool:
    """``locals().update(...)`` or ``globals().update(...)``."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "update"):
        return False
    inner = func.value
    return (
        isinstance(inner, ast.Call)
        and isinstance(inner.func, ast.Name)
        and inner.func.id in ("locals", "globals")
        and not inner.args
    )


def _stdlib_listing(call: ast.Call, stdlib: dict[str, str]) -> bool:
    """``vars(m)`` or ``dir(m)`` of a standard-library module the file imported."""
    return (
        isinstance(call.func, ast.Name)
        and call.func.id in ("vars", "dir")
        and len(call.args) == 1
        and isinstance(call.args[0], ast.Name)
        and call.args[0].id in stdlib
    )
