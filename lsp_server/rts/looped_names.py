"""Names that only ever hold the strings of a literal tuple, list or set.

``getattr(obj, name)`` by such a name reads those strings only, as ``getattr(obj, "x")``
does (``rts.lookups``): jinja's node metaclass copies two attributes of each base at
import with ``for attr in "fields", "attributes": getattr(base, attr, ())``, and the
object it looks in is computed (``bases[0] if bases else object``), so the names are not
recorded at run time either (``rts.runtime_lookups``).
"""

from __future__ import annotations

import ast

from lsp_server.rts.ast_walk import walk
from lsp_server.rts.bound_names import names_bound_by


def looped_constants(node: ast.AST) -> set[str]:
    """Names whose every binding in ``node`` is the target of a ``for`` (or a
    comprehension) over a literal tuple, list or set of strings (jinja's node metaclass:
    ``for attr in "fields", "attributes":``): a lookup by such a name reads those strings,
    which the code's constants hold (``rts.reads``). A parameter, a ``global`` or
    ``nonlocal`` name, or one bound any other way is none."""
    looped: set[int] = set()
    for item in walk(node):
        if (
            isinstance(item, (ast.For, ast.AsyncFor, ast.comprehension))
            and isinstance(item.target, ast.Name)
            and _string_literals(item.iter)
        ):
            looped.add(id(item.target))
    if not looped:
        return set()
    good: set[str] = set()
    bad: set[str] = set()
    for item in walk(node):
        if isinstance(item, ast.Name) and not isinstance(item.ctx, ast.Load):
            (good if id(item) in looped else bad).add(item.id)
        elif isinstance(item, ast.arg):
            bad.add(item.arg)
        else:
            bad.update(names_bound_by(item))
    return good - bad


def _string_literals(node: ast.expr) -> bool:
    return (
        isinstance(node, (ast.Tuple, ast.List, ast.Set))
        and bool(node.elts)
        and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
    )
