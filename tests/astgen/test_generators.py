"""Program generators: counts at small bounds, determinism, and every program valid."""

from __future__ import annotations

import ast
from math import comb

import pytest

from lsp_server.astgen.generators import GENERATORS, cases
from lsp_server.astgen.generators import statements as statements_gen
from lsp_server.astgen.program_runner import Runner


def _multisets(options: int, bound: int) -> int:
    return sum(comb(options + k - 1, k) for k in range(1, bound + 1))


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_every_program_is_deterministic_valid_and_runs(name: str) -> None:
    first = list(GENERATORS[name].make(1))
    second = list(GENERATORS[name].make(1))
    assert first == second and first
    kinds = set(GENERATORS[name].kinds)
    with Runner(timeout=2) as runner:
        seen: dict[tuple[tuple[str, str], ...], str] = {}
        for item in first:
            case = item.value
            assert case.target.kind in kinds
            for path, text in case.program.files:
                ast.parse(text, path)
                assert not any(m in text for m in "«»⟦⟧‸"), (path, text)
            assert case.target.path in case.program.file_map
            if case.program.files not in seen:
                result = runner.run(case.program.file_map)
                assert result.error is None and not result.timed_out, (item.labels, result)
                assert result.stdout  # every program prints what it computes
                seen[case.program.files] = result.stdout
            if case.target.expected is not None:
                for path, text in case.target.expected:
                    ast.parse(text, path)
        # Label vectors identify cases: failures group by them.
        assert len({item.labels for item in first}) == len(first)


def test_counts_grow_with_the_bound_as_multisets() -> None:
    # statements: multisets of the statement kinds; each program has several selections.
    kinds = len(statements_gen._STATEMENTS)
    programs = {
        b: len({c.value.program for c in statements_gen.generate_extract_method(b)}) for b in (1, 2)
    }
    assert programs == {1: _multisets(kinds, 1), 2: _multisets(kinds, 2)}
    # every contiguous selection of every block, each as statements and as whole lines
    one = statements_gen.program_source((statements_gen._STATEMENTS[0][1],))
    assert statements_gen.selections(one).count() == 2 * comb(5 + 1, 2)
    # fields: 3 levels x uses x 2 sites, minus combinations that cannot exist.
    fields = GENERATORS["fields"].make
    assert 0 < fields(1).count() <= 3 * 11 * 2
    assert fields(2).count() > fields(1).count()


def test_cases_filter_by_generator_and_refactoring() -> None:
    renames = cases(1, ["modules"], ["rename"])
    assert renames and all(item.value.target.kind == "rename" for _, item in renames)
    moves = cases(1, ["modules"], ["move"])
    assert moves and all(item.value.target.kind == "move" for _, item in moves)
    assert len(cases(1, ["modules"])) == len(renames) + len(moves) + len(
        cases(1, ["modules"], ["rename-module"])
    )
    with pytest.raises(ValueError, match="unknown generator"):
        cases(1, ["nope"])
    with pytest.raises(ValueError, match="unknown refactoring"):
        cases(1, None, ["nope"])


def test_rename_targets_point_at_the_old_name() -> None:
    for _, item in cases(1, None, ["rename"]):
        target = item.value.target
        text = item.value.program.file_map[target.path]
        old = target.old_name
        assert old is not None
        assert text[target.offset : target.offset + len(old)] == old, item.labels
