"""A top-level annotated assignment as it runs at import when the module's annotations are
lazy (``from __future__ import annotations``): the annotation is kept as a string in
``__annotations__`` and never evaluated, so it cannot make the import fail. What may raise
in the statement (its ``<raises>`` unit, ``rts.raising_units``) is then the plain
assignment's: its value and what that reads. The annotation stays in the binding's own
unit, which its readers (and the readers of ``__annotations__``) see.

typeguard 3b3c1f8 annotated ``origin_type_checkers: dict[Any, Callable[..., None]] = {...}``,
a table whose keys read attributes of other modules: the annotation and the names it reads
were part of the table's ``<raises>`` unit, and every test importing typeguard reran."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING

from lsp_server.rts.purity import import_time_names

if TYPE_CHECKING:
    from lsp_server.rts.bindings import Binding


def as_run(stmt: ast.stmt, lazy: bool) -> ast.stmt:
    """``stmt`` as it runs at import: with ``lazy`` annotations, an annotated assignment of
    a value to a name as the plain assignment (in the same place); any other statement
    itself."""
    if not (lazy and isinstance(stmt, ast.AnnAssign) and stmt.value is not None):
        return stmt
    if not isinstance(stmt.target, ast.Name):
        return stmt
    return ast.copy_location(ast.Assign(targets=[stmt.target], value=stmt.value), stmt)


def binding_as_run(stmt: ast.stmt, binding: Binding, lazy: bool) -> Binding:
    """``binding`` (of ``stmt``) with the names its statement reads as it runs at import
    (``as_run``): an annotation that is never evaluated reads nothing."""
    run = as_run(stmt, lazy)
    if run is stmt:
        return binding
    return replace(binding, refs=frozenset(import_time_names(run)) - set(binding.names))
