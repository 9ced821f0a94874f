"""Field-exhaustive subsets of a bounded-exhaustive space of generated cases.

For program generators the "fields" are those of the objects a generated case is made of,
as the paper (Ponzio et al., FSE 2016, section 5) models ASTGen's programs: a case is the
refactoring *request* and the program *elements* the generator listed (``use0``, ``use1``,
``stmt0``, ...: a choice point whose name ends in a position). Their fields are

- ``request.<choice point>``: the request's own choices (site, renamed entity, level, ...);
- ``element<i>.kind``: what the i-th element is (objects are numbered, as the paper's
  nodes are after symmetry breaking, and typed by their kind, as its Alloy models give
  each kind of program element a signature of its own);
- ``element<i>.next``: the element that follows it, an object typed by its kind (a field
  whose values are objects of the program, as an AST node's children are); the element
  itself is typed by where the refactoring is invoked (``ROLES``);
- ``element<i>.request``: the request the element takes part in, typed by each of the
  request's choices (what a refactoring engine is sensitive to: the same use is handled
  differently when the rename starts at it, or at the definition). Not for a selection
  inside a statement (extract variable): there the request's choices name the expression
  and the statement it is in, and crossing them with every other statement only split one
  failure by the statement before it (a redundant field, dropped to pay for ``again``).

- ``request.selects``: the statement a selection-based refactoring (extract method)
  starts at: the node the refactoring targets, which the paper's models name as an object
  of its own, numbered as the paper numbers objects after symmetry breaking (statements of
  the file in preorder) and typed by its kind (``#7:if``), and by whether an equal
  statement comes before it (``#9:for:again``: the node's relation to an earlier one,
  which a number alone does not say; rope passes the first of two equal loops' variable
  on to the second, unbound when the first did not run). Text does not name a node: two
  ``if x % 2 == 1:`` of one loop body read alike, and rope extracts one and not the other
  (bench/fex_engine.py). ``from``/``to``/``nth`` only describe the selection. A selection
  inside a statement (extract variable) has no such node: there it is named by its first
  and last line.

A case without elements (a value and the statement that mutates it; a class member and
the relation between two classes) is made of one part per choice point: there the field
of a part is the option each other part takes, and the options two other parts take
together (every two and every three of its choices: a rename of an overriding member
fails for one member kind x relation x renamed class only).

A field-exhaustive subset realises every (object, field, value) any generated case
realises. ``choice_point_cases`` is the narrower model with the request as the only object
(every option of every choice point once); ``pairwise_cases`` is 2-way combinatorial
coverage of the choices, a reference point. A dimension that occurs twice in one vector is
two choice points (``dim``, ``dim#2``).
"""

from __future__ import annotations

import ast
import functools
import heapq
import re
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations, pairwise
from typing import Any, TypeVar

from lsp_server.project.text import line_starts, offset_of, parse_python

T = TypeVar("T")

Choice = tuple[str, str, str]
"""(group, choice point, option); the group keeps generators' dimensions apart."""

_ELEMENT = re.compile(r"^(?P<kind>[A-Za-z_-]+)(?P<position>\d+)$")
DESCRIPTIVE = frozenset({"nth", "from", "to", "depth", "live-out", "augmented", "jumps"})
"""Labels that describe a case rather than choose it: ``nth`` numbers cases whose labels are
otherwise equal; the others describe the selection (the statements it starts and ends at,
its nesting depth, what it contains), which ``request.selects`` names itself. Choice points
of their own, but no field of the elements."""
ROLES = frozenset({"site"})
"""Request choices that type the element objects: the occurrence a rename is invoked on
is an object of its own kind, as the target node is in the paper's models."""


def choice_pairs(group: str, labels: Iterable[tuple[str, str]]) -> set[Choice]:
    seen: dict[str, int] = {}
    out = set()
    for dimension, option in labels:
        seen[dimension] = seen.get(dimension, 0) + 1
        point = dimension if seen[dimension] == 1 else f"{dimension}#{seen[dimension]}"
        out.add((group, point, option))
    return out


def object_fields(
    group: str, labels: Sequence[tuple[str, str]], selects: str | None = None
) -> set[tuple[str, ...]]:
    """The (object, field, value) triples of one case (each prefixed by ``group``): the
    choice points, the request's ``selects`` (the node a selection starts at, when the
    refactoring acts on a selection: ``selected_node``), plus the elements' ``next`` and
    ``request`` fields, or the pairs and triples of choices of a case without elements
    (module docstring)."""
    out: set[tuple[str, ...]] = set(choice_pairs(group, labels))
    if selects is not None:
        out.add((group, "request", "selects", selects))
    request: list[str] = []
    elements: list[tuple[str, str]] = []  # (object: "use0:getattr", type: "use:getattr")
    for dimension, option in labels:
        match = _ELEMENT.match(dimension)
        if match:
            elements.append((f"{dimension}:{option}", f"{match['kind']}:{option}"))
        elif dimension not in DESCRIPTIVE:
            request.append(f"{dimension}={option}")
    if not elements:
        out |= {(group, *pair) for pair in combinations(request, 2)}
        out |= {(group, *triple) for triple in combinations(request, 3)}
    role = " ".join(choice for choice in request if choice.split("=")[0] in ROLES)
    for (name, _), (_, following) in pairwise(elements):
        out.add((group, f"{name} {role}", "next", following))
    if selects is None or selects.startswith("#"):
        for name, _ in elements:
            out |= {(group, name, "request", choice) for choice in request}
    return out


