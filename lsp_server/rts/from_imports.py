"""The names a top-level ``from module import a, b as c`` binds, as binding units of their
own (``rts.units``), and when a change of that list can be left to the readers of a name.

The statement does two things. It imports the module (and its packages): that is the unit
``<imports>module`` of the file (``unit_names.IMPORTING``; ``rts.import_statements`` tells
which tests see it start or stop). And it binds each name, found as an
attribute of the module, or else by importing a submodule so named, or else raising
``ImportError``: each name is a unit (``<import>.a``: ``units.IMPORTED``; it reads the
imported name), so adding one
selects the tests that read it, as a new ``def`` does. Its other two outcomes concern every
importer: ``rts.from_import_checks`` tells at selection when they cannot be ruled out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from lsp_server.rts.ast_walk import statements
from lsp_server.rts.bound_names import binding_occurrences

Pos = tuple[int, int]


@dataclass(frozen=True)
class FromImport:
    """A top-level ``from module import ...`` whose names are bindings of their own."""

    module: str
    level: int
    names: tuple[tuple[str, str], ...]
    """(bound name, imported name) of each alias."""
    hole: tuple[Pos, Pos]
    """The whole statement: what the module unit leaves out."""


def from_import(stmt: ast.stmt) -> FromImport | None:
    """``stmt`` as a ``FromImport``; None for any other statement, a star import, a
    ``__future__`` import and ``from . import x`` (its names are submodules as often)."""
    if not isinstance(stmt, ast.ImportFrom) or not stmt.module or stmt.module == "__future__":
        return None
    if any(alias.name == "*" for alias in stmt.names):
        return None
    end = (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0)
    return FromImport(
        stmt.module,
        stmt.level,
        tuple((alias.asname or alias.name, alias.name) for alias in stmt.names),
        ((stmt.lineno, stmt.col_offset), end),
    )


def top_level_names(tree: ast.Module) -> frozenset[str]:
    """Names every run of the module binds at its top level and never deletes: what another
    module's ``from`` import finds as an attribute once the module has run."""
    names: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
                names.update(e.id for e in elements if isinstance(e, ast.Name))
        elif isinstance(stmt, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in stmt.names)
        elif isinstance(stmt, ast.ImportFrom):
            names.update(a.asname or a.name for a in stmt.names if a.name != "*")
    # A ``del`` is a statement: the statements alone are visited, not every expression.
    deleted = {
        target.id
        for node in statements(tree)
        if isinstance(node, ast.Delete)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    return frozenset(names - deleted)


def singly_imported(tree: ast.Module) -> frozenset[str]:
    """Names a top-level ``from`` import unit binds (``from_import``) that nothing else in
    the module binds, deletes or declares ``global`` (a local of the same name counts too:
    the conservative side). A global read of one finds that statement's binding alone,
    which reads the name off the module it imports (``FileUnits.own_globals``)."""
    imported = [
        bound
        for stmt in tree.body
        if (found := from_import(stmt)) is not None
        for bound, _ in found.names
    ]
    if not imported:
        return frozenset()
    counts: dict[str, int] = {}
    for name in binding_occurrences(tree):
        counts[name] = counts.get(name, 0) + 1
    return frozenset(name for name in imported if counts.get(name) == 1)
