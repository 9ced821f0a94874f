"""Which names a top-level statement binds: surely (on every path that does not raise)
or maybe (on some path), for ``rts.import_raise``'s account of what is bound when."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from lsp_server.rts.ast_walk import of_types, per_node, walk

_FuncDef = (ast.FunctionDef, ast.AsyncFunctionDef)
# Builtin types whose call without arguments returns an empty value.
EMPTY_CONSTRUCTORS = frozenset(
    ["object", "dict", "list", "set", "tuple", "frozenset", "str", "bytes", "int", "float"]
)


def surely_bound(stmt: ast.stmt) -> set[str]:
    """Names bound on every path through ``stmt`` that does not raise."""
    if isinstance(stmt, (*_FuncDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*"}
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if isinstance(stmt, ast.AnnAssign) and stmt.value is None:
            return set()
        return {n.id for t in targets for n in walk(t) if isinstance(n, ast.Name)}
    if isinstance(stmt, ast.If):
        return every_bound(stmt.body) & every_bound(stmt.orelse) if stmt.orelse else set()
    if isinstance(stmt, ast.Try):
        paths = [stmt.body + stmt.orelse, *(h.body for h in stmt.handlers)]
        found = set.intersection(*(every_bound(p) for p in paths))
        return found | every_bound(stmt.finalbody)
    if isinstance(stmt, ast.With):
        return every_bound(stmt.body)
    return set()


def every_bound(body: Iterable[ast.stmt]) -> set[str]:
    found: set[str] = set()
    for stmt in body:
        found |= surely_bound(stmt)
    return found


def maybe_bound(stmt: ast.stmt) -> set[str]:
    """Names ``stmt`` may bind at module level on some path (a superset)."""
    if isinstance(stmt, (*_FuncDef, ast.ClassDef)):
        return {stmt.name}
    found: set[str] = set()
    for node in walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.add(node.id)
        elif isinstance(node, (*_FuncDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            found |= set(node.names)
        elif (isinstance(node, ast.ExceptHandler) and node.name) or (
            isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name
        ):
            found.add(node.name)
    return found


def maybe_bound_in(body: Iterable[ast.stmt]) -> set[str]:
    found: set[str] = set()
    for stmt in body:
        found |= maybe_bound(stmt)
    return found


def instantiable(node: ast.ClassDef, instantiable: set[str]) -> bool:
    """A plain class (judged so already) whose ``C()`` runs no code of the module: it
    binds no ``__init__``/``__new__`` and its bases are ``object`` or such classes (a
    builtin exception or a standard-library base may refuse, e.g. an ABC). One with a
    ``__set_name__`` runs it when an instance is put in a class body."""
    if {"__init__", "__new__", "__set_name__"} & maybe_bound_in(node.body):
        return False
    return all(
        isinstance(b, ast.Name) and (b.id == "object" or b.id in instantiable) for b in node.bases
    )


def assigned_value(stmt: ast.stmt, name: str) -> ast.expr | None:
    """The value of ``stmt`` when it is ``name = value``; else None."""
    if (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and stmt.targets[0].id == name
    ):
        return stmt.value
    return None


def constant_strings(value: ast.expr) -> set[str] | None:
    """The strings of a list or tuple made only of string constants; else None."""
    if not isinstance(value, (ast.List, ast.Tuple)):
        return None
    strings: set[str] = set()
    for element in value.elts:
        if not (isinstance(element, ast.Constant) and isinstance(element.value, str)):
            return None
        strings.add(element.value)
    return strings


def listed_names(tree: ast.Module, source: str | None = None) -> frozenset[str] | None:
    """The names a module's ``__all__`` lists (what ``from m import *`` takes, and fails on
    when one is not bound): its top-level assignments of a list or tuple of strings, none
    without one. None when code builds or changes it otherwise (``__all__ += ...``,
    ``__all__.append(...)``, a computed value): any name may be listed. ``source``, the
    tree's text, spares the walk of every statement when it never spells the name."""
    if source is not None and "__all__" not in source and source.isascii():
        # Only an identifier spelled in other characters (NFKC-normalized) could name it.
        return frozenset()
    listed: set[str] = set()
    literal: set[int] = set()
    for stmt in tree.body:
        value = assigned_value(stmt, "__all__")
        strings = constant_strings(value) if value is not None else None
        if strings is not None:
            listed |= strings
            literal.add(id(stmt))
    for stmt in tree.body:
        if id(stmt) in literal:
            continue
        for node in walk(stmt):
            name = node if isinstance(node, ast.Name) and node.id == "__all__" else None
            if name is not None and not isinstance(name.ctx, ast.Load):
                return None
            value = node.value if isinstance(node, ast.Attribute) else None
            if isinstance(value, ast.Name) and value.id == "__all__":
                return None  # ``__all__.append(...)``
    return frozenset(listed)


# What ``names_bound_by`` finds names in: no other node binds any.
NAME_BINDERS = (
    ast.Name,
    ast.Global,
    ast.Nonlocal,
    ast.alias,
    ast.ExceptHandler,
    *_FuncDef,
    ast.ClassDef,
    ast.MatchAs,
    ast.MatchStar,
    ast.MatchMapping,
)


def names_bound_by(node: ast.AST) -> list[str]:
    """The names ``node`` itself binds in any way, or declares bound elsewhere (``global``,
    ``nonlocal``); not its children's (``walk`` visits those)."""
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        return [node.id]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    if isinstance(node, ast.alias):
        return [(node.asname or node.name).split(".")[0]]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    if isinstance(node, (*_FuncDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
        return [node.name]
    if isinstance(node, ast.MatchMapping) and node.rest:
        return [node.rest]
    return []


@per_node  # asked of each file's tree by several rules
def binding_occurrences(tree: ast.Module) -> tuple[str, ...]:
    """Every name any node of ``tree`` binds (parameters included), deletes or declares
    global or nonlocal, once per occurrence (in no particular order)."""
    out: list[str] = []
    for node in of_types(tree, (ast.arg, *NAME_BINDERS)):
        out.extend([node.arg] if isinstance(node, ast.arg) else names_bound_by(node))
    return tuple(out)


def parameters(function: ast.AST) -> list[ast.arg]:
    """The parameters of a ``def`` or lambda (none for any other node)."""
    args = getattr(function, "args", None)
    if not isinstance(args, ast.arguments):
        return []
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    return every + [a for a in (args.vararg, args.kwarg) if a is not None]


def bound_inside(function: ast.AST) -> set[str]:
    """Names bound anywhere inside ``function`` besides its own parameters and name:
    stores, nested scopes' parameters, ``def``s and classes, imports, captures (``except
    ... as``, ``case``), ``global``/``nonlocal``."""
    own = parameters(function)
    names: set[str] = set()
    for node in walk(function):
        if node is function:
            continue
        if isinstance(node, ast.arg):
            if node not in own:
                names.add(node.arg)
        else:
            names.update(names_bound_by(node))
    return names


def is_dunder(name: str) -> bool:
    """``__x__``: a name Python itself gives a meaning."""
    return name.startswith("__") and name.endswith("__")
