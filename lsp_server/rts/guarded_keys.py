"""The keys a computed subscript key can take, when a membership check bounds them.

``if name in {"Parser", "Lexer"}: return globals()[f"_{name}"]`` (click's module
``__getattr__`` for deprecated names) can only look up ``_Parser`` or ``_Lexer``: the key is
made from one parameter and constant strings, the parameter is never rebound in the
function, and every path to the subscript passed a check of it against a display of
constant strings: the subscript is in the body of ``if name in <display>:``, or follows, in
the function's own body, an ``if name not in <display>:`` whose body ends in ``raise`` or
``return``. A set bound to a name (rebindable from outside) is no display; a nested scope
between the check and the key may rebind the name, so the key must be in the function's
own code. ``rts.open_namespace`` asks whether such a key may be ``__builtins__``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from lsp_server.rts.ast_walk import enclosing
from lsp_server.rts.bound_names import bound_inside, parameters

_Function = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def bounded_keys(key: ast.expr, parents: dict[int, ast.AST]) -> frozenset[str] | None:
    """The strings ``key`` can evaluate to, or None when not bounded as above."""
    shape = _key_shape(key)
    if shape is None:
        return None
    name, make = shape
    function = enclosing(key, parents, _SCOPES)
    if not isinstance(function, _Function) or _rebound(name, function):
        return None
    allowed = _checked_names(key, name, function, parents)
    return None if allowed is None else frozenset(map(make, allowed))


def _key_shape(key: ast.expr) -> tuple[str, Callable[[str], str]] | None:
    """The one name ``key`` is made from, and how the key is made from its value: the name,
    an f-string of constant parts and the name (no conversion, no format), or a sum of
    constant strings and the name."""
    parts = _joined_parts(key)
    if parts is None:
        return None
    names = [p for p in parts if not isinstance(p, str)]
    if len(names) != 1:
        return None
    name = names[0].id

    def make(value: str) -> str:
        return "".join(value if not isinstance(p, str) else p for p in parts)

    return name, make


def _joined_parts(key: ast.expr) -> list[str | ast.Name] | None:
    if isinstance(key, ast.Name):
        return [key]
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        return [key.value]
    if isinstance(key, ast.JoinedStr):
        parts = [_formatted_part(value) for value in key.values]
        return None if None in parts else [p for p in parts if p is not None]
    if isinstance(key, ast.BinOp) and isinstance(key.op, ast.Add):
        left, right = _joined_parts(key.left), _joined_parts(key.right)
        return None if left is None or right is None else left + right
    return None


def _formatted_part(value: ast.expr) -> str | ast.Name | None:
    """A constant part of an f-string, or a name put in as it is (``str(name)``)."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value
    if (
        isinstance(value, ast.FormattedValue)
        and isinstance(value.value, ast.Name)
        and value.conversion == -1
        and value.format_spec is None
    ):
        return value.value
    return None


def _rebound(name: str, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``name`` is no parameter of ``function``, or is bound anywhere inside it
    besides (nested scopes included: a ``nonlocal`` may rebind it)."""
    if name not in {a.arg for a in parameters(function)}:
        return True
    return name in bound_inside(function)


def _checked_names(
    key: ast.expr,
    name: str,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    parents: dict[int, ast.AST],
) -> frozenset[str] | None:
    """The constants ``name`` was checked against on every path to ``key``."""
    child: ast.AST = key
    current = parents.get(id(key))
    while current is not None and current is not function:
        if isinstance(current, ast.If) and any(s is child for s in current.body):
            allowed = _membership(current.test, name, ast.In)
            if allowed is not None:
                return allowed
        child, current = current, parents.get(id(current))
    if not any(stmt is child for stmt in function.body):
        return None  # in a default or a decorator: run before the body, in the outer scope
    for stmt in function.body:  # ``child``: the function's statement holding the key
        if stmt is child:
            break
        if isinstance(stmt, ast.If) and not stmt.orelse and _leaves(stmt.body):
            allowed = _membership(stmt.test, name, ast.NotIn)
            if allowed is not None:
                return allowed
    return None


def _leaves(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Raise, ast.Return))


def _membership(test: ast.expr, name: str, op: type[ast.cmpop]) -> frozenset[str] | None:
    """The strings of ``name <op> <display of constant strings>``."""
    if not (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == name
        and len(test.ops) == 1
        and isinstance(test.ops[0], op)
        and isinstance(test.comparators[0], (ast.Set, ast.Tuple, ast.List))
    ):
        return None
    strings = [
        e.value
        for e in test.comparators[0].elts
        if isinstance(e, ast.Constant) and isinstance(e.value, str)
    ]
    return frozenset(strings) if len(strings) == len(test.comparators[0].elts) else None
