"""Instrumentation of a test function's body, in the spirit of pytest's assertion rewriting.

Every call result, attribute read, expression statement and assigned name in the test body
is passed through the recorder ``__reneri_rec__(location, value, *names)``, which observes
the value and returns it unchanged. For a call ``s.add(x)`` the receiver ``s`` and the
argument names are observed too, after the call (Reneri observes the target of every
invocation in the test). Each location keeps its line, its text and the statement that
holds it, so that an assertion can be suggested right after that statement.

Nested functions, classes and lambdas are left alone: they are not the test's own steps.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import asdict, dataclass, field

RECORDER = "__reneri_rec__"

MAX_OCCURRENCES = 25
"""Executions of one test location observed per test (later ones are only counted)."""

_SIMPLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Assert)
"""Statements after which an assertion may be inserted (no block of their own)."""


@dataclass
class Location:
    """A point of the test body whose values are observed."""

    id: int
    line: int
    col: int
    text: str  # the observed expression, e.g. ``s.add(1)``
    roles: list[str] = field(default_factory=list)  # "value" and/or the names observed after
    stmt_line: int = 0
    stmt_end_line: int = 0
    indent: str = ""
    assertable: bool = False  # an assertion may follow its statement
    in_assert: bool = False  # the expression sits in an ``assert`` (a query, safe to repeat)

    def to_json(self) -> dict[str, object]:
        return asdict(self)


class _Rewriter(ast.NodeTransformer):
    def __init__(self, lines: list[str], first_id: int) -> None:
        self.lines = lines
        self.locations: list[Location] = []
        self.next_id = first_id
        self.statement: ast.stmt | None = None

    # -- statements -----------------------------------------------------------------
    def visit(self, node: ast.AST) -> ast.AST | list[ast.stmt] | None:
        if isinstance(node, ast.stmt):
            outer, self.statement = self.statement, node
            try:
                return super().visit(node)
            finally:
                self.statement = outer
        return super().visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        if isinstance(node.value, ast.Constant):
            return node  # a docstring
        value = node.value
        node.value = self.visit(value)  # type: ignore[assignment]
        if not isinstance(value, (ast.Call, ast.Attribute, ast.Await)):
            node.value = self._record(value, node.value, [])
        return node

    def _after_names(self, node: ast.stmt, targets: list[ast.expr]) -> list[ast.stmt]:
        names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        out: list[ast.stmt] = [node]
        for name in dict.fromkeys(names):
            location = self._location(node, name, ["value"], at=node)
            call = _rec_call(location.id, ast.Name(id=name, ctx=ast.Load()), [])
            out.append(ast.copy_location(ast.Expr(value=call), node))
        return out

    def visit_Assign(self, node: ast.Assign) -> list[ast.stmt]:
        node.value = self.visit(node.value)  # type: ignore[assignment]
        return self._after_names(node, list(node.targets))

    def visit_AugAssign(self, node: ast.AugAssign) -> list[ast.stmt]:
        node.value = self.visit(node.value)  # type: ignore[assignment]
        return self._after_names(node, [node.target])

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST | list[ast.stmt]:
        if node.value is None:
            return node
        node.value = self.visit(node.value)  # type: ignore[assignment]
        return self._after_names(node, [node.target])

    # -- expressions ----------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> ast.AST:
        if isinstance(node.func, ast.Name) and node.func.id in ("super", RECORDER):
            return node
        if isinstance(node.func, ast.Attribute):
            node.func.value = self.visit(node.func.value)  # type: ignore[assignment]
        elif not isinstance(node.func, ast.Name):
            node.func = self.visit(node.func)  # type: ignore[assignment]
        original = _shallow_copy(node)
        node.args = [self.visit(arg) for arg in node.args]  # type: ignore[misc]
        for keyword in node.keywords:
            keyword.value = self.visit(keyword.value)  # type: ignore[assignment]
        return self._record(original, node, _observed_names(node))

    def visit_Await(self, node: ast.Await) -> ast.AST:
        if isinstance(node.value, ast.Call):
            call = node.value
            if isinstance(call.func, ast.Attribute):
                call.func.value = self.visit(call.func.value)  # type: ignore[assignment]
            names = _observed_names(call)
            original = ast.Await(value=_shallow_copy(call))
            ast.copy_location(original, node)
            call.args = [self.visit(arg) for arg in call.args]  # type: ignore[misc]
            for keyword in call.keywords:
                keyword.value = self.visit(keyword.value)  # type: ignore[assignment]
            return self._record(original, node, names)
        node.value = self.visit(node.value)  # type: ignore[assignment]
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if not isinstance(node.ctx, ast.Load):
            node.value = self.visit(node.value)  # type: ignore[assignment]
            return node
        original = _shallow_copy(node)
        node.value = self.visit(node.value)  # type: ignore[assignment]
        return self._record(original, node, [])

    # -- helpers --------------------------------------------------------------------
    def _record(self, original: ast.expr, rewritten: ast.AST, names: list[str]) -> ast.expr:
        if self.statement is None:
            return rewritten  # type: ignore[return-value]
        text = ast.unparse(original)
        location = self._location(original, text, ["value", *names], at=self.statement)
        call = _rec_call(
            location.id,
            rewritten,  # type: ignore[arg-type]
            [ast.Name(id=name, ctx=ast.Load()) for name in names],
        )
        return ast.copy_location(call, original)

    def _location(self, node: ast.AST, text: str, roles: list[str], *, at: ast.stmt) -> Location:
        line_text = self.lines[at.lineno - 1] if at.lineno - 1 < len(self.lines) else ""
        location = Location(
            id=self.next_id,
            line=getattr(node, "lineno", at.lineno),
            col=getattr(node, "col_offset", at.col_offset),
            text=text,
            roles=roles,
            stmt_line=at.lineno,
            stmt_end_line=at.end_lineno or at.lineno,
            indent=line_text[: len(line_text) - len(line_text.lstrip())],
            assertable=isinstance(at, _SIMPLE),
            in_assert=isinstance(at, ast.Assert),
        )
        self.next_id += 1
        self.locations.append(location)
        return location


def _shallow_copy(node: ast.expr) -> ast.expr:
    copy = type(node)(**{name: getattr(node, name) for name in node._fields})
    return ast.copy_location(copy, node)


def _observed_names(call: ast.Call) -> list[str]:
    """The receiver and argument names of a call, observed again after it."""
    names: list[str] = []
    if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name):
        names.append(call.func.value.id)
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        if isinstance(arg, ast.Name):
            names.append(arg.id)
    return list(dict.fromkeys(names))


def _rec_call(location: int, value: ast.expr, names: list[ast.expr]) -> ast.Call:
    return ast.Call(
        func=ast.Name(id=RECORDER, ctx=ast.Load()),
        args=[ast.Constant(location), value, *names],
        keywords=[],
    )


def instrument(
    funcdef: ast.FunctionDef | ast.AsyncFunctionDef, source_lines: list[str], first_id: int = 0
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, list[Location]]:
    """An instrumented copy of the test ``funcdef`` and the locations it observes.

    The copy keeps the original line numbers, so tracebacks and locations point at the
    test file as written.
    """
    fresh = copy.deepcopy(funcdef)
    rewriter = _Rewriter(source_lines, first_id)
    new_body: list[ast.stmt] = []
    for stmt in fresh.body:
        result = rewriter.visit(stmt)
        new_body.extend(result if isinstance(result, list) else [result])  # type: ignore[list-item]
    fresh.body = new_body
    ast.fix_missing_locations(fresh)
    return fresh, rewriter.locations
