"""Route B: a field-exhaustive suite by incremental SAT solving, as the paper does.

One solver holds the invariant's CNF. For each (object, field, value) target not yet covered,
solve under the assumption that the object is reachable and its field holds the value: a
model is a valid instance, added to the suite, and every pair it shows is covered; UNSAT
marks the target infeasible. The solver keeps its learnt clauses from call to call.

The paper stops there: one target a model (``solve(widen=False)``). Its models show 2 to 3
new pairs each on bst while every (node, key) pair is feasible (n^2 of them), so its suites
grow as n^2 over a slowly growing factor (bst: 2.8, 3.9, 4.8, 4.6 inputs per unit of scope
at 4, 8, 12, 16; sorted list 2.2 to 11.9 from 4 to 28). A model shows at most one value of
each object's field, so the field with the most values (a size: n + 1; a node's key: n)
bounds the inputs from below, linearly. By default (``_round``) each model is widened
towards that bound: after its own target, it asks group by group (a group: one object's
field), fullest first, for a model that also shows any one of the group's open targets,
keeping each the solver finds within ``WIDE_CONFLICTS`` conflicts; the next input starts
from the fullest group. Same feasible and infeasible pairs, each model still shows a new
pair (the #F x n^2 bound holds), and the round grows linearly: 2.2-2.6 inputs per unit of
scope on bst from 4 to 20, 1.0-1.2 on the sorted list (n + 1: the size bound) to 28,
2.0-2.1 on the binomial heap to 12; on the red-black tree 2.2 at 4, 2.9 at 8, then 3.8-4.2
from 12 to 18 (a n - b: it adds 4-6 inputs per unit of scope throughout). That is what a
greedy cover of every valid instance reaches too (the red-black tree's deep nodes take a
key only in a few near-full shapes): 2.2, 2.8, 3.3, 3.4 per n at 4, 6, 8, 10 against
this round's 2.2, 2.5, 2.9, 3.6 (bst at 7: 2.3). It takes 1-4x the time of one target a
model (bench/fex_criterion_round.py): most widening calls find the group cannot be shown,
and filtering those by unit propagation first (``Solver.propagate``) cut the calls by 3
and not the time. Earlier tries that
kept the paper's growth or cost far more: asking each model for more targets one value at
a time while it stays satisfiable (16: 103 -> 81, growth unchanged), a greedy cover of the
one-target models (62 at 16, 3.9 per n), a cardinality constraint pushing each model to
show more open pairs than the last (linear, 5-60x the time), MaxSAT (RC2) per model (did not
finish scope 8 in two minutes).

Two further rounds of targets, each solved the same way, make the suite stronger where
single fields leave a shape to chance (bench/fex_vs_be.py). Both ask for shapes, and for
keys only at the ends of their domain, never for which object a reference reaches, so they
add about as many inputs at any scope n and the whole suite grows as the criterion's round
does: every pair of ``heap.sized_values`` (every value of a reference or a colour, the two
lowest and highest of a key, where an argument falls below, between or above them) under
each small value (0 to ``SMALL_SIZES``) of the root's plain fields (its size: bintrees'
colour flip needs a three-node all-black tree, which no single field singles out; its
single-node tree with a low key kills mutants that one with key n-1 leaves), and, per
object, how a field and any other path of two references not through it end, None or an
object (``heap.path_shapes``: ``Node.left&Node.right.left``, bst's successor two levels
down under a node with two children). The rounds first asked for every pair under each
small size, every key included (about n inputs per size), and for which object each
two-field path reaches (about n^2 pairs): they filled up towards their cap of #F x n
inputs each (bst 6 -> 12: 26 -> 68 inputs after the criterion's, red-black tree 4 -> 8:
7 -> 29); now bst 20, 21, 24 at 6, 12, 16, red-black tree 7, 12, 15 at 4, 8, 12, sorted
list 8 and binomial heap 11-12 at every scope from 8 and 5, with the same mutation score
and branch coverage at scope 4 (bintrees at 3: 72.3 against BE's 73.8). A target
found UNSAT closes every open target that makes the assumptions the solver blames (its
core: a size and an object's reachability close that object's whole size round, one
call where there was one a target). Each round still stops after
``EXTRA_PER_ROUND`` x #F x n inputs and widens its models up to ``WIDEN_MISSES`` groups in
a row a model cannot show. Route A (Korat search, ``fex.select``) keeps the bare criterion.
"""

