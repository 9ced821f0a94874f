"""Where a ``from`` import of a project file takes its names from, for the selection rules
that check a name there (``rts.from_import_checks``, ``rts.imported_wrappers``). Imported
by the unit analysis, so it imports neither the resolver nor the file states at run time."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsp_server.rts.file_units import FileUnits

if TYPE_CHECKING:  # both import ``rts.units``
    from lsp_server.rts.imports import ImportResolver
    from lsp_server.rts.snapshots import FileStates


def origin_units(
    path: str, module: str, level: int, states: FileStates, resolver: ImportResolver
) -> FileUnits | None:
    """The units of the project file a ``from`` import of ``path`` takes names from, when
    that file does not import ``path`` back (then its names are all bound before ``path``
    asks); None otherwise."""
    target = resolver.module_file(path, module, level)
    if target is None or path in resolver.run_closure(target):
        return None
    return states.units(target)
