"""Field-exhaustive subsets of a bounded-exhaustive space of generated cases.

For program generators the "fields" are the choice points: a generated case carries the
vector of ``(dimension, option)`` choices that made it, and the field-exhaustive criterion
asks that every option any case takes at a choice point is taken by some chosen case. A
dimension that occurs twice in one vector is two choice points (``dim``, ``dim#2``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import combinations
from typing import Any, TypeVar

T = TypeVar("T")

Choice = tuple[str, str, str]
"""(group, choice point, option); the group keeps generators' dimensions apart."""


def choice_pairs(group: str, labels: Iterable[tuple[str, str]]) -> set[Choice]:
    seen: dict[str, int] = {}
    out = set()
    for dimension, option in labels:
        seen[dimension] = seen.get(dimension, 0) + 1
        point = dimension if seen[dimension] == 1 else f"{dimension}#{seen[dimension]}"
        out.add((group, point, option))
    return out


def field_exhaustive(items: Sequence[T], pairs_of: Callable[[T], set[Choice]]) -> list[T]:
    """A greedy field-exhaustive subset, in the original order: repeatedly the item that
    realises most choices no chosen item realises (ties: the earliest)."""
    covers = [pairs_of(item) for item in items]
    uncovered = set().union(*covers) if covers else set()
    chosen: set[int] = set()
    while uncovered:
        best = max(
            (i for i in range(len(items)) if i not in chosen),
            key=lambda i: (len(covers[i] & uncovered), -i),
        )
        chosen.add(best)
        uncovered -= covers[best]
    return [items[i] for i in sorted(chosen)]


def field_exhaustive_cases(cases: Sequence[tuple[str, T]]) -> list[tuple[str, T]]:
    """For ``engine-test``: ``(generator name, Labelled case)`` pairs, grouped by generator
    name (and refactoring, when the name carries it)."""

    return field_exhaustive(cases, _case_choices)


def pairwise_cases(cases: Sequence[tuple[str, T]]) -> list[tuple[str, T]]:
    """A stronger reference point than the criterion: every two options that two choice
    points of one case take together are taken together by some chosen case (2-way
    combinatorial coverage; failures that need two choices at once are found for sure)."""

    def pairs_of(case: tuple[str, T]) -> set[Any]:
        one = sorted(_case_choices(case))
        return {*one, *combinations(one, 2)}

    return field_exhaustive(cases, pairs_of)


def _case_choices(case: tuple[str, Any]) -> set[Choice]:
    value = getattr(case[1], "value", None)
    kind = getattr(getattr(value, "target", None), "kind", "")
    return choice_pairs(f"{case[0]}/{kind}", getattr(case[1], "labels", ()))