from __future__ import annotations

import functools
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field

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
WIDE_CONFLICTS = 100
"""A widening call may spend this many conflicts (then the group is left to a later input):
the calls that run out cost most of the round's time."""
WIDEN_MISSES = 6
"""The size and path rounds stop widening a model after this many groups in a row it cannot
show (they have hundreds of small groups). The criterion's round tries every group."""


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


def _decode(model: Model, encoding: Encoding, assignment: list[int]) -> heap.Instance:
    """The instance of a solver model (``assignment[v - 1]`` is v or -v)."""
    values: dict[Ref, dict[str, Value]] = {}
    for obj, name, value, var in encoding.value_vars:
        if assignment[var - 1] > 0:
            values.setdefault(obj, {})[name] = value
    return heap.canonical(model, heap.involved(model, values))


def path_targets(
    model: Model, encoding: Encoding, length: int = 2
) -> list[tuple[heap.Pair, list[int]]]:
    """Every pair of ``heap.path_shapes`` (two paths of up to ``length`` references from
    one object, what each ends in), with the assumptions that make it hold: the object
    reachable, and per path a variable implying one of the chains of objects it may go
    through, ending as asked. Those variables' definitions go into ``encoding.clauses``:
    call this before the solver is made from them."""
    out: list[tuple[heap.Pair, list[int]]] = []
    for obj in model.objects():
        reach = [] if obj == encoding.root else [encoding.reach(obj.number)]
        ends = _path_ends(model, encoding, obj, length)
        for a, b in heap.shape_path_pairs(ends):
            for (end_a, lit_a), (end_b, lit_b) in itertools.product(ends[a], ends[b]):
                out.append(((f"{a}&{b}", obj, f"{end_a}&{end_b}"), [*reach, lit_a, lit_b]))
    return out


def _path_ends(
    model: Model, encoding: Encoding, obj: Ref, length: int
) -> dict[str, list[tuple[str, int]]]:
    """Per path of 1 to ``length`` references from ``obj`` (``heap.ref_paths``): each
    end it may have (``heap.SHAPES``) with a variable implying it."""
    chains: dict[tuple[str, str], list[list[int]]] = {}
    frontier: list[tuple[str, list[int], Ref]] = [("", [], obj)]
    for _ in range(length):
        step = []
        for path, lits, near in frontier:
            for spec in model.fields_of(near.cls):
                if not spec.domain.is_ref:
                    continue
                key = f"{path}.{spec.name}" if path else spec.key
                for far in spec.domain.values:
                    chain = [*lits, encoding.var(near, spec.name, far)]
                    chains.setdefault((key, heap.SHAPES[far is not None]), []).append(chain)
                    if isinstance(far, Ref):
                        step.append((key, chain, far))
        frontier = step
    ends: dict[str, list[tuple[str, int]]] = {}
    for (key, end), options in chains.items():
        ends.setdefault(key, []).append((end, _one_of(encoding, (key, obj, end), options)))
    return ends


def _one_of(encoding: Encoding, name: heap.Pair, chains: list[list[int]]) -> int:
    """A variable implying that every literal of one of ``chains`` holds (its definition
    added to ``encoding.clauses``)."""
    out = encoding.pool.id(("one of", name))
    steps = [encoding.pool.id(("one of", name, i)) for i in range(len(chains))]
    encoding.clauses.append([-out, *steps])
    for step, chain in zip(steps, chains, strict=True):
        encoding.clauses += [[-step, lit] for lit in chain]
    return out


