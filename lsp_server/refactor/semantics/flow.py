"""Data flow over one function's syntax tree: which names it reads, binds, keeps live, and
has definitely assigned at a given statement.

The analyses follow the structure of the code (no control-flow graph): loops are solved
by iterating to a fixed point, ``break``/``continue``/``return``/``raise`` carry their own
targets, and ``try`` is treated conservatively (a handler may start after any statement of
the body). Nested functions, lambdas and comprehensions are their own scopes: they read
their free names where they are defined, and bind nothing here (but ``:=``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def target_names(target: ast.AST) -> set[str]:
    """Names a binding target binds (``a``, ``a, (b, *c)``); not attributes/subscripts."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(target_names(e) for e in target.elts))
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    return set()  # ``a[0] = ...`` and ``a.x = ...`` change the object, not the name


def reads(node: ast.AST | None) -> set[str]:
    """Names an expression (or a statement's own parts) reads from the current scope,
    free names of nested lambdas and comprehensions included."""
    if node is None:
        return set()
    found: set[str] = set()
    _collect_reads(node, found)
    return found


def _collect_reads(node: ast.AST, found: set[str]) -> None:
    if isinstance(node, ast.Name):
        if not isinstance(node.ctx, ast.Store):
            found.add(node.id)
        return
    if isinstance(node, ast.Lambda):
        inner = reads(node.body) - {a.arg for a in _all_args(node.args)}
        found |= inner | _default_reads(node.args)
        return
    if isinstance(node, _COMPREHENSIONS):
        bound = set().union(*(target_names(g.target) for g in node.generators))
        inside: set[str] = set()
        for child in ast.iter_child_nodes(node):
            if child is not node.generators[0]:
                _collect_reads(child, inside)
        first = node.generators[0]
        for part in [first.target, *first.ifs]:
            _collect_reads(part, inside)
        found |= reads(first.iter) | (inside - bound)
        return
    for child in ast.iter_child_nodes(node):
        _collect_reads(child, found)


def _all_args(args: ast.arguments) -> list[ast.arg]:
    out = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    out += [a for a in (args.vararg, args.kwarg) if a is not None]
    return out


def _default_reads(args: ast.arguments) -> set[str]:
    return set().union(*(reads(d) for d in [*args.defaults, *args.kw_defaults] if d), set())


def walrus_names(node: ast.AST) -> set[str]:
    """Names bound by ``:=`` inside an expression (they bind in the enclosing function)."""
    return {
        n.target.id
        for n in ast.walk(node)
        if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name)
    }


