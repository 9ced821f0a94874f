"""The data flow of a selection inside a function: what it needs from before, what it
must hand back, and what is definitely assigned where it starts."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from lsp_server.refactor.semantics.edit import Source
from lsp_server.refactor.semantics.extract_variable import lazy_reason
from lsp_server.refactor.semantics.flow import (
    binds,
    blocks,
    local_names,
    reads,
    scope_binds,
    walk_statements,
)
from lsp_server.refactor.semantics.guarded import read_after, unbound_reads
from lsp_server.refactor.semantics.liveness import (
    Probe,
    Targets,
    assigned_after,
    live_before,
)

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class RegionFlow:
    """Data flow facts of a selection, restricted to the function's local variables."""

    function: Function
    statements: list[ast.stmt]
    """The selected statements (empty when the selection is an expression)."""
    expression: ast.expr | None
    holder: ast.stmt
    """The first selected statement, or the statement holding the selected expression."""
    needed: set[str]
    """Locals the selection may read before binding them (the parameters it needs)."""
    live_out: set[str]
    """Locals the selection may bind that are read afterwards (what it must return)."""
    assigned: set[str]
    """Locals definitely assigned where the selection starts."""
    maybe_assigned: set[str]
    """Locals some path binds before the selection starts (earlier, or in a loop around it)."""
    falls_through: bool
    """Whether control can reach the end of the selected statements."""

    @property
    def nodes(self) -> list[ast.AST]:
        """The selected statements, or the selected expression."""
        if self.statements:
            return list(self.statements)
        return [self.expression] if self.expression is not None else []


def enclosing_function(src: Source, start: int, end: int) -> Function | None:
    """The innermost function whose body holds the whole selection."""
    best: Function | None = None
    for node in ast.walk(src.tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body_start = src.start(node.body[0])
            inside = body_start <= start and end <= src.end(node)
            if inside and (best is None or src.start(node) >= src.start(best)):
                best = node
    return best


def _selected_statements(src: Source, function: Function, start: int, end: int):
    todo = [function.body]
    while todo:
        block = todo.pop(0)
        covered = [s for s in block if start <= src.start(s) and src.end(s) <= end]
        if covered:
            return covered
        for stmt in block:
            if src.start(stmt) <= start and end <= src.end(stmt):
                todo.extend(blocks(stmt))
    return []


def _selected_expression(src: Source, function: Function, start: int, end: int):
    """The expression the selection spans exactly (blanks around it ignored), with the
    statement holding it."""
    for stmt in walk_statements(function.body):
        if not (src.start(stmt) <= start and end <= src.end(stmt)):
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.expr) and src.start(node) == start and src.end(node) == end:
                return node, _innermost_statement(src, function, start, end)
    return None, None


def _innermost_statement(src: Source, function: Function, start: int, end: int) -> ast.stmt:
    found: ast.stmt = function
    for stmt in walk_statements(function.body):
        if src.start(stmt) <= start and end <= src.end(stmt):
            found = stmt
    return found


