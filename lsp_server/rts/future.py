"""Which units of a file a ``from __future__`` import can change.

A future import changes how the whole file compiles, but on Python 3.10+ only two features
still do anything: ``annotations`` (annotations are kept as strings, never evaluated) and
``barry_as_FLUFL`` (a parser joke). The others are mandatory or no-ops. The statement itself
is a binding unit (``rts.bindings``: it binds the feature's name); each unit whose code it
can change gets a marker in its checksum saying which effective features are on, so adding
or removing one changes exactly those units:

* ``annotations``: a ``def`` header with annotations (evaluated when the ``def`` runs, kept in
  ``__annotations__``), the body of a function defining one, the top-level binding holding
  an annotated assignment (module and class scope evaluate them; with a class, its members
  and aliases), and the module part when such a ``def`` or assignment is in a top-level
  statement that is no binding. An annotated assignment that is a class member of its own
  (``rts.class_members``) marks that member alone: the class's other users never see its
  annotation (its readers read every member: ``lookups.ANNOTATION_READS``), and adding the
  class's first one must not change the class unit. A function's own annotated locals are
  never evaluated (conservatively, they mark its body).
* any other feature that is not a known no-op, or any feature in a file that spells
  ``exec``, ``eval`` or ``compile`` (they compile with their caller's features): every unit
  of the file.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from lsp_server.rts.ast_walk import walk
from lsp_server.rts.bindings import Binding
from lsp_server.rts.spans import UnitSpan

# Mandatory since Python 3.7 at the latest (or never had an effect in Python 3).
_NO_OPS = frozenset(
    [
        "nested_scopes",
        "generators",
        "division",
        "absolute_import",
        "with_statement",
        "print_function",
        "unicode_literals",
        "generator_stop",
    ]
)

_COMPILERS = frozenset(["exec", "eval", "compile"])

_FuncDef = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass
class FutureMarks:
    """The marker of a file's effective future features and the units it goes into."""

    marker: str = ""
    """Empty when no feature has an effect (then nothing is marked)."""
    everything: bool = False
    residue: bool = False
    """The module part."""
    bindings: set[str] = field(default_factory=set)
    """Top-level binding units (with their class members and aliases: ``C.x``)."""
    functions: set[str] = field(default_factory=set)
    """Function units whose header (``f.<def>``) is marked."""
    bodies: set[str] = field(default_factory=set)
    """Function units whose body is marked."""
    members: set[str] = field(default_factory=set)
    """Class member units (``C.x``) marked on their own."""

    def marks(self, unit_name: str, header: bool, body: bool, docstring: bool) -> bool:
        """Whether the unit named ``unit_name`` (a function's header, body or docstring
        unit when the flag says so, else a unit outside function bodies) gets the marker."""
        if not self.marker or docstring:
            return False
        if self.everything:
            return True
        if header:
            return unit_name in self.functions
        if body:
            return unit_name in self.bodies
        if unit_name == "<module>":
            return self.residue
        return unit_name in self.members or unit_name.split(".", 1)[0] in self.bindings

    def mark(
        self,
        variants: dict[str, list[str]],
        functions: Collection[str],
        header_suffix: str,
        doc_suffix: str,
    ) -> None:
        """Append the marker to the texts of the units it goes into (``variants``: unit
        name -> checksum text; ``functions``: the file's function units)."""
        for name, texts in variants.items():
            owner = name[: -len(header_suffix)]
            header = name.endswith(header_suffix) and owner in functions
            docstring = name.endswith(doc_suffix)
            if self.marks(owner if header else name, header, name in functions, docstring):
                texts.append(self.marker)


def future_features(tree: ast.Module) -> frozenset[str]:
    """The features a module's ``from __future__`` imports turn on."""
    return frozenset(
        alias.name
        for stmt in tree.body
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"
        for alias in stmt.names
    )


def future_marks(
    tree: ast.Module, spans: Iterable[UnitSpan], bindings: Iterable[Binding]
) -> FutureMarks:
    """Which units of the module ``tree`` (with its function ``spans`` and top-level
    ``bindings``) the future features it imports can change."""
    effective = sorted(future_features(tree) - _NO_OPS)
    if not effective:
        return FutureMarks()
    marks = FutureMarks(marker=f"<__future__ {' '.join(effective)}>")
    if effective != ["annotations"] or _compiles(tree):
        marks.everything = True
        return marks
    spans = list(spans)
    parents = {span.name: span.parent for span in spans}
    by_def_line = {span.def_line: span for span in spans}
    bindings = list(bindings)
    binding_at = {b.start[0]: b.names for b in bindings}
    member_at = {m.start: m.names for b in bindings for m in b.members if not m.is_def}
    for stmt in tree.body:
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
        names = binding_at.get(first)
        for node in walk(stmt):
            if isinstance(node, _FuncDef) and _annotated(node):
                span = by_def_line.get(node.lineno)
                if span is None:
                    marks.everything = True
                    continue
                marks.functions.add(span.name)
                parent = span.parent
                while parent is not None:
                    marks.bodies.add(parent)
                    parent = parents.get(parent)
                marks.residue |= names is None  # the module part runs that ``def``
            elif isinstance(node, ast.AnnAssign):
                owner = _innermost(spans, node.lineno)
                if owner is not None:  # conservatively (only a class body there evaluates it)
                    marks.bodies.add(owner.name)
                elif names is None:
                    marks.residue = True
                elif (node.lineno, node.col_offset) in member_at:
                    marks.members.update(member_at[node.lineno, node.col_offset])
                else:
                    marks.bindings.update(names)
    return marks


def _compiles(tree: ast.Module) -> bool:
    for node in walk(tree):
        name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
        if name in _COMPILERS:
            return True
    return False


def _annotated(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return node.returns is not None or any(a is not None and a.annotation for a in every)


def _innermost(spans: list[UnitSpan], line: int) -> UnitSpan | None:
    best: UnitSpan | None = None
    for span in spans:
        if span.first_line <= line <= span.last_line and (
            best is None or span.first_line >= best.first_line
        ):
            best = span
    return best