def header_parts(stmt: ast.stmt) -> list[ast.AST]:
    """The parts of a statement evaluated in the current scope before its blocks run."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [*stmt.decorator_list, *stmt.args.defaults, *filter(None, stmt.args.kw_defaults)]
    if isinstance(stmt, ast.ClassDef):
        return [*stmt.decorator_list, *stmt.bases, *(k.value for k in stmt.keywords)]
    if isinstance(stmt, (ast.If, ast.While)):
        return [stmt.test]
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return [stmt.iter]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return [item.context_expr for item in stmt.items]
    if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
        return []
    if isinstance(stmt, ast.Match):
        return [stmt.subject]
    return [stmt]


def binds(stmt: ast.stmt) -> set[str]:
    """Names a simple statement (or a compound statement's header) binds for certain."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, ast.Assign):
        return set().union(*(target_names(t) for t in stmt.targets)) | walrus_names(stmt.value)
    if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        if stmt.value is None:
            return set()
        return target_names(stmt.target) | walrus_names(stmt.value)
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return walrus_names(stmt.iter)
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        out = set().union(*(walrus_names(i.context_expr) for i in stmt.items))
        return out.union(*(target_names(i.optional_vars) for i in stmt.items if i.optional_vars))
    return set().union(*(walrus_names(p) for p in header_parts(stmt)))


def own_reads(stmt: ast.stmt) -> set[str]:
    """What a statement reads itself (a compound statement: its header)."""
    if isinstance(stmt, ast.AugAssign):
        return reads(stmt.value) | reads(stmt.target) | target_names(stmt.target)
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        attrs = set().union(*(_target_reads(t) for t in targets))
        return reads(stmt.value) | attrs
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return reads(stmt.iter) | _target_reads(stmt.target)
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return set().union(*(reads(p) for p in header_parts(stmt))) | free_reads(stmt)
    if isinstance(stmt, ast.ClassDef):
        return set().union(*(reads(p) for p in header_parts(stmt))) | free_reads(stmt)
    if isinstance(stmt, ast.Delete):
        return set().union(*(reads(t) | target_names(t) for t in stmt.targets))
    return set().union(*(reads(p) for p in header_parts(stmt)), set())


def _target_reads(target: ast.AST) -> set[str]:
    """Names read by a binding target (``a[i]``, ``obj.attr``), not the bound names."""
    out: set[str] = set()
    for node in ast.walk(target):
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            out |= reads(node)
    return out


def free_reads(scope: ast.AST) -> set[str]:
    """Names a nested function or class reads without binding them itself."""
    body = getattr(scope, "body", [])
    statements = body if isinstance(body, list) else [ast.Expr(body)]
    used: set[str] = set()
    bound: set[str] = set()
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        bound |= {a.arg for a in _all_args(scope.args)}
    for stmt in walk_statements(statements):
        used |= own_reads(stmt)
        bound |= binds(stmt) | scope_binds(stmt)
        if isinstance(stmt, (ast.Global, ast.Nonlocal)):
            bound -= set(stmt.names)
    return used - bound


def scope_binds(stmt: ast.stmt) -> set[str]:
    """Names a compound statement binds for its blocks (loop targets, ``except ... as``)."""
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return target_names(stmt.target)
    if isinstance(stmt, ast.Try):
        return {h.name for h in stmt.handlers if h.name}
    return set()


def blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists a compound statement holds (not those of nested scopes)."""
    if isinstance(stmt, _SCOPES):
        return []
    out = [getattr(stmt, name) for name in ("body", "orelse", "finalbody") if hasattr(stmt, name)]
    out += [h.body for h in getattr(stmt, "handlers", [])]
    out += [c.body for c in getattr(stmt, "cases", [])]
    return [b for b in out if b]


def walk_statements(statements: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of the current scope, nested blocks included, in source order."""
    for stmt in statements:
        yield stmt
        for block in blocks(stmt):
            yield from walk_statements(block)


def local_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The function's local variables: parameters and names it binds, minus global/nonlocal."""
    names = {a.arg for a in _all_args(function.args)}
    declared: set[str] = set()
    for stmt in walk_statements(function.body):
        names |= binds(stmt) | scope_binds(stmt)
        if isinstance(stmt, (ast.Global, ast.Nonlocal)):
            declared |= set(stmt.names)
        if isinstance(stmt, ast.Match):
            names |= {n.name for n in ast.walk(stmt) if isinstance(n, ast.MatchAs) and n.name}
    return names - declared


def same_runs(function: ast.AST, selected: list[ast.stmt]) -> list[list[ast.stmt]]:
    """The other runs of statements in ``function``'s own blocks that read as ``selected``
    (the same syntax trees), none overlapping the selection or each other."""
    want = [ast.dump(stmt) for stmt in selected]
    body: list[ast.stmt] = getattr(function, "body", [])
    found: list[list[ast.stmt]] = []
    for block in [body, *(b for stmt in walk_statements(body) for b in blocks(stmt))]:
        i = 0
        while i + len(want) <= len(block):
            run = block[i : i + len(want)]
            overlaps = any(stmt in selected for stmt in run)
            if not overlaps and [ast.dump(stmt) for stmt in run] == want:
                found.append(run)
                i += len(want)
            else:
                i += 1
    return found
