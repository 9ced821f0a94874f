"""The generator library: composition, labels, laziness, determinism."""

from __future__ import annotations

from math import comb

from lsp_server.astgen.gen import Gen, Labelled, choice, const, optional, product, sequences, union


def test_choice_labels_each_option() -> None:
    gen = choice("colour", [("red", 1), ("blue", 2)])
    assert [(i.value, i.labels) for i in gen] == [
        (1, (("colour", "red"),)),
        (2, (("colour", "blue"),)),
    ]


def test_product_is_every_combination_with_concatenated_labels() -> None:
    gen = product(choice("a", [("x", 1), ("y", 2)]), choice("b", [("p", 10), ("q", 20), ("r", 30)]))
    items = list(gen)
    assert len(items) == 6
    assert items[0] == Labelled((1, 10), (("a", "x"), ("b", "p")))
    assert items[-1] == Labelled((2, 30), (("a", "y"), ("b", "r")))


def test_bind_is_dependent_choice() -> None:
    # The second choice ranges over 0..first-1: 1 + 2 + 3 values.
    first = choice("n", [(str(n), n) for n in (1, 2, 3)])
    gen = first.bind(lambda n: choice("k", [(str(k), k) for k in range(n)]))
    items = list(gen)
    assert len(items) == 6
    assert all(int(i.label("k") or 0) < int(i.label("n") or 0) for i in items)
    assert items[-1].labels == (("n", "3"), ("k", "2"))


def test_generators_are_lazy_and_reiterable() -> None:
    calls: list[int] = []

    def expand(n: int) -> Gen[int]:
        calls.append(n)
        return const(n * 10)

    gen = choice("n", [("a", 1), ("b", 2)]).bind(expand)
    assert calls == []  # nothing happens until iterated
    assert [i.value for i in gen] == [10, 20]
    assert [i.value for i in gen] == [10, 20]
    assert calls == [1, 2, 1, 2]


def test_sequences_count_multisets() -> None:
    options = [(str(i), i) for i in range(5)]
    for bound in (1, 2, 3):
        expected = sum(comb(5 + k - 1, k) for k in range(1, bound + 1))
        assert sequences("s", options, bound).count() == expected
        assert sequences("s", options, bound, repeat=False).count() == sum(
            comb(5, k) for k in range(1, bound + 1)
        )
    item = list(sequences("s", options, 2))[-1]
    assert item.labels == (("s0", "4"), ("s1", "4"))


def test_optional_filter_take_union() -> None:
    gen = choice("n", [(str(n), n) for n in range(6)])
    odd = gen.bind(lambda n: optional(n if n % 2 else None))
    assert [i.value for i in odd] == [1, 3, 5]
    assert [i.value for i in gen.filter(lambda i: i.value > 3)] == [4, 5]
    assert [i.value for i in union(gen.take(2), odd.take(1))] == [0, 1, 1]
