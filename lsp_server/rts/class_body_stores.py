"""Names a class-body statement only stores: it binds them in its own class, reading none.

``purity.import_time_names`` counts every name a statement spells, stored or read. In a
class body a stored name is a read of nothing: ``__slots__ = (...)`` or ``info = msg``
binds in the class namespace being built, which only the class's readers see (its unit,
or the member's). Counted as read anywhere, the name led to the same-named attribute of
every class of the test's modules (``__slots__``, ``info``), and from there to those classes:
structlog 3763c623, a new ``__slots__`` entry of ``BytesLogger``, reran all 901 tests
(testmon 312), each having used some other class with ``__slots__``.

A name the statement also reads (``x = x + 1``, ``x += 1``, ``del x``), or a statement that
declares a name ``global`` or ``nonlocal`` (its store rebinds the module's), keeps every
name it spells.
"""

from __future__ import annotations

import ast

from lsp_server.rts.ast_walk import of_types

_SEEN = (ast.Name, ast.AugAssign, ast.Global, ast.Nonlocal)  # what ``stored_only`` looks at


def stored_only(stmt: ast.stmt) -> frozenset[str]:
    """The names ``stmt`` stores by name and never reads by name (anywhere in it, function
    bodies included: the conservative side)."""
    stored: set[str] = set()
    read: set[str] = set()
    for item in of_types(stmt, _SEEN):
        if isinstance(item, ast.Name):
            (stored if isinstance(item.ctx, ast.Store) else read).add(item.id)
        elif isinstance(item, ast.AugAssign) and isinstance(item.target, ast.Name):
            read.add(item.target.id)
        elif isinstance(item, (ast.Global, ast.Nonlocal)):
            return frozenset()
    return frozenset(stored - read)
