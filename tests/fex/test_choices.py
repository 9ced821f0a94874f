"""Field-exhaustive subsets of generated programs for ``reks engine-test``."""

from __future__ import annotations

import json
from pathlib import Path

from lsp_server.astgen import driver
from lsp_server.cli import main
from lsp_server.fex.choices import (
    choice_pairs,
    choice_point_cases,
    field_exhaustive,
    field_exhaustive_cases,
    object_fields,
    pairwise_cases,
    selected_node,
    statement_starts,
)


def test_repeated_dimensions_are_separate_choice_points() -> None:
    pairs = choice_pairs("g", [("use", "call"), ("use", "getattr"), ("kind", "x")])
    assert pairs == {("g", "use", "call"), ("g", "use#2", "getattr"), ("g", "kind", "x")}


def test_greedy_subset_keeps_every_choice_in_original_order() -> None:
    items = ["ab", "a", "cd", "bd", "c"]
    chosen = field_exhaustive(items, lambda s: {("g", "letter", ch) for ch in s})
    assert chosen == ["ab", "cd"]


def test_generated_programs_subset_realises_every_choice() -> None:
    every = driver.generate(driver.Config(bound=2))
    chosen = field_exhaustive_cases(every)
    assert len(choice_point_cases(every)) < len(chosen)
    assert len(chosen) * 10 < len(every)

    def realised(cases: list) -> set:
        out: set = set()
        for name, item in cases:
            out |= choice_pairs(f"{name}/{item.value.target.kind}", item.labels)
        return out

    assert realised(chosen) == realised(every)


def test_pairwise_subset_realises_every_two_choices_taken_together() -> None:
    every = driver.generate(driver.Config(bound=1, generators=("fields", "methods")))
    chosen = pairwise_cases(every)
    assert len(choice_point_cases(every)) < len(chosen) < len(every)

    def together(cases: list) -> set:
        out: set = set()
        for name, item in cases:
            one = sorted(choice_pairs(f"{name}/{item.value.target.kind}", item.labels))
            out |= {(a, b) for a in one for b in one if a < b}
        return out

    assert together(chosen) == together(every)


def test_engine_test_field_exhaustive_suite(tmp_path: Path) -> None:
    base = ["engine-test", "--generator", "fields", "--bound", "1", "--engines", "reks"]
    assert main([*base, "--suite", "field-exhaustive", "--out", str(tmp_path / "fe")]) == 0
    assert main([*base, "--out", str(tmp_path / "be")]) == 0
    fe = json.loads((tmp_path / "fe" / "engine-test.json").read_text())
    be = json.loads((tmp_path / "be" / "engine-test.json").read_text())
    assert fe["summary"]["cases"] < be["summary"]["cases"]
    signatures = [{str(g["signature"]) for g in data["groups"]} for data in (fe, be)]
    assert signatures[0] <= signatures[1]


def test_program_object_fields_combine_each_element_with_its_neighbour_and_the_request() -> None:
    """The engine is sensitive to which uses meet in one program and to where the rename
    starts: each (first use, second use) and each (first use, site) some generated program
    shows is shown by a chosen one."""
    every = driver.generate(driver.Config(bound=2, generators=("fields",)))
    chosen = field_exhaustive_cases(every)
    assert len(chosen) * 3 < len(every)

    def combined(cases: list) -> set:
        out: set = set()
        for _, item in cases:
            labels = dict(item.labels)
            if "use1" in labels:
                out.add(("next", labels["use0"], labels["use1"], labels["site"]))
            out.add(("site", labels["use0"], labels["site"]))
        return out

    assert combined(chosen) == combined(every)


def taken_together(cases: list, dimensions: tuple[str, ...]) -> set[tuple[str, ...]]:
    """The options of ``dimensions`` each case that has them all takes together."""
    out = set()
    for _, item in cases:
        labels = dict(item.labels)
        if set(dimensions) <= set(labels):
            out.add(tuple(labels[d] for d in dimensions))
    return out


