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
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from pysat.solvers import Solver

from lsp_server.fex import heap
from lsp_server.fex.model import Model, Ref, Value
from lsp_server.fex.relational import Encoding
from lsp_server.jobs import Job

SOLVER = "glucose4"


@dataclass
class SatResult:
    selected: list[heap.Instance] = field(default_factory=list)
    feasible: set[heap.Pair] = field(default_factory=set)
    infeasible: set[heap.Pair] = field(default_factory=set)
    solver_calls: int = 0
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


def solve(model: Model, job: Job | None = None) -> SatResult:
    """The field-exhaustive suite of ``model``'s relational invariant (``model.spec``)."""
    job = job or Job()
    start = time.perf_counter()
    encoding = Encoding(model)
    result = SatResult(variables=encoding.pool.top, clauses=len(encoding.clauses))
    todo = targets(model, encoding)
    with Solver(name=SOLVER, bootstrap_with=encoding.clauses) as solver:
        for done, (pair, assumptions) in enumerate(todo):
            if pair in result.feasible or pair in result.infeasible:
                continue
            job.check()
            job.report(done, len(todo), f"{len(result.selected)} inputs")
            result.solver_calls += 1
            solver.set_phases([lits[-1] for p, lits in todo[done:] if p not in result.feasible])
            if not solver.solve(assumptions=assumptions):
                result.infeasible.add(pair)
                continue
            true = {lit for lit in solver.get_model() or [] if lit > 0}
            instance = _decode(model, encoding, true)
            covers = heap.pairs(model, instance)
            if pair not in covers:
                raise AssertionError(f"SAT model does not realise its target {pair}")
            result.feasible |= covers
            result.selected.append(instance)
    result.seconds = time.perf_counter() - start
    return result