def solve(
    model: Model,
    job: Job | None = None,
    *,
    paths: int = 2,
    by_size: bool = True,
    widen: bool = True,
) -> SatResult:
    """The field-exhaustive suite of ``model``'s relational invariant (``model.spec``),
    then (module docstring) every pair of a shape field under every small size
    (``by_size``) and every shape pair of paths of up to ``paths`` references, each round
    within ``EXTRA_PER_ROUND`` x #F x n inputs; ``paths=1, by_size=False`` is the bare
    criterion. ``widen=False``: one target a model, the paper's way (``_round``)."""
    job = job or Job()
    start = time.perf_counter()
    encoding = Encoding(model)
    sized = sized_targets(model, encoding) if by_size else []
    shaped = path_targets(model, encoding, paths) if paths > 1 else []
    result = SatResult(variables=encoding.pool.top, clauses=len(encoding.clauses))
    with Solver(name=SOLVER, bootstrap_with=encoding.clauses) as solver:
        run = functools.partial(_round, solver, model, encoding, result, job, widen=widen)
        run(targets(model, encoding), functools.partial(heap.pairs, model), criterion=True)
        result.criterion_inputs = len(result.selected)
        budget = EXTRA_PER_ROUND * len(model.fields) * max(model.scope, 1)
        run = functools.partial(run, misses=WIDEN_MISSES)
        if sized:
            run(sized, functools.partial(heap.sized_pairs, model), budget=budget)
        if shaped:
            run(shaped, functools.partial(heap.path_shapes, model, length=paths), budget=budget)
    result.seconds = time.perf_counter() - start
    return result


def _solve_for(
    solver: Solver, model: Model, encoding: Encoding, assumptions: list[int]
) -> heap.Instance | None:
    if not solver.solve(assumptions=assumptions):
        return None
    return _model_instance(solver, model, encoding)


def _model_instance(solver: Solver, model: Model, encoding: Encoding) -> heap.Instance:
    return _decode(model, encoding, solver.get_model() or [])


def _round(
    solver: Solver,
    model: Model,
    encoding: Encoding,
    result: SatResult,
    job: Job,
    todo: list[tuple[heap.Pair, list[int]]],
    shown_of: Callable[[heap.Instance], set[heap.Pair]],
    *,
    widen: bool,
    criterion: bool = False,
    budget: int | None = None,
    misses: int | None = None,
) -> None:
    """Add inputs until every target of ``todo`` is shown (by ``shown_of``) or has no
    model alone, at most ``budget`` inputs. Each input starts from an open target of the
    fullest group (``_OpenTargets``), alone (the paper's step: UNSAT makes it infeasible
    when this is the criterion's round; a path target may still hold through another
    neighbour). Widened, it then asks, group by group, fullest first, for a model that also
    shows one of the group's open targets, whichever (a clause over their selectors,
    ``WIDE_CONFLICTS`` conflicts a call), keeping each model the solver finds. An input
    shows at most one value of a group, so the fullest group bounds the inputs still
    needed: serving it first keeps the count near that bound."""
    targets_open = _OpenTargets(todo)
    for instance in result.selected:
        targets_open.show(shown_of(instance))
    stop = None if budget is None else len(result.selected) + budget
    while (stop is None or len(result.selected) < stop) and (fullest := targets_open.fullest()):
        job.check()
        job.report(len(todo) - targets_open.count, len(todo), f"{len(result.selected)} inputs")
        first = targets_open.members(fullest)[0]
        pair, assumptions = todo[first]
        result.solver_calls += 1
        found = _solve_for(solver, model, encoding, assumptions)
        if found is None:
            core = frozenset(solver.get_core() or assumptions)
            for index in targets_open.assuming(core):  # each as UNSAT as the first
                targets_open.close(index)
                if criterion:
                    result.infeasible.add(todo[index][0])
            continue
        instance = found
        if widen:
            instance = _widen(solver, model, encoding, result, todo, shown_of, targets_open,
                              found, list(assumptions), misses)  # fmt: skip
        covers = shown_of(instance)
        if pair not in covers:
            raise AssertionError(f"SAT model does not realise its target {pair}")
        targets_open.show(covers)
        result.selected.append(instance)
    if criterion:
        result.feasible |= targets_open.shown


