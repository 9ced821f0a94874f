"""Calls at import whose success their constant arguments decide, tried at analysis time.

``re.compile(r"...", re.VERBOSE)`` in a class or module body raises only on a pattern or
flags it cannot compile, and ``namedtuple("P", "a b")`` only on names it refuses (a field
named twice, a keyword, more defaults than fields); whether it does is the same wherever
the same Python runs it: reks analyses files in the interpreter that runs the tests, and
the analysis cache is kept per Python (``rts.analysis_cache``). So such a call is made
here, and one that succeeds cannot raise at import (``rts.import_raise``: boltons'
``FunctionBuilder._KWONLY_MARKER`` put the whole class into its module's unit, sqlparse's
``_DelimiterOccurrence = namedtuple(...)`` the module unit every test depends on).
Neither call has an effect outside the object it returns, nor has
``contextvars.ContextVar("name", default=...)``, which only refuses a name that is no
string: a constant call of one of them that succeeds here only binds what it returns
(``rts.bindings``: structlog's ``_ASYNC_CALLING_THREAD`` added to ``contextvars.py`` was a
module-unit change every test depended on).
"""

from __future__ import annotations

import ast
import collections
import contextvars
import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from lsp_server.rts.constant_values import constant_value
from lsp_server.rts.stdlib_values import MISSING, stdlib_object_of

if TYPE_CHECKING:
    from lsp_server.rts.import_scope import Scope

_TRIED: tuple[Callable[..., object], ...] = (
    re.compile,
    collections.namedtuple,
    contextvars.ContextVar,
)
"""Called with values of unknown types: any failure is a failure at import."""


def succeeds(node: ast.Call, resolve: Callable[[ast.expr], object]) -> bool:
    """Whether ``node`` calls one of ``_TRIED`` (the standard-library object ``resolve``
    finds for its callee) with constant arguments, and the call succeeds."""
    callee = resolve(node.func)
    if not any(callee is tried for tried in _TRIED):
        return False
    args = [_constant(a, resolve) for a in node.args]
    keywords = {k.arg: _constant(k.value, resolve) for k in node.keywords if k.arg is not None}
    if len(keywords) != len(node.keywords) or MISSING in (*args, *keywords.values()):
        return False
    assert callable(callee)
    try:
        callee(*args, **keywords)
    except Exception:  # any failure here is a failure at import
        return False
    return True


def value_here(node: ast.expr, scope: Scope, module_level: bool) -> object:
    """What ``node`` is: a value computed from constants (at module level only: a class
    body's own names hide the module's), or a standard-library object."""
    value = constant_value(node, scope) if module_level else MISSING
    return stdlib_object_of(node, scope) if value is MISSING else value


def builds_here(node: ast.expr, scope: Scope) -> bool:
    """Whether the top-level value ``node`` is a call of one of ``_TRIED`` with constant
    arguments that succeeds here: it cannot raise at import and only makes the object it
    returns."""
    resolve = functools.partial(value_here, scope=scope, module_level=True)
    return isinstance(node, ast.Call) and succeeds(node, resolve)


def _constant(node: ast.expr, resolve: Callable[[ast.expr], object]) -> object:
    """The value of a constant, a list or tuple of those, a standard-library flag
    (``re.VERBOSE``) or their ``|``, or a string or number ``resolve`` computes;
    ``MISSING`` for anything else."""
    if isinstance(node, ast.Constant) and (
        node.value is None or isinstance(node.value, (str, bytes, int))
    ):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_constant(e, resolve) for e in node.elts]
        if any(item is MISSING for item in items):
            return MISSING
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _constant(node.left, resolve), _constant(node.right, resolve)
        if isinstance(left, int) and isinstance(right, int):
            return left | right
        return MISSING
    value = resolve(node)  # a name bound to a string computed from constants, say
    return value if isinstance(value, (re.RegexFlag, str, bytes, int)) else MISSING
