"""Route B: a field-exhaustive suite by incremental SAT solving, as the paper does.

One solver holds the invariant's CNF. For each (object, field, value) target not yet covered,
solve under the assumption that the object is reachable and its field holds the value: a
model is a valid instance, added to the suite, and every pair it shows is covered; UNSAT
marks the target infeasible. The solver keeps its learnt clauses from call to call.

Like the paper, the suite is the solver's models as they come (each realises a new pair, so
at most one per pair: the #F x n^2 bound), not a smaller cover of them. The solver is asked
to prefer the pairs no model has shown yet (its decision phases): left to itself it sets
each field to its first value wherever it may, so every model would hold the lowest keys,
and relations the criterion does not name (a smaller key in a later root, a successor
deeper than the right child) would go untested although the fields allow them.

Two further rounds of targets, each solved the same way, make the suite stronger where
single fields leave a shape to chance (bench/fex_vs_be.py): every pair under each small
value (0 to ``SMALL_SIZES``) of the root's plain fields (its size: bintrees' colour flip
needs a three-node all-black tree, which no single field singles out), and every reference
at the end of every path of two fields (``Node.right.left``: bst's successor two levels
down). Both are kept linear in the scope n, as the criterion's suites grow in the paper:
a size round over every size would add about n inputs per size (n^2 in all), and paths
ending in a plain field (``Node.left.key``) add another n per object; at scope 4, where
BE is measured, neither changed mutation score or branch coverage. Each round also stops
after ``EXTRA_PER_ROUND`` x #F x n inputs, so the suite never exceeds the criterion's
inputs plus 2 x #F x n. Route A (Korat search, ``fex.select``) keeps the bare criterion.

The criterion's own round is not linear, and no bound makes it so: on bst its inputs per
unit of scope go 3.0, 3.7, 4.4, 4.8, 5.4, 6.4 at scopes 4 to 16 (the whole suite 14.0 at 12,
15.8 at 16). Every (node, key) pair is feasible (n^2 of them: 256 at 16), as are about a
third of the (node, child) pairs, and a model shows at most one value per object and field,
so at best n new pairs; asked for one target at a time the solver's models show 2 to 3 new
key pairs each (more as n grows, but slower than n), so the round grows as n^2 / (new pairs
per model): the paper's #F x n^2 bound (1280 at 16; 103 used), not a linear one. Asking each
model for more uncovered targets while it stays satisfiable (up to n more assumptions)
lowers the count (16: 103 -> 81) but not the growth (3.3, 4.4, 5.1 per n at 8, 12, 16),
at 3.5x the solver calls, so the round stays the paper's.

Asking instead for the model that shows the most uncovered pairs (``wide=True``: after the
plain round, a greedy cover by models pushed, with a cardinality constraint, to show more
uncovered pairs than the last, each call within ``WIDE_CONFLICTS`` conflicts) makes the
round linear on bst: 9, 14, 17, 24, 28, 33 inputs at scopes 4 to 14 (2.1 to 2.4 per n,
against 3.0 to 5.9), the same feasible pairs, each model still showing a new pair (so the
#F x n^2 bound holds), but at 5x to 60x the time (119 s at 14, against 2 s; load 13-15,
bench/fex_criterion_round.py; an earlier script of the same search: 44 inputs, 2.8 per n,
in 824 s at 16). A greedy MaxSAT (RC2) per model did not finish scope 8 in
two minutes. It stays an option: by default the 60 s budget of bench/fex_vs_be.py reaches
twice the scope BE does, which the widened round, at these times, would not.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pysat.card import ITotalizer
from pysat.solvers import Solver

from lsp_server.fex import heap
from lsp_server.fex.model import Model, Ref, Value
from lsp_server.fex.relational import Encoding
from lsp_server.jobs import Job

SOLVER = "glucose4"
SMALL_SIZES = 3
"""The size round's sizes: 0 to this (the small-scope hypothesis; bintrees needs 3)."""
EXTRA_PER_ROUND = 1
"""Each further round adds at most this x #F x n inputs (n: the scope)."""
WIDE_CONFLICTS = 2000
"""``solve(wide=True)``: the conflicts one call may spend looking for a model that shows
more uncovered targets than the last one (then the last one is kept)."""


@dataclass
class SatResult:
    selected: list[heap.Instance] = field(default_factory=list)
    feasible: set[heap.Pair] = field(default_factory=set)
    infeasible: set[heap.Pair] = field(default_factory=set)
    solver_calls: int = 0
    criterion_inputs: int = 0
    """How many of ``selected`` the criterion's round chose (the rest: the further rounds)."""
    variables: int = 0
    clauses: int = 0
    seconds: float = 0.0


