"""A small bounded-exhaustive generator library (after ASTGen, Daniel et al., FSE 2007).

A ``Gen`` is a lazy, re-iterable sequence of ``Labelled`` values. Every value carries the
vector of choices that produced it (``(dimension, choice)`` pairs), so failures found on
generated programs group by shape. Generators compose by

- ``choice``: one labelled option per element,
- ``product``: every combination of independent generators (labels concatenated),
- ``Gen.bind``: dependent choice, a later generator built from an earlier value,
- ``union`` / ``Gen.filter`` / ``Gen.map``: concatenation, pruning, and shaping.

Nothing is produced until iterated, and iterating twice yields the same sequence (the
generators are deterministic), which is what keeps ``reks engine-test`` reproducible.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")
U = TypeVar("U")

Label = tuple[str, str]
"""One choice: (dimension, chosen option), e.g. ``("access", "getattr")``."""


@dataclass(frozen=True)
class Labelled(Generic[T]):
    """A generated value and the choices that made it."""

    value: T
    labels: tuple[Label, ...] = ()

    def label(self, dimension: str) -> str | None:
        for dim, option in self.labels:
            if dim == dimension:
                return option
        return None


class Gen(Generic[T]):
    """A lazy, re-iterable, deterministic sequence of labelled values."""

    def __init__(self, produce: Callable[[], Iterable[Labelled[T]]]) -> None:
        self._produce = produce

    def __iter__(self) -> Iterator[Labelled[T]]:
        return iter(self._produce())

    def map(self, fn: Callable[[T], U]) -> Gen[U]:
        """Same choices, values transformed by ``fn``."""
        return Gen(lambda: (Labelled(fn(item.value), item.labels) for item in self))

    def filter(self, keep: Callable[[Labelled[T]], bool]) -> Gen[T]:
        """Drop the elements ``keep`` rejects (e.g. combinations that cannot run)."""
        return Gen(lambda: (item for item in self if keep(item)))

    def bind(self, fn: Callable[[T], Gen[U]]) -> Gen[U]:
        """Dependent choice: for each value, the generator ``fn(value)`` continues it."""

        def produce() -> Iterator[Labelled[U]]:
            for item in self:
                for inner in fn(item.value):
                    yield Labelled(inner.value, item.labels + inner.labels)

        return Gen(produce)

    def bind_labelled(self, fn: Callable[[Labelled[T]], Gen[U]]) -> Gen[U]:
        """Like ``bind`` but ``fn`` also sees the labels chosen so far."""

        def produce() -> Iterator[Labelled[U]]:
            for item in self:
                for inner in fn(item):
                    yield Labelled(inner.value, item.labels + inner.labels)

        return Gen(produce)

    def take(self, limit: int | None) -> Gen[T]:
        if limit is None:
            return self
        return Gen(lambda: itertools.islice(self, limit))

    def count(self) -> int:
        return sum(1 for _ in self)


def const(value: T, *labels: Label) -> Gen[T]:
    """One value, with optional fixed labels."""
    return Gen(lambda: [Labelled(value, tuple(labels))])


def choice(dimension: str, options: Iterable[tuple[str, T]] | dict[str, T]) -> Gen[T]:
    """One element per option, labelled ``(dimension, option name)``."""
    pairs = list(options.items()) if isinstance(options, dict) else list(options)
    return Gen(lambda: [Labelled(value, ((dimension, name),)) for name, value in pairs])


def unlabelled(values: Iterable[T]) -> Gen[T]:
    items = list(values)
    return Gen(lambda: [Labelled(v) for v in items])


def product(*gens: Gen[Any]) -> Gen[tuple[Any, ...]]:
    """Every combination, first generator varying slowest; labels concatenated in order."""

    def produce() -> Iterator[Labelled[tuple[Any, ...]]]:
        for combo in itertools.product(*gens):
            labels: tuple[Label, ...] = ()
            for item in combo:
                labels += item.labels
            yield Labelled(tuple(item.value for item in combo), labels)

    return Gen(produce)


def union(*gens: Gen[T]) -> Gen[T]:
    """Concatenation: every element of each generator in turn."""
    return Gen(lambda: itertools.chain.from_iterable(gens))


def sequences(
    dimension: str,
    options: Sequence[tuple[str, T]],
    max_length: int,
    min_length: int = 1,
    repeat: bool = True,
) -> Gen[tuple[T, ...]]:
    """Multisets of ``min_length..max_length`` options (combinations with replacement, in
    option order; sets when ``repeat`` is false), labelled ``dimension0``, ``dimension1``,
    ...: bounded-exhaustive lists of fragments without the order-permutation blow-up."""
    combine = itertools.combinations_with_replacement if repeat else itertools.combinations

    def produce() -> Iterator[Labelled[tuple[T, ...]]]:
        for length in range(min_length, max_length + 1):
            for combo in combine(range(len(options)), length):
                labels = tuple((f"{dimension}{i}", options[k][0]) for i, k in enumerate(combo))
                yield Labelled(tuple(options[k][1] for k in combo), labels)

    return Gen(produce)


def optional(value: T | None) -> Gen[T]:
    """The value without labels, or nothing when it is None: a dependent choice that prunes
    combinations which cannot make a valid program."""
    return Gen(lambda: [] if value is None else [Labelled(value)])
