"""Values a module computes at import from what the interpreter and the platform are:
``IS_PYPY = platform.python_implementation() == "PyPy"``, ``WINDOWS =
sys.platform.startswith("win")``, ``PY38 = sys.version_info >= (3, 8)``.

A call at import is a side effect every importer depends on (``rts.bindings``) unless it
is known to change nothing and to succeed. Such an expression changes nothing: it is made
of constants, the standard library's modules and their attributes, builtins, and calls of
``QUERIES`` (functions that only report on the interpreter or the platform) or of the
methods of immutable builtin values (``str.startswith``), combined by comparisons, boolean
and arithmetic operators and subscripts, every operand an immutable builtin value (their
operators run no code of the project). It is evaluated here, step by step, each callee
checked before it is called: the analysis runs in the interpreter that runs the tests (the
analysis cache is kept per Python: ``rts.analysis_cache``), so one that succeeds here
cannot raise at import either, and binding its value is all the statement does
(funcy f9e341726e: a new ``IS_PYPY`` selected all 202 tests; its readers alone see it).

A name the module itself binds is not followed (its value is not known here), nor is a
module's attribute that its ``__getattr__`` would compute (it may warn).
"""

from __future__ import annotations

import ast
import operator
import os
import platform
import shutil
import sys
from collections.abc import Callable
from types import BuiltinFunctionType, BuiltinMethodType, ModuleType
from typing import TYPE_CHECKING, Any

from lsp_server.rts.stdlib_values import MISSING, value_of

if TYPE_CHECKING:
    from lsp_server.rts.import_scope import Scope

QUERIES: tuple[Callable[..., object], ...] = (
    platform.python_implementation,
    platform.python_version,
    platform.python_version_tuple,
    platform.system,
    platform.machine,
    platform.release,
    sys.getdefaultencoding,
    sys.getfilesystemencoding,
    sys.getrecursionlimit,
    os.getenv,
    # Where a program is on ``PATH`` (a skip mark's condition): it only looks at the file
    # system, and returns a string or None.
    shutil.which,
    len,
)
"""Functions that report on the interpreter, the platform or their arguments and change
nothing (called with immutable values). ``hasattr`` too, on a module without
``__getattr__`` (``hasattr(sys, "pypy_version_info")``)."""

_IMMUTABLE = (str, bytes, int, float, complex, tuple, frozenset, type(None), range)

_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], object]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: operator.contains(b, a),
    ast.NotIn: lambda a, b: not operator.contains(b, a),
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}
_BINARY: dict[type[ast.operator], Callable[[Any, Any], object]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Mod: operator.mod,
    ast.FloorDiv: operator.floordiv,
    ast.BitOr: operator.or_,
    ast.BitAnd: operator.and_,
}


class _NotAQuery(Exception):
    """The expression is no query, or raised here."""


def is_query(node: ast.expr, scope: Scope) -> bool:
    """Whether ``node``, run after what ``scope`` has bound, is a query of the interpreter
    or the platform that succeeds here (changes nothing, cannot raise at import)."""
    try:
        _value(node, scope)
    except _NotAQuery:
        return False
    return True


def query_value(node: ast.expr, scope: Scope) -> object:
    """What the query ``node`` evaluates to here (see ``is_query``); ``MISSING`` for an
    expression that is no query or raises."""
    try:
        return _value(node, scope)
    except _NotAQuery:
        return MISSING


def _immutable(value: object) -> object:
    if not isinstance(value, _IMMUTABLE) or (
        isinstance(value, tuple) and not all(isinstance(v, _IMMUTABLE) for v in value)
    ):
        raise _NotAQuery
    return value


def _value(node: ast.expr, scope: Scope) -> object:
    """What ``node`` evaluates to: an immutable builtin value, a standard-library module, or
    a function to call; raises ``_NotAQuery``."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in scope.members:  # a class of the module, not a value known here
            raise _NotAQuery
        value = value_of(node.id, scope)
        if value is MISSING:
            raise _NotAQuery
        return value
    if isinstance(node, ast.Attribute):
        return _attribute(_value(node.value, scope), node.attr)
    if isinstance(node, ast.Call):
        return _call(node, scope)
    if isinstance(node, (ast.Tuple, ast.List)) and isinstance(node.ctx, ast.Load):
        return tuple(_immutable(_value(e, scope)) for e in node.elts)
    try:
        return _immutable(_operation(node, scope))
    except _NotAQuery:
        raise
    except Exception as exc:  # the operation raises here: it would at import
        raise _NotAQuery from exc


def _operation(node: ast.expr, scope: Scope) -> object:
    def operand(item: ast.expr) -> Any:
        return _immutable(_value(item, scope))

    if isinstance(node, ast.Compare):
        left, result = operand(node.left), True
        for op, item in zip(node.ops, node.comparators, strict=True):
            right = operand(item)
            result = bool(_COMPARE[type(op)](left, right))
            if not result:
                return False
            left = right
        return result
    if isinstance(node, ast.BoolOp):
        found: object = None
        for item in node.values:
            found = operand(item)
            if bool(found) is isinstance(node.op, ast.Or):
                return found
        return found
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        value = operand(node.operand)
        return not value if isinstance(node.op, ast.Not) else operator.neg(value)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](operand(node.left), operand(node.right))
    if isinstance(node, ast.Subscript):
        return operator.getitem(operand(node.value), operand(node.slice))
    raise _NotAQuery


def _attribute(owner: object, name: str) -> object:
    """``owner.name``: of a standard-library module (not one its ``__getattr__`` would
    compute), or of an immutable value (a method to call, or a field of
    ``sys.version_info``)."""
    if isinstance(owner, ModuleType):
        if name not in vars(owner):
            raise _NotAQuery
        return vars(owner)[name]
    if isinstance(owner, _IMMUTABLE):  # ``sys.version_info`` and ``sys.flags`` are tuples
        try:
            return getattr(owner, name)
        except AttributeError as exc:
            raise _NotAQuery from exc
    raise _NotAQuery


def _call(node: ast.Call, scope: Scope) -> object:
    callee = _value(node.func, scope)
    if any(isinstance(a, ast.Starred) for a in node.args) or node.keywords:
        raise _NotAQuery
    args = [_value(a, scope) for a in node.args]
    if callee is hasattr:
        if len(args) != 2 or not _plain_module(args[0]) or not isinstance(args[1], str):
            raise _NotAQuery
    elif any(callee is query for query in QUERIES) or _immutable_method(callee):
        for value in args:
            _immutable(value)
    else:
        raise _NotAQuery
    try:
        return callee(*args)  # type: ignore[operator]
    except Exception as exc:  # it would raise at import too
        raise _NotAQuery from exc


def _plain_module(value: object) -> bool:
    """A module whose attributes are only what it binds (no ``__getattr__``)."""
    return isinstance(value, ModuleType) and "__getattr__" not in vars(value)


def _immutable_method(callee: object) -> bool:
    """A method of a builtin immutable value (``"x".startswith``): it computes a new
    value from its arguments."""
    owner = getattr(callee, "__self__", None)
    kinds = (BuiltinMethodType, BuiltinFunctionType)
    return isinstance(callee, kinds) and isinstance(owner, _IMMUTABLE)
