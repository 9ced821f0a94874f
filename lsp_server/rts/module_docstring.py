"""A module's docstring as a binding unit of its own, the binding of ``__doc__``.

Python binds a module's docstring to ``__doc__`` and runs nothing else for it, so editing
it changes only what reads ``__doc__``: code spelling the name (``mod.__doc__``, a
function returning ``__doc__``, a statement at import using it), a test reading
docstrings through ``inspect.getdoc``, ``help`` or ``pydoc`` (``rts.lookups.DOC_READS``,
counted as reading ``__doc__``: ``rts.binding_reads``) and the module's doctests
(``rts.attribution``). In the module unit it reran every test importing the module (a
docs edit of glom's ``mutation.py`` reran all 200 tests).
"""

from __future__ import annotations

import ast

from lsp_server.rts.bindings import Binding
from lsp_server.rts.purity import is_string_statement

MODULE_DOC = "__doc__"


def docstring_binding(tree: ast.Module) -> Binding | None:
    """The binding of the module's docstring (its first statement, a string); None
    without one."""
    first = tree.body[0] if tree.body else None
    if first is None or not is_string_statement(first):
        return None
    end = (first.end_lineno or first.lineno, first.end_col_offset or 0)
    return Binding((MODULE_DOC,), (first.lineno, 0), end, frozenset())
