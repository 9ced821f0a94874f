"""A field-exhaustive suite for a class, by either route, in this process.

``generate(cls, scope)`` is the Python entry point (no server, no subprocess); the CLI and the
editor go through ``lsp_server.fex.run`` to import the project's code in its interpreter.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
from dataclasses import dataclass, field
from typing import Any

from lsp_server.fex import heap, korat
from lsp_server.fex.model import (
    INVARIANT_NAME,
    FexError,
    Model,
    build_model,
    classes_of,
    invariant_of,
)
from lsp_server.fex.select import covered_pairs
from lsp_server.jobs import Job

ROUTES = ("auto", "korat", "sat")


@dataclass
class Method:
    """A method under test: its parameters and their values (from the model's domains)."""

    name: str
    params: list[tuple[str, list[Any]]]
    postcondition: str | None = None


@dataclass
class Suite:
    cls: str
    module: str
    model: Model
    route: str
    instances: list[heap.Instance]
    feasible: int
    seconds: float
    invariant: str = INVARIANT_NAME
    methods: list[Method] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    invariant_is_method: bool = True

    @property
    def size_bound(self) -> int:
        """The paper's bound on a field-exhaustive suite: #F x n^2 (n at least 1)."""
        return len(self.model.fields) * max(self.model.scope, 1) ** 2

    def to_json(self) -> dict[str, Any]:
        return {
            "class": self.cls,
            "module": self.module,
            "scope": self.model.scope,
            "route": self.route,
            "inputs": [heap.instance_to_json(i) for i in self.instances],
            "feasible_pairs": self.feasible,
            "size_bound": self.size_bound,
            "seconds": round(self.seconds, 4),
            "invariant": self.invariant,
            "invariant_is_method": self.invariant_is_method,
            "methods": [dataclasses.asdict(m) for m in self.methods],
            "stats": self.stats,
            "model": self.model.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Suite:
        return cls(
            data["class"],
            data["module"],
            Model.from_json(data["model"]),
            data["route"],
            [heap.instance_from_json(i) for i in data["inputs"]],
            data["feasible_pairs"],
            data["seconds"],
            data["invariant"],
            [
                Method(m["name"], [tuple(p) for p in m["params"]], m["postcondition"])
                for m in data["methods"]
            ],
            data["stats"],
            data["invariant_is_method"],
        )


def sat_available() -> bool:
    return importlib.util.find_spec("pysat") is not None


def choose_route(route: str, model: Model) -> str:
    if route not in ROUTES:
        raise FexError(f"unknown route {route!r}; use one of {', '.join(ROUTES)}")
    if route == "auto":
        return "sat" if model.spec and sat_available() else "korat"
    if route == "sat" and not sat_available():
        raise FexError("route sat needs python-sat (pip install python-sat)")
    return route


def _int_values(model: Model) -> list[Any]:
    """Argument values for an int parameter: the widest int domain of a field."""
    best: list[Any] = []
    for spec in model.fields:
        ints = [v for v in spec.domain.values if isinstance(v, int) and not isinstance(v, bool)]
        if not spec.domain.is_ref and len(ints) > len(best):
            best = ints
    return best or list(range(model.scope + 1))


def _around(values: list[Any]) -> list[Any]:
    """A field's values for an argument, and when they are ints one more on each side: a
    new key must also fall before and after every key the inputs hold (a field-exhaustive
    suite may hold every key only where no smaller or larger one is left)."""
    ints = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    if not ints:
        return values
    return [*values, min(ints) - 1, max(ints) + 1]


def methods_of(cls: type, model: Model, names: list[str]) -> list[Method]:
    """The methods under test with values for each parameter (ints: from the model's int
    domains; bools: both; a parameter named like a field: that field's domain, widened by
    ``_around``)."""
    out = []
    by_name = {spec.name: spec for spec in model.fields if not spec.domain.is_ref}
    for name in names:
        function = getattr(cls, name, None)
        if not callable(function):
            raise FexError(f"{cls.__name__} has no method {name!r}")
        params = []
        for param in list(inspect.signature(function).parameters.values())[1:]:
            if param.name in by_name:
                values = _around(list(by_name[param.name].domain.values))
            elif param.annotation in (bool, "bool"):
                values = [False, True]
            elif param.default is not inspect.Parameter.empty:
                values = [param.default]
            else:
                values = _int_values(model)
            params.append((param.name, values))
        post = f"post_{name}" if callable(getattr(cls, f"post_{name}", None)) else None
        out.append(Method(name, params, post))
    return out


def generate(
    cls: type,
    scope: int,
    *,
    route: str = "auto",
    methods: list[str] | None = None,
    invariant: str = INVARIANT_NAME,
    budget: int = korat.DEFAULT_BUDGET,
    seconds: float | None = None,
    job: Job | None = None,
) -> Suite:
    """The field-exhaustive suite of ``cls`` at ``scope``. Korat checks the user's
    invariant on every candidate; SAT instances are checked against it afterwards."""
    check = invariant_of(cls, invariant)
    model = build_model(cls, scope)
    chosen = choose_route(route, model)
    if chosen == "korat":
        found = korat.search(
            cls, model, classes_of(cls), check, budget=budget, seconds=seconds, job=job
        )
        stats = {"candidates": found.candidates, "valid": found.valid}
        feasible = len(covered_pairs(model, found.selected))
        return assemble(
            cls, model, "korat", found.selected, feasible, found.seconds, stats, methods, invariant
        )
    from lsp_server.fex import sat

    solved = sat.solve(model, job)
    stats = {
        "solver_calls": solved.solver_calls,
        "criterion_inputs": solved.criterion_inputs,
        "variables": solved.variables,
        "clauses": solved.clauses,
        "infeasible": len(solved.infeasible),
    }
    return assemble(
        cls,
        model,
        "sat",
        solved.selected,
        len(solved.feasible),
        solved.seconds,
        stats,
        methods,
        invariant,
    )


def assemble(
    cls: type,
    model: Model,
    route: str,
    instances: list[heap.Instance],
    feasible: int,
    seconds: float,
    stats: dict[str, Any],
    methods: list[str] | None = None,
    invariant: str = INVARIANT_NAME,
) -> Suite:
    """A suite from instances found by a route; SAT instances are checked with the
    user's invariant (the relational form must not be weaker)."""
    if route == "sat":
        _check_sat_instances(cls, model, classes_of(cls), invariant_of(cls, invariant), instances)
    return Suite(
        cls.__name__,
        cls.__module__,
        model,
        route,
        instances,
        feasible,
        seconds,
        invariant,
        methods_of(cls, model, methods or []),
        stats,
        callable(getattr(cls, invariant, None)),
    )


def _check_sat_instances(
    cls: type, model: Model, classes: dict[str, type], check: Any, instances: list[Any]
) -> None:
    for instance in instances:
        try:
            ok = check(heap.build(classes, model, instance))
        except Exception as exc:
            raise korat.InvariantRaised(
                f"the invariant of {cls.__name__} raised {type(exc).__name__}: {exc} on "
                f"{heap.instance_text(instance)}, a valid instance of its __fex_spec__"
            ) from exc
        if not ok:
            raise FexError(
                f"__fex_spec__ of {cls.__name__} admits an instance its invariant rejects "
                f"({heap.instance_text(instance)}): the relational form is weaker than rep_ok"
            )
