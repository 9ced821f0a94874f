"""Route B's input: an invariant in a small relational form, encoded to CNF.

A class declares it as plain data (no import of reks needed) in ``__fex_spec__``::

    __fex_spec__ = (
        ("tree", ("root",), ("left", "right")),  # entry fields of the class, link fields
        ("parent", "parent"),                    # n.left.parent is n, entry nodes' is None
        ("ordered", "key", "left", "right"),     # left subtree < key < right subtree
        ("sorted", "key", "next"),               # strictly increasing along next
        ("size", "size"),                        # size == number of reachable nodes
        ("red_black", "red", "left", "right"),   # entry black, no red-red, equal black height
    )

Binomial heaps keep each tree as a first child plus a sibling chain, so a node's parent is
not always the node that links to it and degrees count children; three more constraints
say so (``BinomialHeap`` in ``lsp_server/examples/fex`` uses them)::

    ("sibling_parent", "parent", "child", "sibling"),  # n.child.parent is n,
                                     # n.sibling.parent is n.parent, entry nodes' is None
    ("heap_ordered", "key", "parent"),                 # no key below its parent's key
    ("binomial", "degree", "parent", "child", "sibling"),  # a root list of increasing
                                     # degrees; a degree-d node's children have d-1, ..., 0

``tree`` is required and comes first: the nodes reachable from the entry fields through the
link fields form a tree (reachability from a root, acyclic, one parent each), numbered in
breadth-first order, fields in declaration order: the symmetry breaking the SAT route
encodes and the labelling ``heap.canonical`` gives Korat's instances, so both routes speak
of the same objects. The variables are one per (object, field, value); a node's fields are
fixed to their first value when it is unreachable.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Any

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool

from lsp_server.fex.model import FexError, Model, Ref, Value

CONSTRAINTS = (
    "tree",
    "parent",
    "ordered",
    "sorted",
    "size",
    "red_black",
    "sibling_parent",
    "heap_ordered",
    "binomial",
)


class Encoding:
    """The CNF of a model and its relational invariant."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.pool = IDPool()
        self.clauses: list[list[int]] = []
        self.specs = {f.key: f for f in model.fields}
        for obj in model.objects():
            for spec in model.fields_of(obj.cls):
                lits = [self.var(obj, spec.name, v) for v in spec.domain.values]
                self._exactly_one(lits)
        items = _parse(model.spec)
        _, entry, links = items[0]
        self.entry: tuple[str, ...] = tuple(entry)
        self.node_cls = self._node_class(self.entry, links)
        declared = [f.name for f in model.fields_of(self.node_cls)]
        self.links = tuple(name for name in declared if name in links)
        self.nodes = [Ref(self.node_cls, j) for j in range(model.counts[self.node_cls])]
        self.root = Ref(model.root, 0)
        self.parent_field: str | None = None
        self._tree()
        for name, *args in items[1:]:
            getattr(self, f"_{name}")(*args)
        for spec in model.fields_of(self.node_cls):
            if spec.domain.is_ref and spec.name not in (*self.links, self.parent_field):
                raise FexError(f"route B: {spec.key} is neither a link nor the parent field")

    # -- variables -------------------------------------------------------------------
    @functools.cached_property
    def value_vars(self) -> list[tuple[Ref, str, Value, int]]:
        """(object, field, value, variable) for every object and field of the model, to
        read an instance off a solver's model."""
        return [
            (obj, spec.name, value, self.var(obj, spec.name, value))
            for obj in self.model.objects()
            for spec in self.model.fields_of(obj.cls)
            for value in spec.domain.values
        ]

    def var(self, obj: Ref, field: str, value: Value) -> int:
        return self.pool.id(("x", obj, field, _key(value)))

    def reach(self, j: int) -> int:
        return self.pool.id(("r", j))

    def link(self, i: int, field: str, j: int) -> int | None:
        """Node i's ``field`` is node j (None when j is outside the domain)."""
        return self._lit(self.nodes[i], field, self.nodes[j])

    def _lit(self, obj: Ref, field: str, value: Value) -> int | None:
        spec = self.specs[f"{obj.cls}.{field}"]
        return self.var(obj, field, value) if value in spec.domain.values else None

    def _aux(self, *name: Any) -> int:
        return self.pool.id(("aux", *name))

    def _exactly_one(self, lits: list[int]) -> None:
        if len(lits) <= 6:
            self.clauses.append(list(lits))
            self.clauses += [[-a, -b] for a, b in combinations(lits, 2)]
        else:
            card = CardEnc.equals(lits, 1, vpool=self.pool, encoding=EncType.seqcounter)
            self.clauses += card.clauses

    def _define_or(self, out: int, lits: Sequence[int]) -> None:
        self.clauses.append([-out, *lits])
        self.clauses += [[-lit, out] for lit in lits]

    def _define_and(self, out: int, a: int, b: int) -> None:
        self.clauses += [[-out, a], [-out, b], [-a, -b, out]]

    def _node_class(self, entry: Iterable[str], links: Iterable[str]) -> str:
        targets = {self.specs[f"{self.model.root}.{name}"].domain.target for name in entry}
        if len(targets) != 1 or None in targets:
            raise FexError("route B: the tree's entry fields must all refer to one node class")
        (node_cls,) = targets
        assert node_cls is not None
        for name in links:
            spec = self.specs.get(f"{node_cls}.{name}")
            if spec is None or spec.domain.target != node_cls or None not in spec.domain.values:
                raise FexError(f"route B: {node_cls}.{name} must be a `{node_cls} | None` field")
        return node_cls

    # -- the tree: reachability, one parent, breadth-first numbering ------------------
    def incoming(self, j: int) -> list[tuple[tuple[int, int], int]]:
        """The slots that may point to node j, each with its breadth-first rank."""
        slots = []
        for g, name in enumerate(self.entry):
            lit = self._lit(self.root, name, self.nodes[j])
            if lit is not None:
                slots.append(((-1, g), lit))
        for i in range(j):
            for f, name in enumerate(self.links):
                lit = self.link(i, name, j)
                if lit is not None:
                    slots.append(((i, f), lit))
        return slots

    def _tree(self) -> None:
        n = len(self.nodes)
        for j in range(n):
            if j + 1 < n:
                self.clauses.append([-self.reach(j + 1), self.reach(j)])
            for spec in self.model.fields_of(self.node_cls):
                default = self.var(self.nodes[j], spec.name, spec.domain.values[0])
                self.clauses.append([self.reach(j), default])
            for i in range(j, n):  # links only point forward
                for name in self.links:
                    lit = self.link(i, name, j)
                    if lit is not None:
                        self.clauses.append([-lit])
            into = [lit for _, lit in self.incoming(j)]
            self._define_or(self.reach(j), into)
            self.clauses += [[-a, -b] for a, b in combinations(into, 2)]
        for j in range(n - 1):  # node j's parent slot comes before node j+1's
            for rank, lit in self.incoming(j):
                for later_rank, later in self.incoming(j + 1):
                    if later_rank <= rank:
                        self.clauses.append([-lit, -later])
        for spec in self.model.fields_of(self.model.root):
            if spec.domain.target == self.node_cls and spec.name not in self.entry:
                raise FexError(f"route B: {spec.key} is not an entry field of the tree")

    # -- the other constraints ---------------------------------------------------------
    def _parent(self, field: str) -> None:
        for j, node in enumerate(self.nodes):
            for (i, _), lit in self.incoming(j):
                parent = self._lit(node, field, None if i < 0 else self.nodes[i])
                self.clauses.append([-lit, parent] if parent is not None else [-lit])
        self.parent_field = field

    def _keys(self, j: int, key: str) -> list[tuple[Any, int]]:
        spec = self.specs[f"{self.node_cls}.{key}"]
        return [(v, self.var(self.nodes[j], key, v)) for v in spec.domain.values]

    def _forbid_keys(
        self, guard: int | Sequence[int], i: int, j: int, key: str, allowed: Any
    ) -> None:
        """When ``guard`` holds (all of them), ``allowed(key of i, key of j)`` must be true."""
        guards = [guard] if isinstance(guard, int) else list(guard)
        for a, lit_a in self._keys(i, key):
            for b, lit_b in self._keys(j, key):
                if not allowed(a, b):
                    self.clauses.append([*(-g for g in guards), -lit_a, -lit_b])

    def _sorted(self, key: str, along: str, strict: bool = True) -> None:
        for i in range(len(self.nodes)):
            for j in range(i + 1, len(self.nodes)):
                lit = self.link(i, along, j)
                if lit is not None:
                    self._forbid_keys(
                        lit, i, j, key, (lambda a, b: a < b) if strict else (lambda a, b: a <= b)
                    )

    def _edge(self, k: int, j: int) -> int:
        """Node k links to node j through some link field."""
        out = self._aux("edge", k, j)
        lits = [lit for name in self.links if (lit := self.link(k, name, j)) is not None]
        self._define_or(out, lits)
        return out

    def _below(self, tag: str, i: int, field: str) -> dict[int, int]:
        """Per node j > i: the variable "j is in the subtree under i's ``field``"."""
        below: dict[int, int] = {}
        for j in range(i + 1, len(self.nodes)):
            terms = [lit] if (lit := self.link(i, field, j)) is not None else []
            for k in range(i + 1, j):
                step = self._aux(tag, "step", i, k, j)
                self._define_and(step, below[k], self._edge(k, j))
                terms.append(step)
            below[j] = self._aux(tag, i, j)
            self._define_or(below[j], terms)
        return below

    def _ordered(self, key: str, left: str, right: str) -> None:
        for i in range(len(self.nodes)):
            for j, lit in self._below(f"below-{left}", i, left).items():
                self._forbid_keys(lit, i, j, key, lambda a, b: b < a)
            for j, lit in self._below(f"below-{right}", i, right).items():
                self._forbid_keys(lit, i, j, key, lambda a, b: b > a)

    def _size(self, field: str) -> None:
        n = len(self.nodes)
        spec = self.specs[f"{self.model.root}.{field}"]
        for value in spec.domain.values:
            lit = self.var(self.root, field, value)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= n:
                self.clauses.append([-lit])
                continue
            conditions = []
            if value > 0:
                conditions.append(self.reach(value - 1))
            if value < n:
                conditions.append(-self.reach(value))
            self.clauses += [[-lit, c] for c in conditions]
            self.clauses.append([lit, *(-c for c in conditions)])

    def _red_black(self, color: str, left: str, right: str) -> None:
        """``color`` True is red. Black height counts black nodes down to a null child."""
        n = len(self.nodes)
        heights = range(n + 2)
        red = [self.var(node, color, True) for node in self.nodes]
        height = [[self._aux("bh", j, h) for h in heights] for j in range(n)]
        for j in range(n):
            self._exactly_one(height[j])
            for (i, _), lit in self.incoming(j):
                if i < 0:
                    self.clauses.append([-lit, -red[j]])
                else:
                    self.clauses.append([-lit, -red[i], -red[j]])
            below = {}
            for side in (left, right):
                below[side] = [self._aux("cbh", j, side, h) for h in heights]
                self._exactly_one(below[side])
                null = self._lit(self.nodes[j], side, None)
                if null is not None:
                    self.clauses.append([-null, below[side][0]])
                for c in range(j + 1, n):
                    child = self.link(j, side, c)
                    if child is not None:
                        for h in heights:
                            self.clauses.append([-child, -height[c][h], below[side][h]])
            for h in heights:
                self.clauses += [
                    [-below[left][h], below[right][h]],
                    [-below[left][h], -red[j], height[j][h]],
                    [-below[left][h], red[j], height[j][h + 1]]
                    if h + 1 in heights
                    else [-below[left][h], red[j]],
                ]

    # -- left-child right-sibling trees (binomial heaps) -------------------------------
    def _child_and_sibling(self, child: str, sibling: str) -> None:
        if {child, sibling} != set(self.links):
            raise FexError(f"route B: the tree's link fields must be {child!r} and {sibling!r}")

    def _sibling_parent(self, field: str, child: str, sibling: str) -> None:
        self._child_and_sibling(child, sibling)
        values = self.specs[f"{self.node_cls}.{field}"].domain.values
        for j, node in enumerate(self.nodes):
            for (i, f), lit in self.incoming(j):
                if i >= 0 and self.links[f] == sibling:  # shares its left sibling's parent
                    for value in values:
                        same = self._lit(node, field, value)
                        left = [-lit, -self.var(self.nodes[i], field, value)]
                        self.clauses.append(left if same is None else [*left, same])
                    continue
                parent = self._lit(node, field, None if i < 0 else self.nodes[i])
                self.clauses.append([-lit] if parent is None else [-lit, parent])
        self.parent_field = field

    def _heap_ordered(self, key: str, parent: str) -> None:
        for j, node in enumerate(self.nodes):
            for i in range(len(self.nodes)):
                lit = self._lit(node, parent, self.nodes[i])
                if lit is not None:
                    self._forbid_keys(lit, i, j, key, lambda a, b: b >= a)

    def _binomial(self, degree: str, parent: str, child: str, sibling: str) -> None:
        """Roots (parent None) are the entry's sibling chain, children a node's; unreachable
        nodes keep their first values (parent and child None, the lowest degree)."""
        self._child_and_sibling(child, sibling)
        for i, node in enumerate(self.nodes):
            is_root = self._lit(node, parent, None)
            no_child = self._lit(node, child, None)
            last = self._lit(node, sibling, None)
            leaf = self._lit(node, degree, 0)
            assert is_root is not None and no_child is not None and last is not None
            self.clauses.append([-no_child] if leaf is None else [-no_child, leaf])
            if leaf is not None:
                self.clauses.append([-leaf, no_child])
                self.clauses.append([is_root, -last, leaf])  # a child list ends at degree 0
            else:
                self.clauses.append([is_root, -last])
            for j in range(i + 1, len(self.nodes)):
                if (first := self.link(i, child, j)) is not None:
                    self._forbid_keys(first, i, j, degree, lambda a, b: b == a - 1)
                if (next_ := self.link(i, sibling, j)) is not None:
                    self._forbid_keys([next_, is_root], i, j, degree, lambda a, b: b > a)
                    self._forbid_keys([next_, -is_root], i, j, degree, lambda a, b: b == a - 1)


def _key(value: Value) -> Any:
    """Variables for 0, False and None must differ (0 == False in Python)."""
    return (type(value).__name__, value)


def _parse(spec: list[Any] | None) -> list[tuple[Any, ...]]:
    if not spec:
        raise FexError(
            "route B needs a relational invariant: declare __fex_spec__ on the class "
            '(starting with ("tree", entry_fields, link_fields))'
        )
    items = [tuple(item) for item in spec]
    for item in items:
        if not item or item[0] not in CONSTRAINTS:
            raise FexError(f"__fex_spec__: unknown constraint {item!r}; known: {CONSTRAINTS}")
    if items[0][0] != "tree" or sum(item[0] == "tree" for item in items) != 1:
        raise FexError('__fex_spec__ must start with one ("tree", entry_fields, link_fields)')
    return items
