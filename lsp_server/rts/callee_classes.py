"""Which units a module's importers depend on for the callables its ``functools.partial``
calls take at import (``rts.partial_callees``).

A callee the module binds by a ``from`` import alone, from a project module that binds it by
one undecorated class statement and nothing else, is a class wherever its kind unit
``C.<class>`` and the importing statement's unit are unchanged: another binding of the name
there, a decorator or the class gone changes one of them. Every importer depends on those
two units (``callee_units``). Where that cannot be told (a library's module, a name that
module imports in turn, a module whose namespace is open to others), the importer reads the
name as any name its module unit reads, its whole binding closed over (``unproved_reads``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsp_server.rts.file_units import FileUnits, Unit
from lsp_server.rts.needed_attributes import is_plain_class
from lsp_server.rts.unit_names import CLASS_KIND, IMPORTED

if TYPE_CHECKING:
    from lsp_server.rts.imports import ImportResolver
    from lsp_server.rts.snapshots import FileStates


def _proved(
    file_units: FileUnits, name: str, resolver: ImportResolver, states: FileStates
) -> tuple[Unit, Unit] | None:
    """The units telling that the callee ``name`` is a class: the ``from`` import binding
    it and the kind unit of the class in the module it imports; None when that cannot be
    told."""
    unit = IMPORTED + name
    found = file_units.from_imports.get(unit)
    if found is None or file_units.bound.get(name) != [unit] or file_units.open_namespace:
        return None  # ``globals()[...] = ...`` may bind it too
    module, level, imported = found
    origin = resolver.module_file(file_units.path, module, level)
    origin_units = None if origin is None else states.units(origin)
    if origin is None or origin_units is None or origin == file_units.path:
        return None
    if origin_units.open_namespace or not is_plain_class(origin_units, imported):
        return None
    return Unit(file_units.path, unit), Unit(origin, imported + CLASS_KIND)


def callee_units(file_units: FileUnits, resolver: ImportResolver, states: FileStates) -> list[Unit]:
    """The units every importer of the module depends on for its callees proved classes."""
    found = (_proved(file_units, n, resolver, states) for n in file_units.partial_callees)
    return [unit for pair in found if pair is not None for unit in pair]


def unproved_reads(
    file_units: FileUnits, resolver: ImportResolver, states: FileStates
) -> frozenset[str]:
    """What the module unit reads at import: its residue's names and the callees not
    proved classes (their whole bindings, as any name read)."""
    callees = file_units.partial_callees
    if not callees:
        return file_units.residue_refs
    unproved = {n for n in callees if _proved(file_units, n, resolver, states) is None}
    return file_units.residue_refs | unproved
