"""Calls at import whose success their constant arguments decide, tried at analysis time.

``re.compile(r"...", re.VERBOSE)`` in a class or module body raises only on a pattern or
flags it cannot compile, and ``namedtuple("P", "a b")`` only on names it refuses (a field
named twice, a keyword, more defaults than fields); whether it does is the same wherever
the same Python runs it: reks analyses files in the interpreter that runs the tests, and
the analysis cache is kept per Python (``rts.analysis_cache``). So such a call is made
here, and one that succeeds cannot raise at import (``rts.import_raise``: boltons'
``FunctionBuilder._KWONLY_MARKER`` put the whole class into its module's unit, sqlparse's
``_DelimiterOccurrence = namedtuple(...)`` the module unit every test depends on).
Neither call has an effect outside the object it returns.
"""

from __future__ import annotations

import ast
import collections
import re
from collections.abc import Callable

from lsp_server.rts.stdlib_values import MISSING

_TRIED: tuple[Callable[..., object], ...] = (re.compile, collections.namedtuple)
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