def targets(model: Model, encoding: Encoding) -> list[tuple[heap.Pair, list[int]]]:
    """Every (field, object, value) with the assumptions that make it hold in an instance."""
    out = []
    for obj in model.objects():
        reach = [] if obj == encoding.root else [encoding.reach(obj.number)]
        for spec in model.fields_of(obj.cls):
            for value in spec.domain.values:
                pair = (spec.key, obj, value)
                out.append((pair, [*reach, encoding.var(obj, spec.name, value)]))
    return out


def _decode(model: Model, encoding: Encoding, true: set[int]) -> heap.Instance:
    values: dict[Ref, dict[str, Value]] = {}
    for obj in model.objects():
        for spec in model.fields_of(obj.cls):
            chosen = [v for v in spec.domain.values if encoding.var(obj, spec.name, v) in true]
            values.setdefault(obj, {})[spec.name] = chosen[0]
    return heap.canonical(model, heap.involved(model, values))


def path_targets(
    model: Model, encoding: Encoding, length: int = 2
) -> list[tuple[heap.Pair, list[int]]]:
    """Every (path, object, value) of ``heap.path_pairs`` up to ``length`` fields whose
    last field is a reference (the shape seen from an object), once per chain of objects
    the path may go through, with the assumptions that make it hold."""
    out: list[tuple[heap.Pair, list[int]]] = []
    shapes: set[Value] = {None, *model.objects()}  # the values of reference fields
    for obj in model.objects():
        reach = [] if obj == encoding.root else [encoding.reach(obj.number)]
        frontier = [
            (spec.key, [*reach, encoding.var(obj, spec.name, value)], value)
            for spec in model.fields_of(obj.cls)
            for value in spec.domain.values
        ]
        for _ in range(length - 1):
            step = [
                (f"{key}.{inner.name}", [*lits, encoding.var(near, inner.name, far)], far)
                for key, lits, near in frontier
                if isinstance(near, Ref)
                for inner in model.fields_of(near.cls)
                for far in inner.domain.values
            ]
            out += [((key, obj, far), lits) for key, lits, far in step if far in shapes]
            frontier = step
    return out


def solve(
    model: Model,
    job: Job | None = None,
    *,
    paths: int = 2,
    by_size: bool = True,
    wide: bool = False,
) -> SatResult:
    """The field-exhaustive suite of ``model``'s relational invariant (``model.spec``),
    then (module docstring) every pair under every small size (``by_size``) and every
    shape path of up to ``paths`` fields, each round within ``EXTRA_PER_ROUND`` x #F x n
    inputs; ``paths=1, by_size=False`` is the bare criterion. ``wide``: each model of the
    criterion's round shows as many uncovered targets as the solver finds
    (``_criterion_wide``)."""
    job = job or Job()
    start = time.perf_counter()
    encoding = Encoding(model)
    result = SatResult(variables=encoding.pool.top, clauses=len(encoding.clauses))
    todo = targets(model, encoding)
    with Solver(name=SOLVER, bootstrap_with=encoding.clauses) as solver:
        _criterion(solver, model, encoding, todo, result, job)
        if wide:
            feasible = [(pair, lits) for pair, lits in todo if pair in result.feasible]
            result.selected = []
            _criterion_wide(solver, model, encoding, feasible, result, job)
        result.criterion_inputs = len(result.selected)
        decode = functools.partial(_solve_for, solver, model, encoding)
        budget = EXTRA_PER_ROUND * len(model.fields) * max(model.scope, 1)
        if by_size:
            _cover_more(
                result, job, sized_targets(model, encoding),
                functools.partial(heap.sized_pairs, model), decode, budget,
            )  # fmt: skip
        if paths > 1:
            _cover_more(
                result, job, path_targets(model, encoding, paths),
                functools.partial(heap.path_pairs, length=paths), decode, budget,
            )  # fmt: skip
    result.seconds = time.perf_counter() - start
    return result


def _solve_for(
    solver: Solver, model: Model, encoding: Encoding, assumptions: list[int]
) -> heap.Instance | None:
    if not solver.solve(assumptions=assumptions):
        return None
    return _decode(model, encoding, {lit for lit in solver.get_model() or [] if lit > 0})


def _criterion(
    solver: Solver,
    model: Model,
    encoding: Encoding,
    todo: list[tuple[heap.Pair, list[int]]],
    result: SatResult,
    job: Job,
) -> None:
    """The criterion's round (module docstring): each target no model shows yet, alone."""
    for done, (pair, assumptions) in enumerate(todo):
        if pair in result.feasible or pair in result.infeasible:
            continue
        job.check()
        job.report(done, len(todo), f"{len(result.selected)} inputs")
        result.solver_calls += 1
        solver.set_phases([lits[-1] for p, lits in todo[done:] if p not in result.feasible])
        instance = _solve_for(solver, model, encoding, assumptions)
        if instance is None:
            result.infeasible.add(pair)
            continue
        covers = heap.pairs(model, instance)
        if pair not in covers:
            raise AssertionError(f"SAT model does not realise its target {pair}")
        result.feasible |= covers
        result.selected.append(instance)


