"""pytest's own skip marks as decorators that cannot raise at import (``rts.import_raise``).

Looking up ``pytest.mark.skip``, ``skipif`` or ``xfail`` cannot fail: pytest's plugins
register them when it starts, where an unknown mark warns (an error under strict markers or
``-W error``). Applied to a function, the mark is stored there; what its arguments do wrong
(a ``skipif`` condition that raises) fails the marked test alone, at its set-up.
``parametrize`` is no such mark: a bad one fails collecting every test of its class or
module.
"""

from __future__ import annotations

import ast
from collections.abc import Collection

SKIP_MARKS = frozenset(["skip", "skipif", "xfail"])


def mark_values(node: ast.expr, pytest_names: Collection[str]) -> list[ast.expr] | None:
    """The values a decorator ``node`` evaluates when it is such a mark of the real
    ``pytest`` (``pytest_names``: the names bound to that module there), bare or called;
    None for any other decorator. Called with one positional value alone, pytest marks
    that value instead when it is callable, and hands it the function: only a constant is
    no such value."""
    target = node.func if isinstance(node, ast.Call) else node
    if not (isinstance(target, ast.Attribute) and target.attr in SKIP_MARKS):
        return None
    mark = target.value
    if not (
        isinstance(mark, ast.Attribute)
        and mark.attr == "mark"
        and isinstance(mark.value, ast.Name)
        and mark.value.id in pytest_names
    ):
        return None
    if not isinstance(node, ast.Call):
        return []
    if len(node.args) == 1 and not node.keywords and not isinstance(node.args[0], ast.Constant):
        return None
    return [*node.args, *(k.value for k in node.keywords)]
