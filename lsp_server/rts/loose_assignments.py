"""The plain bindings of a class body with effects, as members of their own.

A plain class whose body has a statement with effects (reading the environment, an ``if``
filling a set, a ``del``) is no binding (``rts.bindings``): its statement stays in the
module unit, which every importer depends on, and only its methods that only build leave
it (``class_members.loose_methods``). Its assignments of values without effects to names
(``B = A = handler``: a visitor's table of node kinds) stay there too, so adding an alias
reran every importer. Here they become members of their own (``C.x``: read only by the
tests that look ``x`` up) where that cannot change what a statement staying in the module
unit sees:

* the class is split loosely at all (``class_members.splits_loosely``: no decorator,
  metaclass, library base or namespace listing in its body) and binds no
  ``__init_subclass__`` (a hook handed its subclasses, which may list their members);
* the statement cannot raise (``import_raise.risky_class_parts``: a failing import is seen
  by every importer);
* no statement staying in the module unit (nor a method's decorators and defaults) reads
  or binds (``del``, an ``if`` rebinding it) a name the statement binds, and none binds a
  name it reads: its value is not made by effects, nor read by them;
* the body does not fill the name after binding it (``class_members.own_updates``), and
  the statement is a plain ``=`` (an annotated one lists itself in ``__annotations__``).

Leaving one out can make another one's names read by what stays: the rule runs until no
statement leaves. What a member reads (its ``refs``) is a dependency of its readers, and
for each name of another member or loose method it reads, an order marker says whether that
one is bound before it (moved below, the name is another binding's, or missing), and for
each module binding it reads, whether that comes before the class (``bindings``). The class
body's code reads the members' names when the module is imported: those only the members
read are theirs (``body_reads``), not every importer's.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterable
from types import CodeType

from lsp_server.rts.bound_names import is_dunder, maybe_bound
from lsp_server.rts.class_doc_reads import class_scope_refs, class_statement_refs
from lsp_server.rts.class_members import (
    Member,
    assigned_names,
    def_is_pure,
    loose_methods,
    order_markers,
    own_updates,
    splits_loosely,
)
from lsp_server.rts.file_units import FileUnits
from lsp_server.rts.import_raise import risky_class_parts
from lsp_server.rts.import_scope import Scope
from lsp_server.rts.purity import import_time_names
from lsp_server.rts.reads import code_reads

_Def = (ast.FunctionDef, ast.AsyncFunctionDef)
_HOOKS = frozenset(["__init_subclass__"])


def loose_members(node: ast.stmt, plain_classes: set[str], scope: Scope) -> tuple[Member, ...]:
    """The members of their own of class ``node``, a statement of the module unit made
    after what ``scope`` has bound: its loose methods and plain assignments (none for a
    statement that is no class)."""
    if not isinstance(node, ast.ClassDef) or not splits_loosely(node, plain_classes):
        return ()
    assignments = _loose_assignments(node, scope)
    apart = frozenset(key for key, _ in assignments)
    methods = loose_methods(node, plain_classes, apart)
    if not assignments:
        return methods
    names = {m.names[0].rpartition(".")[2] for m in methods}
    names.update(name for _, bound in assignments for name in bound)
    members = list(methods)
    before: set[str] = set()  # of ``names``, bound above the statement in body order
    by_id = dict(assignments)
    for stmt in node.body:
        bound = by_id.get(id(stmt))
        if bound is None:
            before.update(maybe_bound(stmt) & names)
            continue
        refs = class_scope_refs(stmt, node, frozenset([node.name]))
        qualified = tuple(f"{node.name}.{name}" for name in bound)
        start, end = (
            (stmt.lineno, stmt.col_offset),
            (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0),
        )
        markers = order_markers(refs, before, names)
        members.append(Member(qualified, start, end, refs, markers))
        before.update(bound)
    return tuple(members)


def residue_class_refs(node: ast.ClassDef, loose: Iterable[Member]) -> tuple[set[str], set[str]]:
    """What the statement of class ``node`` left in the module unit reads at import (its
    loose assignments, members of ``loose``, read for their own readers), and the names
    only those read: its body's code reads them when the module is imported, yet a test
    depends on them only through the members (``body_reads``)."""
    members = [m for m in loose if not m.is_def]
    starts = {m.start for m in members}
    apart = frozenset(id(s) for s in node.body if (s.lineno, s.col_offset) in starts)
    reads = class_statement_refs(node, apart)
    return reads, set().union(*(m.refs for m in members)) - reads


def body_reads(
    code: CodeType, file_units: FileUnits | None
) -> tuple[frozenset[str], frozenset[str], bool]:
    """``reads.code_reads`` of ``code`` (of ``file_units``' file), less the names only the
    loose assignments of a residue class read when ``code`` is that class's body
    (``FileUnits.loose_reads``)."""
    names, global_only, dynamic = code_reads(code)
    apart = file_units.loose_reads if file_units is not None else None
    dropped = apart.get((code.co_firstlineno, code.co_name)) if apart else None
    if dropped is None or code.co_flags & inspect.CO_NEWLOCALS:
        return names, global_only, dynamic
    return names - dropped, global_only - dropped, dynamic


def _loose_assignments(node: ast.ClassDef, scope: Scope) -> list[tuple[int, tuple[str, ...]]]:
    """(id, names bound) of the assignments of ``node``'s body that are members of their own."""
    if _HOOKS & {n for s in node.body for n in maybe_bound(s)}:
        return []
    risky = risky_class_parts(node, scope, set(scope.bound))
    if risky is None:
        return []
    risky_ids = {id(stmt) for stmt, _ in risky}
    filled = set(own_updates(node).values())
    candidates: dict[int, tuple[str, ...]] = {}
    for stmt in node.body:
        # Not annotated: the class's ``__annotations__`` lists those.
        names = assigned_names(stmt) if isinstance(stmt, ast.Assign) else None
        if names is not None and id(stmt) not in risky_ids and filled.isdisjoint(names):
            candidates[id(stmt)] = names
    loose_defs = {
        id(s) for s in node.body if isinstance(s, _Def) and not is_dunder(s.name) and def_is_pure(s)
    }
    reads = {id(s): import_time_names(s) for s in node.body}
    while True:
        # A loose method binds its name as a member does: read by its readers alone.
        staying = [s for s in node.body if id(s) not in candidates]
        stay_binds = {n for s in staying if id(s) not in loose_defs for n in maybe_bound(s)}
        stay_reads = set().union(*(reads[id(s)] for s in staying))
        left = {
            key
            for key, names in candidates.items()
            if not (stay_binds | stay_reads).isdisjoint(names)
            or not stay_binds.isdisjoint(reads[key])
        }
        if not left:
            return list(candidates.items())
        for key in left:
            del candidates[key]
