"""The units of one Python file as the recorder and the store see them: ``Unit`` names a
tracked piece of code, ``FileUnits`` holds a file's units with their checksums and what its
statements bind and read (built by ``rts.units.source_units``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from types import CodeType
from typing import NamedTuple

from lsp_server.rts.spans import LOCALS as _LOCALS
from lsp_server.rts.spans import ImportStatement, UnitSpan
from lsp_server.rts.unit_names import FILE, MODULE


class Unit(NamedTuple):
    """A tracked piece of code: ``path`` is POSIX and relative to the project root.

    A named tuple rather than a dataclass: the recorder hashes units by the hundred per
    test, and a tuple hashes in C."""

    path: str
    name: str

    @property
    def is_module(self) -> bool:
        return self.name == MODULE

    @property
    def is_file(self) -> bool:
        return self.name == FILE

    def __str__(self) -> str:
        if self.name in (MODULE, FILE):
            return self.path
        return f"{self.path}::{self.name}"


@dataclass
class FileUnits:
    """The units of one Python file with their checksums."""

    path: str
    checksums: dict[str, str] = field(default_factory=dict)
    spans: dict[str, UnitSpan] = field(default_factory=dict)
    """The first definition of each function unit."""
    definitions: list[UnitSpan] = field(default_factory=list)
    """Every ``def`` in source order, redefinitions included."""
    imports: list[ImportStatement] = field(default_factory=list)
    """Every import statement (the file's static import closure starts here)."""
    needed: tuple[ImportStatement, ...] = ()
    """The attributes of imported modules a display table or a base reads, as ``from``
    imports of them (``rts.needed_attributes``): importing fails once they are gone."""
    bound: dict[str, list[str]] = field(default_factory=dict)
    """A name -> the units that bind it outside function bodies (top-level bindings, a
    class's attributes and methods): what a test reading the name depends on."""
    refs: dict[str, frozenset[str]] = field(default_factory=dict)
    """A binding unit -> the names its statement reads at import."""
    residue_refs: frozenset[str] = frozenset()
    """The names the module unit's statements read at import."""
    partial_callees: frozenset[str] = frozenset()
    """Names a ``functools.partial`` call takes as its callable at import, that a ``from``
    import alone binds (``rts.partial_callees``): read as ``rts.callee_classes`` tells."""
    subclassed: dict[str, frozenset[str]] = field(default_factory=dict)
    """A name of ``residue_refs`` the module unit reads only as a base of classes -> those
    classes (``rts.subclassing``)."""
    noted: dict[str, frozenset[str]] = field(default_factory=dict)
    """A class unit (or alias) -> the names only its dunders' inert annotations read
    (``header_parts.annotation_only_reads``): read by a test that read signatures."""
    classes: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Each top-level class with a unit of its own -> its first and last line."""
    dynamic: dict[str, str] = field(default_factory=dict)
    """The function units whose code looks names up by a computed string: "*" (any name),
    or ``lookups.ATTRIBUTE_LOOKUP`` (only attributes of its own instance or class)."""
    call_sites: list[tuple[frozenset[str], frozenset[str]]] = field(default_factory=list)
    """Residue statements calling what the module does not define (``ModuleLayout``)."""
    import_origins: dict[str, str] = field(default_factory=dict)
    """A name an import binds -> its module (leading dots: relative)."""
    taken: frozenset[str] = frozenset()
    """Names bound by importing another module's binding (``lookups.bindings_taken``)."""
    import_units: frozenset[str] = frozenset()
    """The binding units of imports: standard-library ones, the names of ``from`` imports
    and the modules those import (a refactoring may drop or add one as it may edit the
    module part)."""
    open_namespace: bool = True
    """Whether the module's globals may come from other modules (``rts.open_namespace``:
    spelled in its code; false alarms only cost precision)."""
    attribute_names: frozenset[str] = frozenset()
    """Every identifier the source spells after a dot (``x.attr``), over-approximated."""
    from_imports: dict[str, tuple[str, int, str]] = field(default_factory=dict)
    """The unit (``IMPORTED`` + name) of a name a top-level ``from`` import binds
    (``rts.from_imports``) -> (module, leading dots, imported name)."""
    imported_only: frozenset[str] = frozenset()
    """Names only a top-level ``from`` import of the module binds
    (``from_imports.singly_imported``)."""
    top_names: frozenset[str] = frozenset()
    """Names every run of the module binds at its top level (``from_imports``)."""
    loose: frozenset[str] = frozenset()
    """The units of the members of classes in the module unit that are units of their own
    (``rts.loose_assignments``): a method's header unit, an assignment's name units."""
    loose_reads: dict[tuple[int, str], frozenset[str]] = field(default_factory=dict)
    """A class in the module unit (by its line and name) -> the names only its loose
    assignments read: its body's code reads them for their readers alone."""
    listed: frozenset[str] | None = None
    """The names ``__all__`` lists (``bound_names.listed_names``); None: any may be."""
    gathering: tuple[tuple[int, str], ...] = ()
    """(line, helper) of each ``__all__`` gathered from other listings by a helper
    (``rts.gathered_listings``)."""
    copying: frozenset[str] = frozenset()
    """Top-level functions returning a copy of their one parameter's items (the same)."""
    deleted: frozenset[str] = frozenset()
    """Names the top level deletes for good, looked up by no computed name while bound
    (``rts.deleted_names``): no lookup by string after the import finds them."""
    changes_only_own_namespace: bool = False
    """Whether the top level only imports, defines and binds plain names: running it
    changes no other module's state (``rts.import_effects``)."""
    may_raise_at_import: bool = True
    """Whether running the top level may raise, its imports aside
    (``import_effects.may_raise_at_import``)."""
    safe_wrappers: frozenset[str] = frozenset()
    """Top-level names bound for good to a ``@wraps`` wrapper that cannot raise applied to
    a ``def`` (``Wrappers.exported``): what another module may decorate with."""
    cases: dict[str, tuple[tuple[str, ...], frozenset[str]]] = field(default_factory=dict)
    """A top-level function whose ``parametrize`` list is a literal -> its argument names
    and the digest of each case's values (``rts.parametrize_cases``)."""
    class_signatures: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """A class unit (or an alias of it) -> the default-values units (``f.<defaults>``) of
    the methods whose headers it holds less their default values and annotations
    (``rts.header_parts``): what reading the class's signature shows besides it."""
    hooked_classes: frozenset[str] = frozenset()
    """Top-level classes whose statement may raise only by a hook their bases bring: their
    importers depend on their units unless made without one (``rts.class_frames``)."""

    def own_globals(self, names: Iterable[str]) -> frozenset[str]:
        """Of ``names`` read by this module's statements, those read only as its globals
        and not taken from another module's bindings: a binding in another module cannot
        change what they find (``rts.reads``). A name only a top-level ``from`` import
        binds is found there, and that statement reads it off the module it imports
        (``rts.from_import_reads``): followed from here, the read reaches that module."""
        if self.open_namespace:
            return frozenset()
        return frozenset(names).difference(self.attribute_names, self.taken - self.imported_only)

    def class_of(self, unit: Unit) -> Unit | None:
        """The class unit a method unit (or an alias ``C.x``) belongs to."""
        head = unit.name.split(".", 1)[0]
        return Unit(self.path, head) if head in self.classes and head != unit.name else None

    def class_at_line(self, line: int) -> Unit | None:
        """The class unit whose statement holds ``line`` (for class-body code)."""
        for name, (first, last) in self.classes.items():
            if first <= line <= last:
                return Unit(self.path, name)
        return None

    def units(self) -> Iterator[Unit]:
        for name in self.checksums:
            yield Unit(self.path, name)

    def unit_for_qualname(self, qualname: str) -> Unit:
        """The innermost function unit holding the code of ``co_qualname`` (the module part
        for module-level and class-body code)."""
        spans = self.spans
        while True:
            if qualname in spans:
                return Unit(self.path, qualname)
            head, dot, _ = qualname.rpartition(".")
            if not dot:
                return Unit(self.path, MODULE)
            qualname = head[: -len(_LOCALS) - 1] if head.endswith(_LOCALS) else head

    def unit_for_code(self, code: CodeType) -> Unit:
        """The unit a code object of this file belongs to: by ``co_qualname`` (3.11+), else
        by name and first line. A module's code object starts at line 1, which may be
        inside a function's span when the file opens with a ``def``: never a function."""
        qualname = getattr(code, "co_qualname", None)
        if qualname is not None:
            return self.unit_for_qualname(qualname)
        if code.co_name == "<module>":
            return Unit(self.path, MODULE)
        return self.unit_at_line(code.co_firstlineno)

    def unit_at_line(self, line: int) -> Unit:
        """The innermost function unit whose text contains ``line`` (for Pythons without
        ``co_qualname``); the module part outside every function."""
        best: UnitSpan | None = None
        for span in self.definitions:
            inside = span.first_line <= line <= span.last_line
            if inside and (best is None or span.first_line >= best.first_line):
                best = span
        return Unit(self.path, MODULE if best is None else best.name)

    def enclosing(self, unit: Unit) -> tuple[Unit, ...]:
        """The function units ``unit`` is defined in, innermost first."""
        out: list[Unit] = []
        span = self.spans.get(unit.name)
        while span is not None and span.parent is not None:
            out.append(Unit(self.path, span.parent))
            span = self.spans.get(span.parent)
        return tuple(out)
