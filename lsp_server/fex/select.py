"""Choosing a field-exhaustive subset of instances: every pair any instance covers is
covered by a chosen one. Stdlib-only."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from lsp_server.fex.heap import Instance, Pair, freeze, pairs
from lsp_server.fex.model import Model


@dataclass
class Selector:
    """Streaming first pass: keep an instance when it covers a pair no kept one covers."""

    model: Model
    covered: set[Pair] = field(default_factory=set)
    kept: list[tuple[Instance, set[Pair]]] = field(default_factory=list)

    def offer(self, instance: Instance) -> bool:
        covers = pairs(self.model, instance)
        if covers <= self.covered:
            return False
        self.covered |= covers
        self.kept.append((instance, covers))
        return True

    def greedy(self) -> list[Instance]:
        return greedy_cover(self.kept)


def greedy_cover(candidates: Iterable[tuple[Instance, set[Pair]]]) -> list[Instance]:
    """Repeatedly choose the instance covering most uncovered pairs (ties: the earliest)."""
    pool = list(candidates)
    uncovered: set[Pair] = set().union(*(covers for _, covers in pool)) if pool else set()
    chosen: list[Instance] = []
    while uncovered:
        best = max(range(len(pool)), key=lambda i: len(pool[i][1] & uncovered))
        instance, covers = pool.pop(best)
        chosen.append(instance)
        uncovered -= covers
    return chosen


def covered_pairs(model: Model, instances: Iterable[Instance]) -> set[Pair]:
    out: set[Pair] = set()
    for instance in instances:
        out |= pairs(model, instance)
    return out


def distinct(instances: Iterable[Instance]) -> int:
    return len({freeze(i) for i in instances})
