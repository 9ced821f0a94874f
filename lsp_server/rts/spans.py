"""Where each function of a file sits, and its import statements: one walk over the
statements of a parsed module (``units.source_units`` builds the units from it)."""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterable
from dataclasses import dataclass

from lsp_server.rts.ast_walk import walk
from lsp_server.rts.globals_calls import OWN_GLOBALS, only_own_globals
from lsp_server.rts.header_parts import annotation_spans, lazy_annotations
from lsp_server.rts.lookups import DYNAMIC_NAMES, looks_up_by_string
from lsp_server.rts.purity import nested_statements
from lsp_server.rts.unpacked_formats import SPELLING as FORMAT_SPELLING

LOCALS = "<locals>"


@dataclass(frozen=True)
class UnitSpan:
    """Where a function unit sits in its file (1-based lines, inclusive)."""

    name: str
    first_line: int  # first decorator, or the ``def`` line
    last_line: int
    def_line: int
    body_start: tuple[int, int]
    body_end: tuple[int, int]
    parent: str | None = None
    """The function unit this one is defined in (None: defined at module or class level)."""
    code_start: tuple[int, int] | None = None
    """Where the code after the docstring (the body's first statement, a string) starts
    (its end when nothing follows); None without a docstring."""
    defaults: tuple[tuple[tuple[int, int], tuple[int, int]], ...] = ()
    """(start, end) of each default value expression, in source order."""
    annotations: tuple[tuple[tuple[int, int], tuple[int, int]], ...] = ()
    """Where each inert annotation is (``header_parts.annotation_spans``), in order."""


@dataclass(frozen=True)
class ImportStatement:
    """An ``import`` statement anywhere in a file (also inside functions and ``try``)."""

    names: tuple[str, ...]
    """``import a.b`` -> ``("a.b",)``; ``from m import x, y`` -> ``("x", "y")``."""
    module: str | None = None
    """``from <module> import ...``; None for ``import ...`` and ``from . import ...``."""
    level: int = 0
    """Leading dots of a relative import."""
    is_from: bool = False
    top: bool = False
    """A statement of the module's own body: it runs whenever the module is imported
    (unless an earlier statement raised)."""
    tried: bool = False
    """A statement of a top-level ``try`` (its body, a handler, ``else``, ``finally``):
    it runs when the module is imported, unless what comes before it raised or was
    handled (``import_effects.may_raise_at_import``)."""


_FuncDef = (ast.FunctionDef, ast.AsyncFunctionDef)


_SPELLED = DYNAMIC_NAMES | {FORMAT_SPELLING}


def _dynamic_name_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in walk(tree):
        if isinstance(node, ast.Name) and node.id in DYNAMIC_NAMES:
            lines.add(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr in _SPELLED:
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def _defaults(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
) -> tuple[tuple[tuple[int, int], tuple[int, int]], ...]:
    args = node.args
    values = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
    spans = [
        ((v.lineno, v.col_offset), (v.end_lineno or v.lineno, v.end_col_offset or 0))
        for v in values
    ]
    return tuple(sorted(spans))


def _code_start(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int] | None:
    head = node.body[0]
    if not (isinstance(head, ast.Expr) and isinstance(head.value, ast.Constant)):
        return None
    if not isinstance(head.value.value, str):
        return None
    end = head.end_lineno or head.lineno
    if len(node.body) == 1:
        return (end, head.end_col_offset or 0)
    second = node.body[1]
    if second.lineno == end:  # ``"""doc"""; x = 1``
        return (second.lineno, second.col_offset)
    return (end + 1, 0)  # the next statement's first decorator, if it has any


def _span(
    node: ast.FunctionDef | ast.AsyncFunctionDef, name: str, parent: str | None, lazy: bool
) -> UnitSpan:
    """``node``'s span; ``lazy``: its module's annotations are never evaluated."""
    head, tail = node.body[0], node.body[-1]
    return UnitSpan(
        name=name,
        first_line=min([node.lineno, *(d.lineno for d in node.decorator_list)]),
        last_line=node.end_lineno or node.lineno,
        def_line=node.lineno,
        body_start=(head.lineno, head.col_offset),
        body_end=(tail.end_lineno or tail.lineno, tail.end_col_offset or 0),
        parent=parent,
        code_start=_code_start(node),
        defaults=_defaults(node),
        annotations=annotation_spans(node, lazy),
    )


def _import_statement(
    node: ast.Import | ast.ImportFrom, top: bool, tried: bool = False
) -> ImportStatement:
    names = tuple(a.name for a in node.names)
    if isinstance(node, ast.Import):
        return ImportStatement(names, top=top, tried=tried)
    return ImportStatement(names, node.module, node.level, is_from=True, top=top, tried=tried)


def _tried_statements(tree: ast.Module) -> set[int]:
    """The ids of the statements of top-level ``try`` statements (``ImportStatement.tried``)."""
    return {
        id(stmt)
        for node in tree.body
        if isinstance(node, ast.Try)
        for stmt in nested_statements(node)
    }


# The statements that may hold others besides definitions (the rest hold none).
_COMPOUND: tuple[type[ast.stmt], ...] = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try)
_COMPOUND += (ast.With, ast.AsyncWith, ast.Match, getattr(ast, "TryStar", ast.Try))  # 3.11+


def scan(
    tree: ast.Module, suspect_lines: Iterable[int] | None = None
) -> tuple[list[UnitSpan], list[ImportStatement], dict[str, str]]:
    """Every function's span, every import statement and the functions that look names up
    by string (with ``lookups.looks_up_by_string``'s kind), in one walk over statements
    (expressions hold no statements). ``suspect_lines``: lines that may spell a
    lookup-by-string name (every line whose tokens hold one: a superset of those where the
    tree does), else found in the tree."""
    spans: list[UnitSpan] = []
    imports: list[ImportStatement] = []
    top_level, tried = {id(node) for node in tree.body}, _tried_statements(tree)
    dynamic: dict[str, str] = {}
    lazy = lazy_annotations(tree)
    # Lines that spell a lookup-by-string name: only functions spanning one need the
    # (costly) syntax check, and most functions span none.
    suspect = sorted(_dynamic_name_lines(tree) if suspect_lines is None else set(suspect_lines))

    def visit(
        body: Iterable[ast.stmt], prefix: str, parent: str | None, in_class: bool = False
    ) -> None:
        for node in body:
            if isinstance(node, _FuncDef):
                name = prefix + node.name
                spans.append(_span(node, name, parent, lazy))
                first, last = spans[-1].first_line, spans[-1].last_line
                at = bisect.bisect_left(suspect, first)
                if at < len(suspect) and suspect[at] <= last:
                    kind = looks_up_by_string(node, in_class)
                    if kind == "*" and only_own_globals(node):
                        kind = OWN_GLOBALS
                    if kind is not None:
                        dynamic[name] = kind
                visit(node.body, f"{name}.{LOCALS}.", name)
            elif isinstance(node, ast.ClassDef):
                # A module subclass's attributes are a module's globals.
                plain = not any("Module" in ast.unparse(b) for b in node.bases)
                visit(node.body, f"{prefix}{node.name}.", parent, plain)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                imports.append(_import_statement(node, id(node) in top_level, id(node) in tried))
            elif isinstance(node, _COMPOUND):
                # Definitions under `if TYPE_CHECKING:` / `try: ... except ImportError:` are
                # in the scope around the compound statement.
                visit(nested_statements(node), prefix, parent, in_class)

    visit(tree.body, "", None)
    return spans, imports, dynamic
