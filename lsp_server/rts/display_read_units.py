"""One unit per read of a table built by displays alone, instead of their digest in the
module unit.

Such a table (sqlparse's ``SQL_REGEX``: patterns paired with token kinds read off a project
module) may raise at import only where it reads a name or an attribute
(``import_digest.display_read_nodes``). The digest of those reads was in the module unit, so a
read removed changed it and selected every importer, though evaluating fewer reads cannot
make the import fail where it did not: a read has no effect but its value (the same
assumption as the digest's, which left the order and number of elements out). So each
distinct read of the module's tables is a unit, ``<read>kinds.WORD``
(``unit_names.DISPLAY_READ``; not named by its table, which a rename would change), whose
checksum says, for each table reading it in order, whether the name it starts from is
bound in the module before that table (moved above its import, it raises). An attribute of
a module the file imports (``import kinds``) must still be there: each importer needs it as
if the file said ``from kinds import WORD`` (``rts.needed_attributes``). A new or
changed one selects every importer; one gone selects nothing (``select.changed_units``, and
the store marks the importers stale when a run stores a new or changed one:
``store.writes``). Its readers see the table's own unit change as before.
"""

from __future__ import annotations

import ast

from lsp_server.rts.ast_walk import attribute_chain
from lsp_server.rts.import_digest import display_read_nodes
from lsp_server.rts.import_raise import may_raise
from lsp_server.rts.import_scope import Scope
from lsp_server.rts.unit_names import display_read_name


def display_read_markers(stmt: ast.stmt, scope: Scope) -> list[tuple[str, str]] | None:
    """(unit name, marker) of each distinct read of the display table ``stmt`` that may
    raise after what ``scope`` has bound (none when it cannot raise); None when ``stmt`` is
    no such table."""
    nodes = display_read_nodes(stmt)
    if nodes is None:
        return None
    if not may_raise(stmt, scope):
        return []
    markers: dict[str, str] = {}
    for node in nodes:
        root = attribute_chain(node)[0]
        assert isinstance(root, ast.Name)
        where = "bound" if root.id in scope.bound else "free"
        markers[display_read_name(ast.unparse(node))] = f"<raises:{where}>"
    return sorted(markers.items())