def _criterion_wide(
    solver: Solver,
    model: Model,
    encoding: Encoding,
    todo: list[tuple[heap.Pair, list[int]]],
    result: SatResult,
    job: Job,
) -> None:
    """The criterion's round again over the ``feasible`` targets (the plain round found
    which), each model widened: solve for the next target no model shows yet, then ask for
    a model showing more of them than the last, at most ``WIDE_CONFLICTS`` conflicts a
    call, until none is found. A selector ``shows[t]`` implies target t's assumptions; "at
    least k selectors" is "at most len - k negated ones" on a totalizer built per model
    over the targets still uncovered (infeasible ones would only make it larger)."""
    shows = {pair: encoding.pool.id(("shows", pair)) for pair, _ in todo}
    for pair, assumptions in todo:
        for literal in assumptions:
            solver.add_clause([-shows[pair], literal])
    uncovered = dict(todo)
    top = encoding.pool.top
    while uncovered:
        job.check()
        job.report(len(todo) - len(uncovered), len(todo), f"{len(result.selected)} inputs")
        pair, assumptions = next(iter(uncovered.items()))
        result.solver_calls += 1
        instance = _solve_for(solver, model, encoding, assumptions)
        if instance is None:
            raise AssertionError(f"a feasible target has no model: {pair}")
        negated = [-shows[p] for p in uncovered]
        top = max(top, encoding.pool.top)
        count = ITotalizer(lits=negated, ubound=len(negated), top_id=top)
        encoding.pool.occupy(top + 1, count.top_id)  # kept from later pool.id calls
        top = count.top_id
        for clause in count.cnf.clauses:
            solver.add_clause(clause)
        solver.set_phases([shows[p] for p in uncovered])
        shown = heap.pairs(model, instance) & uncovered.keys()
        while len(shown) < len(negated):
            result.solver_calls += 1
            solver.conf_budget(WIDE_CONFLICTS)
            at_least = -count.rhs[len(negated) - len(shown) - 1]
            if not solver.solve_limited(assumptions=[at_least]):
                break
            true = {lit for lit in solver.get_model() or [] if lit > 0}
            wider = _decode(model, encoding, true)
            more = heap.pairs(model, wider) & uncovered.keys()
            if len(more) <= len(shown):
                break
            instance, shown = wider, more
        count.delete()
        result.selected.append(instance)
        for done in shown:
            del uncovered[done]


def sized_targets(model: Model, encoding: Encoding) -> list[tuple[heap.Pair, list[int]]]:
    """Every target of ``targets`` again under each small value (up to ``SMALL_SIZES``)
    of each plain field of the root (a size, a count): ``heap.sized_pairs``."""
    root = heap.root_ref(model)
    plain = [spec for spec in model.fields_of(root.cls) if not spec.domain.is_ref]
    return [
        ((f"{key}|{spec.name}={size}", obj, value), [*lits, encoding.var(root, spec.name, size)])
        for spec in plain
        for size in spec.domain.values
        if not (isinstance(size, int) and size > SMALL_SIZES)
        for (key, obj, value), lits in targets(model, encoding)
    ]


def _cover_more(
    result: SatResult,
    job: Job,
    todo: list[tuple[heap.Pair, list[int]]],
    shown_of: Callable[[heap.Instance], set[heap.Pair]],
    decode: Callable[[list[int]], heap.Instance | None],
    budget: int,
) -> None:
    """Add an input for every target of ``todo`` no input shows yet (by ``shown_of``), at
    most ``budget`` inputs. A path target UNSAT through one neighbour may hold through
    another, so nothing is marked infeasible here."""
    shown: set[heap.Pair] = set()
    for instance in result.selected:
        shown |= shown_of(instance)
    stop = len(result.selected) + budget
    for done, (pair, assumptions) in enumerate(todo):
        if pair in shown:
            continue
        if len(result.selected) >= stop:
            return
        job.check()
        job.report(done, len(todo), f"{len(result.selected)} inputs")
        result.solver_calls += 1
        found_instance = decode(assumptions)
        if found_instance is None:
            continue
        instance = found_instance
        found = shown_of(instance)
        if pair not in found:
            raise AssertionError(f"SAT model does not realise its target {pair}")
        shown |= found
        result.selected.append(instance)
