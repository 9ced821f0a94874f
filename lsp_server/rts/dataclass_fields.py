"""When ``@dataclass`` cannot raise on a class: the part of ``rts.import_raise`` that knows
what the decorator checks.

``dataclass`` raises at import on a field without a default after one with a default, on
an unhashable default (a list, a dict...), on a frozen class that defines ``__setattr__``,
and on options or bases that conflict (``order`` with an own ``__lt__``, a frozen base
under a non-frozen subclass...). A class is proved safe only in the plain case: no bases,
no options beyond ``init``, ``repr``, ``eq`` and ``frozen`` (as constants), fields whose
defaults are constants, in an order the decorator accepts.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

_OPTIONS = frozenset(["init", "repr", "eq", "frozen"])
_FROZEN_CONFLICTS = frozenset(["__setattr__", "__delattr__"])


def is_dataclass_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)
    return name == "dataclass"


def dataclass_may_raise(
    node: ast.ClassDef, decorator: ast.expr, root_known: Callable[[ast.expr], bool]
) -> bool:
    """Whether ``decorator`` (a ``dataclass`` one) may raise on ``node``; ``root_known``
    says whether the decorator's first name is bound."""
    if not root_known(decorator) or node.bases or node.keywords:
        return True
    frozen = False
    if isinstance(decorator, ast.Call):
        if decorator.args:
            return True
        for keyword in decorator.keywords:
            if keyword.arg not in _OPTIONS or not isinstance(keyword.value, ast.Constant):
                return True
            frozen = frozen or (keyword.arg == "frozen" and keyword.value.value is True)
    methods = {s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if frozen and methods & _FROZEN_CONFLICTS:
        return True
    defaulted = False
    for stmt in node.body:
        if not isinstance(stmt, ast.AnnAssign):
            continue
        if stmt.value is None:
            if defaulted:
                return True  # a field without a default after one with a default
            continue
        if not _hashable_constant(stmt.value):
            return True
        defaulted = True
    return False


def _hashable_constant(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    return isinstance(node, ast.Tuple) and all(map(_hashable_constant, node.elts))
