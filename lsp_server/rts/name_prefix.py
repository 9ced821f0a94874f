"""The constant prefix of a name computed in a function, told from its syntax.

sqlparse's filters dispatch on a computed attribute name,
``getattr(self, f'_process_{type(tlist).__name__}'.lower(), default)``: every name so looked
up starts with ``_process_``, so the lookup can find only the attributes whose names do
(``rts.lookups``). Only forms whose result starts with the literal text whatever the other
values are count: an f-string and ``"...{}".format(...)`` on a literal (``+`` and ``%``
do not: an operand's reflected method may return any string), ``.lower()``/``.upper()``
of an ASCII prefix (the same letters, mapped one by one), and a local variable the
function binds exactly once, by a plain assignment of such a form. Anything else has the
empty prefix: any name.
"""

from __future__ import annotations

import ast

from lsp_server.rts.ast_walk import walk
from lsp_server.rts.bound_names import names_bound_by

_CASE_METHODS = frozenset(["lower", "upper"])


class NamePrefixes:
    """The prefixes of names computed in one function."""

    def __init__(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._assigned = _single_assignments(function)

    def of(self, node: ast.expr) -> str:
        """A prefix of every name ``node`` may evaluate to ("" when none is known), cut
        where it stops being one of an identifier: only such names are bound by the code
        (``rts.units``), and a unit's names keep none of ``@`` and ``.``."""
        prefix = self._of(node, 0)
        while prefix and not (prefix + "a").isidentifier():
            prefix = prefix[:-1]
        return prefix

    def _of(self, node: ast.expr, depth: int) -> str:
        if depth > 8:  # a chain of locals, each assigned from the next: enough
            return ""
        if isinstance(node, ast.JoinedStr):
            first = node.values[0] if node.values else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                return first.value
            return ""
        if isinstance(node, ast.Name):
            value = self._assigned.get(node.id)
            return "" if value is None else self._of(value, depth + 1)
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            return ""
        receiver, method = node.func.value, node.func.attr
        if method == "format" and isinstance(receiver, ast.Constant):
            if isinstance(receiver.value, str):
                # Literal text runs to the first field; "{{" is a literal "{" after it.
                return receiver.value.split("{", 1)[0].split("}", 1)[0]
            return ""
        if method in _CASE_METHODS and not node.args and not node.keywords:
            prefix = self._of(receiver, depth + 1)
            if not prefix.isascii():
                return ""
            return prefix.lower() if method == "lower" else prefix.upper()
        return ""


def _single_assignments(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.expr]:
    """The locals ``function`` binds exactly once, by ``name = value``, and nowhere else
    (no parameter, loop target, ``with``/``except``/import alias, pattern, ``global`` or
    ``nonlocal``, nor a store in a nested scope): -> that value."""
    args = function.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    stores: dict[str, int] = {a.arg: 2 for a in params if a is not None}
    plain: dict[str, ast.expr] = {}
    for item in walk(function):
        if item is function:
            continue
        # A ``global`` or ``nonlocal`` name counts twice: never a single assignment.
        weight = 2 if isinstance(item, (ast.Global, ast.Nonlocal)) else 1
        for name in names_bound_by(item):
            stores[name] = stores.get(name, 0) + weight
        if (
            isinstance(item, ast.Assign)
            and len(item.targets) == 1
            and isinstance(item.targets[0], ast.Name)
        ):
            plain[item.targets[0].id] = item.value
    return {name: value for name, value in plain.items() if stores.get(name) == 1}
