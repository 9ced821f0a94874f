"""Lookups by string that meet class attributes at most, never a module's global.

``rts.lookups`` counts them as lookups on an instance (``ATTRIBUTE_LOOKUP``, as
``getattr(self, name)`` in a method): a test that ran them depends on the members of the
classes of its modules, not on every binding. ``setattr(obj, name, value)`` stores: it
meets what ``obj``'s class defines under that name (a property's setter, a slot), never a
module's global (diskcache's ``Cache.reset``: ``setattr(self._disk, attr, value)``). A
method's ``self.__dict__`` is its instance's attributes, or its class's when ``self`` is a
class (jinja's ``Frame.copy``: ``rv.__dict__.update(self.__dict__)``).
"""

from __future__ import annotations

import ast

from lsp_server.rts.ast_walk import walk


def attribute_stores(function: ast.AST) -> dict[int, str]:
    """ids of the ``setattr`` names called with an object, a name and a value, each with
    "" (any name)."""
    return {
        id(item.func): ""
        for item in walk(function)
        if isinstance(item, ast.Call)
        and isinstance(item.func, ast.Name)
        and item.func.id == "setattr"
        and len(item.args) == 3
        and not item.keywords
    }


def own_dicts(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    """ids of the ``self.__dict__`` read in a method (its first parameter, not rebound): the
    instance's own attributes (jinja's ``Frame.copy``), or the class's when ``self`` is a
    class (a classmethod's ``cls``, a metaclass's method), never a module's globals."""
    params = [*function.args.posonlyargs, *function.args.args]
    static = any("staticmethod" in ast.unparse(d) for d in function.decorator_list)
    if not params or static or params[0].arg in stored_names(function):
        return set()
    first = params[0].arg
    return {
        id(item)
        for item in walk(function)
        if isinstance(item, ast.Attribute)
        and item.attr == "__dict__"
        and isinstance(item.value, ast.Name)
        and item.value.id == first
    }


def stored_names(function: ast.AST) -> set[str]:
    """The names ``function`` (nested scopes included) stores or deletes."""
    return {
        item.id
        for item in walk(function)
        if isinstance(item, ast.Name) and not isinstance(item.ctx, ast.Load)
    }
