"""Route B: incremental SAT over the relational invariant, checked against Route A."""

from __future__ import annotations

import dataclasses

import pytest

from lsp_server.fex import heap, korat, sat, suite
from lsp_server.fex.model import FexError, Model, build_model, classes_of, invariant_of
from lsp_server.fex.select import covered_pairs

from .conftest import brute_force_extension, example_class


@pytest.mark.parametrize(
    ("name", "scopes"),
    [
        ("sorted_list", range(1, 6)),
        ("bst", range(1, 5)),
        ("red_black_tree", range(1, 4)),
        ("binomial_heap", range(1, 5)),
    ],
)
def test_both_routes_agree_on_the_feasible_pairs(name: str, scopes: range) -> None:
    cls = example_class(name)
    for scope in scopes:
        model = build_model(cls, scope)
        solved = sat.solve(model)
        found = korat.search(cls, model, classes_of(cls), invariant_of(cls))
        assert covered_pairs(model, found.selected) == solved.feasible, scope
        assert covered_pairs(model, solved.selected) == solved.feasible
        every = {pair for pair, _ in sat.targets(model, sat.Encoding(model))}
        assert solved.infeasible == every - solved.feasible


@pytest.mark.parametrize(("name", "scope"), [("sorted_list", 3), ("bst", 2), ("binomial_heap", 2)])
def test_sat_suite_is_field_exhaustive_against_brute_force(name: str, scope: int) -> None:
    model, feasible, _ = brute_force_extension(example_class(name), scope)
    assert sat.solve(model).feasible == feasible


def test_every_sat_instance_satisfies_rep_ok_and_the_size_bound() -> None:
    cls = example_class("red_black_tree")
    made = suite.generate(cls, 6, route="sat")
    assert made.route == "sat"
    assert len(made.instances) <= len(made.model.fields) * 6**2
    assert made.stats["solver_calls"] >= len(made.instances)


def test_auto_route_uses_sat_with_a_spec_and_korat_without() -> None:
    assert suite.generate(example_class("binomial_heap"), 3).route == "sat"
    assert suite.generate(UnspecifiedChain, 2).route == "korat"


def test_sat_route_without_a_spec_is_a_clear_error() -> None:
    with pytest.raises(FexError, match=r"route B needs a relational invariant"):
        suite.generate(UnspecifiedChain, 2, route="sat")


@dataclasses.dataclass
class ChainNode:
    key: int
    next: ChainNode | None


@dataclasses.dataclass
class Chain:
    """Its spec allows any chain; its rep_ok wants the first key to be 0."""

    head: ChainNode | None
    __fex_spec__ = (("tree", ("head",), ("next",)),)

    def rep_ok(self) -> bool:
        return self.head is None or self.head.key == 0


def test_a_spec_weaker_than_rep_ok_is_reported() -> None:
    with pytest.raises(FexError, match=r"weaker than rep_ok"):
        suite.generate(Chain, 2, route="sat")


@dataclasses.dataclass
class UnspecifiedChain:
    head: ChainNode | None

    def rep_ok(self) -> bool:
        return self.head is None or self.head.next is None


class RaisingChain(Chain):
    def rep_ok(self) -> bool:
        return self.head is None or 1 // self.head.key >= 0


def test_an_invariant_raising_on_a_sat_instance_is_reported() -> None:
    with pytest.raises(
        FexError, match=r"raised ZeroDivisionError: .* on RaisingChain0\(head=ChainNode0\)"
    ):
        suite.generate(RaisingChain, 2, route="sat")


def _paths_and_sizes(model: Model, instance: heap.Instance) -> set[heap.Pair]:
    return heap.path_pairs(instance) | heap.sized_pairs(model, instance)


@pytest.mark.parametrize(("name", "scope"), [("sorted_list", 3), ("bst", 2), ("binomial_heap", 2)])
def test_sat_suite_shows_every_feasible_path_and_sized_pair(name: str, scope: int) -> None:
    """Beyond the criterion: every value of every two-field path (``Node.right.left``) and
    every pair under every size of the structure, checked against brute force."""
    model, feasible, _ = brute_force_extension(example_class(name), scope, _paths_and_sizes)
    shown = set().union(*(_paths_and_sizes(model, i) for i in sat.solve(model).selected))
    assert shown == feasible
