"""Spellings of a lookup name (``rts.lookups.DYNAMIC_NAMES``) that look no name up: an
attribute so named that is a container (jinja's ``environment.globals[name]``,
``template.globals.update(...)``), a namespace's item by a constant key or a store into one,
``name in sys.modules``."""

from __future__ import annotations

import ast

from lsp_server.rts.ast_walk import walk
from lsp_server.rts.bound_names import is_dunder

BY_NAME = frozenset(["getattr", "hasattr", "setattr", "delattr"])
BUILTIN_LOOKUPS = frozenset(["dir", "vars", "globals", *BY_NAME])


def no_lookups(function: ast.AST) -> set[int]:
    """ids of the attributes in ``function`` spelled like a lookup that look nothing up."""
    return (
        _membership_tests(function)
        | _dict_items_by_constant_or_stored(function)
        | _containers_named_like_functions(function)
    )


_NAMESPACES = frozenset(["__dict__", "f_globals", "f_locals", "__globals__"])

# The lookup names that are functions: a function cannot be subscripted.
_LOOKUP_FUNCTIONS = BUILTIN_LOOKUPS | frozenset(
    ["__import__", "import_module", "getmembers", "attrgetter", "methodcaller"]
).union(["getattr_static", "getmembers_static"])


def _containers_named_like_functions(function: ast.AST) -> set[int]:
    """ids of the attributes named like a lookup function that are subscripted (jinja's
    ``context.vars["result"]``, ``environment.globals[name]``), have an attribute read but
    a dunder (a method: ``template.globals.update(...)``) or are the right side of an
    ``in`` test (``name in environment.globals``): a container so named, never the function
    (a function cannot be subscripted or searched, and its attributes are dunders)."""
    found: set[int] = set()
    for item in walk(function):
        if isinstance(item, ast.Subscript) or (
            isinstance(item, ast.Attribute) and not is_dunder(item.attr)
        ):
            found.add(id(item.value))
        elif isinstance(item, ast.Compare):
            found.update(
                id(right)
                for op, right in zip(item.ops, item.comparators, strict=True)
                if isinstance(op, (ast.In, ast.NotIn))
            )
    return {
        id(item)
        for item in walk(function)
        if id(item) in found and isinstance(item, ast.Attribute) and item.attr in _LOOKUP_FUNCTIONS
    }


def _is_name(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _dict_items_by_constant_or_stored(function: ast.AST) -> set[int]:
    """ids of the ``X.__dict__`` in ``X.__dict__[key] = value`` and
    ``X.__dict__.update(...)`` (a store finds no binding: boltons' ``cachedproperty``,
    ``FunctionBuilder.get_func``) and of the namespaces (``__dict__``, a frame's
    ``f_globals``/``f_locals``, a function's ``__globals__``) in ``X.__dict__["name"]`` and
    ``X.f_globals.get("name")`` or ``X.__dict__.setdefault("name", default)``
    (a read of ``name``, which the constant counts as, as in ``getattr(X, "name")``:
    boltons' ``make_sentinel`` reads its caller's ``__name__`` so)."""
    found: set[int] = set()
    for item in walk(function):
        if isinstance(item, ast.Subscript) and isinstance(item.value, ast.Attribute):
            stored = isinstance(item.ctx, ast.Store) and item.value.attr == "__dict__"
            if stored or (item.value.attr in _NAMESPACES and _is_name(item.slice)):
                found.add(id(item.value))
        elif (
            isinstance(item, ast.Call)
            and isinstance(item.func, ast.Attribute)
            and isinstance(item.func.value, ast.Attribute)
        ):
            namespace, method = item.func.value.attr, item.func.attr
            # ``X.__dict__.update(...)`` stores too (what it is handed is read on its own).
            stores = method == "update" and namespace == "__dict__"
            # ``setdefault`` reads the entry, or stores it (click's ``push_context``).
            by_name = method in ("get", "setdefault") and namespace in _NAMESPACES and item.args
            if stores or (by_name and _is_name(item.args[0]) and len(item.args) <= 2):
                found.add(id(item.func.value))
    return found


def _membership_tests(function: ast.AST) -> set[int]:
    """ids of the ``X.modules`` attributes that are only the right side of an ``in`` test
    (``name in sys.modules``): that asks which modules are imported, a lookup of no
    module's binding."""
    return {
        id(right)
        for item in walk(function)
        if isinstance(item, ast.Compare)
        for op, right in zip(item.ops, item.comparators, strict=True)
        if isinstance(op, (ast.In, ast.NotIn))
        and isinstance(right, ast.Attribute)
        and right.attr == "modules"
    }