def _widen(
    solver: Solver,
    model: Model,
    encoding: Encoding,
    result: SatResult,
    todo: list[tuple[heap.Pair, list[int]]],
    shown_of: Callable[[heap.Instance], set[heap.Pair]],
    targets_open: _OpenTargets,
    instance: heap.Instance,
    chosen: list[int],
    misses: int | None,
) -> heap.Instance:
    """``instance`` (a model under ``chosen``) made to show an open target of as many
    groups as the solver can, fullest first; after ``misses`` groups in a row it cannot,
    it stops."""
    covers = shown_of(instance)
    missed = 0
    for group in targets_open.by_size()[1:]:
        if misses is not None and missed >= misses:
            break
        members = targets_open.members(group)
        if any(todo[i][0] in covers for i in members):
            continue
        some = encoding.pool.id(("some", len(result.selected), group))
        solver.add_clause([-some, *(_selector(solver, encoding, todo[i][1]) for i in members)])
        result.solver_calls += 1
        solver.conf_budget(WIDE_CONFLICTS)
        if solver.solve_limited(assumptions=[*chosen, some]):
            chosen.append(some)
            instance = _model_instance(solver, model, encoding)
            covers = shown_of(instance)
            missed = 0
        else:
            missed += 1
    return instance


class _OpenTargets:
    """The targets of a round not shown yet and not found UNSAT alone, grouped by what
    they set (a field or path of one object), deepest objects and highest values first."""

    def __init__(self, todo: list[tuple[heap.Pair, list[int]]]) -> None:
        self.groups: dict[tuple[str, Ref], list[int]] = {}
        self.by_pair: dict[heap.Pair, list[int]] = {}
        for index in reversed(range(len(todo))):
            pair = todo[index][0]
            self.groups.setdefault(pair[:2], []).append(index)
            self.by_pair.setdefault(pair, []).append(index)
        self.group_of = [todo[i][0][:2] for i in range(len(todo))]
        self.assumed = [frozenset(assumptions) for _, assumptions in todo]
        self.sizes = {group: len(members) for group, members in self.groups.items()}
        self.closed: set[int] = set()
        self.shown: set[heap.Pair] = set()
        self.count = len(todo)

    def close(self, index: int) -> None:
        if index not in self.closed:
            self.closed.add(index)
            self.sizes[self.group_of[index]] -= 1
            self.count -= 1

    def show(self, pairs: set[heap.Pair]) -> None:
        for pair in pairs - self.shown:
            for index in self.by_pair.get(pair, ()):
                self.close(index)
        self.shown |= pairs

    def assuming(self, literals: frozenset[int]) -> list[int]:
        """The open targets whose assumptions include every one of ``literals``."""
        return [i for i, own in enumerate(self.assumed) if i not in self.closed and literals <= own]

    def fullest(self) -> tuple[str, Ref] | None:
        """The group with the most open targets (the first such), None when none is open."""
        group = max(self.sizes, key=self.sizes.__getitem__, default=None)
        return group if group is not None and self.sizes[group] else None

    def by_size(self) -> list[tuple[str, Ref]]:
        """The groups with open targets, fullest first (``fullest`` first of all)."""
        return sorted((g for g, size in self.sizes.items() if size), key=self.sizes.__getitem__,
                      reverse=True)  # fmt: skip

    def members(self, group: tuple[str, Ref]) -> list[int]:
        """The group's open targets (closed ones are dropped for good)."""
        members = self.groups[group] = [i for i in self.groups[group] if i not in self.closed]
        return members


def _selector(solver: Solver, encoding: Encoding, assumptions: list[int]) -> int:
    """A variable that implies every literal of ``assumptions`` (a target's own literal
    when it has one only)."""
    if len(assumptions) == 1:
        return assumptions[0]
    key = ("all", tuple(assumptions))
    if key not in encoding.pool.obj2id:
        for literal in assumptions:
            solver.add_clause([-encoding.pool.id(key), literal])
    return encoding.pool.id(key)


def sized_targets(model: Model, encoding: Encoding) -> list[tuple[heap.Pair, list[int]]]:
    """Every target of ``targets`` again under each small value (up to ``SMALL_SIZES``)
    of each plain field of the root (a size, a count): ``heap.sized_pairs``."""
    root = heap.root_ref(model)
    plain = [spec for spec in model.fields_of(root.cls) if not spec.domain.is_ref]
    asked = {spec.key: set(heap.sized_values(spec)) for spec in model.fields}
    return [
        ((f"{key}|{spec.name}={size}", obj, value), [*lits, encoding.var(root, spec.name, size)])
        for spec in plain
        for size in spec.domain.values
        if not (isinstance(size, int) and size > SMALL_SIZES)
        for (key, obj, value), lits in targets(model, encoding)
        if value in asked[key]
    ]
