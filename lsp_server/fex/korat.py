"""Route A: Korat-style search running the user's own invariant on candidate structures.

A candidate is one index per (object, field) slot into the field's domain. The invariant runs
on real objects while a ``__getattribute__`` hook records which slots it read, in order; the
next candidate changes the last slot read (fields it never read cannot change its verdict, so
every candidate differing only there is skipped). A reference may only point to an object of
its class already referenced earlier in that order, or to the next unused one: one candidate
per isomorphism class. When the invariant accepts, the reachable fields it did not read are
enumerated too, so the valid instances are all there are.

Stdlib-only (runs inside the project's interpreter).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from lsp_server.fex import heap
from lsp_server.fex.model import FexError, FieldSpec, Model, Ref, Value
from lsp_server.fex.select import Selector
from lsp_server.jobs import Job

DEFAULT_BUDGET = 2_000_000
"""Candidates the search may visit before it gives up on a scope."""


class ScopeTooLarge(FexError):
    """The search hit its candidate or time budget."""


class InvariantRaised(FexError):
    """The user's invariant raised instead of returning a bool."""


@dataclass
class SearchResult:
    candidates: int = 0
    valid: int = 0
    seconds: float = 0.0
    selected: list[heap.Instance] = field(default_factory=list)
    """A field-exhaustive subset (greedy), canonically labelled."""
    instances: list[heap.Instance] | None = None
    """Every valid instance, canonically labelled (only when asked for)."""


@dataclass
class _Slots:
    """The (object, field) slots of a model and the real objects they live in."""

    refs: list[Ref]
    specs: list[FieldSpec]
    objects: list[Any]
    index: dict[tuple[int, str], int]
    real: dict[Ref, Any]

    @classmethod
    def of(cls, model: Model, classes: Mapping[str, type]) -> _Slots:
        real: dict[Ref, Any] = {obj: object.__new__(classes[obj.cls]) for obj in model.objects()}
        refs: list[Ref] = []
        specs: list[FieldSpec] = []
        objects: list[Any] = []
        index: dict[tuple[int, str], int] = {}
        for obj in model.objects():
            for spec in model.fields_of(obj.cls):
                index[(id(real[obj]), spec.name)] = len(refs)
                refs.append(obj)
                specs.append(spec)
                objects.append(real[obj])
        return cls(refs, specs, objects, index, real)


class _AccessTracker:
    """Patches ``__getattribute__`` of the model's classes while the search runs."""

    def __init__(self, classes: Mapping[str, type], index: dict[tuple[int, str], int]) -> None:
        self.classes = list(dict.fromkeys(classes.values()))
        self.index = index
        self.order: list[int] = []
        self.seen: set[int] = set()
        self.saved: list[tuple[type, Any]] = []

    def reset(self) -> None:
        self.order = []
        self.seen = set()

    def __enter__(self) -> _AccessTracker:
        for klass in self.classes:
            original: Any = klass.__getattribute__
            self.saved.append((klass, klass.__dict__.get("__getattribute__")))
            setattr(klass, "__getattribute__", self._hook(original))  # noqa: B010
        return self

    def _hook(self, original: Callable[[Any, str], Any]) -> Callable[[Any, str], Any]:
        index = self.index

        def tracked(obj: Any, name: str) -> Any:
            slot = index.get((id(obj), name))
            if slot is not None and slot not in self.seen:
                self.seen.add(slot)
                self.order.append(slot)
            return original(obj, name)

        return tracked

    def __exit__(self, *exc: object) -> None:
        for klass, saved in reversed(self.saved):
            if saved is None:
                del klass.__getattribute__
            else:
                setattr(klass, "__getattribute__", saved)  # noqa: B010


def _limit(slots: _Slots, cv: list[int], prefix: list[int], slot: int, model: Model) -> int:
    """The last domain index slot ``slot`` may take after the slots ``prefix`` (isomorphism
    breaking: at most one object of its class beyond those already referenced)."""
    domain = slots.specs[slot].domain
    last = len(domain.values) - 1
    if domain.target is None:
        return last
    highest = 0 if domain.target == model.root else -1
    for other in prefix:
        value = slots.specs[other].domain.values[cv[other]]
        if isinstance(value, Ref) and value.cls == domain.target and value.number > highest:
            highest = value.number
    allowed = Ref(domain.target, highest + 1)
    try:
        return min(last, domain.values.index(allowed))
    except ValueError:
        return last


