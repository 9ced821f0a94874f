"""Attributes of imported project modules that importing a file needs to exist.

A display table reading ``kinds.WORD`` (``rts.display_read_units``) or a class statement
whose base is ``lib.Jitter`` raises at import once ``kinds`` binds ``WORD`` no more (or
``lib`` ``Jitter``); what the name is bound to matters to neither (a table holds the value,
a base's hooks are ``rts.creation_hooks``'s business). So each importer needs the name as
if the file said ``from kinds import WORD``: a removed binding there selects it
(``binding_reads._taken``, ``name_takers.files_taking``), a changed one does not.

Of a base, one thing about its value matters to every importer: that it is a class
(``TypeError`` at import otherwise). A name a top-level class statement binds has a unit of
that kind, ``C.<class>`` (``class_kinds``), whose text is a marker per class statement and
every other top-level statement that may bind the name: rebound without a class statement
(``C = 3``, a ``def C``) the unit is gone, rebound besides it (``C = wrap(C)``, a second
binding below) it changes; either way it selects the tests whose modules take ``C`` as a
removed binding does (``unit_names.taken_name``). A decorated class statement's marker
says so (a decorator may bind the name to anything): a class decorated or no more changes
the unit; its text is the plain marker alone only for one undecorated class statement that
nothing else binds, which a ``functools.partial`` taking it relies on
(``rts.partial_callees``).
"""

from __future__ import annotations

import ast

from lsp_server.rts.ast_walk import attribute_chain, walk
from lsp_server.rts.bound_names import maybe_bound
from lsp_server.rts.file_units import FileUnits
from lsp_server.rts.import_digest import display_read_nodes
from lsp_server.rts.spans import ImportStatement
from lsp_server.rts.tokens import digest
from lsp_server.rts.unit_names import CLASS_KIND

_DECORATED = CLASS_KIND + "@"
_PLAIN_CLASS = digest([CLASS_KIND])
"""The checksum of the kind unit of a name one undecorated class statement alone binds."""


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
        root, chain = attribute_chain(node)
        if chain and isinstance(root, ast.Name) and root.id in modules:
            needed.add((modules[root.id], chain[0]))
    return tuple(
        ImportStatement((name,), module, is_from=True, top=True) for module, name in sorted(needed)
    )


def class_kinds(tree: ast.Module) -> dict[str, list[str]]:
    """The texts of the kind units (``CLASS_KIND``) of the names a top-level class
    statement of ``tree`` binds: in order, a marker for each such statement and the dump of
    every other top-level statement that may bind the name (``K = wrap(K)``, a nested
    ``if``, a star import), then of each top-level statement declaring it ``global``
    inside. Changed, the name may be bound to something else at the end of the import."""
    classes = {stmt.name for stmt in tree.body if isinstance(stmt, ast.ClassDef)}
    texts: dict[str, list[str]] = {name: [] for name in classes}
    for stmt in tree.body if classes else ():
        if isinstance(stmt, ast.ClassDef):
            texts[stmt.name].append(_DECORATED if stmt.decorator_list else CLASS_KIND)
            bound = set()
        elif isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
            bound = classes
        else:
            bound = maybe_bound(stmt) & classes
        declared = {n for node in walk(stmt) if isinstance(node, ast.Global) for n in node.names}
        for name in bound | (declared & classes):
            texts[name].append(ast.dump(stmt))
    return {name + CLASS_KIND: text for name, text in texts.items()}


def is_plain_class(file_units: FileUnits, name: str) -> bool:
    """Whether one undecorated top-level class statement alone binds ``name`` in the file
    (its kind unit's text is the plain marker alone): the name is a class once it ran."""
    return file_units.checksums.get(name + CLASS_KIND) == _PLAIN_CLASS
