"""What a top-level ``from .encoding import want_bytes`` reads at import: ``want_bytes`` off
the module ``.encoding``, as a global of that module, not a name anywhere.

Its binding unit (``<import>.want_bytes``, ``rts.from_imports``) refers to the imported
name. Read anywhere, that name made every test importing the statement's module depend on
any binding of it in any of its modules: itsdangerous e5295938 added ``from .encoding
import want_bytes`` to the package's ``__init__``, and the 396 tests whose modules
imported it in ``signer.py`` reran (pytest-testmon: 0). Python finds it as an attribute of
the imported module (or else imports a submodule so named, a file of its own): only a
binding there can change what it finds, when that module's globals come from its own
statements (``FileUnits.open_namespace``). A module that cannot be told (a library's, or
one the resolver finds no single file for) keeps the read anywhere.

The statement's own module may read the name as a global, from another statement or a
function: when nothing there but that import binds it, the read finds that unit and goes
on to the module it imports (``FileUnits.own_globals``), instead of anywhere too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsp_server.rts.callee_classes import callee_units
from lsp_server.rts.code_read_targets import TOLDABLE
from lsp_server.rts.file_units import FileUnits, Unit
from lsp_server.rts.reads import LISTED_NAMES, NEEDED_BY_IMPORT
from lsp_server.rts.unit_names import IMPORTING, module_read

if TYPE_CHECKING:  # both import ``rts.units``
    from lsp_server.rts.imports import ImportResolver
    from lsp_server.rts.snapshots import FileStates


def from_import_split(
    file_units: FileUnits, unit_name: str, resolver: ImportResolver, states: FileStates
) -> tuple[frozenset[str], ...] | None:
    """(read anywhere, read as the file's own globals, ``NAMES`` keys of names read as
    another module's globals) of the ``from`` import unit ``unit_name``; None for another
    unit. Its names are never the file's own globals: it binds them."""
    found = file_units.from_imports.get(unit_name)
    if found is None:
        return None
    module, level, imported = found
    refs = file_units.refs.get(unit_name, frozenset())
    origin = resolver.module_file(file_units.path, module, level)
    origin_units = None if origin is None else states.units(origin)
    if origin is None or origin_units is None or origin_units.open_namespace:
        return (refs, frozenset())
    if origin == file_units.path or imported not in refs or imported in TOLDABLE:
        return (refs, frozenset())  # a code read's name: told as it runs (``rts.reads``)
    return (refs - {imported}, frozenset(), frozenset([module_read(imported, origin)]))


def taken_by_imports(
    path: str, file_units: FileUnits, resolver: ImportResolver, states: FileStates
) -> tuple[set[str], list[Unit]]:
    """The ``NAMES`` keys ``<from>name@origin`` of the names ``from origin import name``
    statements of ``path`` take from project modules: importing ``path`` fails once
    ``origin`` binds the name no more, which a removed binding there tells
    (``select.tests_reading_changed``); what it is bound to the test sees only by reading
    it (the names its code read lead to the binding). A star import takes what
    ``origin``'s ``__all__`` lists: ``reads.LISTED_NAMES``; a table's attribute of an
    imported module is taken too (``FileUnits.needed``). And the units of the modules
    those statements import (``IMPORTING``: ``rts.import_statements``), and the units that
    tell a callable a ``functools.partial`` takes at import is a class
    (``rts.callee_classes``)."""
    keys = {
        module_read(LISTED_NAMES if name == "*" else NEEDED_BY_IMPORT + name, origin)
        for statement in (*file_units.imports, *file_units.needed)
        if (origin := resolver.from_origin(path, statement)) is not None
        for name in statement.names
    }
    importing = [u for u in file_units.units() if u.name.startswith(IMPORTING)]
    return keys, importing + callee_units(file_units, resolver, states)
