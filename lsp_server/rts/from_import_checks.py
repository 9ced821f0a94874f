"""When a change to the names of a top-level ``from module import ...`` (each a binding unit:
``rts.from_imports``) can be left to the tests that read those names: else the importing
file's module unit counts as changed, and every importer runs.

* A name added to the list (or whose import changed) is found as an attribute, importing
  nothing and raising nothing, when the module is a project file binding it at its top
  level, unconditionally, and that module does not import the importing one back (else it
  may be half run when the name is looked up); its own packages do not count, they are
  imported before it (``ImportResolver.run_closure``).
  Or when the module is an installed library's (no project file) that binds it at its top
  level once imported, as a fresh process of the test interpreter finds it
  (``rts.library_names``: typeguard 2fde422's ``from typing_extensions import
  NoExtraItems``); its import is the ``<imports>`` unit's (``rts.import_statements``).
* A name removed from the list may have been a submodule the statement imported: unless
  no module the file imports names from is a package with a submodule so named (or no
  project file: conservatively).
"""

from __future__ import annotations

from collections.abc import Iterable

from lsp_server.rts.file_units import FileUnits, Unit
from lsp_server.rts.from_origins import origin_units
from lsp_server.rts.imports import ImportResolver
from lsp_server.rts.library_names import installed_names
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.unit_names import IMPORTED, MODULE


def unproven(
    states: FileStates, resolver: ImportResolver, added: Iterable[Unit], removed: Iterable[Unit]
) -> set[Unit]:
    """The module units of the files where a ``from`` import's name was ``added`` (new or
    changed binding units) or ``removed`` and its effect on every importer is not ruled out
    (see the module's docstring)."""
    out: set[Unit] = set()
    for unit in added:
        file_units = states.units(unit.path)
        origin = None if file_units is None else file_units.from_imports.get(unit.name)
        if origin is not None and not _found(unit.path, *origin, states, resolver):
            out.add(Unit(unit.path, MODULE))
    for unit in removed:
        file_units = states.units(unit.path)
        if file_units is not None and _may_be_submodule(unit, file_units, resolver):
            out.add(Unit(unit.path, MODULE))
    return out


def _found(
    path: str, module: str, level: int, name: str, states: FileStates, resolver: ImportResolver
) -> bool:
    target_units = origin_units(path, module, level, states, resolver)
    if target_units is None:  # an installed library's, as installed (``rts.library_names``)
        return level == 0 and name in installed_names(module)
    return name in target_units.top_names


def _may_be_submodule(unit: Unit, file_units: FileUnits, resolver: ImportResolver) -> bool:
    """Whether the name of ``unit`` (once a ``from`` import's) may have been a submodule of
    a module the file imports names from: a package holding one so named, or a module
    that is no project file."""
    if not unit.name.startswith(IMPORTED):
        return False
    sources = {(module, level) for module, level, _ in file_units.from_imports.values()}
    for module, level in sources:
        target = resolver.module_file(unit.path, module, level)
        if target is None or resolver.has_submodule(target, unit.name.removeprefix(IMPORTED)):
            return True
    return False
