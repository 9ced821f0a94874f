"""Calls in the default values of a ``def``: they run once, when the ``def`` statement runs.

A top-level ``def``, or a class with a method, whose default value called code was a part of
the module unit: the call may register something or fail, and every importer sees that.
tenacity's ``BaseRetrying.__init__(..., wait=wait_none(), retry=retry_if_exception_type())``
kept its whole class in the module unit, so ``__getstate__`` added to the class (cb320c4)
or a parameter added to ``__init__`` (39eb157) selected every test importing tenacity (its
``test_utils.py`` never makes a ``Retrying``); testmon selected the tests that ran the class.

The calls are all such a statement does at import besides binding its name (decorators
must still only wrap, ``purity.pure_decorator``), so the statement is a binding
(``rts.bindings``) and the module unit keeps the calls: a marker holding their digest and
how many statements of the module unit run before them (their order among the module's
other effects), with the order markers of the names they read, and those names among the
names the module unit reads (``ModuleLayout.residue_refs``: every importer depends on
their bindings, as before). A call changed, added or removed (with its ``def`` or class)
changes the module unit and selects every importer; what the called code did at import is
in every importer's import footprint. What a call returns is seen only by the function's
callers (its body unit holds the default values) and by readers of its signature
(``f.<defaults>``): the binding units' business.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from lsp_server.rts.purity import import_time_names, is_pure, nested_statements
from lsp_server.rts.tokens import digest

if TYPE_CHECKING:
    from lsp_server.rts.bindings import ModuleLayout

_Def = (ast.FunctionDef, ast.AsyncFunctionDef)


def order_markers(reads: Iterable[str], bound_before: set[str], bound: set[str]) -> list[str]:
    """For each name of ``reads`` the module binds (``bound``), whether a binding comes
    before the statement reading it (``bound_before``): moved across it, the read finds
    another value or none."""
    return [
        f"<{name}:{'before' if name in bound_before else 'after'}>"
        for name in sorted(set(reads) & bound)
    ]


def default_calls(stmt: ast.stmt) -> list[ast.expr]:
    """The default values that call code when the top-level ``stmt`` runs, in the order
    they run: a ``def``'s own, or those of every method of a class (nested classes and the
    branches of its body's compound statements included)."""
    if isinstance(stmt, _Def):
        args = stmt.args
        values = [*args.defaults, *(v for v in args.kw_defaults if v is not None)]
        return [value for value in values if not is_pure(value)]
    if isinstance(stmt, ast.ClassDef):
        return [call for inner in _class_statements(stmt.body) for call in default_calls(inner)]
    return []


def _class_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        yield stmt
        if not isinstance(stmt, (*_Def, ast.ClassDef)):
            yield from _class_statements(list(nested_statements(stmt)))


def keep_default_calls(
    layout: ModuleLayout,
    stmt: ast.stmt,
    residue_before: int,
    order: tuple[set[str], set[str]],
    defined: set[str],
) -> set[str]:
    """Notes in ``layout`` the calls among the default values of the top-level binding
    ``stmt``, run after ``residue_before`` statements of the module unit: their marker and
    the ``order`` markers (names bound before, names the module binds) of what they read
    into the module unit's markers, a call site for those calling what the module does not
    define (``defined``); the names they read are returned, for the module unit's reads."""
    calls = default_calls(stmt)
    if not calls:
        return set()
    reads: set[str] = set().union(*map(import_time_names, calls))
    marker = f"<default-calls:{residue_before}:{digest([ast.dump(c) for c in calls])}>"
    layout.markers.setdefault("", []).extend([marker, *order_markers(reads, *order)])
    layout.add_call_site(calls, reads, defined)
    return reads
