"""``ast.walk`` for the per-file analysis, at about twice its speed.

The analysis of a file walks its tree and its statements' subtrees many times; in a first
recording run on boltons that was most of the analysis, and the analysis half of reks's
cost. ``ast.walk`` goes through ``iter_child_nodes`` and ``iter_fields`` (two generators
and a ``getattr`` per field of every node); this reads the fields in one loop. Same nodes,
same order (breadth first, fields in ``_fields`` order), same laziness: a node's children
are read when it is reached, before it is handed out. Within ``shared_walks`` (one file's
analysis) a node walked whole once is not walked again: its nodes are handed out as kept;
the walk of a file's tree keeps its top-level statements' walks and its nodes' parents
with it (``parent_map``), ``of_types`` hands out the nodes of some kinds from an index of
a walk by node type, and ``per_node`` answers a fact of a node once (a rule that looks for
a few kinds of node, or a fact several rules ask, no longer costs a walk each time).
"""

from __future__ import annotations

import ast
import functools
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

_Node = TypeVar("_Node", bound=ast.AST)
_Fact = TypeVar("_Fact")


@dataclass
class _SharedWalks:
    """The complete walks made while one file is analysed, by id of their root (the root
    is kept with its nodes, so its id is not reused meanwhile)."""

    kept: dict[int, tuple[ast.AST, list[ast.AST]]] = field(default_factory=dict)
    # By id of a walked root: its nodes' positions in the walk, by node type (``of_types``).
    positions: dict[int, dict[type, list[int]]] = field(default_factory=dict)
    # By id of a walked root: asked by ``of_types`` once (the second ask indexes the walk).
    asked: set[int] = field(default_factory=set)
    # By id of a file's tree: the parent of each node of its walk but the root, in order.
    parents: dict[int, list[ast.AST]] = field(default_factory=dict)
    # By (function, id of its node): the node, kept alive, and the function's answer.
    facts: dict[tuple[object, int], tuple[ast.AST, object]] = field(default_factory=dict)
    # Bumped by each ``unshared`` section: a walk under way across one keeps nothing.
    changes: int = 0


_shared: _SharedWalks | None = None


@contextmanager
def shared_walks() -> Iterator[None]:
    """Within: a second walk of a node (a file's tree, a statement) hands out the nodes
    the first complete one saw instead of walking again. About twenty rules walk each
    file's tree and statements; the walks were a third of a file's analysis. The tree
    must not change meanwhile but inside ``unshared``."""
    global _shared
    outer, _shared = _shared, _SharedWalks()
    try:
        yield
    finally:
        _shared = outer