def region_flow(src: Source, start: int, end: int) -> RegionFlow | None:
    """The flow facts of the selection ``start:end``; None outside a function or when the
    selection is neither whole statements nor one expression."""
    selected = src.text[start:end]
    start += len(selected) - len(selected.lstrip())
    end -= len(selected) - len(selected.rstrip())
    function = enclosing_function(src, start, end)
    if function is None:
        return None
    statements = _selected_statements(src, function, start, end)
    expression = None
    if statements:
        holder = statements[0]
    else:
        expression, found = _selected_expression(src, function, start, end)
        if expression is None or found is None or found is function:
            return None
        holder = found
    locals_ = local_names(function)
    probe_start = Probe(holder)
    params = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
    assigned_after(function.body, params, probe_start)
    before = probe_start.assigned_before
    assigned = set(locals_) if before is None else before & locals_
    if expression is not None:
        needed = reads(expression) & locals_
        maybe = _maybe_assigned(src, function, holder) & locals_
        return RegionFlow(function, [], expression, holder, needed, set(), assigned, maybe, True)
    probe_end = Probe(statements[-1])
    live_before(function.body, set(), Targets(), probe_end)
    bound = set()
    for stmt in walk_statements(statements):
        bound |= binds(stmt) | scope_binds(stmt)
    live_out = probe_end.live_after & read_after(function.body, statements[-1]) & bound & locals_
    # Path-insensitive liveness would count `if c: k = x` ... `if c: use(k)` as a read of
    # an unbound `k`; guarded.unbound_reads knows the two tests agree.
    read_first, bound_at_end = unbound_reads(statements)
    unreturned = set() if bound_at_end is None else live_out - bound_at_end
    needed = (read_first | unreturned) & locals_
    falls_through = assigned_after(statements, set()) is not None
    maybe = _maybe_assigned(src, function, holder) & locals_
    return RegionFlow(
        function, statements, None, holder, needed, live_out, assigned, maybe, falls_through
    )


_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _maybe_assigned(src: Source, function: Function, holder: ast.stmt) -> set[str]:
    """Names bound by a statement that starts before ``holder``, or anywhere in a loop
    around it (a later iteration sees them), and the parameters."""
    start = src.start(holder)
    found = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
    for stmt in walk_statements(function.body):
        if src.start(stmt) < start:
            found |= binds(stmt) | scope_binds(stmt)
        if isinstance(stmt, _LOOPS) and src.start(stmt) < start < src.end(stmt):
            for inner in walk_statements(stmt.body):
                found |= binds(inner) | scope_binds(inner)
    return found


def assigned_at_end(flow: RegionFlow, passed: set[str]) -> set[str] | None:
    """Locals definitely assigned at the end of the selection when it starts with ``passed``."""
    return assigned_after(flow.statements, set(passed))


def first_read(flow: RegionFlow, name: str) -> int:
    """The line of the first read of ``name`` in the selection (for messages)."""
    lines = [
        n.lineno
        for node in flow.nodes
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Store)
    ]
    return min(lines) if lines else flow.holder.lineno


def read_first(flow: RegionFlow, name: str) -> bool:
    """Whether reading ``name`` is the first thing the selection does that could fail or be
    seen: in its first statement (or its expression), not under a condition, with only
    names definitely assigned and constants evaluated before it. Then, ``name`` unbound,
    the original raises UnboundLocalError at that read, and the call passing ``name``
    raises the same, with nothing run in between."""
    unit: ast.AST | None = flow.statements[0] if flow.statements else flow.expression
    if unit is None or not isinstance(unit, (ast.expr, ast.Expr, ast.Assign, ast.AugAssign)):
        return False
    parents = {c: p for p in ast.walk(unit) for c in ast.iter_child_nodes(p)}
    reads_of = [
        n
        for n in ast.walk(unit)
        if isinstance(n, ast.Name)
        and n.id == name
        and (isinstance(n.ctx, ast.Load) or (isinstance(unit, ast.AugAssign) and n is unit.target))
    ]
    if not reads_of:
        return False
    use = min(reads_of, key=lambda n: (n.lineno, n.col_offset))
    node: ast.AST = use
    while node is not unit:
        if lazy_reason(node, parents[node]) is not None:
            return False
        node = parents[node]
    before = (use.lineno, use.col_offset)
    target = unit.target if isinstance(unit, ast.AugAssign) else None  # read, then stored
    for n in ast.walk(unit):
        if not isinstance(n, ast.expr) or n is use:
            continue
        if (n.end_lineno or 0, n.end_col_offset or 0) > before:
            continue
        if isinstance(n, ast.Constant):
            continue
        loaded = isinstance(n, ast.Name) and (isinstance(n.ctx, ast.Load) or n is target)
        if not isinstance(n, ast.Name) or (loaded and n.id not in flow.assigned):
            return False
    return True
