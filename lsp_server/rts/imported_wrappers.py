"""Functions decorated by a wrapper another project module defines, trusted at analysis and
checked at selection.

validators decorates every check with ``@validator``, a ``@wraps`` wrapper of its
``utils`` module (``rts.wrapping_decorators``) taken by ``from .utils import validator``,
and its package imports every check: kept in the module unit as a decorator that may
register what it decorates, a new check reran every test. A file's analysis sees no other
file, so a top-level ``def`` decorated bare by a name a top-level ``from`` import takes
from a module that may be the project's (relative, or no standard-library one) is trusted
like a wrapper of its own module: its header, docstring and defaults are units of their
own, and the decoration counts as unable to raise. What that trust leaves out of the
module unit is in a ``WRAPPED`` unit per such ``def`` (``unit_names.wrapped_name``).

Selection checks the trust whenever such a unit is new, changed or gone: the module must be
a project file that does not import the decorated one back (``from_import_checks``) and
binds the name at its end to a ``@wraps`` wrapper that cannot raise applied to a ``def``
(``FileUnits.safe_wrappers``); else the decorated file's module unit counts as changed and
every importer runs, as before the trust. A wrapper that changes into something else is a
change of its own units, which every importer of the decorated file depends on (the
decoration ran it at import: ``rts.import_footprints``); a decorator from a library is no
project file, so any change to what it decorates selects every importer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from lsp_server.rts.file_units import FileUnits, Unit
from lsp_server.rts.from_origins import origin_units
from lsp_server.rts.tokens import digest
from lsp_server.rts.unit_names import (
    DEFAULTS,
    DOC,
    HEADER,
    MODULE,
    WRAPPED,
    wrapped_name,
    wrapped_parts,
)
from lsp_server.rts.wrapping_decorators import Wrappers

if TYPE_CHECKING:  # both import ``rts.units``, which adds the units here
    from lsp_server.rts.imports import ImportResolver
    from lsp_server.rts.snapshots import FileStates

_TRUSTED_PARTS = (HEADER, DOC, DEFAULTS)


def add_wrapped_units(result: FileUnits, wrappers: Wrappers) -> None:
    """The ``WRAPPED`` units of the ``def``s ``wrappers`` trusted, and the wrappers that
    other modules may trust (``FileUnits.safe_wrappers``)."""
    result.safe_wrappers = wrappers.exported()
    for function, origin in wrappers.trusted:
        parts = [result.checksums.get(function + part, "") for part in _TRUSTED_PARTS]
        result.checksums[wrapped_name(function, *origin)] = digest([WRAPPED, *parts])


def unproven_wrappers(
    states: FileStates, resolver: ImportResolver, changed: Iterable[Unit]
) -> set[Unit]:
    """The module units of the files with a ``WRAPPED`` unit among ``changed`` whose
    decorator is not, now, a wrapper of a project module (see the module docstring)."""
    out: set[Unit] = set()
    for unit in changed:
        origin = wrapped_parts(unit.name)
        if origin is not None and not _wraps_there(unit.path, *origin, states, resolver):
            out.add(Unit(unit.path, MODULE))
    return out


def _wraps_there(
    path: str, module: str, level: int, name: str, states: FileStates, resolver: ImportResolver
) -> bool:
    target_units = origin_units(path, module, level, states, resolver)
    return target_units is not None and name in target_units.safe_wrappers