def test_choices_of_a_case_without_elements_are_paired() -> None:
    """Inlining a variable whose list a later statement mutates: each value meets each
    mutation (the two are separate parts of the program, though no element list names them)."""
    every = driver.generate(driver.Config(bound=1, generators=("inline",)))
    chosen = field_exhaustive_cases(every)

    def pairs(cases: list) -> set:
        return taken_together(cases, ("value", "mutation"))

    assert len(pairs(every)) == 15
    assert pairs(chosen) == pairs(every)


def test_every_statement_a_selection_starts_at_is_extracted_from_by_a_chosen_case() -> None:
    """Rope's extract-method bugs depend on which statement the selection starts at (the
    ``if`` that reads ``k`` in a ``while`` body, not the one that binds it, though both
    read ``if x % 2 == 1:``), which the ``from``/``to``/``nth`` labels only describe: every
    statement some generated case starts its selection at, a chosen case starts at."""
    every = driver.generate(driver.Config(bound=1, generators=("statements",)))
    chosen = field_exhaustive_cases(every)

    def starts(cases: list) -> set:
        return {
            selected_node(case) for case in cases if case[1].value.target.kind == "extract-method"
        }

    assert len(chosen) * 3 < len(every)
    assert len(starts(every)) > 20
    assert starts(chosen) == starts(every)


def test_statements_are_numbered_in_preorder_and_typed_by_kind() -> None:
    source = (
        "def work(x):\n"
        "    while x:\n"
        "        if x % 2 == 1:\n"
        "            k = x\n"
        "        if x % 2 == 1:\n"
        "            print(k)\n"
        "    return x\n"
    )
    numbered = statement_starts(source)
    assert sorted(numbered.values(), key=lambda n: int(n[1:].split(":")[0])) == [
        "#0:functiondef",
        "#1:while",
        "#2:if",
        "#3:assign",
        "#4:if",
        "#5:expr",
        "#6:return",
    ]
    second_if = source.index("if", source.index("k = x"))
    assert numbered[second_if] == "#4:if"
    assert statement_starts("def broken(:\n") == {}


def test_a_statement_equal_to_an_earlier_one_is_typed_again() -> None:
    """Rope passes the first of two equal loops' variable on to an extraction of the second
    (unbound when the first did not run): the second loop is a node of its own kind."""
    loop = "    for i in range(n):\n        print(i)\n"
    source = "def work(n):\n" + loop + loop + "    return n\n"
    numbered = statement_starts(source)
    assert numbered[source.index("for")] == "#1:for"
    assert numbered[source.rindex("for")] == "#3:for:again"
    assert numbered[source.rindex("print")] == "#4:expr:again"
    assert numbered[source.index("return")] == "#5:return"


def test_a_selection_inside_a_statement_pairs_no_element_with_the_request() -> None:
    labels = [("stmt0", "print"), ("stmt1", "while"), ("expr", "call"), ("in", "while")]
    inside = object_fields("g", labels, "x = f(1) ... x = f(1)")
    assert ("g", "request", "selects", "x = f(1) ... x = f(1)") in inside
    assert not [field for field in inside if field[2:3] == ("request",) and field[1] != "request"]
    at_node = object_fields("g", labels, "#3:while")
    assert ("g", "stmt0:print", "request", "expr=call") in at_node


def test_choices_of_a_case_without_elements_are_combined_three_at_a_time() -> None:
    """Renaming a member of a class another class overrides it in fails for one member kind
    x relation x renamed class: every three choices some generated case takes together, a
    chosen case takes together."""
    every = driver.generate(driver.Config(bound=1, generators=("classes",)))
    chosen = field_exhaustive_cases(every)

    def triples(cases: list) -> set:
        return taken_together(cases, ("member", "relation", "renamed"))

    assert len(triples(every)) > 10
    assert triples(chosen) == triples(every)
