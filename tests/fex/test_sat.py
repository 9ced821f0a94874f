"""Route B: incremental SAT over the relational invariant, checked against Route A."""

from __future__ import annotations

import dataclasses

import pytest

from lsp_server.fex import heap, korat, sat, suite
from lsp_server.fex.model import FexError, Model, Ref, build_model, classes_of, invariant_of
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


def _shapes_and_small_sizes(model: Model, instance: heap.Instance) -> set[heap.Pair]:
    small = {
        pair
        for pair in heap.sized_pairs(model, instance)
        if int(pair[0].rsplit("=", 1)[1]) <= sat.SMALL_SIZES  # sizes are ints here
    }
    return heap.path_shapes(model, instance) | small


@pytest.mark.parametrize(
    ("name", "scope"),
    [("sorted_list", 3), ("bst", 2), ("red_black_tree", 2), ("binomial_heap", 2)],
)
def test_sat_suite_shows_every_feasible_shape_and_small_sized_pair(name: str, scope: int) -> None:
    """Beyond the criterion: every feasible way two reference paths of an object end (in
    None or an object: ``Node.left&Node.right.left``) and every pair of ``sized_values``
    under every size up to ``SMALL_SIZES``, checked against brute force."""
    model, feasible, _ = brute_force_extension(example_class(name), scope, _shapes_and_small_sizes)
    selected = sat.solve(model).selected
    shown = set().union(*(_shapes_and_small_sizes(model, i) for i in selected))
    assert shown == feasible


def test_shape_pairs_name_the_ends_of_two_paths_not_the_objects_they_reach() -> None:
    """A three-node bst whose root has both children: the root's shape pairs say that its
    left child is there and its right child's left child is not, whichever node it is;
    under its size, keys count at the ends of their domain (0, 1, 4, 5 at scope 6) only."""
    model = build_model(example_class("bst"), 6)
    tree, node = Ref("BinarySearchTree", 0), [Ref("Node", i) for i in range(3)]
    instance: heap.Instance = {
        tree: {"root": node[0], "size": 3},
        node[0]: {"key": 1, "left": node[1], "right": node[2]},
        node[1]: {"key": 0, "left": None, "right": None},
        node[2]: {"key": 2, "left": None, "right": None},
    }
    shapes = heap.path_shapes(model, instance)
    assert ("Node.left&Node.right.left", node[0], "object&None") in shapes
    assert ("Node.left&Node.right", node[0], "object&object") in shapes
    assert ("Node.right&Node.left.left", node[0], "object&None") in shapes
    assert not any(pair[1] == tree for pair in shapes)  # its one field's paths all go through it
    assert not any(pair[2].count("Node") for pair in shapes)
    sized = heap.sized_pairs(model, instance)
    assert {("Node.left|size=3", node[0], node[1]), ("Node.key|size=3", node[1], 0)} <= sized
    assert ("Node.key|size=3", node[2], 2) not in sized


@pytest.mark.parametrize(
    ("name", "scopes", "flat"),
    [
        ("sorted_list", (8, 16), True),
        ("bst", (6, 12), True),
        ("red_black_tree", (4, 8), False),
        ("binomial_heap", (5, 10), True),
    ],
)
def test_the_whole_suite_grows_as_the_criterions_round_does(
    name: str, scopes: tuple[int, int], flat: bool
) -> None:
    """The size and path rounds ask for shapes and for keys at the ends of their domain,
    never for which object, so at twice the scope they add about as many inputs as before
    (they added up to #F x n each: bst 6 -> 12: 26 -> 68 inputs after the criterion's,
    sorted list 8 -> 16: 22 -> 57), and
    the suite's inputs per unit of scope stay flat where the criterion's do (the red-black
    tree's criterion still grows: 2.2 -> 2.8 per unit of scope from 4 to 8)."""
    small, large = (sat.solve(build_model(example_class(name), scope)) for scope in scopes)
    extra = [len(s.selected) - s.criterion_inputs for s in (small, large)]
    fields = len(build_model(example_class(name), scopes[0]).fields)
    assert extra[1] <= extra[0] + fields, extra
    per_unit = [len(s.selected) / scope for s, scope in zip((small, large), scopes, strict=True)]
    if flat:
        assert per_unit[1] <= per_unit[0] + 0.25, per_unit


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
