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
    pairwise_cases,
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


def test_every_selected_statement_pair_is_extracted_by_a_chosen_case() -> None:
    """Rope's extract-method bugs depend on which statements are selected (the ``if`` that
    reads ``k`` in a ``while`` body, not the one that binds it), which the ``from``/``to``/
    ``nth`` labels only describe: every first and last selected line some generated case
    extracts, a chosen case extracts."""
    every = driver.generate(driver.Config(bound=1, generators=("statements",)))
    chosen = field_exhaustive_cases(every)

    def selected(cases: list) -> set:
        out = set()
        for _, item in cases:
            case = item.value
            if case.target.kind == "extract-method":
                text = case.program.file_map[case.target.path][case.target.offset : case.target.end]
                lines = [line.strip() for line in text.splitlines() if line.strip()]
                out.add((lines[0], lines[-1]))
        return out

    assert len(chosen) * 3 < len(every)
    assert selected(chosen) == selected(every)


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