def _unread_reachable(model: Model, slots: _Slots, cv: list[int], read: set[int]) -> list[int]:
    """Slots of reachable objects the invariant did not read, in breadth-first order."""
    values = _assignment(slots, cv)
    instance = heap.involved(model, values)
    position = {(slots.refs[i], slots.specs[i].name): i for i in range(len(cv))}
    return [
        position[(obj, name)]
        for obj, fields in instance.items()
        for name in fields
        if position[(obj, name)] not in read
    ]


def _assignment(slots: _Slots, cv: list[int]) -> dict[Ref, dict[str, Value]]:
    values: dict[Ref, dict[str, Value]] = {}
    for i, choice in enumerate(cv):
        values.setdefault(slots.refs[i], {})[slots.specs[i].name] = slots.specs[i].domain.values[
            choice
        ]
    return values


def _describe(model: Model, slots: _Slots, cv: list[int]) -> str:
    return heap.instance_text(heap.involved(model, _assignment(slots, cv)))


def search(
    cls: type,
    model: Model,
    classes: Mapping[str, type],
    invariant: Callable[[Any], Any],
    *,
    budget: int = DEFAULT_BUDGET,
    seconds: float | None = None,
    keep_all: bool = False,
    job: Job | None = None,
) -> SearchResult:
    """Every valid instance of ``model`` up to isomorphism, and a field-exhaustive subset.

    Raises ``ScopeTooLarge`` when ``budget`` candidates or ``seconds`` run out, and
    ``InvariantRaised`` when the invariant raises."""
    job = job or Job()
    slots = _Slots.of(model, classes)
    real = slots.real
    choices = [
        [real[v] if isinstance(v, Ref) else v for v in spec.domain.values] for spec in slots.specs
    ]
    root = real[heap.root_ref(model)]
    cv = [0] * len(slots.refs)
    result = SearchResult(instances=[] if keep_all else None)
    selector = Selector(model)
    start = time.perf_counter()
    with _AccessTracker(classes, slots.index) as tracker:
        while True:
            for i, choice in enumerate(cv):
                object.__setattr__(slots.objects[i], slots.specs[i].name, choices[i][choice])
            tracker.reset()
            try:
                ok = invariant(root)
            except Exception as exc:
                raise InvariantRaised(
                    f"the invariant of {cls.__name__} raised {type(exc).__name__}: {exc} on "
                    f"the candidate {_describe(model, slots, cv)} (it must return False for "
                    f"invalid candidates, not raise)"
                ) from exc
            result.candidates += 1
            order = list(tracker.order)
            if ok:
                result.valid += 1
                values = _assignment(slots, cv)
                instance = heap.canonical(model, heap.involved(model, values))
                selector.offer(instance)
                if result.instances is not None:
                    result.instances.append(instance)
                order += _unread_reachable(model, slots, cv, set(order))
            if not _advance(slots, cv, order, model):
                break
            if result.candidates % 1024 == 0:
                _check_budget(cls, model, result, start, budget, seconds)
                job.check()
                job.report(result.candidates, None, f"{result.valid} valid")
    result.seconds = time.perf_counter() - start
    result.selected = selector.greedy()
    return result


def _advance(slots: _Slots, cv: list[int], order: list[int], model: Model) -> bool:
    """The next candidate: increment the last slot read that can still grow, resetting
    the slots read after it; False when the space is exhausted."""
    while order:
        slot = order.pop()
        if cv[slot] < _limit(slots, cv, order, slot, model):
            cv[slot] += 1
            return True
        cv[slot] = 0
    return False


def _check_budget(
    cls: type,
    model: Model,
    result: SearchResult,
    start: float,
    budget: int,
    seconds: float | None,
) -> None:
    elapsed = time.perf_counter() - start
    if result.candidates >= budget:
        bound = f"the candidate budget ({budget:,} candidates)"
    elif seconds is not None and elapsed >= seconds:
        bound = f"the time budget ({seconds:g} s)"
    else:
        return
    raise ScopeTooLarge(
        f"scope {model.scope} of {cls.__name__} is too large for bounded-exhaustive search: "
        f"hit {bound} after {result.candidates:,} candidates, {result.valid:,} valid, "
        f"{elapsed:.1f} s; lower the scope, raise the budget, or use the SAT route"
    )
