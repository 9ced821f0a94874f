"""Route A: Korat-style search over the user's own rep_ok."""

from __future__ import annotations

import dataclasses

import pytest

from lsp_server.fex import korat
from lsp_server.fex.heap import pairs
from lsp_server.fex.model import FexError, build_model, classes_of, invariant_of
from lsp_server.fex.select import covered_pairs
from lsp_server.jobs import Cancelled, Job

from .conftest import brute_force_extension, example_class


def run(cls: type, scope: int, **options: object) -> korat.SearchResult:
    model = build_model(cls, scope)
    return korat.search(cls, model, classes_of(cls), invariant_of(cls), **options)  # type: ignore[arg-type]


def test_sorted_list_finds_every_subset_of_keys_once() -> None:
    cls = example_class("sorted_list")
    assert [run(cls, n).valid for n in range(1, 6)] == [2, 4, 8, 16, 32]


def test_bst_counts_match_catalan_sums() -> None:
    # sum over k of C(n, k) * Catalan(k): the trees over subsets of n keys.
    cls = example_class("bst")
    assert [run(cls, n).valid for n in range(1, 5)] == [2, 5, 15, 51]


@pytest.mark.parametrize(
    ("name", "scope"),
    [("sorted_list", 3), ("bst", 2), ("red_black_tree", 2), ("binomial_heap", 2)],
)
def test_selected_suite_is_field_exhaustive_against_brute_force(name: str, scope: int) -> None:
    cls = example_class(name)
    model, feasible, count = brute_force_extension(cls, scope)
    result = run(cls, scope, keep_all=True)
    assert result.instances is not None
    assert len(result.instances) == count  # one per isomorphism class, none missed
    assert covered_pairs(model, result.selected) == feasible
    assert len(result.selected) < count or count <= 2
    assert len(result.selected) <= len(model.fields) * (scope + 1) ** 2


def test_selection_is_much_smaller_than_the_bounded_exhaustive_set() -> None:
    result = run(example_class("bst"), 5)
    assert result.valid == 188
    assert len(result.selected) <= 20


def test_a_class_without_rep_ok_is_a_clear_error() -> None:
    @dataclasses.dataclass
    class Plain:
        value: int

    with pytest.raises(FexError, match=r"Plain has no invariant.*rep_ok"):
        invariant_of(Plain)


def test_an_invariant_that_raises_names_the_candidate() -> None:
    @dataclasses.dataclass
    class Fragile:
        count: int

        def rep_ok(self) -> bool:
            return 10 // self.count > 0

    with pytest.raises(korat.InvariantRaised, match=r"ZeroDivisionError.*Fragile0\(count=0\)"):
        run(Fragile, 2)


def test_a_scope_that_explodes_names_the_bound_hit() -> None:
    cls = example_class("bst")
    with pytest.raises(korat.ScopeTooLarge, match=r"candidate budget \(2,000 candidates\)"):
        run(cls, 6, budget=2000)


def test_progress_and_cancellation() -> None:
    reports: list[int] = []
    job = Job(on_progress=lambda done, total, message: reports.append(done))
    run(example_class("bst"), 5, job=job)
    assert reports and reports == sorted(reports)
    cancelled = Job()
    cancelled.cancel()
    with pytest.raises(Cancelled):
        run(example_class("bst"), 5, job=cancelled)


def test_annotations_alone_give_a_model() -> None:
    @dataclasses.dataclass
    class Counter:
        count: int
        enabled: bool

        def rep_ok(self) -> bool:
            return self.enabled or self.count == 0

    model = build_model(Counter, 2)
    assert [f.domain.values for f in model.fields] == [(0, 1, 2), (False, True)]
    result = run(Counter, 2)
    assert result.valid == 4
    assert pairs(model, result.selected[0])


class Link:
    """No annotations: the finitization declares the fields."""

    def __init__(self, value, following=None):
        self.value = value
        self.following = following


class Stack:
    def __init__(self):
        self.top = None

    def rep_ok(self) -> bool:
        seen = set()
        node = self.top
        while node is not None:
            if id(node) in seen:
                return False
            seen.add(id(node))
            node = node.following
        return True

    @staticmethod
    def fex_scope(n: int) -> dict:
        return {
            "Link": n,
            "Stack.top": [None, Link],
            "Link.value": ["a", "b"],
            "Link.following": [None, Link],
        }


def test_an_unannotated_class_declares_its_fields_in_the_finitization() -> None:
    model = build_model(Stack, 2)
    assert [(f.key, f.domain.target) for f in model.fields] == [
        ("Stack.top", "Link"),
        ("Link.value", None),
        ("Link.following", "Link"),
    ]
    # stacks of 0, 1 and 2 links over two values: 1 + 2 + 4
    assert run(Stack, 2).valid == 7
