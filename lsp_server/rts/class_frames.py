"""A class statement that may raise at import only because of what its bases run.

A top-level binding that may raise puts a digest of what it runs into its module's unit
(``rts.import_digest``): every importer would see the import fail. A class whose base
comes from another project module (tomlkit's ``OutOfOrderTableProxy(_CustomDict)``) cannot
be proved plain from its own file, so every method added to it changed the module unit
and selected every importer. Yet with no decorator, no keyword (``metaclass=``) and no
``__slots__``, all that may fail over its plain members is a hook its bases bring: a
metaclass or an ``__init_subclass__`` that reads the new class's namespace. (What its
body may raise on its own, a method whose header may raise among it, is the frame's.)

Such a class's *frame* goes into a unit of its own, ``C.<frame>`` (``unit_names.FRAME``),
which selects every importer when new or changed, as the module unit would: the statement
without its plain methods (its bases, class-level statements, the methods ``type`` itself
treats specially). Gone with the class, it selects nothing: the statement cannot fail where
it no longer runs, and a hook it ran is the ``HOOKS`` unit's (click f36d58bb removed a
``Protocol`` subclass, and every importer reran). The whole digest goes into a unit of
its own, ``C.<hooks>`` (``unit_names.HOOKS``), which every importer depends on unless the
class, as the recording finds it made, ran no hook but ``type``'s (``rts.class_hooks``):
then a plain method added is seen only by the tests that read its name (``rts.reads``), a
dunder by those reaching the class (its header is the class unit's). A changed frame
(other bases, a risky member) still selects every importer.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from lsp_server.rts.ast_walk import unshared
from lsp_server.rts.bound_names import maybe_bound_in
from lsp_server.rts.display_read_units import display_read_markers
from lsp_server.rts.import_digest import (
    class_digest,
    import_time_digest,
    raising_digest,
    risky_reads,
)
from lsp_server.rts.import_raise import RiskyStatements, may_raise, risky_class_parts
from lsp_server.rts.import_scope import Scope
from lsp_server.rts.purity import import_time_names
from lsp_server.rts.unit_names import FRAME, HOOKS

# Names ``type`` itself reads from a class namespace, or that clash with its layout:
# a method so named stays in the frame.
TYPE_NAMES = frozenset(
    [
        "__init_subclass__",
        "__class_getitem__",
        "__set_name__",
        "__new__",
        "__qualname__",
        "__module__",
        "__classcell__",
        "__dict__",
        "__weakref__",
        "__mro_entries__",
        "__prepare__",
    ]
)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def hooked_classes(markers: dict[str, list[str]]) -> frozenset[str]:
    """The classes given a unit of their hooks by ``raising_markers`` (markers by unit
    name, as ``bindings.ModuleLayout`` keeps them)."""
    return frozenset(name.removesuffix(HOOKS) for name in markers if name.endswith(HOOKS))


@dataclass(frozen=True)
class RaisingPart:
    """Of a top-level binding that may raise at import: the unit holding what may ("": the
    module unit, or a ``<raises>`` unit of its own, ``rts.raising_units``), its marker, and
    the names it computes from (None: every name the binding reads)."""

    unit: str
    marker: str
    reads: frozenset[str] | None = None


def raising_markers(stmt: ast.stmt, scope: Scope, docs_inert: bool) -> list[RaisingPart]:
    """What may raise when the top-level binding ``stmt`` runs, after what ``scope`` has
    bound: none, the module unit's ``<raises:...>``, or for a class whose bases may raise
    (their hooks) its frame's in its ``FRAME`` unit and the whole digest in its ``HOOKS``
    unit (the names the hooks see: its whole namespace)."""
    reads = display_read_markers(stmt, scope)
    if reads is not None:  # a table of displays: one unit per read
        return [RaisingPart(unit, marker) for unit, marker in reads]
    if isinstance(stmt, ast.ClassDef):
        return _class_raising(stmt, scope, docs_inert) if may_raise(stmt, scope) else []
    raising = raising_digest(stmt, scope, docs_inert)
    return [] if raising is None else [RaisingPart("", f"<raises:{raising}>")]


def _class_raising(stmt: ast.ClassDef, scope: Scope, docs_inert: bool) -> list[RaisingPart]:
    """``raising_markers`` of a class statement that may raise; its body's risky
    statements are found once (``import_raise.risky_class_parts``)."""
    risky = risky_class_parts(stmt, scope, set(scope.bound))
    whole = f"<raises:{class_digest(stmt, risky, docs_inert)}>"
    # Its risk is its body's alone (``risky`` not None): the ``<raises>`` unit.
    framed = risky is None and not stmt.decorator_list and not stmt.keywords
    if framed and "__slots__" not in maybe_bound_in(stmt.body):
        without_bases = _risky_without_bases(stmt, scope)
        if without_bases is not None:
            frame = _frame_digest(stmt, without_bases, docs_inert)
            return [
                RaisingPart(
                    stmt.name + FRAME, f"<raises:{frame}>", risky_reads(stmt, without_bases)
                ),
                RaisingPart(stmt.name + HOOKS, whole, frozenset(import_time_names(stmt))),
            ]
    return [RaisingPart("", whole, risky_reads(stmt, risky))]


def _frame_digest(stmt: ast.ClassDef, risky: RiskyStatements, docs_inert: bool) -> str:
    """The digest of the class statement without its plain methods, when nothing but its
    bases and its body's own ``risky`` statements may make it raise; of a method whose
    header may raise, the parts that may (``_frame_part``). The AST is changed in place and
    restored (see ``import_time_digest``)."""
    kept_defs = {id(member): parts for member, parts in risky if parts is not None}
    body = stmt.body
    with unshared():  # the tree changes in place meanwhile (``ast_walk.shared_walks``)
        kept = [
            _frame_part(s, kept_defs)
            for s in body
            if not isinstance(s, _DEFS) or s.name in TYPE_NAMES or id(s) in kept_defs
        ]
        stmt.body = kept or [ast.Pass()]
        try:
            return import_time_digest(stmt, docs_inert)
        finally:
            stmt.body = body


def _frame_part(stmt: ast.stmt, risky_defs: dict[int, list[ast.expr]]) -> ast.stmt:
    """A body statement as the frame keeps it: a method whose header may raise, but one
    ``type`` treats specially, as its parts that may, in order (what
    ``import_digest.risky_reads`` reads of it). A parameter added with a constant default
    raises nothing: tenacity 39eb157 gave ``AsyncRetrying.__init__``, whose defaults call
    code, ``enabled: bool = True``, and the frame selected every importer."""
    parts = risky_defs.get(id(stmt))
    if parts is None or not isinstance(stmt, _DEFS) or stmt.name in TYPE_NAMES:
        return stmt
    return ast.Expr(ast.Tuple(parts, ast.Load()))


def _risky_without_bases(stmt: ast.ClassDef, scope: Scope) -> RiskyStatements | None:
    """``risky_class_parts`` of the class statement as if it had no bases: what its
    frame's own statements may raise (what the frame computes from: ``risky_reads``)."""
    bases = stmt.bases
    with unshared():
        stmt.bases = []
        try:
            return risky_class_parts(stmt, scope, set(scope.bound))
        finally:
            stmt.bases = bases
