"""Calls at import whose success their constant arguments decide, tried at analysis time.

``re.compile(r"...", re.VERBOSE)`` in a class or module body raises only on a pattern or
flags it cannot compile, and whether it can is the same wherever the same Python runs it:
reks analyses files in the interpreter that runs the tests, and the analysis cache is kept
per Python (``rts.analysis_cache``). So such a call is compiled here, and one that compiles
cannot raise at import (``rts.import_raise``: boltons' ``FunctionBuilder._KWONLY_MARKER``
put the whole class into its module's unit).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from lsp_server.rts.stdlib_values import MISSING

_COMPILE: Callable[..., object] = re.compile  # called with values of unknown types


def compiles(node: ast.Call, resolve: Callable[[ast.expr], object]) -> bool:
    """Whether ``node`` calls ``re.compile`` (the standard-library object ``resolve`` finds
    for its callee) with constant arguments, and they compile."""
    if resolve(node.func) is not re.compile:
        return False
    args = [_constant(a, resolve) for a in node.args]
    keywords = {k.arg: _constant(k.value, resolve) for k in node.keywords if k.arg is not None}
    if len(keywords) != len(node.keywords) or MISSING in (*args, *keywords.values()):
        return False
    try:
        _COMPILE(*args, **keywords)
    except Exception:  # any failure here is a failure at import
        return False
    return True


def _constant(node: ast.expr, resolve: Callable[[ast.expr], object]) -> object:
    """The value of a constant, a standard-library flag (``re.VERBOSE``) or their ``|``;
    ``MISSING`` for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes, int)):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _constant(node.left, resolve), _constant(node.right, resolve)
        if isinstance(left, int) and isinstance(right, int):
            return left | right
        return MISSING
    value = resolve(node)
    return value if isinstance(value, re.RegexFlag) else MISSING
