"""Globals an earlier test rebound in a module, by module: read only by a test that
reaches that module.

``rts.filled_containers`` ties a test whose code spells a name (as a name, an attribute or
a string constant) to what ran in the earlier tests that rebound that name and left it so.
Kept by name alone, a name rebound in one module tied every later test spelling it anywhere:
typeguard's import-hook tests re-import a test helper module (every global of it rebound),
and the transformer's tests, which spell ``"check_argument_types"`` and ``"replace"`` as
string constants in code that never touches that module, depended on everything the hook
tests ran (2,181 units each, 939 when run alone).

A module's globals are read through the module: its own code, an import of it, a lookup of
it by name (``sys.modules['m']``), or an object of it (a function's ``__globals__``, handed
over by a registry). A test reaches the module when it depends on the module otherwise (a
unit of its file: it imported it, ran its code, looked it up by name, or the modules it
imports import it); only then does it depend on what rebound the module's globals.
That is the unit model's own premise: a test that depends on no unit of a module is not
affected by that module's text either. A class's attributes stay kept by name (an instance
carries its class anywhere), and so does a module without a file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType

from lsp_server.rts.interned_units import InternedUnits
from lsp_server.rts.tracing import CodeSet

Reach = dict[str, CodeSet]
"""What ran in the tests that rebound globals a test read, by the file of their module."""


@dataclass
class ModuleRebinds:
    """Name -> module file -> what ran in the tests that rebound the name there."""

    by_name: dict[str, Reach] = field(default_factory=dict)

    @staticmethod
    def file_of(owner: object) -> str | None:
        """The file of ``owner`` when it is a module with one: only then kept here."""
        if not isinstance(owner, ModuleType):
            return None
        found = getattr(owner, "__file__", None)
        return found if isinstance(found, str) else None

    def add(self, name: str, file: str, codes: CodeSet) -> None:
        self.by_name.setdefault(name, {}).setdefault(file, {}).update(codes)

    def read(self, name: str, into: Reach) -> None:
        """Add to ``into`` what rebound ``name``, by module file."""
        for file, codes in self.by_name.get(name, {}).items():
            into.setdefault(file, {}).update(codes)


def reaching(
    reach: Reach,
    codes: CodeSet,
    units_of: Callable[[], InternedUnits],
    rel: Callable[[str], str | None],
) -> InternedUnits:
    """The test's units (``units_of`` what ran, ``codes``), once the codes of each module of
    ``reach`` it depends on are added to ``codes``; added ones may reach more modules."""
    units = units_of()
    while reach:
        reached = [file for file in reach if (path := rel(file)) is None or path in units.paths]
        if not reached:
            return units
        for file in reached:
            codes.update(reach.pop(file))
        units = units_of()
    return units
