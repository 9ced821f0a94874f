"""The units a lookup by a computed name may find, per module and per set of modules.

A test that looks names up by string (``getattr(obj, name)``, ``globals()[name]``)
depends on every unit of its modules but the bodies (``rts.lookups``): on jinja, 732 of
802 tests do, over the same forty modules of their file's imports. ``BindingReads``
added each module's units to the test's set one module at a time, forty unions of
hundreds of ids per test; the union over a set of modules is the same for every test
with that set (the modules of its file's imports), so it is made once and a test's set
starts as a copy of it (a set copied from a set takes its hashes along).
"""

from __future__ import annotations

from collections.abc import Callable, Set

from lsp_server.rts.file_units import FileUnits, Unit
from lsp_server.rts.module_docstring import MODULE_DOC
from lsp_server.rts.names_read import binds_prefixed_attribute
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.spans import LOCALS
from lsp_server.rts.unit_names import (
    CLASS_KIND,
    DEAD,
    DEFAULTS,
    DOC,
    GETATTR_PARTS,
    IMPORTED,
    LAYOUT,
    LINES,
    PLACED,
    PLACES,
    header_name,
)


class StringLookupUnits:
    """Session caches of what a lookup by string finds; ``intern`` maps a unit to its id."""

    def __init__(self, states: FileStates, intern: Callable[[Unit], int]) -> None:
        self.states = states
        self._intern = intern
        # (module, prefix) -> ids; (modules, prefix) -> the union of theirs.
        self._of_module: dict[tuple[str, str | None], frozenset[int]] = {}
        self._of_modules: dict[tuple[frozenset[str], str | None], frozenset[int]] = {}

    def of_modules(self, paths: Set[str], prefix: str | None = None) -> frozenset[int]:
        """The union of ``of_module`` over the modules ``paths`` that parse."""
        key = (frozenset(paths), prefix)
        found = self._of_modules.get(key)
        if found is None:
            parts = []
            for path in paths:
                file_units = self.states.units(path)
                if file_units is not None:
                    parts.append(self.of_module(path, file_units, prefix))
            found = self._of_modules[key] = frozenset().union(*parts)
        return found

    def of_module(
        self, path: str, file_units: FileUnits, prefix: str | None = None
    ) -> frozenset[int]:
        """The units of ``path`` a lookup by a computed name may find: all but bodies, default
        values and docstrings (the module's too); with a ``prefix`` (a lookup on a class or
        its instance), the class units and the members and aliases starting with it (a
        subset of those without one)."""
        cached = self._of_module.get((path, prefix))
        if cached is None:
            # Bodies, defaults, docstrings and layouts: what code a test ran and read by name
            # say who sees those; version guards' dead branches bind no name here unless the
            # module ran under other values (``rts.dead_runs``). A function's locals are in
            # no namespace a name is looked up in: its nested ``def`` lines are seen by who
            # ran it (its body holds them). The parts of a split module ``__getattr__`` are
            # its body's: a lookup reaching it runs it (``rts.getattr_branches``). A class's
            # kind is no binding (``rts.needed_attributes``).
            sums, gone = file_units.checksums, file_units.deleted
            cached = frozenset(
                self._intern(u)
                for u in file_units.units()
                if header_name(u.name) not in sums
                and _top_name(u.name) not in gone
                and not u.name.endswith((DOC, DEFAULTS, LINES, PLACED, CLASS_KIND))
                and not u.name.startswith(GETATTR_PARTS)
                and u.name not in (MODULE_DOC, LAYOUT, PLACES, DEAD)
                and f".{LOCALS}." not in u.name
                and (
                    prefix is None
                    or u.name in file_units.classes
                    or (
                        (file_units.class_of(u) is not None or u.name in file_units.loose)
                        and binds_prefixed_attribute(u.name, prefix)
                    )
                )
            )
            self._of_module[(path, prefix)] = cached
        return cached


def _top_name(unit_name: str) -> str:
    """The top-level name a unit belongs to (``C.m.<def>`` -> ``C``, ``<import>.x`` -> ``x``)."""
    return unit_name.removeprefix(IMPORTED).partition(".")[0]