def field_exhaustive(items: Sequence[T], pairs_of: Callable[[T], set[Any]]) -> list[T]:
    """A greedy field-exhaustive subset, in the original order: repeatedly the item that
    realises most pairs no chosen item realises (ties: the earliest).

    Lazy greedy: an item's count of new pairs only shrinks as items are chosen, so a stale
    count in the queue is an upper bound, and an item whose fresh count still heads the
    queue is the best one (thousands of programs, hundreds chosen)."""
    covers = [pairs_of(item) for item in items]
    uncovered = set().union(*covers) if covers else set()
    queue = [(-len(cover), i) for i, cover in enumerate(covers)]
    heapq.heapify(queue)
    chosen: set[int] = set()
    while uncovered and queue:
        _, best = heapq.heappop(queue)
        fresh = (-len(covers[best] & uncovered), best)
        if queue and fresh > queue[0]:
            heapq.heappush(queue, fresh)
            continue
        if fresh[0] == 0:
            break
        chosen.add(best)
        uncovered -= covers[best]
    return [items[i] for i in sorted(chosen)]


def field_exhaustive_cases(cases: Sequence[tuple[str, T]]) -> list[tuple[str, T]]:
    """For ``engine-test``: ``(generator name, Labelled case)`` pairs, field-exhaustive for
    the program-object fields (``object_fields``), per generator and refactoring."""
    return field_exhaustive(
        cases, lambda case: object_fields(*_group_and_labels(case), selected_node(case))
    )


def choice_point_cases(cases: Sequence[tuple[str, T]]) -> list[tuple[str, T]]:
    """The narrower model: every option of every choice point taken once."""
    return field_exhaustive(cases, _case_choices)


def pairwise_cases(cases: Sequence[tuple[str, T]]) -> list[tuple[str, T]]:
    """A stronger reference point than the criterion: every two options that two choice
    points of one case take together are taken together by some chosen case (2-way
    combinatorial coverage; failures that need two choices at once are found for sure)."""

    def pairs_of(case: tuple[str, T]) -> set[Any]:
        one = sorted(_case_choices(case))
        return {*one, *combinations(one, 2)}

    return field_exhaustive(cases, pairs_of)


def _group_and_labels(case: tuple[str, Any]) -> tuple[str, Sequence[tuple[str, str]]]:
    value = getattr(case[1], "value", None)
    kind = getattr(getattr(value, "target", None), "kind", "")
    return f"{case[0]}/{kind}", getattr(case[1], "labels", ())


def selected_node(case: tuple[str, Any]) -> str | None:
    """What the case's selection starts at (None when the refactoring does not act on a
    selection): the statement, as ``#number:kind`` (``statement_starts``), or for a
    selection inside a statement its first and last non-blank line, stripped."""
    value: Any = getattr(case[1], "value", None)
    target = getattr(value, "target", None)
    if target is None or target.end is None:
        return None
    source = value.program.file_map[target.path]
    node = statement_starts(source).get(target.offset)
    if node is not None:
        return node
    lines = [line.strip() for line in source[target.offset : target.end].splitlines()]
    lines = [line for line in lines if line]
    return f"{lines[0]} ... {lines[-1]}" if lines else None


@functools.lru_cache(maxsize=64)
def statement_starts(source: str) -> dict[int, str]:
    """Offset of every statement of ``source`` -> ``#number:kind``: statements numbered in
    preorder (a compound statement before its body, its body before what follows), typed
    by their AST class, and ``#number:kind:again`` for a statement equal (same AST) to one
    before it. Cached: a generator's cases share one program per statement list."""
    try:
        tree = parse_python(source)
    except SyntaxError:
        return {}
    starts = line_starts(source)
    out: dict[int, str] = {}
    seen: set[str] = set()
    todo: list[ast.stmt] = list(reversed(tree.body))
    while todo:
        stmt = todo.pop()
        offset = offset_of(starts, stmt.lineno, stmt.col_offset)
        shape = ast.dump(stmt)
        again = ":again" if shape in seen else ""
        seen.add(shape)
        out[offset] = f"#{len(out)}:{type(stmt).__name__.lower()}{again}"
        inner: list[ast.stmt] = []
        for name in ("body", "orelse", "handlers", "finalbody"):
            for child in getattr(stmt, name, ()):
                inner += [child] if isinstance(child, ast.stmt) else child.body
        todo += reversed(inner)
    return out


def _case_choices(case: tuple[str, Any]) -> set[Choice]:
    return choice_pairs(*_group_and_labels(case))
