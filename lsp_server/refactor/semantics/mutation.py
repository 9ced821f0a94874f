"""In-place changes: a statement that may change an object an expression reads, without
rebinding any name (``a.append(1)``, ``a[0] = 2``, ``del a.x``, ``f(a)``). Inline variable
and extract variable with similar occurrences move an evaluation across such statements;
the value read there would differ."""

from __future__ import annotations

import ast

from lsp_server.refactor.semantics.flow import header_parts

_STATE = (ast.Attribute, ast.Subscript)
"""Parts of an expression that read more than the objects its names are bound to (calls
too, except those of the builtins below)."""
_READ_ONLY_METHODS = frozenset(
    {"count", "index", "get", "keys", "values", "items", "copy", "startswith", "endswith"}
    | {"find", "format", "join", "split", "strip", "lower", "upper", "replace", "isdigit"}
)
_PURE_FUNCTIONS = frozenset(
    {"print", "len", "str", "repr", "int", "float", "bool", "abs", "range", "dict", "list"}
    | {"tuple", "set", "frozenset", "sorted", "reversed", "enumerate", "zip", "min", "max"}
    | {"sum", "any", "all", "isinstance", "type", "hash", "id", "ord", "chr", "round"}
    | {"format", "divmod", "pow"}
)
"""Builtins that change none of their arguments (nor anything else an expression reads)."""


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def reads_state(value: ast.expr) -> bool:
    """Whether ``value`` reads attributes, items or calls (state any call may change)."""
    return any(
        isinstance(n, _STATE) or (isinstance(n, ast.Call) and not _pure_function(n))
        for n in ast.walk(value)
    )


def _pure_function(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Name) and call.func.id in _PURE_FUNCTIONS


def _own_nodes(stmt: ast.stmt) -> list[ast.AST]:
    return [n for part in header_parts(stmt) for n in ast.walk(part)]


def _store_roots(node: ast.AST) -> list[str | None]:
    targets: list[ast.AST] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
    elif isinstance(node, ast.Delete):
        targets = list(node.targets)
    return [
        _root(t)
        for target in targets
        for t in ast.walk(target)
        if isinstance(t, (ast.Attribute, ast.Subscript))
    ]


def _call_mutates(call: ast.Call, inputs: set[str], deep: bool) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in _READ_ONLY_METHODS:
        return False
    if _pure_function(call):
        return False
    if deep:
        return True
    if isinstance(func, ast.Attribute) and _root(func) in inputs:
        return True  # a method of an input: a.append(1), a.sort()
    arguments = [*call.args, *(k.value for k in call.keywords)]
    return any(_root(a) in inputs for a in arguments)  # f(a) may change a


def mutation(
    stmt: ast.stmt, value: ast.expr, inputs: set[str], until: ast.AST | None = None
) -> ast.AST | None:
    """The part of ``stmt`` that may change in place what ``value`` reads, if any.

    ``inputs`` are the names ``value`` reads. When ``value`` reads only names, only a
    change of one of their objects counts; when it reads attributes, items or calls,
    any call may change what they give (objects can be shared). With ``until``, only the
    parts of ``stmt`` evaluated before that node count."""
    deep = reads_state(value)
    for node in _own_nodes(stmt):
        if until is not None and not _ends_before(node, until):
            continue
        roots = _store_roots(node)
        if any(deep or root in inputs for root in roots):
            return node
        if isinstance(node, ast.Call) and _call_mutates(node, inputs, deep):
            return node
    return None


def _ends_before(node: ast.AST, until: ast.AST) -> bool:
    end = (getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0)
    return end <= (until.lineno, until.col_offset)  # type: ignore[attr-defined]
