"""Attributes of imported project modules that importing a file needs to exist.

A display table reading ``kinds.WORD`` (``rts.display_read_units``) or a class statement
whose base is ``lib.Jitter`` raises at import once ``kinds`` binds ``WORD`` no more (or
``lib`` ``Jitter``); what the name is bound to matters to neither (a table holds the value,
a base's hooks are ``rts.creation_hooks``'s business). So each importer needs the name as
if the file said ``from kinds import WORD``: a removed binding there selects it
(``binding_reads._taken``, ``name_takers.files_taking``), a changed one does not.
"""

from __future__ import annotations

import ast

from lsp_server.rts.import_digest import display_read_nodes
from lsp_server.rts.spans import ImportStatement


def needed_attributes(tree: ast.Module) -> tuple[ImportStatement, ...]:
    """``from m import a`` for each ``m.a`` a display table or a class's base reads at the
    top level of ``tree``, where a top-level ``import m`` binds ``m`` (a name rebound
    since only adds a dependency)."""
    modules = {
        alias.asname or alias.name: alias.name
        for stmt in tree.body
        if isinstance(stmt, ast.Import)
        for alias in stmt.names
        if alias.asname or "." not in alias.name
    }
    reads = [node for stmt in tree.body for node in display_read_nodes(stmt) or ()]
    reads += [base for stmt in tree.body if isinstance(stmt, ast.ClassDef) for base in stmt.bases]
    needed: set[tuple[str, str]] = set()
    for node in reads:
        first = node
        while isinstance(first, ast.Attribute) and isinstance(first.value, ast.Attribute):
            first = first.value
        root = first.value if isinstance(first, ast.Attribute) else None
        if isinstance(first, ast.Attribute) and isinstance(root, ast.Name) and root.id in modules:
            needed.add((modules[root.id], first.attr))
    return tuple(
        ImportStatement((name,), module, is_from=True, top=True) for module, name in sorted(needed)
    )