@contextmanager
def unshared() -> Iterator[None]:
    """Within: the tree may be changed in place (and must be restored before the end,
    unless it stays so): walks go afresh and keep nothing, nor does one under way."""
    global _shared
    outer, _shared = _shared, None
    try:
        yield
    finally:
        _shared = outer
        if outer is not None:
            outer.changes += 1


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``node``'s tree, itself first, in ``ast.walk``'s order."""
    shared = _shared
    if shared is None:
        return _walk(node)
    found = shared.kept.get(id(node))
    if found is not None:
        return iter(found[1])
    if isinstance(node, ast.Module):
        return _walk_module(node, shared)
    return _walk_kept(node, shared)


def _walk_module(tree: ast.Module, shared: _SharedWalks) -> Iterator[ast.AST]:
    """``_walk_kept`` of a file's tree, keeping with it the walk of each top-level
    statement: a statement's nodes in the tree's walk are its own walk, in its order
    (breadth first: the nodes of each depth, by their parents' order). The rules walk each
    statement after the tree: this walks them all in one go. Each node's parent is noted
    too (``parent_map``)."""
    changes = shared.changes
    nodes: list[ast.AST] = []
    up: list[ast.AST] = []  # the parent of each node of the walk after the first
    statements: list[tuple[ast.AST, list[ast.AST]]] = []
    todo: deque[tuple[ast.AST, list[ast.AST] | None]] = deque([(tree, None)])
    popleft, append, node_type = todo.popleft, todo.append, ast.AST
    while todo:
        current, own = popleft()
        nodes.append(current)
        if own is not None:
            own.append(current)
        for name in current._fields:
            value = getattr(current, name, None)
            for child in value if isinstance(value, list) else (value,):
                if not isinstance(child, node_type):
                    continue
                up.append(current)
                if own is None:  # a top-level statement: a walk of its own starts
                    mine: list[ast.AST] = []
                    statements.append((child, mine))
                    append((child, mine))
                else:
                    append((child, own))
        yield current
    if shared.changes != changes:  # the tree changed meanwhile (``unshared``)
        return
    shared.kept[id(tree)] = (tree, nodes)
    shared.parents[id(tree)] = up
    for statement, own_nodes in statements:
        shared.kept.setdefault(id(statement), (statement, own_nodes))


def parent_map(tree: ast.Module) -> dict[int, ast.AST]:
    """Node id -> its parent, for every node of ``tree`` (a node found under several,
    as the shared ``Load`` context is: the last in ``walk``'s order)."""
    shared = _shared
    if shared is not None:
        list(walk(tree))  # kept, with the parents
        up, kept = shared.parents.get(id(tree)), shared.kept.get(id(tree))
        if up is not None and kept is not None:
            return dict(zip(map(id, kept[1][1:]), up, strict=True))
    parents: dict[int, ast.AST] = {}
    for node in walk(tree):
        for child in _children(node):
            parents[id(child)] = node
    return parents


def _children(node: ast.AST) -> list[ast.AST]:
    """The child nodes of ``node`` in ``walk``'s order."""
    children: list[ast.AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            children.append(value)
        elif isinstance(value, list):
            children.extend(item for item in value if isinstance(item, ast.AST))
    return children


def of_types(node: ast.AST, types: tuple[type[ast.AST], ...]) -> list[ast.AST]:
    """The nodes of ``node``'s tree that are instances of ``types``, in ``walk``'s order.
    Within ``shared_walks`` the walk is indexed by node type once: a rule looking for a few
    kinds of node among a whole file's visits those alone."""
    shared = _shared
    if shared is None:
        return [current for current in _walk(node) if isinstance(current, types)]
    kept = shared.kept.get(id(node))
    nodes = kept[1] if kept is not None else list(walk(node))
    by_type = shared.positions.get(id(node))
    if by_type is None and id(node) not in shared.asked:  # asked once: not worth an index
        if id(node) in shared.kept:  # the walk keeps ``node`` alive: its id stays its own
            shared.asked.add(id(node))
        return [current for current in nodes if isinstance(current, types)]
    if by_type is None:
        by_type = {}
        for position, current in enumerate(nodes):
            found = by_type.get(type(current))
            if found is None:
                by_type[type(current)] = [position]
            else:
                found.append(position)
        if id(node) in shared.kept:  # the walk keeps ``node`` alive: its id stays its own
            shared.positions[id(node)] = by_type
    lists = [found for kind, found in by_type.items() if issubclass(kind, types)]
    if len(lists) == 1:
        return [nodes[position] for position in lists[0]]
    return [nodes[position] for position in sorted(p for found in lists for p in found)]


def per_node(function: Callable[[_Node], _Fact]) -> Callable[[_Node], _Fact]:
    """``function`` of a node answered once per node within ``shared_walks`` (one file's
    analysis): several rules ask the same fact of the same statements. ``function`` must
    depend on its node's tree alone, and its callers must not change what it returns."""

    def answer(node: _Node) -> _Fact:
        shared = _shared
        if shared is None:
            return function(node)
        key = (function, id(node))
        found = shared.facts.get(key)
        if found is not None:
            return found[1]  # type: ignore[return-value]
        changes = shared.changes
        fact = function(node)
        if shared.changes == changes:  # no tree changed meanwhile (``unshared``)
            shared.facts[key] = (node, fact)
        return fact

    return functools.update_wrapper(answer, function)


def _walk_kept(node: ast.AST, shared: _SharedWalks) -> Iterator[ast.AST]:
    """``_walk``, its nodes kept for the next walk of ``node`` once it is complete."""
    changes = shared.changes
    nodes: list[ast.AST] = []
    append = nodes.append
    for current in _walk(node):
        append(current)
        yield current
    if shared.changes == changes:
        shared.kept[id(node)] = (node, nodes)


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    todo = deque((node,))
    popleft, append = todo.popleft, todo.append
    node_type = ast.AST
    while todo:
        current = popleft()
        for name in current._fields:
            value = getattr(current, name, None)
            if isinstance(value, node_type):
                append(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, node_type):
                        append(item)
        yield current


# What holds statements: a statement list is a field of one of these. Expressions hold
# none (a lambda's body is an expression), so their subtrees need no visit.
_STATEMENT_HOLDERS = (ast.mod, ast.stmt, ast.excepthandler, ast.match_case)


def statements(node: ast.AST) -> Iterator[ast.AST]:
    """The statements of ``node``'s tree (and the except handlers and match cases holding
    some) in ``walk``'s order, without visiting any expression: looking for imports this
    way visits a tenth of the nodes."""
    todo = deque((node,))
    popleft, append = todo.popleft, todo.append
    holders = _STATEMENT_HOLDERS
    while todo:
        current = popleft()
        for name in current._fields:
            value = getattr(current, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, holders):
                        append(item)
        yield current


def enclosing(
    node: ast.AST, parents: dict[int, ast.AST], kinds: tuple[type[ast.AST], ...]
) -> ast.AST | None:
    """The nearest ancestor of ``node`` of one of ``kinds`` (``parents``: node id -> its
    parent), None when there is none."""
    current = parents.get(id(node))
    while current is not None and not isinstance(current, kinds):
        current = parents.get(id(current))
    return current


def scope_nodes(body: list[ast.stmt], scopes: tuple[type[ast.AST], ...]) -> Iterator[ast.AST]:
    """The nodes of ``body`` and their subtrees but those of the types ``scopes`` (nested
    functions, classes, lambdas: code of their own) and what they hold; depth first."""
    stack: list[ast.AST] = [node for node in body if not isinstance(node, scopes)]
    pop, push, node_type = stack.pop, stack.append, ast.AST
    while stack:
        current = pop()
        yield current
        for name in current._fields:
            value = getattr(current, name, None)
            if isinstance(value, node_type):
                if not isinstance(value, scopes):
                    push(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, node_type) and not isinstance(item, scopes):
                        push(item)


def copy_tree(node: ast.AST) -> ast.AST:
    """A copy of ``node``'s tree, as ``copy.deepcopy`` makes it at several times its speed
    (deepcopy reduces and rebuilds each node through its generic protocol). Every node is
    new but the expression contexts (``Load``, ``Store``, ``Del``: parsed trees share them
    too); other values (names, constants, positions) are immutable and shared."""
    cls = type(node)
    new = cls.__new__(cls)
    fields = new.__dict__
    node_type, context = ast.AST, ast.expr_context
    for name, value in node.__dict__.items():
        if isinstance(value, node_type):
            fields[name] = value if isinstance(value, context) else copy_tree(value)
        elif type(value) is list:
            fields[name] = [
                copy_tree(item) if isinstance(item, node_type) else item for item in value
            ]
        else:
            fields[name] = value
    return new


def attribute_chain(node: ast.expr) -> tuple[ast.expr, list[str]]:
    """What a chain of attributes starts from and its attribute names in the order written
    (``m.a.b``: ``m``, ``["a", "b"]``); a node that is no attribute: itself, none."""
    chain: list[str] = []
    while isinstance(node, ast.Attribute):
        chain.append(node.attr)
        node = node.value
    chain.reverse()
    return node, chain
