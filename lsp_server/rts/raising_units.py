"""What may raise in a top-level binding, as a unit of its own instead of a part of the
module unit.

A ``def`` whose decorator, default or annotation may raise (``rts.import_raise``), or an
assignment whose value may, made the module unit hold a digest of those parts, and every
importer of the module depended on the names they read. Removing such a statement then
selected every importer, though the recorded import ran it without raising: running the
module without it cannot newly make the import fail (what it bound is the binding rules'
business, ``rts.binding_reads``). tenacity b8b4675 removed an unused ``@contextmanager``
helper of a test module and the imports only it read: every test importing the module ran.

So each such binding has a unit ``<raises>f`` (``unit_names.RAISES``), an import risk
(``unit_names.is_import_risk``): new or changed, it selects every importer; gone, nothing.
Its checksum holds the digest of the parts that may raise, for each name they read that
the module binds whether a binding comes before (moved below them, they raise), and the
checksums of the module's bindings of those names, closed over what those read: a
binding they read changed or removed changes it. A name the module binds otherwise too
(an import of a project module, a call's result) is no binding whose unit tells its
value: every importer depends on it as before (``FileUnits.residue_refs``).
"""

from __future__ import annotations

import ast
from collections import Counter
from typing import TYPE_CHECKING

from lsp_server.rts.annotated_assignments import as_run
from lsp_server.rts.bound_names import maybe_bound
from lsp_server.rts.class_frames import raising_markers
from lsp_server.rts.file_units import FileUnits
from lsp_server.rts.import_effects import first_line
from lsp_server.rts.subclassing import add_subclass_units, classes_types_only, owned_type_read
from lsp_server.rts.tokens import digest
from lsp_server.rts.unit_names import FRAME, HOOKS, RAISES, raises_name

if TYPE_CHECKING:
    from lsp_server.rts.bindings import Binding, ModuleLayout
    from lsp_server.rts.import_scope import Scope


def binding_raising(
    layout: ModuleLayout, stmt: ast.stmt, binding: Binding | None, scope: Scope
) -> list[tuple[str, str]]:
    """(unit, marker) of ``class_frames.raising_markers`` of the top-level ``stmt``, run
    after what ``scope`` has bound. A class notes what may raise in it reads: its body's
    risky part in ``binding``, its frame's risky part and its hooks' whole namespace in
    ``layout``: a value they compute from changed, it may raise."""
    if binding is None:
        return []
    # A lazy annotation is never evaluated (``rts.annotated_assignments``).
    raising = raising_markers(as_run(stmt, scope.lazy_annotations), scope, binding.own_doc)
    for part in raising if isinstance(stmt, ast.ClassDef) else ():
        if not part.unit:
            binding.risk_refs = part.reads
        elif part.reads is not None:
            layout.raising[part.unit] = part.reads
    return [(part.unit, part.marker) for part in raising]


def risk_reads(binding: Binding) -> frozenset[str]:
    """What may raise in ``binding`` reads: a ``def``'s or assignment's every read (its
    header, its value), a class's ``Binding.risk_refs``."""
    return binding.refs if binding.risk_refs is None else binding.risk_refs


def raising_unit(
    layout: ModuleLayout, binding: Binding, marker: str, order: list[str]
) -> tuple[str, str]:
    """(unit name, marker) of what may raise in ``binding``, given its ``<raises:...>``
    ``marker`` and the ``order`` markers of what it reads; it notes in ``layout`` what it
    reads (it raises or not by what those names hold)."""
    unit = raises_name(binding.names)
    layout.raising[unit] = layout.raising.get(unit, frozenset()) | risk_reads(binding)
    return unit, marker + "".join(order)


def add_raising_units(result: FileUnits, layout: ModuleLayout, tree: ast.Module) -> None:
    """The checksum of each ``<raises>`` unit of ``layout`` into ``result``: its markers
    and, for a ``def`` or an assignment, the checksums of the bindings it reads,
    transitively; the names read that no binding alone binds go into
    ``result.residue_refs``, those read only as types settled with the classes'
    ``SUBCLASSING`` units (``rts.subclassing``)."""
    for unit, markers in layout.markers.items():
        if unit.startswith(RAISES):
            result.checksums[unit] = digest(markers)
    outside: set[str] = set()
    residue_bound = _residue_bound(tree, layout)
    as_types = classes_types_only(tree)
    for unit, refs in layout.raising.items():
        seen: dict[str, str | None] = {}
        # A name with the class whose statement reads it only as a type (``rts.subclassing``).
        todo = _owned(unit.removesuffix(FRAME) if unit.endswith(FRAME) else "", refs, as_types)
        while todo:
            name, owner = todo.pop()
            units = result.bound.get(name)
            if name in residue_bound or not units or "*" in residue_bound:
                # A builtin, a missing name, one the residue binds (a star import: any).
                # Not a class's hooks': every importer would read it, where no hook ran too.
                if not unit.endswith(HOOKS):
                    outside.add(owned_type_read(owner, name) if owner else name)
                continue
            for bound in units:
                if bound not in seen:
                    seen[bound] = result.checksums.get(bound)
                    owner = bound.split(".", 1)[0]
                    todo.extend(_owned(owner, result.refs.get(bound, frozenset()), as_types))
                    todo.extend(_owned(owner, result.noted.get(bound, frozenset()), as_types))
        parts = [f"<{name}={checksum}>" for name, checksum in sorted(seen.items())]
        result.checksums[unit] = digest([result.checksums[unit], *parts])
    result.residue_refs = result.residue_refs | outside
    add_subclass_units(result, tree, layout.markers)  # and the reads as types settled


def _owned(
    owner: str, names: frozenset[str], as_types: dict[str, frozenset[str]]
) -> list[tuple[str, str]]:
    """``names`` read by a part of class ``owner`` ("": of no class), each with ``owner``
    when the class statement reads it only as a type (``as_types``), else with ""."""
    only = as_types.get(owner, frozenset())
    return [(name, owner if name in only else "") for name in sorted(names)]


def _residue_bound(tree: ast.Module, layout: ModuleLayout) -> set[str]:
    """The names a top-level statement that is no binding may bind (a statement sharing
    its first line with another counts as one: a binding is known by its first line)."""
    first_lines = [first_line(stmt) for stmt in tree.body]
    shared = {line for line, count in Counter(first_lines).items() if count > 1}
    bound_lines = {binding.start[0] for binding in layout.bindings} - shared
    found: set[str] = set()
    for stmt, line in zip(tree.body, first_lines, strict=True):
        if line not in bound_lines:
            found |= maybe_bound(stmt)
    return found
