"""Live variables (backwards) and definitely assigned variables (forwards) over statement
lists, structured by the syntax tree. Both are conservative in the safe direction: a name
is reported live when some path may read it before a new binding, and definitely assigned
only when every path to the point binds it."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from lsp_server.refactor.semantics.flow import (
    binds,
    own_reads,
    reads,
    target_names,
    walrus_names,
)


@dataclass(frozen=True)
class Targets:
    """What is live where the jumps out of the current statement land."""

    after_loop: frozenset[str] = frozenset()
    loop_head: frozenset[str] = frozenset()
    handler: frozenset[str] = frozenset()
    """Live at the innermost exception handler (any statement may raise)."""


@dataclass
class Probe:
    """Records what an analysis knows at one statement (found by identity)."""

    at: ast.stmt
    live_after: set[str] = field(default_factory=set)
    live_before: set[str] = field(default_factory=set)
    assigned_before: set[str] | None = None
    reached: bool = False


def live_before(
    statements: list[ast.stmt], out: set[str], targets: Targets, probe: Probe | None = None
) -> set[str]:
    """Names live before ``statements`` when ``out`` is live after them."""
    live = set(out)
    for stmt in reversed(statements):
        if probe is not None and stmt is probe.at:
            probe.live_after |= live
        live = _live_stmt(stmt, live, targets, probe) | targets.handler
        if probe is not None and stmt is probe.at:
            probe.live_before |= live
    return live


def _loop_fixpoint(stmt: ast.While | ast.For | ast.AsyncFor, out: set[str], t: Targets, probe):
    after = live_before(stmt.orelse, out, t, probe)
    head: set[str] = set(after)
    while True:
        inner = Targets(frozenset(out), frozenset(head), t.handler)
        body = live_before(stmt.body, head, inner, probe)
        if isinstance(stmt, ast.While):
            new = reads(stmt.test) | after | body
        else:
            new = after | (body - target_names(stmt.target)) | own_reads(stmt)
        if new <= head:
            return head
        head |= new


def _live_try(stmt: ast.Try, out: set[str], t: Targets, probe: Probe | None) -> set[str]:
    jumps = set(out) | t.after_loop | t.loop_head | t.handler
    final = live_before(stmt.finalbody, jumps, t, probe) if stmt.finalbody else set(out)
    handlers: set[str] = set()
    for handler in stmt.handlers:
        live = live_before(handler.body, final, t, probe) - ({handler.name} - {None})
        handlers |= live | reads(handler.type)
    inner = Targets(t.after_loop, t.loop_head, frozenset(handlers | t.handler | final))
    after_body = live_before(stmt.orelse, final, t, probe)
    return live_before(stmt.body, after_body, inner, probe) | handlers


def _live_stmt(stmt: ast.stmt, out: set[str], t: Targets, probe: Probe | None) -> set[str]:
    if isinstance(stmt, ast.Return):
        return reads(stmt.value)
    if isinstance(stmt, ast.Raise):
        return reads(stmt.exc) | reads(stmt.cause) | t.handler
    if isinstance(stmt, ast.Break):
        return set(t.after_loop)
    if isinstance(stmt, ast.Continue):
        return set(t.loop_head)
    if isinstance(stmt, ast.If):
        branches = live_before(stmt.body, out, t, probe) | live_before(stmt.orelse, out, t, probe)
        return reads(stmt.test) | branches
    if isinstance(stmt, (ast.While, ast.For, ast.AsyncFor)):
        return _loop_fixpoint(stmt, out, t, probe)
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        bound = set().union(*(target_names(i.optional_vars) for i in stmt.items if i.optional_vars))
        return own_reads(stmt) | (live_before(stmt.body, out, t, probe) - bound)
    if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
        return _live_try(stmt, out, t, probe)  # type: ignore[arg-type]
    if isinstance(stmt, ast.Match):
        live = reads(stmt.subject) | out
        for case in stmt.cases:
            captured = {str(getattr(n, "name", "")) for n in ast.walk(case.pattern)} - {"None", ""}
            live |= reads(case.guard) | reads(case.pattern)
            live |= live_before(case.body, out, t, probe) - captured
        return live
    killed = binds(stmt) - set().union(*(walrus_names(p) for p in ast.iter_child_nodes(stmt)))
    return (out - killed) | own_reads(stmt)


def _meet(a: set[str] | None, b: set[str] | None) -> set[str] | None:
    """Definite assignment where two paths join (None: the path does not reach here)."""
    if a is None:
        return b
    if b is None:
        return a
    return a & b


def assigned_after(
    statements: list[ast.stmt], before: set[str] | None, probe: Probe | None = None
) -> set[str] | None:
    """Names definitely assigned after ``statements`` (None: control never gets there)."""
    current = before
    for stmt in statements:
        if probe is not None and stmt is probe.at:
            probe.reached = True
            probe.assigned_before = _meet(probe.assigned_before, current)
        current = _assigned_stmt(stmt, current, probe)
    return current


def _certain(stmt: ast.stmt) -> set[str]:
    """Names a simple statement binds on every execution (not ``:=`` in an expression)."""
    return binds(stmt) - set().union(*(walrus_names(p) for p in ast.iter_child_nodes(stmt)))


def _assigned_stmt(stmt: ast.stmt, da: set[str] | None, probe: Probe | None) -> set[str] | None:
    if isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
        return None
    da_in = None if da is None else set(da)
    if isinstance(stmt, ast.If):
        body = assigned_after(stmt.body, da_in, probe)
        return _meet(body, assigned_after(stmt.orelse, da_in, probe))
    if isinstance(stmt, ast.While):
        assigned_after(stmt.body, da_in, probe)
        assigned_after(stmt.orelse, da_in, probe)
        return da_in
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        bound = None if da_in is None else da_in | target_names(stmt.target)
        assigned_after(stmt.body, bound, probe)
        assigned_after(stmt.orelse, da_in, probe)
        return da_in
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return assigned_after(stmt.body, None if da_in is None else da_in | binds(stmt), probe)
    if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
        return _assigned_try(stmt, da_in, probe)  # type: ignore[arg-type]
    if isinstance(stmt, ast.Match):
        out: set[str] | None = da_in
        for case in stmt.cases:
            out = _meet(out, assigned_after(case.body, da_in, probe))
        return out
    if da_in is None:
        return None
    if isinstance(stmt, ast.Delete):
        return da_in - set().union(*(target_names(t) for t in stmt.targets))
    return da_in | _certain(stmt)


def _assigned_try(stmt: ast.Try, da: set[str] | None, probe: Probe | None) -> set[str] | None:
    body = assigned_after(stmt.body, da, probe)
    out = assigned_after(stmt.orelse, body, probe)
    for handler in stmt.handlers:
        start = None if da is None else da | ({handler.name} if handler.name else set())
        out = _meet(out, assigned_after(handler.body, start, probe))
    final = assigned_after(stmt.finalbody, da, probe)
    if out is None or final is None:
        return None if out is None else out
    return out | (final - (da or set()))
