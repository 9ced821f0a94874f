"""Which files still take a name from a module with ``from module import name``.

A binding removed from a module selects the tests whose modules took its name with a
``from`` import (``<from>name@module``: that import fails now). When the importing
statement went in the same change (sqlparse ``519e41698a`` removed
``utils._DelimiterOccurrence`` and ``keywords``' import of it), no import fails: only the
tests that depend on a module still taking the name can see it missing. A module that
takes it newly is imported by a changed import statement, which selects on its own
(``rts.import_statements``).
"""

from __future__ import annotations

from collections.abc import Iterable

from lsp_server.project.files import is_python
from lsp_server.rts.imports import ImportResolver
from lsp_server.rts.snapshots import FileStates


def files_taking(
    states: FileStates, resolver: ImportResolver, paths: Iterable[str], origin: str, name: str
) -> set[str] | None:
    """The files among ``paths`` whose import statements (anywhere in them) take ``name``
    from the module of file ``origin`` now, or whose tables read it there
    (``FileUnits.needed``); None when one of them does not parse (it may)."""
    out: set[str] = set()
    for path in paths:
        if not is_python(path) or states.raw_hash(path) is None:
            continue  # deleted: it takes nothing
        units = states.units(path)
        if units is None:
            return None
        for statement in (*units.imports, *units.needed):
            if name in statement.names and resolver.from_origin(path, statement) == origin:
                out.add(path)
                break
    return out
