"""The parts of a ``def`` header that leave its header unit (``f.<def>``) for its body and
default-values units (``rts.units``): default values and inert annotations.

The header unit is what every test referring to the function depends on. Which parameters
have a default stays there (as a marker): it decides which calls bind. A default's value,
and an annotation, are seen only by code that ran the function (the body unit), by code
reading its signature, ``__defaults__`` or annotations (``lookups.SIGNATURE_READS``,
``lookups.ANNOTATION_READS``: the defaults unit, ``f.<defaults>``), by library code handed
the function at import (``rts.seen_bodies``: the body unit), and by the import itself: a
default or annotation that may raise is in the module unit besides (``rts.import_raise``).
A class's unit holds its dunder methods' headers (Python finds them without their name
spelled) less those parts: a signature of the class, or help on it, shows them
(``FileUnits.class_signatures``).

Annotations leave only a dunder's header (``__init__``, ``__exit__``...). Code hands an
ordinary function to library code as a test runs (``describe.register(number)``:
``singledispatch`` reads its annotation, the function need not run), and reks sees
neither the hand-off nor the read; Python calls a dunder itself, and a library reading a
class's signature reads it through the class, whose readers see the parts. A default
value is seen the same way for every function (``f.<defaults>``).

An annotation is *inert* when evaluating it can do nothing but raise: it is never evaluated
(``from __future__ import annotations``), or it is spelled with constants, names,
attributes, subscripts, ``|`` and tuples or lists of those, as typing forms are. Any other
(a call, a lambda, ``:=``) may have effects where the ``def`` runs and stays in the header:
tenacity's ``multiplier: int | float`` is inert, ``x: register("inc")`` is not.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Protocol, TypeVar

from lsp_server.rts.bound_names import is_dunder
from lsp_server.rts.purity import import_time_names

Pos = tuple[int, int]
Span = tuple[Pos, Pos]
Hole = tuple[Pos, Pos, str]

DEFAULT_MARK = "<default>"
ANNOTATION_MARK = "<annotation>"

_INERT_NODES = (
    ast.Constant,
    ast.Name,
    ast.Attribute,
    ast.Subscript,
    ast.Tuple,
    ast.List,
    ast.Load,
    ast.BitOr,
)


def lazy_annotations(tree: ast.Module) -> bool:
    """Whether ``from __future__ import annotations`` keeps the module's annotations as
    strings, never evaluated."""
    return any(
        isinstance(stmt, ast.ImportFrom)
        and stmt.module == "__future__"
        and any(alias.name == "annotations" for alias in stmt.names)
        for stmt in tree.body
    )


def is_inert(annotation: ast.expr) -> bool:
    """Evaluating ``annotation`` can do nothing but raise (see the module docstring)."""
    return all(
        isinstance(node, _INERT_NODES)
        or (isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr))
        for node in ast.walk(annotation)
    )


def annotation_only_reads(node: ast.stmt) -> frozenset[str]:
    """The names a dunder ``def`` reads at import in its inert annotations alone (none for
    any other statement). Evaluating them stores values in ``__annotations__``: a test
    reading those reads the ``<defaults>`` unit; one that only reaches the class does not
    see what the names hold (that they are bound before the class, the order markers
    tell: ``bindings.module_layout``)."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not is_dunder(node.name):
        return frozenset()
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    notes = [a.annotation for a in every if a is not None and a.annotation is not None]
    notes += [node.returns] if node.returns is not None else []
    rest = [*node.decorator_list, *args.defaults, *(d for d in args.kw_defaults if d is not None)]
    rest += [note for note in notes if not is_inert(note)]
    noted = set().union(*(import_time_names(note) for note in notes if is_inert(note)))
    return frozenset(noted.difference(*map(import_time_names, rest)))


def annotation_spans(node: ast.FunctionDef | ast.AsyncFunctionDef, lazy: bool) -> tuple[Span, ...]:
    """Where each inert annotation of ``node``, a dunder (see the module docstring), is: a
    parameter's from the end of its name (the colon with it: adding one changes no
    header), the return annotation's expression alone (``->`` stays)."""
    if not is_dunder(node.name):
        return ()
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    out: list[Span] = []
    for arg in every:
        note = arg.annotation if arg is not None else None
        if arg is None or note is None or not (lazy or is_inert(note)):
            continue
        name_end = (arg.lineno, arg.col_offset + len(arg.arg))
        out.append((name_end, (note.end_lineno or note.lineno, note.end_col_offset or 0)))
    returns = node.returns
    if returns is not None and (lazy or is_inert(returns)):
        start = (returns.lineno, returns.col_offset)
        out.append((start, (returns.end_lineno or returns.lineno, returns.end_col_offset or 0)))
    return tuple(sorted(out))


class _Header(Protocol):
    """Where a ``def``'s header and its parts are (a ``spans.UnitSpan``)."""

    @property
    def first_line(self) -> int: ...
    @property
    def body_start(self) -> Pos: ...
    @property
    def defaults(self) -> tuple[Span, ...]: ...
    @property
    def annotations(self) -> tuple[Span, ...]: ...


_H = TypeVar("_H", bound=_Header)


def holes_by_header(headers: Iterable[_H], lines: list[str]) -> dict[_H, list[Hole]]:
    """Each header's ``header_holes``."""
    return {header: header_holes(header, lines) for header in headers}


def header_holes(header: _Header, lines: list[str]) -> list[Hole]:
    """The default values (each leaving a marker: which parameters have one decides which
    calls bind) and inert annotations (leaving none) of a ``def``, as holes of its header,
    in order. None where a line of the header is not ASCII (the tree's columns count bytes,
    the tokens' characters): then the header holds them."""
    defaults, annotations = header.defaults, header.annotations
    header_lines = lines[header.first_line - 1 : header.body_start[0]]
    if not (defaults or annotations) or not all(line.isascii() for line in header_lines):
        return []
    holes = [(start, stop, DEFAULT_MARK) for start, stop in defaults]
    holes += [(start, stop, "") for start, stop in annotations]
    return sorted(holes)
