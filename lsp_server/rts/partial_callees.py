"""``functools.partial(C, ...)`` run at import: it fails only when ``C`` is not callable.

itsdangerous's ``test_serializer.py`` builds a fixture's parameters in its decorator,
``@pytest.fixture(params=(Serializer, partial(Serializer, serializer=pickle)))``. A call may
raise (``rts.import_raise``), so the class statement holding the fixture was a risk of the
module, and every importer depended on the whole binding of ``Serializer`` (a ``from``
import of a project module), closed over what its statement reads: its base's TypeVar.
4dffa19 respelled that TypeVar's bound, and every test of ``test_timed.py``, which imports
the module for its ``TestSerializer``, ran: 39 signer tests that never make a serializer
(pytest-testmon: none).

``partial`` checks one thing of its arguments at once: that the first is callable (it only
holds the others; a keyword's name is a string). A class is always callable. So such a call
with arguments that cannot raise is no risk (``held_values``) when ``C`` is bound by a
top-level ``from`` import alone (``callable_imports``) and the module it imports binds ``C``
by one undecorated class statement and nothing else: its kind unit ``C.<class>``
(``needed_attributes.class_kinds``) holds just that class's marker. The names such calls
take are ``FileUnits.partial_callees``; ``rts.callee_classes`` tells at recording which of
them are such classes. The parameters themselves are the fixture's header: its users read
them.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from typing import TYPE_CHECKING

from lsp_server.rts.from_imports import from_import, singly_imported
from lsp_server.rts.stdlib_imports import STDLIB
from lsp_server.rts.stdlib_values import stdlib_object_of

if TYPE_CHECKING:
    from lsp_server.rts.import_scope import Scope

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def callable_imports(tree: ast.Module, stdlib: frozenset[str]) -> frozenset[str]:
    """Names a top-level ``from`` import of a module outside the standard library binds
    that nothing else in the module binds (``from_imports.singly_imported``)."""
    imported = {
        bound
        for stmt in tree.body
        if (found := from_import(stmt)) is not None
        and (found.level or found.module.split(".")[0] not in stdlib)
        for bound, _ in found.names
    }
    return frozenset(imported & singly_imported(tree)) if imported else frozenset()


def held_values(node: ast.expr, scope: Scope, bound: set[str]) -> list[ast.expr] | None:
    """The arguments ``functools.partial`` holds when ``node`` calls it with one of
    ``scope.callable_imports``, bound before (in ``bound``), as its callable; None for any
    other expression (a ``*`` or ``**`` argument may raise as it is unpacked)."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    callee, *held = node.args
    if not (isinstance(callee, ast.Name) and callee.id in scope.callable_imports):
        return None
    if callee.id not in bound or any(isinstance(a, ast.Starred) for a in held):
        return None
    if any(k.arg is None for k in node.keywords):
        return None
    if stdlib_object_of(node.func, scope) is not functools.partial:
        return None
    return [*held, *(k.value for k in node.keywords)]


def partial_callees(tree: ast.Module) -> frozenset[str]:
    """The ``callable_imports`` a call spelled ``partial(...)`` (or by a name ``functools``'s
    ``partial`` is imported as) takes as its first argument in code that runs at import
    (function and lambda bodies left out): a superset of the names ``held_values`` judged
    callable."""
    candidates = callable_imports(tree, STDLIB)
    if not candidates:
        return frozenset()
    spellings = {"partial"} | {
        alias.asname
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "functools"
        for alias in node.names
        if alias.name == "partial" and alias.asname
    }
    found = set()
    for node in _import_time_nodes(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name):
            func = node.func
            spelled = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if spelled in spellings and node.args[0].id in candidates:
                found.add(node.args[0].id)
    return frozenset(found)


def callee_markers(callees: frozenset[str]) -> list[str]:
    """The module unit's marker of the names its ``partial`` calls take: the proof that
    such a call cannot raise holds for the callees recorded (``rts.callee_classes``), so
    another one selects every importer."""
    return [f"<partial:{','.join(sorted(callees))}>"] if callees else []


def _import_time_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``tree`` but those of function and lambda bodies."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _DEFS):
            stack.extend([*node.decorator_list, node.args])
            stack.extend([node.returns] if node.returns is not None else [])
        elif isinstance(node, ast.Lambda):
            stack.append(node.args)
        else:
            stack.extend(ast.iter_child_nodes(node))
