"""Tests a newly bound name may reach: those reading it, and for a new attribute of a
class, only those that reached the class.

A new binding selects the tests that read its name (``rts.reads``: it may shadow what they
found before). A new attribute of a class ``C`` (a method, an alias ``C.x``) changes a
lookup only on ``C``, a subclass, or an instance of one of them, and a test that had none
of them depends on no unit of ``C``: code that names the class reads its name (the class
unit), code that made an instance ran a method of it or named it, a subclass's statement
reads its base's name, and a lookup by a computed name depends on every class unit of
its modules (``BindingReads._found_by_string``). So a test reading the name is selected
only when it depends on the class unit too. structlog 0eef50d9 added
``BoundLogger.get_effective_level``; the 659 tests reading ``get_effective_level`` on
other loggers (code run at import defines the name on the filtering loggers) all reran.

Only for an attribute of a top-level class with a unit of its own, recorded before: a
nested class's, or one of a class kept in the module unit, selects every reader as before.
"""

from __future__ import annotations

from lsp_server.rts.file_units import Unit
from lsp_server.rts.listing_units import LISTED
from lsp_server.rts.lookups import ATTRIBUTE_LOOKUP
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.store import DependencyStore
from lsp_server.rts.unit_names import IMPORTED, body_name, bound_name


def tests_reading_added(
    store: DependencyStore, states: FileStates, added: dict[str, list[Unit]]
) -> dict[str, Unit]:
    """The tests that may see a name newly bound in a module (``added``: path -> the units
    binding new names), each with one such unit."""
    out: dict[str, Unit] = {}
    for path, units in sorted(added.items()):
        # One query per receiver: a test is asked about each class whose new attributes it
        # may read (two classes gaining the same name, a test reading names of both).
        by_owner: dict[str | None, list[Unit]] = {}
        for unit in units:
            by_owner.setdefault(_owner_class(store, states, unit), []).append(unit)
        for owner, owned in by_owner.items():
            reached = None if owner is None else set(store.tests_depending_on(Unit(path, owner)))
            keys = _lookup_keys(owned)
            for nodeid, name in store.tests_reading(path, keys).items():
                if reached is None or nodeid in reached:
                    out.setdefault(nodeid, keys.get(name, owned[0]))
    return out


def _lookup_keys(units: list[Unit]) -> dict[str, Unit]:
    """The read keys that see the names ``units`` bind: the names, and for a class
    attribute ``getattr(self, name)`` with a name starting with any prefix of it (the empty
    one: any name)."""
    keys: dict[str, Unit] = {}
    for unit in units:
        name = bound_name(unit.name)
        if name is None:
            continue
        keys.setdefault(name, unit)
        if _may_be_attribute(unit.name):
            for end in range(len(name) + 1):
                keys.setdefault(ATTRIBUTE_LOOKUP + name[:end], unit)
    return keys


def _may_be_attribute(unit_name: str) -> bool:
    """Whether a unit may bind an attribute of a class or of another object (``C.x``,
    ``f.attr = ...``): not a module's global brought in by an import (``<import>.x``) nor
    an entry of its ``__all__`` (``__all__.x``), dotted as they are. A lookup on a method's
    own instance or class (``ATTRIBUTE_LOOKUP``) finds no module's global: where that
    instance may be a module, its code reads every name (``read_lines.LineReads.settle``)."""
    if unit_name.startswith((IMPORTED, LISTED)):
        return False
    return "." in (body_name(unit_name) or unit_name)


def _owner_class(store: DependencyStore, states: FileStates, unit: Unit) -> str | None:
    """The top-level class whose attribute ``unit`` binds when that class has a unit of its
    own, now and recorded; None otherwise (the receiver is not told)."""
    owner, dot, _ = (body_name(unit.name) or unit.name).rpartition(".")
    if not dot or "." in owner or owner.startswith("<"):
        return None
    file_units = states.units(unit.path)
    if file_units is None or owner not in file_units.classes:
        return None
    return owner if store.recorded_checksum(Unit(unit.path, owner)) is not None else None
