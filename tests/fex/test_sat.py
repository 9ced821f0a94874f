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


def _shape_paths_and_small_sizes(model: Model, instance: heap.Instance) -> set[heap.Pair]:
    shapes = {None, *model.objects()}
    paths = {pair for pair in heap.path_pairs(instance) if pair[2] in shapes}
    small = {
        pair
        for pair in heap.sized_pairs(model, instance)
        if int(pair[0].rsplit("=", 1)[1]) <= sat.SMALL_SIZES  # sizes are ints here
    }
    return paths | small


@pytest.mark.parametrize(("name", "scope"), [("sorted_list", 3), ("bst", 2), ("binomial_heap", 2)])
def test_sat_suite_shows_every_feasible_shape_path_and_small_sized_pair(
    name: str, scope: int
) -> None:
    """Beyond the criterion: every reference at the end of every two-field path
    (``Node.right.left``) and every pair under every size up to ``SMALL_SIZES``, checked
    against brute force."""
    model, feasible, _ = brute_force_extension(
        example_class(name), scope, _shape_paths_and_small_sizes
    )
    selected = sat.solve(model).selected
    shown = set().union(*(_shape_paths_and_small_sizes(model, i) for i in selected))
    assert shown == feasible


@pytest.mark.parametrize(
    ("name", "scopes"),
    [("sorted_list", (6, 12)), ("bst", (6, 9))],
)
def test_the_rounds_after_the_criterion_add_at_most_a_linear_number_of_inputs(
    name: str, scopes: tuple[int, ...]
) -> None:
    """Suites grow linearly in the scope as the paper's do: the size and path rounds add at
    most 2 x #F x n inputs to the criterion's (they added n^2: red-black tree scope 14,
    106 -> 535 inputs)."""
    for scope in scopes:
        model = build_model(example_class(name), scope)
        criterion = len(sat.solve(model, paths=1, by_size=False).selected)
        extra = len(sat.solve(model).selected) - criterion
        assert 0 <= extra <= 2 * sat.EXTRA_PER_ROUND * len(model.fields) * scope, scope


@pytest.mark.parametrize(
    ("name", "scopes", "per_unit"),
    [("sorted_list", (8, 16), 1.5), ("bst", (6, 12), 3.0), ("binomial_heap", (5, 10), 3.0)],
)
def test_the_criterions_round_grows_linearly_in_the_scope(
    name: str, scopes: tuple[int, ...], per_unit: float
) -> None:
    """Each model is widened to show an uncovered value of as many fields as it can, so the
    round needs about as many inputs as the field with the most values has values (one
    target a model, the paper's way, needed 65 at bst scope 12 and 42 at sorted list 16)."""
    for scope in scopes:
        model = build_model(example_class(name), scope)
        solved = sat.solve(model, paths=1, by_size=False)
        assert solved.criterion_inputs == len(solved.selected)
        assert len(solved.selected) <= per_unit * scope, (scope, len(solved.selected))


@pytest.mark.parametrize(("name", "scope"), [("bst", 5), ("red_black_tree", 4), ("sorted_list", 5)])
def test_widened_models_cover_the_same_pairs_as_one_target_a_model(name: str, scope: int) -> None:
    """The same feasible and infeasible pairs as the paper's round (one target a model),
    in fewer inputs, each a valid instance."""
    cls = example_class(name)
    model = build_model(cls, scope)
    plain = sat.solve(model, paths=1, by_size=False, widen=False)
    wide = sat.solve(model, paths=1, by_size=False)
    assert covered_pairs(model, wide.selected) == plain.feasible == wide.feasible
    assert wide.infeasible == plain.infeasible
    assert len(wide.selected) < len(plain.selected)
    check = invariant_of(cls)
    for instance in wide.selected:
        assert check(heap.build(classes_of(cls), model, instance))
